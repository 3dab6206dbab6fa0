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
 * Reduce-scatter around a ring: in step s rank r passes block r − s − 1 (its partial sum of it)
 * to rank r + 1 and folds its own contribution into block r − s − 2 arriving from rank r − 1;
 * after P − 1 steps block r is complete at rank r. Blocks may have any sizes.
 *
 * <p>Cost: P − 1 rounds; rank r sends the whole input but its own block, only to its neighbour.
 * Temp: two blocks. The right choice for long inputs; needs a commutative operation.
 *
 * <p>Tags: 0.
 */
public final class RingReduceScatter implements ScheduleAlgorithm {
    static final String NAME = "reduceScatter/ring";

    @Override
    public Kind kind() {
        return Kind.REDUCE_SCATTER;
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
        return emit(b, g, call.blocks(), call.extent(), call.inPlace(), call.commutative(), tempBase, after);
    }

    /** Input (all blocks) in SEND_BUFFER, or RECV_BUFFER if {@code inPlace}; own block to RECV_BUFFER at 0. */
    static int emit(ScheduleBuilder b, Group g, long[] blockBytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        Blocks.requireCommutative(NAME, commutative);
        int n = g.size();
        Blocks.checkBlocks(NAME, n, blockBytes, extent);
        int me = g.me();
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        long[] off = Blocks.offsets(blockBytes);
        if (n == 1) {
            return inPlace ? after : b.copy(RECV_BUFFER, 0, SEND_BUFFER, 0, blockBytes[0], after);
        }
        long maxBlock = 0;
        for (long x : blockBytes) {
            maxBlock = Math.max(maxBlock, x);
        }
        long[] slot = {tempBase, tempBase + maxBlock};
        b.temp(tempBase + 2 * maxBlock);
        int next = g.rank((me + 1) % n);
        int prev = g.rank((me - 1 + n) % n);
        int lastSend = ScheduleBuilder.NONE;
        int lastRecv = ScheduleBuilder.NONE;
        int reduced = ScheduleBuilder.NONE;
        byte accBuf = TEMP_BUFFER;
        long accOff = 0;
        for (int s = 0; s < n - 1; s++) {
            int sb = Math.floorMod(me - s - 1, n);
            int rb = Math.floorMod(me - s - 2, n);
            // the slot about to be received into was last read by the previous send
            int slotFree = s == 0 ? after : lastSend;
            if (s == 0) {
                lastSend = b.send(next, g.tag(0), in, off[sb], blockBytes[sb], after);
            } else {
                lastSend = b.send(next, g.tag(0), TEMP_BUFFER, slot[(s - 1) % 2], blockBytes[sb], reduced, lastSend);
            }
            boolean final_ = s == n - 2;
            accBuf = final_ && !inPlace ? RECV_BUFFER : TEMP_BUFFER;
            accOff = final_ && !inPlace ? 0 : slot[s % 2];
            lastRecv = b.recv(prev, g.tag(0), accBuf, accOff, blockBytes[rb], after, lastRecv, slotFree);
            reduced = b.reduce(accBuf, accOff, in, off[rb], blockBytes[rb], true, lastRecv);
        }
        if (!inPlace) {
            return b.join(reduced, lastSend);
        }
        // the result overwrites in-place input: after every step that reads it
        return b.copy(RECV_BUFFER, 0, accBuf, accOff, blockBytes[me], reduced, lastSend);
    }
}
