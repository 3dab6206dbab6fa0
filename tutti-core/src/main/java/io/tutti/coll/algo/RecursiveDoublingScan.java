package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

/**
 * Inclusive or exclusive prefix reduction by recursive doubling (the MPICH algorithm): in round k
 * rank r exchanges its running partial with rank r XOR 2^k. Afterwards the partial combines r's
 * whole aligned group of 2^(k+1) ranks and the result the part of that group up to r: the lower
 * partner's partial joins on the left, and only partials from below enter the result. Every
 * combination is of adjacent ranges in order, so non-commutative operations work.
 *
 * <p>Cost: ⌈log2 P⌉ rounds; a rank sends n bytes per round in which its partner exists. Temp: 2n
 * bytes. The right choice for short vectors; for long vectors on few ranks {@link LinearScan}
 * moves less data.
 *
 * <p>Tags: 0..⌈log2 P⌉−1 (one per round).
 */
public final class RecursiveDoublingScan implements ScheduleAlgorithm {
    static final String SCAN = "scan/recursive-doubling";
    static final String EXSCAN = "exscan/recursive-doubling";

    private final boolean exclusive;

    /** The inclusive scan, or with {@code exclusive} the exclusive one (exscan). */
    public RecursiveDoublingScan(boolean exclusive) {
        this.exclusive = exclusive;
    }

    @Override
    public Kind kind() {
        return exclusive ? Kind.EXSCAN : Kind.SCAN;
    }

    @Override
    public String name() {
        return "recursive-doubling";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), exclusive, tempBase,
                after);
    }

    /**
     * Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}); RECV_BUFFER gets the prefix through this
     * rank (through the rank below if {@code exclusive}; untouched on group rank 0).
     */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    boolean exclusive, long tempBase, int after) {
        Blocks.checkData(exclusive ? EXSCAN : SCAN, bytes, extent);
        int n = g.size();
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        int result = after;
        if (!exclusive && !inPlace) {
            result = b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        }
        if (n == 1) {
            return result;
        }
        long partial = tempBase;
        long incoming = tempBase + bytes;
        b.temp(tempBase + 2 * bytes);
        int part = b.copy(TEMP_BUFFER, partial, in, 0, bytes, after);
        // the exclusive result is empty until the first partial from below arrives
        boolean resultEmpty = exclusive;
        int round = 0;
        for (int mask = 1; mask < n; mask <<= 1, round++) {
            int peer = me ^ mask;
            if (peer >= n) {
                continue;
            }
            int sent = b.send(g.rank(peer), g.tag(round), TEMP_BUFFER, partial, bytes, part);
            int got = b.recv(g.rank(peer), g.tag(round), TEMP_BUFFER, incoming, bytes, part, result);
            if (peer < me) {
                result = resultEmpty
                        ? b.copy(RECV_BUFFER, 0, TEMP_BUFFER, incoming, bytes, got, result)
                        : b.reduce(RECV_BUFFER, 0, TEMP_BUFFER, incoming, bytes, true, got, result);
                resultEmpty = false;
                part = b.reduce(TEMP_BUFFER, partial, TEMP_BUFFER, incoming, bytes, true, got, sent);
                // both read the incoming partial, which the next round overwrites
                part = b.join(part, result);
            } else {
                // the partner's range lies above ours: its partial is the right operand
                part = b.reduce(TEMP_BUFFER, partial, TEMP_BUFFER, incoming, bytes, false, got, sent);
            }
        }
        return b.join(part, result);
    }
}
