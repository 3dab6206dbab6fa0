package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Allreduce as a binomial reduce to rank 0 followed by a binomial broadcast from it. Rank order
 * is kept, so it is the choice for non-commutative operations on vectors too long for recursive
 * doubling (whose every round moves the whole vector on every rank).
 *
 * <p>Cost: 2⌈log2 P⌉ rounds (the longest chain of dependent messages is ⌈log2 P⌉ + ⌊log2 P⌋); a
 * rank sends n bytes in the reduce plus n per child in the broadcast. Temp: up to 2n bytes.
 *
 * <p>Tags: 0..1 (reduce), 32 (broadcast).
 */
public final class ReduceBcastAllreduce implements ScheduleAlgorithm {
    static final String NAME = "allreduce/reduce-bcast";

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "reduce-bcast";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return emit(b, g, call.bytes(), call.extent(), call.inPlace(), call.commutative(), tempBase, after);
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if {@code inPlace}), result in RECV_BUFFER. */
    static int emit(ScheduleBuilder b, Group g, long bytes, int extent, boolean inPlace, boolean commutative,
                    long tempBase, int after) {
        int reduced = BinomialReduce.emit(b, g, bytes, extent, 0, inPlace, commutative, tempBase, after);
        // the broadcast overwrites RECV_BUFFER, which holds a non-root's in-place input: after the reduce
        return BinomialBcast.emit(b, g.withTagBase(g.tagBase() + 32), bytes, 0, tempBase, reduced);
    }
}
