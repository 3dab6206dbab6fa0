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
 * Reduce-scatter by direct exchange: every rank sends block q straight to rank q (to r + 1,
 * r + 2, … in turn, spreading the load) and receives its own block from every rank. The pieces
 * are combined strictly in rank order — the ranks below from the left, the ranks above from the
 * right, then the two halves around the own contribution — so non-commutative operations work.
 *
 * <p>Cost: one round of P − 1 concurrent messages per rank; rank r sends the whole input but
 * its own block. Temp: up to P blocks of the own block's size (every contribution may arrive
 * before its left neighbour's). The right choice for long blocks on few ranks, and the
 * reduce-scatter for non-commutative operations.
 *
 * <p>Tags: 0.
 */
public final class PairwiseReduceScatter implements ScheduleAlgorithm {
    static final String NAME = "reduceScatter/pairwise";

    @Override
    public Kind kind() {
        return Kind.REDUCE_SCATTER;
    }

    @Override
    public String name() {
        return "pairwise";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.extent(), call.inPlace(), call.commutative(), tempBase, after);
    }

    /** Input (all blocks) in SEND_BUFFER, or RECV_BUFFER if {@code inPlace}; own block to RECV_BUFFER at 0. */
    static int emit(ScheduleBuilder b, Group g, long[] blockBytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        int n = g.size();
        Blocks.checkBlocks(NAME, n, blockBytes, extent);
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        long[] off = Blocks.offsets(blockBytes);
        long len = blockBytes[me];
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, len, after);
        }
        Blocks.Steps done = new Blocks.Steps();
        for (int i = 1; i < n; i++) {
            int q = (me + i) % n;
            done.add(b.send(g.rank(q), g.tag(0), in, off[q], blockBytes[q], after));
        }
        // right: the product of ranks above; left: of ranks below; each has a slot, the others one each
        long next = tempBase;
        byte rightBuf = inPlace ? TEMP_BUFFER : RECV_BUFFER;
        long rightOff = 0;
        if (inPlace) {
            rightOff = next;
            next += len;
        }
        long leftOff = next;
        if (me > 0) {
            next += len;
        }
        long[] slot = new long[n];
        for (int q = 1; q < n - 1; q++) {
            if (q != me) {
                slot[q] = next;
                next += len;
            }
        }
        b.temp(next);
        int right;
        if (me < n - 1) {
            right = b.recv(g.rank(n - 1), g.tag(0), rightBuf, rightOff, len, after);
            for (int q = n - 2; q > me; q--) {
                int got = b.recv(g.rank(q), g.tag(0), TEMP_BUFFER, slot[q], len, after);
                right = b.reduce(rightBuf, rightOff, TEMP_BUFFER, slot[q], len, true, right, got);
            }
            right = b.reduce(rightBuf, rightOff, in, off[me], len, true, right);
        } else {
            right = b.copy(rightBuf, rightOff, in, off[me], len, after);
        }
        if (me > 0) {
            int left = b.recv(g.rank(0), g.tag(0), TEMP_BUFFER, leftOff, len, after);
            for (int q = 1; q < me; q++) {
                int got = b.recv(g.rank(q), g.tag(0), TEMP_BUFFER, slot[q], len, after);
                // the received slot is not needed again, so it may be clobbered as the right operand
                left = b.reduce(TEMP_BUFFER, leftOff, TEMP_BUFFER, slot[q], len, false, left, got);
            }
            right = b.reduce(rightBuf, rightOff, TEMP_BUFFER, leftOff, len, true, right, left);
        }
        done.add(right);
        int all = done.join(b, after);
        if (!inPlace) {
            return all;
        }
        // the result overwrites in-place input that the sends read
        return b.copy(RECV_BUFFER, 0, TEMP_BUFFER, rightOff, len, all);
    }
}
