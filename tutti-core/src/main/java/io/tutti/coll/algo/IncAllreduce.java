package io.tutti.coll.algo;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.Topology;

/**
 * In-network allreduce ({@link HierarchicalSchedules}): local binomial reduce to the leader, the
 * leader's partial result exchanged with the aggregation switches (one INC step, which the
 * in-network group splits into packets), local binomial broadcast. Leaders per node, or per socket
 * when the in-network mode says so. The switches combine the leaders' data in arrival order, so only
 * commutative operations qualify: the reduction steps here assume one.
 *
 * <p>Tags: 0 (local reduce), 128 (local broadcast).
 */
public final class IncAllreduce implements ScheduleAlgorithm {
    @Override
    public Kind kind() {
        return Kind.ALLREDUCE;
    }

    @Override
    public String name() {
        return "inc";
    }

    @Override
    public String scheduleName(CollectiveCall call, Params params) {
        return "allreduce/inc(" + Topology.count(domains(params)) + " leaders)";
    }

    /** Input in SEND_BUFFER (RECV_BUFFER if in place), result in RECV_BUFFER. */
    @Override
    public int emit(ScheduleBuilder b, Group g, CollectiveCall call, Params params, long tempBase, int after) {
        int[] domains = domains(params);
        HierarchicalSchedules.check(b.size(), domains);
        HierarchicalSchedules.Layout l = HierarchicalSchedules.layout(g, domains, -1);
        long bytes = call.bytes();
        int last = BinomialReduce.emit(b, l.local(), bytes, call.extent(), 0, call.inPlace(), true, tempBase, after);
        if (l.leader()) {
            last = b.inc(Schedule.RECV_BUFFER, 0, bytes, last);
        }
        return BinomialBcast.emit(b, l.local().withTagBase(g.tagBase() + HierarchicalSchedules.LOCAL_OUT), bytes, 0,
                tempBase, last);
    }

    private static int[] domains(Params params) {
        return HierarchicalSchedules.domains(params, params.incSockets(), "inc");
    }
}
