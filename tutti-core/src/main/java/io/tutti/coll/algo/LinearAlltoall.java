package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Alltoall with every exchange posted at once: one round in theory, P − 1 messages in flight per
 * rank in practice. The right choice when ranks have cores to spare and the blocks are small
 * enough that the flood does not matter; it takes any block sizes. Built as {@link
 * PairwiseAlltoall} without the rounds' order.
 */
public final class LinearAlltoall implements ScheduleAlgorithm {
    static final String NAME = "alltoall/linear";

    @Override
    public Kind kind() {
        return Kind.ALLTOALL;
    }

    @Override
    public String name() {
        return "linear";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return PairwiseAlltoall.emit(b, g, call.sendBlocks(), call.sendDispls(), call.blocks(), call.displs(),
                call.inPlace(), true, tempBase, after);
    }

}
