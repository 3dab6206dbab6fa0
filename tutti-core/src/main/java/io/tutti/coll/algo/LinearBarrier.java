package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier in one round: every rank signals every other rank and waits for all their signals.
 * P·(P − 1) zero-byte messages, but no rank waits twice: the choice for the ranks of one node when
 * a signal is a store into shared memory (the offloaded barrier's counters) rather than a message.
 *
 * <p>Tags: 0.
 */
public final class LinearBarrier implements ScheduleAlgorithm {
    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int n = g.size();
        int me = g.me();
        Blocks.Steps done = new Blocks.Steps();
        for (int r = 1; r < n; r++) {
            done.add(b.send(g.rank((me + r) % n), g.tag(0), Schedule.RECV_BUFFER, 0, 0, after));
        }
        for (int r = 1; r < n; r++) {
            done.add(b.recv(g.rank((me - r + n) % n), g.tag(0), Schedule.RECV_BUFFER, 0, 0, after));
        }
        return done.join(b, after);
    }

    /** Rank {@code rank}'s schedule: what the offloaded barrier on one node compiles. */
    public static Schedule build(int rank, int size) {
        return new LinearBarrier().build(CollectiveCall.barrier(), rank, size);
    }
}
