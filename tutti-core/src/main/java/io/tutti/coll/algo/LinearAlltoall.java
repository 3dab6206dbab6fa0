package io.tutti.coll.algo;

import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Alltoall with every exchange posted at once: one round in theory, P − 1 messages in flight per
 * rank in practice. The right choice when ranks have cores to spare and the blocks are small
 * enough that the flood does not matter; it takes any block sizes. Built as {@link
 * PairwiseAlltoall} without the rounds' order.
 */
public final class LinearAlltoall {
    static final String NAME = "alltoall/linear";

    private LinearAlltoall() {
    }

    public static Schedule build(int rank, int size, long[] sendBytes, long[] sendDispls, long[] recvBytes,
                                 long[] recvDispls, boolean inPlace) {
        ScheduleBuilder b = new ScheduleBuilder(NAME, rank, size);
        PairwiseAlltoall.emit(b, Group.all(rank, size), sendBytes, sendDispls, recvBytes, recvDispls, inPlace, true,
                0, ScheduleBuilder.NONE);
        return b.build();
    }
}
