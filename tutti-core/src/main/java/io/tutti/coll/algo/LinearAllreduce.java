package io.tutti.coll.algo;

import io.tutti.coll.algo.Blocks;
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
 */
public final class LinearAllreduce {
    static final String NAME = "allreduce/linear";

    private LinearAllreduce() {
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    public static Schedule build(int rank, int size, long bytes, int extent, boolean inPlace) {
        Blocks.checkData(NAME, bytes, extent);
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        b.temp(size * bytes);
        // the own vector goes to its block first: the sends read it there, so an in-place result may
        // overwrite the input, and the block is never a receive's region
        int own = b.copy(TEMP_BUFFER, rank * bytes, inPlace ? RECV_BUFFER : SEND_BUFFER, 0, bytes);
        int[] all = new int[2 * size - 1];
        all[0] = own;
        int k = 1;
        for (int r = 1; r < size; r++) {
            all[k++] = b.send((rank + r) % size, 0, TEMP_BUFFER, rank * bytes, bytes, own);
        }
        for (int r = 1; r < size; r++) {
            int from = (rank - r + size) % size;
            all[k++] = b.recv(from, 0, TEMP_BUFFER, from * bytes, bytes);
        }
        // after the sends too, which may read the accumulating last block when it is this rank's own
        int last = reduceInRankOrder(b, size, bytes, b.join(all));
        b.copy(RECV_BUFFER, 0, TEMP_BUFFER, (size - 1) * bytes, bytes, last);
        return b.build();
    }

    /**
     * Reduces the P blocks of {@code len} bytes at {@code r · len} of the temp buffer in rank order,
     * t0 ∘ (t1 ∘ (… ∘ t(P−1))): accumulated in the last block, each lower rank's block the left
     * operand, after step {@code after}. Returns the last step.
     */
    private static int reduceInRankOrder(ScheduleBuilder b, int size, long len, int after) {
        long acc = (size - 1) * len;
        int last = after;
        for (int r = size - 2; r >= 0; r--) {
            last = b.reduce(TEMP_BUFFER, acc, TEMP_BUFFER, r * len, len, true, last);
        }
        return last;
    }
}
