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
 * Pipelined reduction along a chain: the last rank of the chain sends its input segment by
 * segment to the one before it, which puts its own contribution on the left of each segment and
 * passes it on, down to the head. For a commutative operation the chain runs through relative
 * ranks P − 1, …, 1 to the root; otherwise through ranks P − 1, …, 0 in rank order, and rank 0
 * streams the result on to the root.
 *
 * <p>Cost: P − 1 + (s − 1) hops for s segments (+1 for a non-commutative operation and root ≠ 0);
 * every rank but the head sends n bytes once, so for long vectors the time approaches
 * n / bandwidth whatever P. Temp: n bytes. The right choice for long vectors, rank-ordered or not.
 *
 * <p>Tags: 0 (chain), 1 (rank 0 to the root); segments on one tag are ordered by dependencies.
 */
public final class ChainReduce implements ScheduleAlgorithm {
    static final String NAME = "reduce/chain";

    @Override
    public Kind kind() {
        return Kind.REDUCE;
    }

    @Override
    public String name() {
        return "chain";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.root(), call.inPlace() && g.me() == call.root(),
                call.commutative(), params.segment(), tempBase, after);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}); result in RECV_BUFFER at root. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, int root, boolean inPlace,
                    boolean commutative, long segment, long tempBase, int after) {
        Blocks.checkData(NAME, bytes, extent);
        Blocks.checkRoot(NAME, g.size(), root);
        long seg = Blocks.segment(NAME, segment, extent);
        int segs = Blocks.count(bytes, seg);
        int n = g.size();
        int me = g.me();
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        }
        int head = commutative ? root : 0;
        int vr = (me - head + n) % n;
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        int up = vr < n - 1 ? g.rank((vr + 1 + head) % n) : -1;
        int down = vr > 0 ? g.rank((vr - 1 + head) % n) : -1;
        int forward = vr == 0 && head != root ? g.rank(root) : -1;
        boolean finalHere = me == root && head != root;
        // where the partial through this rank is built: in place at the root, else in scratch
        boolean accInRecv = me == root && vr == 0;
        boolean recvInAcc = accInRecv && !inPlace;
        if (up >= 0 && !recvInAcc) {
            b.temp(tempBase + bytes);
        }
        int lastRecv = ScheduleBuilder.NONE;
        int lastSend = ScheduleBuilder.NONE;
        int lastReduce = ScheduleBuilder.NONE;
        int lastFwd = ScheduleBuilder.NONE;
        int lastFinal = ScheduleBuilder.NONE;
        for (int i = 0; i < segs; i++) {
            long o = i * seg;
            long len = Blocks.segLen(bytes, seg, i);
            byte acc = in;
            long accOff = o;
            int ready = after;
            if (up >= 0) {
                acc = accInRecv ? RECV_BUFFER : TEMP_BUFFER;
                accOff = accInRecv ? o : tempBase + o;
                if (recvInAcc || !accInRecv) {
                    // the partial from above lands where the result goes; the input joins on the left
                    lastRecv = b.recv(up, g.tag(0), acc, accOff, len, after, lastRecv);
                    ready = b.reduce(acc, accOff, in, o, len, true, lastRecv, lastReduce);
                } else {
                    lastRecv = b.recv(up, g.tag(0), TEMP_BUFFER, tempBase + o, len, after, lastRecv);
                    ready = b.reduce(acc, accOff, TEMP_BUFFER, tempBase + o, len, false, lastRecv, lastReduce);
                }
                lastReduce = ready;
            }
            int used = ready;
            if (down >= 0) {
                lastSend = b.send(down, g.tag(0), acc, accOff, len, ready, lastSend);
                used = lastSend;
            }
            if (forward >= 0) {
                lastFwd = b.send(forward, g.tag(1), acc, accOff, len, ready, lastFwd);
            }
            if (finalHere) {
                // in place, this segment of the buffer was our input until it went down the chain
                lastFinal = b.recv(g.rank(head), g.tag(1), RECV_BUFFER, o, len, used, lastFinal);
            }
        }
        Blocks.Steps done = new Blocks.Steps();
        done.add(lastSend);
        done.add(lastReduce);
        done.add(lastFwd);
        done.add(lastFinal);
        return done.join(b, after);
    }
}
