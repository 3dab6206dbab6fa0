package io.tutti.offload;

import io.tutti.coll.algo.BinomialBcast;
import io.tutti.coll.algo.BinomialReduce;
import io.tutti.coll.algo.BruckAllgather;
import io.tutti.coll.algo.ButterflyBarrier;
import io.tutti.coll.algo.ChainBcast;
import io.tutti.coll.algo.DisseminationBarrier;
import io.tutti.coll.algo.KaryBcast;
import io.tutti.coll.algo.RecursiveDoublingAllgather;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.algo.TreeBarrier;
import io.tutti.coll.algo.Trinaryx3Bcast;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;

/** The host schedules the offload tests compile: rank {@code r} of {@code n}, by algorithm. */
final class Schedules {
    private Schedules() {
    }

    static Schedule butterfly(int r, int n) {
        return new ButterflyBarrier().build(CollectiveCall.barrier(), r, n);
    }

    static Schedule dissemination(int r, int n) {
        return new DisseminationBarrier().build(CollectiveCall.barrier(), r, n);
    }

    static Schedule tree(int r, int n) {
        return new TreeBarrier().build(CollectiveCall.barrier(), r, n);
    }

    static Schedule binomialBcast(int r, int n, long bytes, int root) {
        return new BinomialBcast().build(CollectiveCall.bcast(bytes, root), r, n);
    }

    static Schedule kary(int r, int n, long bytes, int root, int k) {
        return new KaryBcast().build(CollectiveCall.bcast(bytes, root), r, n, Params.DEFAULT.withKary(k));
    }

    static Schedule chain(int r, int n, long bytes, int root, long segment) {
        return new ChainBcast().build(CollectiveCall.bcast(bytes, root), r, n, Params.DEFAULT.withSegment(segment));
    }

    static Schedule trinaryx3(int r, int n, long bytes, int root, long segment) {
        return new Trinaryx3Bcast().build(CollectiveCall.bcast(bytes, root), r, n, Params.DEFAULT.withSegment(segment));
    }

    static Schedule binomialReduce(int r, int n, long bytes, int extent, int root, boolean inPlace,
                                   boolean commutative) {
        return new BinomialReduce().build(CollectiveCall.reduce(bytes, extent, root, inPlace, commutative), r, n);
    }

    static Schedule recursiveDoublingAllreduce(int r, int n, long bytes, int extent, boolean inPlace,
                                               boolean commutative) {
        return new RecursiveDoublingAllreduce().build(CollectiveCall.allreduce(bytes, extent, inPlace, commutative), r,
                n);
    }

    static Schedule recursiveDoublingAllgather(int r, int n, long[] bytes, long[] displs, boolean inPlace) {
        return new RecursiveDoublingAllgather().build(CollectiveCall.allgather(bytes, displs, inPlace), r, n);
    }

    static Schedule bruckAllgather(int r, int n, long[] bytes, long[] displs, boolean inPlace) {
        return new BruckAllgather().build(CollectiveCall.allgather(bytes, displs, inPlace), r, n);
    }
}
