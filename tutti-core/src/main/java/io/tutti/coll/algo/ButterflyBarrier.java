package io.tutti.coll.algo;

import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier by the butterfly: ⌊log2 P⌋ rounds of pairwise exchange with rank XOR 2^k; for P not a
 * power of two the extra ranks first report to a partner and are released by it at the end (two
 * more rounds). P·log2 P messages, each round a two-way handshake. It is the zero-byte recursive
 * doubling allreduce, and is built as one.
 */
public final class ButterflyBarrier {
    static final String NAME = "barrier/butterfly";

    private ButterflyBarrier() {
    }

    public static Schedule build(int rank, int size) {
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        emit(b, Group.all(rank, size), 0, ScheduleBuilder.NONE);
        return b.build();
    }

    static int emit(ScheduleBuilder b, Group g, long tempBase, int after) {
        return RecursiveDoublingAllreduce.emit(b, g, 0, 1, true, true, tempBase, after);
    }
}
