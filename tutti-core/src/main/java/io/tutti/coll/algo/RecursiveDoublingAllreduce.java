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
 * Allreduce by recursive doubling: log2 P' rounds (P' = 2^⌊log2 P⌋) of pairwise exchange of the
 * whole vector, each rank combining what its partner holds. For P not a power of two the first
 * 2r ranks (r = P − P') fold pairwise first, and the folded-out ranks get the result back at the
 * end (two more rounds). Lower ranks' data is always the left operand, so non-commutative
 * operations keep rank order.
 *
 * <p>Cost: log2 P' rounds (+2 if P is not a power of two); each surviving rank sends n bytes per
 * round. Temp: n bytes. The right choice for short vectors, where latency dominates.
 *
 * <p>Tags: 0 (fold), 1..log2 P' (rounds), 63 (result back to folded-out ranks).
 *
 * <p>{@link #buildOwnRegions} gives every receive a region no other step of the run touches before
 * that receive completes (a scratch slot per round; a folded-out rank sends its input from where
 * it is and takes the result straight into its receive buffer). Then the receives can all be
 * considered posted when a run starts, which is what the offload engine's one-packet exchange
 * needs ({@code OffloadCompiler.bucket} with pre-posted receives). Temp: (log2 P' + 1) · n bytes.
 */
public final class RecursiveDoublingAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/recursive-doubling";

    private final boolean ownRegions;

    /** The selector's: scratch reused every round. */
    public RecursiveDoublingAllreduce() {
        this(false);
    }

    /** With {@code ownRegions}, a region of its own for every receive (see the class comment). */
    public RecursiveDoublingAllreduce(boolean ownRegions) {
        this.ownRegions = ownRegions;
    }

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "recursive-doubling";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), tempBase, after, ownRegions);
    }

    /** Rank {@code rank}'s schedule, not in place, a region of its own for every receive: what the offload compiles. */
    public static Schedule buildOwnRegions(int rank, int size, long bytes, int extent, boolean commutative) {
        return new RecursiveDoublingAllreduce(true).build(CollectiveCall.allreduce(bytes, extent, false, commutative),
                rank, size);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        return emit(b, g, bytes, extent, inPlace, commutative, tempBase, after, false);
    }

    private static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                            long tempBase, int after, boolean ownRegions) {
        Blocks.checkData(NAME, bytes, extent);
        int n = g.size();
        int me = g.me();
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        if (n > 1 && !inPlace && me >= 2 * rem) {
            // the first exchange needs nothing but the input: post it before the copy
            return rounds(b, g, bytes, tempBase, me - rem, rem, after, true, ownRegions);
        }
        if (ownRegions && !inPlace && me < 2 * rem && me % 2 == 0) {
            // folded out: the input goes from where it is, the result straight to its place
            int sent = b.send(g.rank(me + 1), g.tag(0), SEND_BUFFER, 0, bytes, after);
            return b.recv(g.rank(me + 1), g.tag(63), RECV_BUFFER, 0, bytes, sent);
        }
        int last = inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        if (n == 1) {
            return last;
        }
        int newRank;
        if (me < 2 * rem) {
            if (me % 2 == 0) {
                last = b.send(g.rank(me + 1), g.tag(0), RECV_BUFFER, 0, bytes, last);
                newRank = -1;
            } else {
                int got = b.recv(g.rank(me - 1), g.tag(0), TEMP_BUFFER, tempBase, bytes, last);
                last = b.reduce(RECV_BUFFER, 0, TEMP_BUFFER, tempBase, bytes, true, got);
                newRank = me / 2;
            }
        } else {
            newRank = me - rem;
        }
        if (newRank >= 0) {
            last = rounds(b, g, bytes, tempBase, newRank, rem, last, false, ownRegions);
        }
        if (me < 2 * rem) {
            if (me % 2 == 1) {
                last = b.send(g.rank(me - 1), g.tag(63), RECV_BUFFER, 0, bytes, last);
            } else {
                last = b.recv(g.rank(me + 1), g.tag(63), RECV_BUFFER, 0, bytes, last);
            }
        }
        return last;
    }

    /**
     * The exchange rounds between the 2^k surviving ranks. With {@code fromInput}, the input is still
     * in SEND_BUFFER: the first round sends it from there and copies it to RECV_BUFFER meanwhile.
     * With {@code ownRegions}, round k receives into scratch slot k (slot 0 is the fold's).
     */
    private static int rounds(ScheduleBuilder b, Group g, long bytes, long tempBase, int newRank, int rem, int last,
                              boolean fromInput, boolean ownRegions) {
        int me = g.me();
        int p2 = g.size() - rem;
        b.temp(tempBase + (ownRegions ? (Integer.numberOfTrailingZeros(p2) + 1) * bytes : bytes));
        int round = 1;
        for (int mask = 1; mask < p2; mask <<= 1, round++) {
            int peer = real(newRank ^ mask, rem);
            boolean first = fromInput && mask == 1;
            long slot = tempBase + (ownRegions ? round * bytes : 0);
            int sent = b.send(g.rank(peer), g.tag(round), first ? SEND_BUFFER : RECV_BUFFER, 0, bytes, last);
            int got = b.recv(g.rank(peer), g.tag(round), TEMP_BUFFER, slot, bytes, last);
            // the scratch is reused next round and our buffer changes: both must be done
            last = first
                    ? b.reduce(RECV_BUFFER, 0, TEMP_BUFFER, slot, bytes, peer < me, sent, got,
                            b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, last))
                    : b.reduce(RECV_BUFFER, 0, TEMP_BUFFER, slot, bytes, peer < me, sent, got);
        }
        return last;
    }

    /** The group rank standing for {@code newRank} after the fold: the odd rank of a folded pair. */
    static int real(int newRank, int rem) {
        return newRank < rem ? 2 * newRank + 1 : newRank + rem;
    }
}
