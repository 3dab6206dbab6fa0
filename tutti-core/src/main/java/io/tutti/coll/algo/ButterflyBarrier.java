package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier by the butterfly: ⌊log2 P⌋ rounds of pairwise exchange with rank XOR 2^k; for P not a
 * power of two the extra ranks first report to a partner and are released by it at the end (two
 * more rounds). P·log2 P messages, each round a two-way handshake. It is the zero-byte recursive
 * doubling allreduce, and is built as one.
 */
public final class ButterflyBarrier implements ScheduleAlgorithm {
    static final String NAME = "barrier/butterfly";

    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return "butterfly";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, tempBase, after);
    }

    static int emit(ScheduleBuilder b, Group g, long tempBase, int after) {
        return RecursiveDoublingAllreduce.emit(b, g, 0, 1, true, true, tempBase, after);
    }
}
