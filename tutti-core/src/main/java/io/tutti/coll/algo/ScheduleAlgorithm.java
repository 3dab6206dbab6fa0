package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.Topology;

/**
 * One collective algorithm as the selector sees it: the operation it serves, the name users choose
 * it by ({@code TUTTI_COLL_ALLREDUCE=ring}), whether it can serve a call, and how it lays out one
 * rank's part of a call on a {@link Group}. {@link #build} is the prologue every algorithm shares:
 * a builder named after the algorithm, the whole communicator as the group, scratch from 0.
 *
 * <p>Algorithms compose through their own {@code emit} methods on a part of the communicator (a
 * node's ranks, the leaders) with typed arguments, as the leader, reduce-bcast and tree-barrier
 * schedules and the offload plans do; this interface is what the selector's table lists.
 */
public interface ScheduleAlgorithm {
    /** The operation. */
    Kind kind();

    /** The name in settings and {@code Communicator.setAlgorithm}, e.g. {@code recursive-doubling}. */
    String name();

    /**
     * Whether it can serve {@code call}: false where it needs a commutative operation, equal blocks or
     * domains of contiguous ranks that the call or topology lacks. A build that it cannot serve
     * fails with an {@link IllegalArgumentException} that says why.
     */
    default boolean serves(CollectiveCall call, Params params) {
        return true;
    }

    /**
     * Adds rank {@code g.me()}'s steps for {@code call} over the ranks of {@code g} (the call's root
     * a virtual rank of {@code g}), with scratch from {@code tempBase}, the first steps after
     * {@code after}; returns the step that completes this rank's part.
     */
    int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after);

    /** The schedule's name, for reports: {@code allreduce/ring}. */
    default String scheduleName(CollectiveCall call, Params params) {
        return kind().methodName() + "/" + name();
    }

    /** Rank {@code rank}'s schedule for {@code call} over a communicator of {@code size}. */
    default Schedule build(CollectiveCall call, int rank, int size, Params params) {
        return build(call, rank, size, params, new ScheduleBuilder(scheduleName(call, params), rank, size));
    }

    /** As {@link #build(CollectiveCall, int, int, Params)} in {@code reuse}'s arrays (reset first). */
    default Schedule build(CollectiveCall call, int rank, int size, Params params, ScheduleBuilder reuse) {
        return fill(call, rank, size, params, scheduleName(call, params), reuse).build();
    }

    /**
     * Rank {@code rank}'s steps in {@code into}, reset first and named {@code name} (the caller's
     * {@link #scheduleName}): what {@link #build} trims into a {@code Schedule}, left in the builder
     * for a caller that reads every rank's steps in turn; returns {@code into}.
     */
    default ScheduleBuilder fill(CollectiveCall call, int rank, int size, Params params, String name,
                                 ScheduleBuilder into) {
        emit(into.reset(name, rank, size), Group.all(rank, size), call, params, 0, ScheduleBuilder.NONE);
        return into;
    }

    /** As {@link #build(CollectiveCall, int, int, Params)} with {@link Params#DEFAULT}. */
    default Schedule build(CollectiveCall call, int rank, int size) {
        return build(call, rank, size, Params.DEFAULT);
    }

    /**
     * What the selector passes to every algorithm besides the call.
     *
     * @param topology   where the ranks run: the leader algorithms group them by node or socket; the
     *                   others do not read it, and it may be null for them
     * @param segment    bytes per pipeline segment of the chain, trinaryx3 and linear-scan algorithms
     * @param kary       children per node of the k-ary broadcast tree
     * @param incSockets whether the in-network allreduce has a leader per socket (else per node)
     */
    record Params(Topology topology, long segment, int kary, boolean incSockets) {
        public static final long SEGMENT_DEFAULT = 64 * 1024;
        public static final int KARY_DEFAULT = 4;
        /** The defaults, without a topology. */
        public static final Params DEFAULT = new Params(null, SEGMENT_DEFAULT, KARY_DEFAULT, false);

        public Params withTopology(Topology t) {
            return new Params(t, segment, kary, incSockets);
        }

        public Params withSegment(long bytes) {
            return new Params(topology, bytes, kary, incSockets);
        }

        public Params withKary(int k) {
            return new Params(topology, segment, k, incSockets);
        }

        /** The topology, which {@code algorithm} needs. */
        Topology requireTopology(String algorithm) {
            if (topology == null) {
                throw new IllegalArgumentException(algorithm + " groups ranks by where they run and needs the ranks'"
                        + " topology");
            }
            return topology;
        }
    }
}
