package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier through shared memory, for communicators whose ranks all share one node: one empty slot
 * exchange ({@link io.tutti.coll.slots.NodeSlots}); a rank leaves once every rank's stamp for it is
 * published. No message, and one wait instead of ⌈log2 P⌉ rounds.
 */
public final class SlotsBarrier implements ScheduleAlgorithm {
    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return "slots";
    }

    /** Over the whole communicator only: the slots are the communicator's. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        SlotsAllreduce.requireWhole(b, g, "barrier/slots");
        return b.slots(Schedule.RECV_BUFFER, 0, Schedule.RECV_BUFFER, 0, 0, after);
    }
}
