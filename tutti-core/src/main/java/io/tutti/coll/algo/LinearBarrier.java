package io.tutti.coll.algo;

import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier in one round: every rank signals every other rank and waits for all their signals.
 * P·(P − 1) zero-byte messages, but no rank waits twice: the choice for the ranks of one node when
 * a signal is a store into shared memory (the offloaded barrier's counters) rather than a message.
 */
public final class LinearBarrier {
    static final String NAME = "barrier/linear";

    private LinearBarrier() {
    }

    public static Schedule build(int rank, int size) {
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        for (int r = 1; r < size; r++) {
            b.send((rank + r) % size, 0, Schedule.RECV_BUFFER, 0, 0);
        }
        for (int r = 1; r < size; r++) {
            b.recv((rank - r + size) % size, 0, Schedule.RECV_BUFFER, 0, 0);
        }
        return b.build();
    }
}
