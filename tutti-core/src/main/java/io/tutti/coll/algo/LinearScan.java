package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

/**
 * Inclusive or exclusive prefix reduction along a pipelined chain: rank r receives the prefix of
 * ranks 0..r−1 from rank r − 1 segment by segment, appends its own contribution on the right and
 * passes the prefix through r on to rank r + 1. Rank order is kept, so non-commutative
 * operations work.
 *
 * <p>Cost: P − 1 + (segments − 1) rounds; every rank but the last sends n bytes once. Temp: n
 * bytes. The right choice for long vectors on few ranks (each byte crosses each link once);
 * latency grows linearly with P.
 *
 * <p>Tags: 0.
 */
public final class LinearScan implements ScheduleAlgorithm {
    static final String SCAN = "scan/linear";
    static final String EXSCAN = "exscan/linear";

    private final boolean exclusive;

    /** The inclusive scan, or with {@code exclusive} the exclusive one (exscan). */
    public LinearScan(boolean exclusive) {
        this.exclusive = exclusive;
    }

    @Override
    public Kind kind() {
        return exclusive ? Kind.EXSCAN : Kind.SCAN;
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), exclusive, params.segment(),
                tempBase, after);
    }

    /**
     * Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}); RECV_BUFFER gets the prefix through this
     * rank (through the rank below if {@code exclusive}; untouched on group rank 0).
     */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    boolean exclusive, long segment, long tempBase, int after) {
        String name = exclusive ? EXSCAN : SCAN;
        Blocks.checkData(name, bytes, extent);
        long seg = Blocks.segment(name, segment, extent);
        int segs = Blocks.count(bytes, seg);
        int n = g.size();
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        Blocks.Steps done = new Blocks.Steps();
        if (!exclusive && !inPlace && (me == 0 || n == 1)) {
            done.add(b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after));
        }
        if (n == 1) {
            return done.join(b, after);
        }
        int prev = me > 0 ? g.rank(me - 1) : -1;
        int next = me < n - 1 ? g.rank(me + 1) : -1;
        boolean forward = next >= 0;
        if (me > 0 && (forward || !exclusive)) {
            b.temp(tempBase + bytes);
        }
        int lastSend = ScheduleBuilder.NONE;
        int lastRecv = ScheduleBuilder.NONE;
        int lastOwn = ScheduleBuilder.NONE;
        for (int i = 0; i < segs; i++) {
            long o = i * seg;
            long len = Blocks.segLen(bytes, seg, i);
            byte outBuf = in;
            long outOff = o;
            int ready = after;
            if (me > 0 && !exclusive) {
                // RECV = prefix ∘ own: own must be the target, as the input may not be clobbered
                int own = inPlace ? after : b.copy(RECV_BUFFER, o, SEND_BUFFER, o, len, after);
                lastRecv = b.recv(prev, g.tag(0), TEMP_BUFFER, tempBase + o, len, after, lastRecv);
                ready = b.reduce(RECV_BUFFER, o, TEMP_BUFFER, tempBase + o, len, true, lastRecv, own, lastOwn);
                outBuf = RECV_BUFFER;
            } else if (me > 0) {
                int own = ScheduleBuilder.NONE;
                if (forward) {
                    // the prefix through here goes on from scratch; in place, the input is saved
                    // before the received prefix overwrites it
                    own = b.copy(TEMP_BUFFER, tempBase + o, in, o, len, after);
                }
                lastRecv = b.recv(prev, g.tag(0), RECV_BUFFER, o, len, after, lastRecv, own);
                ready = forward ? b.reduce(TEMP_BUFFER, tempBase + o, RECV_BUFFER, o, len, true, lastRecv, own, lastOwn)
                        : lastRecv;
                outBuf = TEMP_BUFFER;
                outOff = tempBase + o;
            }
            if (forward) {
                lastSend = b.send(next, g.tag(0), outBuf, outOff, len, ready, lastSend);
            }
            if (me > 0) {
                lastOwn = ready;
            }
        }
        done.add(lastSend);
        done.add(lastOwn);
        return done.join(b, after);
    }
}
