package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier by dissemination (the butterfly for any size): in round k every rank signals
 * rank + 2^k and waits for rank − 2^k; after ⌈log2 P⌉ rounds everyone has heard from everyone.
 *
 * <p>Tags: 0..⌈log2 P⌉ − 1 (one per round).
 */
public final class DisseminationBarrier implements ScheduleAlgorithm {
    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return "dissemination";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int n = g.size();
        int me = g.me();
        int previous = after;
        for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
            b.send(g.rank((me + dist) % n), g.tag(k), Schedule.RECV_BUFFER, 0, 0, previous);
            previous = b.recv(g.rank((me - dist + n) % n), g.tag(k), Schedule.RECV_BUFFER, 0, 0, previous);
        }
        return previous;
    }
}
