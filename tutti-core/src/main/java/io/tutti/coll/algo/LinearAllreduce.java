package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

/**
 * Allreduce in one round: every rank sends its vector to every other rank, then reduces the P
 * vectors itself in rank order, t0 ∘ (t1 ∘ (… ∘ t(P−1))), so non-commutative operations keep MPI's
 * order and every rank computes the bitwise same result. P·(P − 1) messages of the whole vector and
 * P − 1 reductions per rank, but a single wait: the choice for short vectors among the ranks of one
 * node when a message is a copy into the peer's shared memory (the offloaded allreduce). Every
 * receive has a region of its own, so the schedule also suits offload with pre-posted receives.
 * Temp: P · n bytes.
 *
 * <p>Tags: 0.
 */
public final class LinearAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/linear";

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "linear";
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if in place), result in RECV_BUFFER. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        long bytes = call.bytes();
        Blocks.checkData(NAME, bytes, call.extent());
        int n = g.size();
        int me = g.me();
        b.temp(tempBase + n * bytes);
        // the own vector goes to its block first: the sends read it there, so an in-place result may
        // overwrite the input, and the block is never a receive's region
        int own = b.copy(TEMP_BUFFER, tempBase + me * bytes, call.inPlace() ? RECV_BUFFER : SEND_BUFFER, 0, bytes,
                after);
        int[] all = new int[2 * n - 1];
        all[0] = own;
        int k = 1;
        for (int r = 1; r < n; r++) {
            all[k++] = b.send(g.rank((me + r) % n), g.tag(0), TEMP_BUFFER, tempBase + me * bytes, bytes, own);
        }
        for (int r = 1; r < n; r++) {
            int from = (me - r + n) % n;
            all[k++] = b.recv(g.rank(from), g.tag(0), TEMP_BUFFER, tempBase + from * bytes, bytes, after);
        }
        // after the sends too, which may read the accumulating last block when it is this rank's own
        int last = reduceInRankOrder(b, n, bytes, tempBase, b.join(all));
        return b.copy(RECV_BUFFER, 0, TEMP_BUFFER, tempBase + (n - 1) * bytes, bytes, last);
    }

    /** Rank {@code rank}'s schedule: what the offloaded allreduce on one node compiles. */
    public static Schedule build(int rank, int size, long bytes, int extent, boolean inPlace) {
        return new LinearAllreduce().build(CollectiveCall.allreduce(bytes, extent, inPlace, true), rank, size);
    }

    /**
     * Reduces the P blocks of {@code len} bytes at {@code r · len} of the scratch in rank order,
     * t0 ∘ (t1 ∘ (… ∘ t(P−1))): accumulated in the last block, each lower rank's block the left
     * operand, after step {@code after}. Returns the last step.
     */
    private static int reduceInRankOrder(ScheduleBuilder b, int size, long len, long tempBase, int after) {
        long acc = tempBase + (size - 1) * len;
        int last = after;
        for (int r = size - 2; r >= 0; r--) {
            last = b.reduce(TEMP_BUFFER, acc, TEMP_BUFFER, tempBase + r * len, len, true, last);
        }
        return last;
    }
}
