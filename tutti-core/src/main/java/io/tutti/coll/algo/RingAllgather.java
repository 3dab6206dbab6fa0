package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;

/**
 * Allgather around a ring: in step s every rank passes the block it got in step s − 1 (its own
 * first) to its right neighbour and receives the next from its left. P − 1 rounds, each rank
 * sends every block but its right neighbour's once: the bandwidth-optimal choice for large
 * blocks, and it works straight in the receive buffer for any block sizes and displacements.
 *
 * <p>Tags: 0 (successive messages to a neighbour are ordered by dependencies).
 */
public final class RingAllgather implements ScheduleAlgorithm {
    static final String NAME = "allgather/ring";

    @Override
    public Kind kind() {
        return Kind.ALLGATHER;
    }

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.inPlace(), tempBase, after);
    }

    /** Own block from SEND_BUFFER (or already in place); block v lands at RECV_BUFFER {@code displs[v]}. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, boolean inPlace, long tempBase,
                    int after) {
        int n = g.size();
        int me = g.me();
        int have = inPlace ? after : b.copy(RECV_BUFFER, displs[me], SEND_BUFFER, 0, bytes[me], after);
        if (n == 1) {
            return have;
        }
        int right = g.rank((me + 1) % n);
        int left = g.rank((me - 1 + n) % n);
        int sent = after;
        int got = after;
        for (int s = 0; s < n - 1; s++) {
            int out = (me - s + n) % n;
            int in = (me - s - 1 + n) % n;
            sent = b.send(right, g.tag(0), RECV_BUFFER, displs[out], bytes[out], have, sent);
            got = b.recv(left, g.tag(0), RECV_BUFFER, displs[in], bytes[in], got);
            have = got;
        }
        return b.join(sent, got);
    }
}
