package io.tutti.sim;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Topology;
import java.util.Map;

/** Helpers for the tests: schedules from the real builders, and parameter sets. */
final class Sims {
    private Sims() {
    }

    static CompiledSchedules schedules(Kind kind, String algorithm, int ranks, long size, int extent) {
        CollectiveCall c = SimExperiment.call(kind, size, extent, ranks);
        return CompiledSchedules.build(new Selector(Map.of()), c, ranks, Topology.flat(ranks, false), algorithm);
    }

    /** LogGP parameters; everything else zero. */
    static SimParams loggp(long L, long os, long or, long g, double G, double O) {
        return SimParams.defaults().with(Map.of("L", "" + L, "o_s", "" + os, "o_r", "" + or, "g", "" + g, "G", "" + G,
                "O", "" + O, "reduce_per_byte", "0", "copy_per_byte", "0"));
    }

    static SimResult runLogGP(CompiledSchedules cs, SimParams p, HostModel.Trace trace) {
        return Simulation.run(new HostModel(cs, p, trace), new LogGPNetwork(p.L()), null);
    }
}
