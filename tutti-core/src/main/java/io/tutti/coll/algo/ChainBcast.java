package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;

/**
 * Pipelined broadcast along a chain: the root cuts the message into segments and sends them to
 * relative rank 1, which forwards each segment to rank 2 as soon as it has it, and so on.
 *
 * <p>Cost: P − 1 + (s − 1) hops for s segments; every rank but the last sends n bytes once, so
 * for long messages the time approaches n / bandwidth whatever P. The right choice for long
 * messages (with segments large enough to amortise per-message overhead); latency grows
 * linearly with P.
 *
 * <p>Tags: 0 (segments on a link are ordered by dependencies).
 */
public final class ChainBcast implements ScheduleAlgorithm {
    static final String NAME = "bcast/chain";

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return "chain";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.root(), params.segment(), tempBase, after);
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int root, long segment, long tempBase, int after) {
        Blocks.checkBytes(NAME, bytes);
        Blocks.checkRoot(NAME, g.size(), root);
        long seg = Blocks.segment(NAME, segment, 1);
        int n = g.size();
        int vr = (g.me() - root + n) % n;
        int from = vr > 0 ? g.rank((vr - 1 + root) % n) : -1;
        int to = vr < n - 1 ? g.rank((vr + 1 + root) % n) : -1;
        return pipe(b, g.tag(0), from, to, 0, bytes, seg, after);
    }

    /**
     * One rank's part in a pipelined path through [off, off + len) of RECV_BUFFER: receive each
     * segment from {@code from} (−1: this rank has the data) and forward it to each of {@code to}.
     * Receives and, per destination, sends are chained, so that one tag serves every segment.
     */
    static int pipe(ScheduleBuilder b, int tag, int from, int[] to, long off, long len, long seg, int after) {
        int segs = Blocks.count(len, seg);
        int lastRecv = after;
        int[] lastSend = new int[to.length];
        java.util.Arrays.fill(lastSend, ScheduleBuilder.NONE);
        for (int i = 0; i < segs; i++) {
            long o = off + i * seg;
            long l = Blocks.segLen(len, seg, i);
            if (from >= 0) {
                lastRecv = b.recv(from, tag, RECV_BUFFER, o, l, lastRecv);
            }
            for (int d = 0; d < to.length; d++) {
                lastSend[d] = b.send(to[d], tag, RECV_BUFFER, o, l, lastRecv, lastSend[d]);
            }
        }
        Blocks.Steps done = new Blocks.Steps();
        if (from >= 0) {
            done.add(lastRecv);
        }
        for (int s : lastSend) {
            done.add(s);
        }
        return done.join(b, after);
    }

    private static int pipe(ScheduleBuilder b, int tag, int from, int to, long off, long len, long seg,
                            int after) {
        return pipe(b, tag, from, to >= 0 ? new int[] {to} : new int[0], off, len, seg, after);
    }
}
