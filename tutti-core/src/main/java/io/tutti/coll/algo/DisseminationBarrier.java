package io.tutti.coll.algo;

import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier by dissemination (the butterfly for any size): in round k every rank signals
 * rank + 2^k and waits for rank − 2^k; after ⌈log2 P⌉ rounds everyone has heard from everyone.
 */
public final class DisseminationBarrier {
    private DisseminationBarrier() {
    }

    public static Schedule build(int rank, int size) {
        ScheduleBuilder b = new ScheduleBuilder("barrier/dissemination", rank, size);
        int previous = -1;
        for (int k = 0, dist = 1; dist < size; k++, dist <<= 1) {
            int to = (rank + dist) % size;
            int from = (rank - dist + size) % size;
            int[] after = previous < 0 ? new int[0] : new int[] {previous};
            b.send(to, k, Schedule.RECV_BUFFER, 0, 0, after);
            previous = b.recv(from, k, Schedule.RECV_BUFFER, 0, 0, after);
        }
        return b.build();
    }
}
