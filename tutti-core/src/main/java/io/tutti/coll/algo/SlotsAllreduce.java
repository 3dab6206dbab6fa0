package io.tutti.coll.algo;

import static io.tutti.coll.schedule.Schedule.RECV_BUFFER;
import static io.tutti.coll.schedule.Schedule.SEND_BUFFER;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Allreduce through shared memory, for communicators whose ranks all share one node: every rank
 * publishes its vector in its slot ({@link io.tutti.coll.slots.NodeSlots}) and, once all are there,
 * reduces every rank's straight from the slots in rank order (so non-commutative operations keep
 * MPI's order, and every rank computes the bitwise same result). Vectors longer than a slot go slot
 * by slot.
 *
 * <p>Cost: one exchange per slot's worth of data, in which each rank writes one slot and reads the
 * P − 1 others, and P − 1 reductions; no message, and a rank waits for the others once per slot
 * rather than once per round. The choice for short vectors on one node, above all when ranks
 * outnumber cores and each wait may cost a context switch: then every step a rank takes between two
 * waits counts once per rank that shares its core, so the exchange reduces as it reads, with no
 * steps of its own. Temp: none: the ranks' vectors are reduced straight into the result (in place
 * too, since a rank's own contribution is read back from its slot), one step per slot; a scratch
 * and a copy step after it cost about 8 % at 8 B, np 2 (docs/perf/collectives.md).
 */
public final class SlotsAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/slots";

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "slots";
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if in place), result in RECV_BUFFER; over the whole communicator only; no temp. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        long bytes = call.bytes();
        int extent = call.extent();
        Blocks.checkData(NAME, bytes, extent);
        requireWhole(b, g, NAME);
        long seg = Blocks.segment(NAME, Schedule.SLOT_BYTES, extent);
        int chunks = Blocks.count(bytes, seg);
        byte in = call.inPlace() ? RECV_BUFFER : SEND_BUFFER;
        int previous = after;
        for (int c = 0; c < chunks; c++) {
            long off = c * seg;
            long len = Blocks.segLen(bytes, seg, c);
            previous = b.slotsReduce(RECV_BUFFER, off, in, off, len, previous);
        }
        return previous;
    }

    /** The slots are the communicator's: a slot step runs over all its ranks, never a part of them. */
    static void requireWhole(ScheduleBuilder b, Group g, String name) {
        if (g.size() != b.size()) {
            throw new IllegalArgumentException(name + " runs over the whole communicator's shared-memory slots, not"
                    + " over " + g.size() + " of its " + b.size() + " ranks");
        }
    }
}
