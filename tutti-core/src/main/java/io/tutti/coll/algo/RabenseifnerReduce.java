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
 * Rabenseifner's reduce: a reduce-scatter by recursive halving over P' = 2^⌊log2 P⌋ ranks, then a
 * binomial gather of the reduced blocks to the root (the halving run backwards). For other P the
 * first 2r ranks (r = P − P') fold pairwise first; in the root's pair the root is the one that
 * stays.
 *
 * <p>Cost: 2·log2 P' rounds (+1 if P is not a power of two); a rank sends at most about 2n bytes
 * ((P' − 1)/P'·n in the halving, at most (P' − 1)/P'·n in the gather; n to fold), against ⌈log2 P⌉·n
 * arriving at the root of a binomial tree. Temp: 2n bytes (n at the root). The right choice for
 * long vectors; needs a commutative operation.
 *
 * <p>Tags: 0 (fold), 1..log2 P' (halving), log2 P'+1..2·log2 P' (gather).
 */
public final class RabenseifnerReduce implements ScheduleAlgorithm {
    static final String NAME = "reduce/rabenseifner";

    @Override
    public Kind kind() {
        return Kind.REDUCE;
    }

    @Override
    public String name() {
        return "rabenseifner";
    }

    /** Only a commutative operation. */
    @Override
    public boolean serves(CollectiveCall call, Params params) {
        return call.commutative();
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.root(), call.inPlace() && g.me() == call.root(),
                call.commutative(), tempBase, after);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}); result in RECV_BUFFER at root. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, int root, boolean inPlace,
                    boolean commutative, long tempBase, int after) {
        Blocks.requireCommutative(NAME, commutative);
        Blocks.checkData(NAME, bytes, extent);
        Blocks.checkRoot(NAME, g.size(), root);
        int n = g.size();
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        }
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        int[] realOf = RabenseifnerAllreduce.survivors(p2, rem, root);
        boolean inFold = me < 2 * rem;
        int newRank = inFold ? me / 2 : me - rem;
        if (inFold && realOf[newRank] != me) {
            return b.send(g.rank(me ^ 1), g.tag(0), in, 0, bytes, after);
        }
        boolean isRoot = me == root;
        byte acc = isRoot ? RECV_BUFFER : TEMP_BUFFER;
        long accOff = isRoot ? 0 : tempBase;
        long scratch = isRoot ? tempBase : tempBase + bytes;
        b.temp(scratch + bytes);
        // the input is read where it is until its first reduction, which writes the received data's
        // region of the accumulator: nothing is copied into the accumulator first
        int last = after;
        if (inFold) {
            if (in == acc) {
                int got = b.recv(g.rank(me ^ 1), g.tag(0), TEMP_BUFFER, scratch, bytes, after);
                last = b.reduce(acc, accOff, TEMP_BUFFER, scratch, bytes, true, got);
            } else {
                int got = b.recv(g.rank(me ^ 1), g.tag(0), acc, accOff, bytes, after);
                last = b.reduce(acc, accOff, in, 0, bytes, false, got);
                in = acc;
            }
        }
        long[] off = Blocks.sharedSplit(bytes, extent, p2);
        Blocks.Steps done = new Blocks.Steps();
        last = RabenseifnerAllreduce.halve(b, g, off, newRank, realOf, me, acc, accOff, in, in == acc ? accOff : 0,
                scratch, 1, last, new int[] {0, p2}, done);
        done.add(last);
        // the gather writes regions the halving sends read
        last = done.join(b, last);
        int newRoot = root < 2 * rem ? root / 2 : root - rem;
        int rel = newRank ^ newRoot;
        int lo = newRank;
        int k = 1 + Integer.numberOfTrailingZeros(p2);
        for (int mask = 1; mask < p2; mask <<= 1, k++) {
            int peer = g.rank(realOf[newRank ^ mask]);
            if ((rel & mask) != 0) {
                return b.send(peer, g.tag(k), acc, accOff + off[lo], off[lo + mask] - off[lo], last);
            }
            int plo = lo ^ mask;
            last = b.recv(peer, g.tag(k), acc, accOff + off[plo], off[plo + mask] - off[plo], last);
            lo = Math.min(lo, plo);
        }
        return last;
    }
}
