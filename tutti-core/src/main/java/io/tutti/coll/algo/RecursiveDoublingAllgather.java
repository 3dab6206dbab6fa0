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
 * Allgather by recursive doubling: in round k each rank swaps everything it has with rank XOR 2^k,
 * so the data held doubles every round. Blocks are kept in scratch in an order that makes every
 * exchange one contiguous message. For P not a power of two the first 2r ranks (r = P − 2^⌊log2 P⌋)
 * fold pairwise first, as in {@link RecursiveDoublingAllreduce}, and the folded-out ranks get the
 * whole result at the end. log2 P' rounds (+2 with folding), each rank sending P' − 1 of the P'
 * data units: the latency-optimal choice for small blocks; then every block is copied to its place.
 *
 * <p>Tags: 0 (fold), 1..log2 P' (rounds), 63 (result to folded-out ranks).
 */
public final class RecursiveDoublingAllgather implements ScheduleAlgorithm {
    static final String NAME = "allgather/recursive-doubling";

    @Override
    public Kind kind() {
        return Kind.ALLGATHER;
    }

    @Override
    public String name() {
        return "recursive-doubling";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.blocks(), call.displs(), call.inPlace(), tempBase, after);
    }

    /** Layout as {@link RingAllgather}. */
    static int emit(ScheduleBuilder b, Group g, long[] bytes, long[] displs, boolean inPlace, long tempBase,
                    int after) {
        int n = g.size();
        int me = g.me();
        int p2 = Integer.highestOneBit(n);
        int rem = n - p2;
        // scratch order: survivors' units in survivor order; unit nr holds ranks 2nr, 2nr+1 (nr < rem) or nr + rem
        int[] order = new int[n];
        int k = 0;
        for (int nr = 0; nr < p2; nr++) {
            if (nr < rem) {
                order[k++] = 2 * nr;
                order[k++] = 2 * nr + 1;
            } else {
                order[k++] = nr + rem;
            }
        }
        long[] at = new long[n];
        long[] unit = new long[p2 + 1];
        long off = 0;
        for (int i = 0, nr = 0; i < n; i++) {
            at[order[i]] = off;
            off += bytes[order[i]];
            if (order[i] >= 2 * rem || order[i] % 2 == 1) {
                unit[++nr] = off;
            }
        }
        b.temp(tempBase + off);
        byte ownBuf = inPlace ? RECV_BUFFER : SEND_BUFFER;
        long ownOff = inPlace ? displs[me] : 0;
        if (me < 2 * rem && me % 2 == 0) {
            // folded out: hand the block over, get everything back
            int sent = b.send(g.rank(me + 1), g.tag(0), ownBuf, ownOff, bytes[me], after);
            int got = b.recv(g.rank(me + 1), g.tag(63), TEMP_BUFFER, tempBase, off, sent);
            return spread(b, bytes, displs, me, inPlace, tempBase, at, got, after);
        }
        int have = b.copy(TEMP_BUFFER, tempBase + at[me], ownBuf, ownOff, bytes[me], after);
        int nr = me < 2 * rem ? me / 2 : me - rem;
        if (me < 2 * rem) {
            int got = b.recv(g.rank(me - 1), g.tag(0), TEMP_BUFFER, tempBase + at[me - 1], bytes[me - 1], after);
            have = b.join(have, got);
        }
        int round = 1;
        for (int mask = 1; mask < p2; mask <<= 1, round++) {
            int partner = nr ^ mask;
            int mine = nr & ~(mask - 1);
            int theirs = partner & ~(mask - 1);
            int peer = partner < rem ? 2 * partner + 1 : partner + rem;
            int sent = b.send(g.rank(peer), g.tag(round), TEMP_BUFFER, tempBase + unit[mine],
                    unit[mine + mask] - unit[mine], have);
            int got = b.recv(g.rank(peer), g.tag(round), TEMP_BUFFER, tempBase + unit[theirs],
                    unit[theirs + mask] - unit[theirs], have);
            have = b.join(sent, got);
        }
        if (me < 2 * rem) {
            have = b.join(have, b.send(g.rank(me - 1), g.tag(63), TEMP_BUFFER, tempBase, off, have));
        }
        return spread(b, bytes, displs, me, inPlace, tempBase, at, have, after);
    }

    /** Every block from scratch to its place in the receive buffer. */
    private static int spread(ScheduleBuilder b, long[] bytes, long[] displs, int me, boolean inPlace, long tempBase,
                              long[] at, int after, int none) {
        Blocks.Steps done = new Blocks.Steps();
        done.add(after);
        for (int v = 0; v < bytes.length; v++) {
            if (!(inPlace && v == me)) {
                done.add(b.copy(RECV_BUFFER, displs[v], TEMP_BUFFER, tempBase + at[v], bytes[v], after));
            }
        }
        return done.join(b, none);
    }
}
