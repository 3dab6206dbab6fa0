package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier by a binomial fan-in to rank 0 and a binomial fan-out from it: 2(P − 1) messages in all,
 * against P·⌈log2 P⌉ for dissemination, in 2⌈log2 P⌉ rounds. The right choice when ranks
 * outnumber cores: every message wakes a rank that may have to wait for a core, so fewer messages
 * beat fewer rounds.
 *
 * <p>Tags: 0 (fan-in), 1 (fan-out).
 */
public final class TreeBarrier implements ScheduleAlgorithm {
    static final String NAME = "barrier/tree";

    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return "tree";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, tempBase, after);
    }

    static int emit(ScheduleBuilder b, Group g, long tempBase, int after) {
        // zero-byte reduce and broadcast trees are exactly the fan-in and the fan-out
        int in = BinomialReduce.emit(b, g, 0, 1, 0, true, true, tempBase, after);
        return BinomialBcast.emit(b, g.withTagBase(g.tagBase() + 1), 0, 0, tempBase, in);
    }
}
