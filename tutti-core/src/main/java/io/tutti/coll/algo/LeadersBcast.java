package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.ScheduleBuilder;

/**
 * Broadcast in Node or Socket leader mode ({@link HierarchicalSchedules}): binomial among the
 * leaders (the root leads its own domain), then binomial inside each domain.
 *
 * <p>Tags: 64 (leaders), 128 (local).
 */
public final class LeadersBcast implements ScheduleAlgorithm {
    private final boolean sockets;

    /** A leader per socket with {@code sockets}, else per node. */
    public LeadersBcast(boolean sockets) {
        this.sockets = sockets;
    }

    @Override
    public Kind kind() {
        return Kind.BCAST;
    }

    @Override
    public String name() {
        return sockets ? HierarchicalSchedules.SOCKET_LEADERS : HierarchicalSchedules.NODE_LEADERS;
    }

    @Override
    public String scheduleName(CollectiveCall call, Params params) {
        return HierarchicalSchedules.name("bcast", HierarchicalSchedules.domains(params, sockets, name()));
    }

    /** Data in RECV_BUFFER, the root's being the input. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int[] domains = HierarchicalSchedules.domains(params, sockets, name());
        HierarchicalSchedules.check(b.size(), domains);
        HierarchicalSchedules.Layout l = HierarchicalSchedules.layout(g, domains, call.root());
        int last = after;
        if (l.leader()) {
            last = BinomialBcast.emit(b, l.leaders(), call.bytes(), l.leaderIndexOf(call.root()), tempBase, last);
        }
        return BinomialBcast.emit(b, l.local().withTagBase(g.tagBase() + HierarchicalSchedules.LOCAL_OUT),
                call.bytes(), 0, tempBase, last);
    }
}
