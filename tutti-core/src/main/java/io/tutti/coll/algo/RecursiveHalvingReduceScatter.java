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
 * Reduce-scatter by recursive halving: each round a rank sends the half of its remaining range
 * that its partner (at half the previous distance) keeps and reduces the half it keeps. For P not
 * a power of two the first 2r ranks (r = P − 2^⌊log2 P⌋) fold pairwise first; a surviving odd rank
 * then stands for two consecutive blocks and hands its partner's block back at the end. Blocks
 * may have any sizes (reduceScatter with counts), in element multiples.
 *
 * <p>Cost: log2 P' rounds (+2 if P is not a power of two); a rank sends about (P'−1)/P' of the
 * input for equal blocks. Temp: twice the input. The right choice for short and medium inputs;
 * needs a commutative operation.
 *
 * <p>Tags: 0 (fold), 1..log2 P' (halving), 63 (block back to a folded-out rank).
 */
public final class RecursiveHalvingReduceScatter implements ScheduleAlgorithm {
    static final String NAME = "reduceScatter/recursive-halving";

    @Override
    public Kind kind() {
        return Kind.REDUCE_SCATTER;
    }

    @Override
    public String name() {
        return "recursive-halving";
    }

    /** Only a commutative operation. */
    @Override
    public boolean serves(CollectiveCall call, Params params) {
        return call.commutative();
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.extent(), call.inPlace(), call.commutative(), tempBase, after);
    }

    /** Input (all blocks) in SEND_BUFFER, or RECV_BUFFER if {@code inPlace}; own block to RECV_BUFFER at 0. */
    static int emit(ScheduleBuilder b, Group g, long[] blockBytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        Blocks.requireCommutative(NAME, commutative);
        int n = g.size();
        Blocks.checkBlocks(NAME, n, blockBytes, extent);
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        long[] off = Blocks.offsets(blockBytes);
        long total = off[n];
        long mine = blockBytes[me];
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, mine, after);
        }
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        if (me < 2 * rem && me % 2 == 0) {
            int sent = b.send(g.rank(me + 1), g.tag(0), in, 0, total, after);
            // with inPlace the send reads the buffer the block lands in
            return b.recv(g.rank(me + 1), g.tag(63), RECV_BUFFER, 0, mine, sent);
        }
        // the accumulator is scratch: the result must end at offset 0, where in-place input still lives
        long acc = tempBase;
        long scratch = tempBase + total;
        b.temp(scratch + total);
        int last = b.copy(TEMP_BUFFER, acc, in, 0, total, after);
        int newRank = me - rem;
        if (me < 2 * rem) {
            int got = b.recv(g.rank(me - 1), g.tag(0), TEMP_BUFFER, scratch, total, after);
            last = b.reduce(TEMP_BUFFER, acc, TEMP_BUFFER, scratch, total, true, last, got);
            newRank = me / 2;
        }
        // new rank i stands for original blocks 2i and 2i+1 (i < rem) or i + rem
        long[] newOff = new long[p2 + 1];
        for (int i = 0; i < p2; i++) {
            newOff[i] = off[i < rem ? 2 * i : i + rem];
        }
        newOff[p2] = total;
        Blocks.Steps done = new Blocks.Steps();
        last = RabenseifnerAllreduce.halve(b, g, newOff, newRank, RabenseifnerAllreduce.survivors(p2, rem, -1), me,
                TEMP_BUFFER, acc, scratch, 1, last, new int[] {0, p2}, done);
        if (me < 2 * rem) {
            done.add(b.send(g.rank(me - 1), g.tag(63), TEMP_BUFFER, acc + off[me - 1], blockBytes[me - 1], last));
        }
        done.add(b.copy(RECV_BUFFER, 0, TEMP_BUFFER, acc + off[me], mine, last));
        return done.join(b, last);
    }
}
