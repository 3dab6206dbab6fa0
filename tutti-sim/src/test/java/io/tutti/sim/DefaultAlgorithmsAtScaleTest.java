package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The selector's own choices (no forced algorithm), as {@code tutti sim run} makes them, on a
 * communicator of 2^16 ranks: node leaders over many nodes. Their layouts were quadratic in P
 * (minutes at this size); they now build in linear time. With one rank per node the leaders'
 * broadcast is the binomial tree over all ranks, so both take the same time.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DefaultAlgorithmsAtScaleTest {
    private static final int NODES = 1 << 16;

    private static SimExperiment.Row run(Kind coll, String algorithm, int nodes, int ppn, long size) {
        return SimExperiment.run(new SimExperiment.Spec(coll, algorithm, "host", "loggp", "crossbar", nodes, ppn, size,
                8, SimParams.defaults()), null);
    }

    @Test
    void leaderBroadcastOfOneRankPerNodeIsTheBinomialTree() {
        SimExperiment.Row leaders = run(Kind.BCAST, null, NODES, 1, 8);
        assertEquals(Selector.NODE_LEADERS, leaders.algorithm());
        SimExperiment.Row binomial = run(Kind.BCAST, "binomial", NODES, 1, 8);
        assertEquals(binomial.completionNs(), leaders.completionNs());
        assertEquals(binomial.messages(), leaders.messages());
        assertEquals(NODES - 1, leaders.messages());
    }

    @Test
    void barrierAndAllreduceOfTheDefaultSelectorComplete() {
        for (Kind k : new Kind[] {Kind.BARRIER, Kind.ALLREDUCE, Kind.REDUCE}) {
            SimExperiment.Row r = run(k, null, NODES / 4, 4, 8);
            assertEquals(k == Kind.REDUCE ? "binomial" : Selector.NODE_LEADERS, r.algorithm(), k.toString());
            assertTrue(r.completionNs() > 0, k.toString());
            // every rank sends at least once; the leaders' exchanges add 2 log2(nodes) per leader at most
            assertTrue(r.messages() >= NODES - 1 && r.messages() <= (long) NODES * 40, k + ": " + r.messages());
        }
    }

    /** Rabenseifner's allreduce (the default above 64 KiB on a power of two) shares its block tables between ranks. */
    @Test
    void largeAllreduceOfTheDefaultSelectorCompletes() {
        SimExperiment.Row r = run(Kind.ALLREDUCE, null, NODES, 1, 1 << 20);
        assertEquals("rabenseifner", r.algorithm());
        assertEquals(2L * 16 * NODES, r.messages());
    }
}
