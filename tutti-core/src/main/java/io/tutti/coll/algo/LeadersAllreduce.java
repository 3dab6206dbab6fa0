package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Allreduce in Node or Socket leader mode ({@link HierarchicalSchedules}): a binomial reduce to each
 * domain's leader, recursive doubling among the leaders, a binomial broadcast inside each domain.
 * For a non-commutative operation every domain must be a contiguous range of ranks.
 *
 * <p>Tags: 0 (local reduce), 64 + 0..63 (recursive doubling among the leaders), 128 (local broadcast).
 */
public final class LeadersAllreduce implements ScheduleAlgorithm {
    private final boolean sockets;

    /** A leader per socket with {@code sockets}, else per node. */
    public LeadersAllreduce(boolean sockets) {
        this.sockets = sockets;
    }

    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return sockets ? HierarchicalSchedules.SOCKET_LEADERS : HierarchicalSchedules.NODE_LEADERS;
    }

    /** A commutative operation, or domains that are contiguous ranges of ranks. */
    @Override
    public boolean serves(CollectiveCall call, Params params) {
        return call.commutative() || HierarchicalSchedules.contiguous(HierarchicalSchedules.domains(params, sockets,
                name()));
    }

    @Override
    public String scheduleName(CollectiveCall call, Params params) {
        return HierarchicalSchedules.name("allreduce", HierarchicalSchedules.domains(params, sockets, name()));
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if in place), result in RECV_BUFFER. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int[] domains = HierarchicalSchedules.domains(params, sockets, name());
        HierarchicalSchedules.check(b.size(), domains);
        HierarchicalSchedules.Layout l = HierarchicalSchedules.layout(g, domains, -1);
        if (!call.commutative() && !l.table().contiguous) {
            throw new IllegalArgumentException("a non-commutative operation needs every node or socket to hold a"
                    + " contiguous range of ranks");
        }
        long bytes = call.bytes();
        // the leader's partial lands in its receive buffer; the others only send theirs
        int last = BinomialReduce.emit(b, l.local(), bytes, call.extent(), 0, call.inPlace(), call.commutative(),
                tempBase, after);
        if (l.leader()) {
            last = RecursiveDoublingAllreduce.emit(b, l.leaders(), bytes, call.extent(), true, call.commutative(),
                    tempBase, last);
        }
        return BinomialBcast.emit(b, l.local().withTagBase(g.tagBase() + HierarchicalSchedules.LOCAL_OUT), bytes, 0,
                tempBase, last);
    }
}
