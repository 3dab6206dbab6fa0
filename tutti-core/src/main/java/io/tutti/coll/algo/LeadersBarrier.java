package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Barrier in Node or Socket leader mode ({@link HierarchicalSchedules}): fan-in to each leader, a
 * butterfly among the leaders, fan-out from each leader.
 *
 * <p>Tags: 0 (fan-in), 64 + 0..63 (butterfly among the leaders), 128 (fan-out).
 */
public final class LeadersBarrier implements ScheduleAlgorithm {
    private final boolean sockets;

    /** A leader per socket with {@code sockets}, else per node. */
    public LeadersBarrier(boolean sockets) {
        this.sockets = sockets;
    }

    @Override
    public Kind kind() {
        return Kind.BARRIER;
    }

    @Override
    public String name() {
        return sockets ? HierarchicalSchedules.SOCKET_LEADERS : HierarchicalSchedules.NODE_LEADERS;
    }

    @Override
    public String scheduleName(CollectiveCall call, Params params) {
        return HierarchicalSchedules.name("barrier", HierarchicalSchedules.domains(params, sockets, name()));
    }

    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int[] domains = HierarchicalSchedules.domains(params, sockets, name());
        HierarchicalSchedules.check(b.size(), domains);
        HierarchicalSchedules.Layout l = HierarchicalSchedules.layout(g, domains, -1);
        // zero-byte reduce and broadcast are the fan-in and fan-out trees; zero-byte recursive
        // doubling is the butterfly barrier
        int last = BinomialReduce.emit(b, l.local(), 0, 1, 0, true, true, tempBase, after);
        if (l.leader()) {
            last = RecursiveDoublingAllreduce.emit(b, l.leaders(), 0, 1, true, true, tempBase, last);
        }
        return BinomialBcast.emit(b, l.local().withTagBase(g.tagBase() + HierarchicalSchedules.LOCAL_OUT), 0, 0,
                tempBase, last);
    }
}
