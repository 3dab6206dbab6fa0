package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

import java.util.Arrays;

/**
 * Ring allreduce: the vector is cut into P blocks on element boundaries; a ring reduce-scatter
 * (P − 1 steps, each rank passing one block to its right neighbour and folding in the one from
 * its left) leaves rank r with block r + 1 fully reduced, and a ring allgather (P − 1 steps)
 * circulates the reduced blocks. Optionally each block travels in segments, so that reducing one
 * segment overlaps receiving the next.
 *
 * <p>Cost: 2(P − 1) rounds (unsegmented); a rank sends 2(P − 1)/P · n bytes, the minimum for an
 * allreduce, and only to its neighbour. Temp: one block (n/P bytes). The right choice for long
 * vectors; latency grows linearly with P. Needs a commutative operation (the ring starts each
 * block at a different rank).
 *
 * <p>Tags: 0 (reduce-scatter), 1 (allgather); messages on one tag are ordered by dependencies.
 */
public final class RingAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/ring";

    private final long segment;

    /** Unsegmented: one message per block and step (what the selector runs). */
    public RingAllreduce() {
        this(Long.MAX_VALUE);
    }

    /** Blocks travel in segments of {@code segment} bytes (rounded down to whole elements). */
    public RingAllreduce(long segment) {
        this.segment = segment;
    }

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "ring";
    }

    /** Only a commutative operation. */
    @Override
    public boolean serves(CollectiveCall call, Params params) {
        return call.commutative();
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), segment, tempBase, after);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    long segment, long tempBase, int after) {
        Blocks.requireCommutative(NAME, commutative);
        Blocks.checkData(NAME, bytes, extent);
        long seg = Blocks.segment(NAME, segment, extent);
        int n = g.size();
        int me = g.me();
        int start = inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, bytes, after);
        if (n == 1) {
            return start;
        }
        long[] off = Blocks.split(bytes, extent, n);
        long maxBlock = off[1] - off[0];
        b.temp(tempBase + maxBlock);
        int next = g.rank((me + 1) % n);
        int prev = g.rank((me - 1 + n) % n);
        int maxSegs = Blocks.count(maxBlock, seg);
        // per segment slot of the scratch: the reduction that last read it
        int[] slotFree = new int[maxSegs];
        Arrays.fill(slotFree, ScheduleBuilder.NONE);
        int[] ready = new int[maxSegs];
        Arrays.fill(ready, start);
        int[][] rsSent = new int[n - 1][];
        int lastSend = ScheduleBuilder.NONE;
        int lastRecv = ScheduleBuilder.NONE;
        for (int s = 0; s < n - 1; s++) {
            int sb = Math.floorMod(me - s, n);
            int rb = Math.floorMod(me - s - 1, n);
            long sLen = off[sb + 1] - off[sb];
            long rLen = off[rb + 1] - off[rb];
            rsSent[s] = new int[Blocks.count(sLen, seg)];
            for (int i = 0; i < rsSent[s].length; i++) {
                lastSend = b.send(next, g.tag(0), RECV_BUFFER, off[sb] + i * seg, Blocks.segLen(sLen, seg, i),
                        ready[i], lastSend);
                rsSent[s][i] = lastSend;
            }
            int[] reduced = new int[Blocks.count(rLen, seg)];
            for (int i = 0; i < reduced.length; i++) {
                long len = Blocks.segLen(rLen, seg, i);
                lastRecv = b.recv(prev, g.tag(0), TEMP_BUFFER, tempBase + i * seg, len, start, lastRecv, slotFree[i]);
                reduced[i] = b.reduce(RECV_BUFFER, off[rb] + i * seg, TEMP_BUFFER, tempBase + i * seg, len, true,
                        lastRecv);
                slotFree[i] = reduced[i];
            }
            ready = reduced;
        }
        lastSend = ScheduleBuilder.NONE;
        lastRecv = ScheduleBuilder.NONE;
        for (int s = 0; s < n - 1; s++) {
            int sb = Math.floorMod(me + 1 - s, n);
            int rb = Math.floorMod(me - s, n);
            long sLen = off[sb + 1] - off[sb];
            long rLen = off[rb + 1] - off[rb];
            for (int i = 0; i < Blocks.count(sLen, seg); i++) {
                lastSend = b.send(next, g.tag(1), RECV_BUFFER, off[sb] + i * seg, Blocks.segLen(sLen, seg, i),
                        ready[i], lastSend);
            }
            int[] got = new int[Blocks.count(rLen, seg)];
            for (int i = 0; i < got.length; i++) {
                // block rb was sent from here in reduce-scatter step s: that send must have read it
                lastRecv = b.recv(prev, g.tag(1), RECV_BUFFER, off[rb] + i * seg, Blocks.segLen(rLen, seg, i),
                        rsSent[s][i], lastRecv);
                got[i] = lastRecv;
            }
            ready = got;
        }
        return b.join(lastSend, lastRecv);
    }
}
