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
 * Reduction up a binomial tree: in round k a rank whose bit k is set sends its partial result to
 * the rank 2^k below it and leaves; the others receive and fold it in. For a non-commutative
 * operation the tree is rooted at rank 0, so that every partial covers a contiguous range of
 * ranks combined in order, and rank 0 passes the result on to the root.
 *
 * <p>Cost: at most ⌈log2 P⌉ rounds (+1 for a non-commutative operation and root ≠ 0); every rank
 * but the tree's root sends n bytes once. The first child's partial lands in the accumulator and
 * the others in one scratch area, one after the other. Temp: up to 2n bytes (accumulator off the
 * root, scratch with several children). The right choice for short vectors, and the rank-ordered
 * choice for any length.
 *
 * <p>Tags: 0 (tree), 1 (rank 0 to the root).
 */
public final class BinomialReduce implements ScheduleAlgorithm {
    static final String NAME = "reduce/binomial";

    @Override
    public Kind kind() {
        return Kind.REDUCE;
    }

    @Override
    public String name() {
        return "binomial";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.root(), call.inPlace() && g.me() == call.root(),
                call.commutative(), tempBase, after);
    }

    /**
     * Input in SEND_BUFFER, or in RECV_BUFFER when {@code inPlace} (on any rank: a composed
     * algorithm may keep a non-root's input there; it is only read); result in RECV_BUFFER at root.
     */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, int root, boolean inPlace,
                    boolean commutative, long tempBase, int after) {
        return emit(b, g, bytes, extent, root, inPlace, commutative, RECV_BUFFER, 0, tempBase, after);
    }

    /**
     * The root's result in {@code out} at {@code outOff}, outside the scratch from {@code tempBase}
     * (an intercommunicator's leader reduces into scratch); {@code inPlace} reads the input there.
     */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, int root, boolean inPlace,
                    boolean commutative, byte out, long outOff, long tempBase, int after) {
        Blocks.checkData(NAME, bytes, extent);
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        int me = g.me();
        int treeRoot = commutative ? root : 0;
        int vr = (me - treeRoot + n) % n;
        byte in = inPlace ? out : SEND_BUFFER;
        int children = 0;
        int mask = 1;
        while (mask < n && (vr & mask) == 0) {
            children += vr + mask < n ? 1 : 0;
            mask <<= 1;
        }
        // partial result: the input itself for a leaf; else built in place at the root, in scratch elsewhere
        byte acc = in;
        long accOff = inPlace ? outOff : 0;
        int last = after;
        if (children == 0 && n == 1 && !inPlace) {
            last = b.copy(out, outOff, SEND_BUFFER, 0, bytes, after);
        } else if (children > 0) {
            boolean accInRecv = me == root && vr == 0;
            acc = accInRecv ? out : TEMP_BUFFER;
            accOff = accInRecv ? outOff : tempBase;
            long scratch = accInRecv ? tempBase : tempBase + bytes;
            boolean inputInAcc = accInRecv && inPlace;
            b.temp((accInRecv ? tempBase : scratch) + (children > 1 || inputInAcc ? bytes : 0));
            int k = 0;
            int scratchFree = after;
            for (mask = 1; k < children; mask <<= 1) {
                if (vr + mask >= n) {
                    continue;
                }
                int child = g.rank((vr + mask + treeRoot) % n);
                if (k == 0 && !inputInAcc) {
                    // the first child's partial lands in the accumulator and the input joins it on
                    // the left: no copy of the input, and the read-only input is never the target
                    int got = b.recv(child, g.tag(0), acc, accOff, bytes, after);
                    last = b.reduce(acc, accOff, in, inPlace ? outOff : 0, bytes, true, got);
                } else {
                    // the child's partial covers higher ranks: the right operand
                    int got = b.recv(child, g.tag(0), TEMP_BUFFER, scratch, bytes, scratchFree);
                    last = b.reduce(acc, accOff, TEMP_BUFFER, scratch, bytes, false, last, got);
                    scratchFree = last;
                }
                k++;
            }
        }
        if (vr != 0) {
            last = b.send(g.rank((vr - (vr & -vr) + treeRoot) % n), g.tag(0), acc, accOff, bytes, last);
        }
        if (treeRoot != root) {
            if (vr == 0) {
                last = b.send(g.rank(root), g.tag(1), acc, accOff, bytes, last);
            } else if (me == root) {
                // after our own partial left: with inPlace it was read from this very buffer
                last = b.recv(g.rank(treeRoot), g.tag(1), out, outOff, bytes, last);
            }
        }
        return last;
    }
}
