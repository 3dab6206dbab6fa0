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
 * Rabenseifner's allreduce: a reduce-scatter by recursive halving (each round exchanges half of
 * what is still being reduced with a partner at half the distance) followed by an allgather by
 * recursive doubling, over P' = 2^⌊log2 P⌋ ranks; for other P the first 2r ranks (r = P − P')
 * fold pairwise before and get the result back after. Blocks are cut on element boundaries.
 *
 * <p>Cost: 2·log2 P' rounds (+2 if P is not a power of two); a rank sends 2·(P'−1)/P'·n bytes
 * (plus n for the fold). Temp: n bytes. The right choice for long vectors on a moderate number of
 * ranks: near-optimal bandwidth with logarithmic latency. Needs a commutative operation (partial
 * results of non-adjacent ranks are combined).
 *
 * <p>Tags: 0 (fold), 1..log2 P' (halving), log2 P'+1..2·log2 P' (doubling), 63 (unfold).
 */
public final class RabenseifnerAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/rabenseifner";

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
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
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), tempBase, after);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        Blocks.requireCommutative(NAME, commutative);
        Blocks.checkData(NAME, bytes, extent);
        int n = g.size();
        int me = g.me();
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        }
        b.temp(tempBase + bytes);
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        int newRank = me - rem;
        // out of place, this rank's contribution is read where it is until its first reduction, which
        // writes the received data's region of RECV_BUFFER: nothing is copied into RECV_BUFFER first
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        int last = after;
        if (me < 2 * rem) {
            if (me % 2 == 0) {
                int sent = b.send(g.rank(me + 1), g.tag(0), in, 0, bytes, last);
                return b.recv(g.rank(me + 1), g.tag(63), RECV_BUFFER, 0, bytes, sent);
            }
            if (inPlace) {
                int got = b.recv(g.rank(me - 1), g.tag(0), TEMP_BUFFER, tempBase, bytes, last);
                last = b.reduce(RECV_BUFFER, 0, TEMP_BUFFER, tempBase, bytes, true, got);
            } else {
                int got = b.recv(g.rank(me - 1), g.tag(0), RECV_BUFFER, 0, bytes, last);
                last = b.reduce(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, false, got);
            }
            in = RECV_BUFFER;
            newRank = me / 2;
        }
        long[] off = Blocks.sharedSplit(bytes, extent, p2);
        int[] range = {0, p2};
        Blocks.Steps done = new Blocks.Steps();
        int[] realOf = survivors(p2, rem, -1);
        last = halve(b, g, off, newRank, realOf, me, RECV_BUFFER, 0, in, 0, tempBase, 1, last, range, done);
        done.add(last);
        // allgather writes regions the halving sends read: wait for all of them
        last = done.join(b, last);
        int k = 1 + Integer.numberOfTrailingZeros(p2);
        int lo = newRank;
        for (int mask = 1; mask < p2; mask <<= 1, k++) {
            int peer = g.rank(realOf[newRank ^ mask]);
            int plo = lo ^ mask;
            int sent = b.send(peer, g.tag(k), RECV_BUFFER, off[lo], off[lo + mask] - off[lo], last);
            int got = b.recv(peer, g.tag(k), RECV_BUFFER, off[plo], off[plo + mask] - off[plo], last);
            last = b.join(sent, got);
            lo = Math.min(lo, plo);
        }
        if (me < 2 * rem) {
            last = b.send(g.rank(me - 1), g.tag(63), RECV_BUFFER, 0, bytes, last);
        }
        return last;
    }

    /**
     * The group rank that stands for each new rank after folding the first {@code 2·rem} ranks in
     * pairs: the odd rank of a pair, except in the pair holding {@code keep} (if any), where it is
     * {@code keep}. The array is shared between calls with the same arguments (O(P) for a whole
     * communicator's schedules, not O(P²)): read it, never write it.
     */
    static int[] survivors(int p2, int rem, int keep) {
        Survivors s = lastSurvivors;
        if (s == null || s.p2() != p2 || s.rem() != rem || s.keep() != keep) {
            s = new Survivors(p2, rem, keep, computeSurvivors(p2, rem, keep));
            lastSurvivors = s;
        }
        return s.real();
    }

    private record Survivors(int p2, int rem, int keep, int[] real) {
    }

    /** The last {@link #survivors} answer: shared between the ranks of one communicator, never written. */
    private static volatile Survivors lastSurvivors;

    private static int[] computeSurvivors(int p2, int rem, int keep) {
        int[] real = new int[p2];
        for (int i = 0; i < p2; i++) {
            real[i] = i < rem ? (keep >= 0 && keep / 2 == i && keep < 2 * rem ? keep : 2 * i + 1) : i + rem;
        }
        return real;
    }

    /**
     * Reduce-scatter by recursive halving over p2 = off.length − 1 blocks of the accumulator
     * {@code acc}, from round tag {@code tag0}; on return {@code range} is the block range this
     * rank owns (its new rank's block), sends are added to {@code sends}, and the step returned
     * is the last reduction. Scratch: the larger half, at {@code scratch} in TEMP.
     */
    static int halve(ScheduleBuilder b, Group g, long[] off, int newRank, int[] realOf, int me, byte acc, long accOff,
                     long scratch, int tag0, int last, int[] range, Blocks.Steps sends) {
        return halve(b, g, off, newRank, realOf, me, acc, accOff, acc, accOff, scratch, tag0, last, range, sends);
    }

    /**
     * As above, with this rank's contribution at {@code in} rather than already in {@code acc}: the
     * first round sends from it, receives the partner's half straight into {@code acc} and reduces
     * the contribution onto that (for a commutative operation, whose reduction leaves its source
     * as it was). {@code acc} need hold nothing before.
     */
    static int halve(ScheduleBuilder b, Group g, long[] off, int newRank, int[] realOf, int me, byte acc, long accOff,
                     byte in, long inOff, long scratch, int tag0, int last, int[] range, Blocks.Steps sends) {
        boolean apart = in != acc || inOff != accOff;
        int p2 = off.length - 1;
        int lo = range[0];
        int hi = range[1];
        int k = tag0;
        for (int mask = p2 >> 1; mask > 0; mask >>= 1, k++) {
            int peerV = realOf[newRank ^ mask];
            int peer = g.rank(peerV);
            int mid = lo + mask;
            boolean lower = (newRank & mask) == 0;
            int sLo = lower ? mid : lo;
            int sHi = lower ? hi : mid;
            int kLo = lower ? lo : mid;
            int kHi = lower ? mid : hi;
            long keep = off[kHi] - off[kLo];
            if (apart) {
                apart = false;
                sends.add(b.send(peer, g.tag(k), in, inOff + off[sLo], off[sHi] - off[sLo], last));
                int got = b.recv(peer, g.tag(k), acc, accOff + off[kLo], keep, last);
                last = b.reduce(acc, accOff + off[kLo], in, inOff + off[kLo], keep, me < peerV, got);
            } else {
                sends.add(b.send(peer, g.tag(k), acc, accOff + off[sLo], off[sHi] - off[sLo], last));
                int got = b.recv(peer, g.tag(k), TEMP_BUFFER, scratch, keep, last);
                last = b.reduce(acc, accOff + off[kLo], TEMP_BUFFER, scratch, keep, peerV < me, got);
            }
            lo = kLo;
            hi = kHi;
        }
        range[0] = lo;
        range[1] = hi;
        return last;
    }
}
