package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;

/**
 * Van de Geijn's broadcast for long messages: the root scatters the message in P chunks down a
 * binomial tree (relative rank v ends with chunk v), then a ring allgather circulates the chunks.
 *
 * <p>Cost: ⌈log2 P⌉ + P − 1 rounds; the root sends (P − 1)/P·n bytes in the scatter, and every rank
 * (P − 1)/P·n in the ring, so no rank sends more than about 2n bytes against ⌈log2 P⌉·n for the
 * binomial tree. The right choice for long messages when pipelining a chain is not wanted.
 *
 * <p>Tags: 0 (scatter), 1 (ring; ordered by dependencies).
 */
public final class ScatterAllgatherBcast implements ScheduleAlgorithm {
    static final String NAME = "bcast/scatter-allgather";

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return "scatter-allgather";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.root(), tempBase, after);
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, long tempBase, int after) {
        Blocks.checkBytes(NAME, bytes);
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        if (n == 1) {
            return after;
        }
        int vr = (g.me() - root + n) % n;
        long[] chunk = Blocks.split(bytes, 1, n);
        Blocks.Steps scattered = new Blocks.Steps();
        int have = after;
        // a subtree of relative ranks [v, v + span) gets chunks [v, v + span)
        int span = vr == 0 ? Integer.highestOneBit(n - 1) << 1 : vr & -vr;
        if (vr > 0) {
            int hi = Math.min(vr + span, n);
            have = b.recv(g.rank((vr - span + root) % n), g.tag(0), RECV_BUFFER, chunk[vr], chunk[hi] - chunk[vr],
                    after);
            scattered.add(have);
        }
        for (int mask = span >> 1; mask > 0; mask >>= 1) {
            int child = vr + mask;
            if (child < n) {
                int hi = Math.min(child + mask, n);
                scattered.add(b.send(g.rank((child + root) % n), g.tag(0), RECV_BUFFER, chunk[child],
                        chunk[hi] - chunk[child], have));
            }
        }
        // the ring delivers chunks this rank may still be forwarding in the scatter
        int scatterDone = scattered.join(b, after);
        int next = g.rank((vr + 1 + root) % n);
        int prev = g.rank((vr - 1 + n + root) % n);
        int lastSend = ScheduleBuilder.NONE;
        int lastRecv = have;
        for (int s = 0; s < n - 1; s++) {
            int sc = Math.floorMod(vr - s, n);
            int rc = Math.floorMod(vr - s - 1, n);
            lastSend = b.send(next, g.tag(1), RECV_BUFFER, chunk[sc], chunk[sc + 1] - chunk[sc], lastRecv, lastSend);
            lastRecv = b.recv(prev, g.tag(1), RECV_BUFFER, chunk[rc], chunk[rc + 1] - chunk[rc], scatterDone,
                    lastRecv);
        }
        return b.join(lastSend, lastRecv);
    }
}
