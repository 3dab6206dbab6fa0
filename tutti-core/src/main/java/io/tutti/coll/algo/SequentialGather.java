package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Gather by direct sends to the root, which receives them one after another in rank order, each
 * receive posted when the one before has completed: the blocking loop of MPICH 1.x
 * ({@code intra_Gather}, 1995–2002), the lineage of [BCL-3]'s MPI. Every sender sends at once, but
 * a rendezvous is answered only when its receive is posted, so the root takes one block per round
 * trip, where {@link LinearGather} overlaps them; never faster, so no row chooses it: it serves to
 * model MPI libraries of that lineage ([BCL-3] table 5.14, docs/sim/README.md).
 *
 * <p>Tags: 0.
 */
public final class SequentialGather implements ScheduleAlgorithm {
    static final String NAME = "gather/sequential";

    @Override
    public Kind kind() {
        return Kind.GATHER;
    }

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        return SequentialScatter.emit(b, g, call, true, after);
    }
}
