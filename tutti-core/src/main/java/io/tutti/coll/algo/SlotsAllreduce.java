package io.tutti.coll.algo;

import io.tutti.coll.algo.Blocks;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;
import static io.tutti.coll.schedule.Schedule.TEMP_BUFFER;

import io.tutti.coll.slots.SlotAreaDescriptor;

/**
 * Allreduce through shared memory, for communicators whose ranks all share one node: every rank
 * publishes its vector in its slot ({@link NodeSlots}) and, once all are there, reduces every rank's
 * straight from the slots in rank order (so non-commutative operations keep MPI's order, and every
 * rank computes the bitwise same result). Vectors longer than a slot go slot by slot.
 *
 * <p>Cost: one exchange per slot's worth of data, in which each rank writes one slot and reads the
 * P − 1 others, and P − 1 reductions; no message, and a rank waits for the others once per slot
 * rather than once per round. The choice for short vectors on one node, above all when ranks
 * outnumber cores and each wait may cost a context switch: then every step a rank takes between two
 * waits counts once per rank that shares its core, so the exchange reduces as it reads, with no
 * steps of its own. Temp: min(n, slot) bytes.
 */
public final class SlotsAllreduce {
    static final String NAME = "allreduce/slots";

    private SlotsAllreduce() {
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    public static Schedule build(int rank, int size, long bytes, int extent, boolean inPlace) {
        Blocks.checkData(NAME, bytes, extent);
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        long seg = Blocks.segment(NAME, SlotAreaDescriptor.SLOT_BYTES, extent);
        int chunks = Blocks.count(bytes, seg);
        byte in = inPlace ? RECV_BUFFER : SEND_BUFFER;
        b.temp(Math.min(seg, bytes));
        int previous = ScheduleBuilder.NONE;
        for (int c = 0; c < chunks; c++) {
            long off = c * seg;
            long len = Blocks.segLen(bytes, seg, c);
            // reduced in the scratch rather than the result buffer, so that short vectors reduce in
            // place (Reduction's direct path), and the user's buffer takes one copy
            previous = b.copy(RECV_BUFFER, off, TEMP_BUFFER, 0, len, b.slotsReduce(TEMP_BUFFER, 0, in, off, len, previous));
        }
        return b.build();
    }
}
