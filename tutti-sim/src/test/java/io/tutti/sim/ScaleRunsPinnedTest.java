package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Topology;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The runs of docs/perf/sim.md's scale table at 2^12 ranks, pinned to the nanosecond: completion
 * time, every rank's finish time (as one hash), events, messages, bytes and shapes. The simulator's
 * speed-ups (schedule folding, event queue, per-rank state) must leave every prediction as it was;
 * the values were taken before that work began.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScaleRunsPinnedTest {
    private static final int P = 1 << 12;

    /** One run as {@code tutti sim run} makes it, summarised: completion, finish hash, events, messages, bytes, shapes. */
    private static String run(Kind coll, String algorithm, String network, int nodes, int ppn, long size,
                              Map<String, String> params) {
        SimParams p = SimParams.defaults().with(params);
        SimExperiment.Row row = SimExperiment.run(new SimExperiment.Spec(coll, algorithm, "host", network,
                network.equals("packet") ? "fattree:k=16" : "crossbar", nodes, ppn, size, 8, p), null);
        int ranks = nodes * ppn;
        int[] node = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            node[r] = r / ppn;
        }
        CollectiveCall c = SimExperiment.call(coll, size, 8, ranks);
        CompiledSchedules cs = CompiledSchedules.build(new Selector(Map.of()), c, ranks,
                new Topology(node, new int[ranks], false), row.algorithm());
        Network net = network.equals("packet") ? new PacketNetwork(Fabric.parse("fattree:k=16", nodes), p, ppn)
                : new LogGPNetwork(p.L());
        SimResult r = Simulation.run(new HostModel(cs, p, null), net, null);
        long h = 17;
        for (long f : r.finishNs()) {
            h = h * 1_000_003 + f;
        }
        return row.algorithm() + " " + row.completionNs() + " " + r.completionNs() + " " + Long.toHexString(h) + " "
                + row.events() + " " + row.messages() + " " + row.bytes() + " " + row.shapes();
    }

    @Test
    void binomialBroadcast() {
        assertEquals("binomial 220620 220620 bc353b0b38a31811 12285 4095 32760 13", run(Kind.BCAST, "binomial", "loggp", P, 1, 8, Map.of()));
    }

    @Test
    void defaultBroadcast() {
        assertEquals("node-leaders 220620 220620 bc353b0b38a31811 12285 4095 32760 13", run(Kind.BCAST, null, "loggp", P, 1, 8, Map.of()));
    }

    @Test
    void defaultBarrier() {
        assertEquals("node-leaders 220044 220044 7ef2c3296332c011 147456 49152 0 2", run(Kind.BARRIER, null, "loggp", P, 1, 8, Map.of()));
    }

    @Test
    void defaultAllreduce() {
        assertEquals("node-leaders 220718 220718 996a016e1eea0011 200704 49152 393216 2", run(Kind.ALLREDUCE, null, "loggp", P, 1, 8, Map.of()));
    }

    @Test
    void disseminationBarrier() {
        assertEquals("dissemination 220044 220044 7ef2c3296332c011 98304 49152 0 1", run(Kind.BARRIER, "dissemination", "loggp", P, 1, 8, Map.of()));
    }

    /** Four ranks per node: shared memory inside a node, leaders between. */
    @Test
    void defaultAllreduceOfFourRanksPerNode() {
        assertEquals("node-leaders 257486 257486 63f5fd4574011811 62464 16384 131072 4", run(Kind.ALLREDUCE, null, "loggp", P / 4, 4, 8, Map.of()));
    }

    /** Host noise: every CPU time drawn per (rank, step), so a step renumbered or a rank misplaced shows. */
    @Test
    void noisyAllreduceAndBroadcast() {
        Map<String, String> noise = Map.of("host_noise", "1", "o_per_rank", "2");
        assertEquals("node-leaders 903910 903910 fd8f11d6f9322125 62464 16384 1048576 4", run(Kind.ALLREDUCE, null, "loggp", P / 4, 4, 64, noise));
        assertEquals("binomial 544553 544553 abc651dd20bd11c8 12285 4095 32760 13",
                run(Kind.BCAST, "binomial", "loggp", P, 1, 8, noise));
    }

    /** Rabenseifner's allreduce of 1 MiB over the packet network with contention. */
    @Test
    void rabenseifnerOnThePacketNetwork() {
        assertEquals("rabenseifner 15788692 15788692 e4f05d0e74d7f011 2942976 20480 2145386496 2", run(Kind.ALLREDUCE, "rabenseifner", "packet", 1 << 10, 1, 1 << 20, Map.of()));
    }
}
