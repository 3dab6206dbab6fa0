package io.tutti.coll.algo;

import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier through shared memory, for communicators whose ranks all share one node: one empty slot
 * exchange ({@link NodeSlots}); a rank leaves once every rank's stamp for it is published. No
 * message, and one wait instead of ⌈log2 P⌉ rounds.
 */
public final class SlotsBarrier {
    private SlotsBarrier() {
    }

    public static Schedule build(int rank, int size) {
        ScheduleBuilder b = new ScheduleBuilder("barrier/slots", rank, size);
        b.slots(Schedule.RECV_BUFFER, 0, Schedule.RECV_BUFFER, 0, 0);
        return b.build();
    }
}
