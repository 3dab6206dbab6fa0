package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Switch mode: in-network aggregation of an allreduce in ToR and spine switches. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SwitchModelTest {
    private static final long OS = 100;
    private static final long OR = 50;
    private static final long LINK = 10;
    private static final long PORT = 20;
    private static final long ALU = 5;

    /** Round figures: 1 ns per byte on a link, no header, no NIC gap, no shared-memory costs. */
    private static SimParams params(int slots) {
        return SimParams.defaults().with(Map.ofEntries(Map.entry("o_s", "" + OS), Map.entry("o_r", "" + OR),
                Map.entry("g", "0"), Map.entry("O", "0"), Map.entry("link_latency", "" + LINK),
                Map.entry("link_ns_per_byte", "1"), Map.entry("switch_delay", "" + PORT),
                Map.entry("switch_alu", "" + ALU), Map.entry("switch_slots", "" + slots),
                Map.entry("inc_payload", "256"), Map.entry("inc_header", "0"), Map.entry("shm_latency", "0"),
                Map.entry("shm_ns_per_byte", "0"), Map.entry("reduce_per_byte", "0"),
                Map.entry("copy_per_byte", "0"), Map.entry("sockets", "2")));
    }

    private static SimResult run(SwitchModel m) {
        return Simulation.run(m, null, null);
    }

    /**
     * One 8-byte packet from each of two nodes under two ToRs: up to the ToR, up to the spine,
     * down to the ToR, down to the host, with the documented costs.
     */
    @Test
    void twoLevelAggregationOfOneSmallPacketIsTheSumOfItsDelays() {
        long w = 8; // 8 B at 1 ns/B, no header
        SimResult r = run(new SwitchModel(2, 1, 1, SwitchModel.Leaders.NODE, 8, 8, null, params(4)));
        long expected = OS                // the leader posts the message
                + (w + LINK + PORT)       // host -> ToR
                + ALU                     // the ToR combines its one child's packet
                + (w + LINK + PORT)       // ToR -> spine
                + 2 * ALU                 // the spine combines both ToRs' packets, one after the other
                + (w + LINK + PORT)       // spine -> ToR
                + (w + LINK)              // ToR -> host
                + OR;                     // the leader takes the result in
        assertEquals(expected, r.completionNs());
        assertEquals(2 + 2 + 2 + 2, r.messages(), "two packets up each level, two down each level");
    }

    /** With one ToR holding every node there is no spine: up, aggregate all children, down. */
    @Test
    void oneLevelAggregationUnderASingleToR() {
        long w = 8;
        SimResult r = run(new SwitchModel(3, 1, 3, SwitchModel.Leaders.NODE, 8, 8, null, params(4)));
        assertEquals(OS + (w + LINK + PORT) + 3 * ALU + (w + LINK) + OR, r.completionNs());
    }

    /** A message over several chunks: pipelined packets, every rank gets the exact sums. */
    @Test
    void allreduceResultsAreTheSumsForAnyLayout() {
        Random random = new Random(11);
        for (int trial = 0; trial < 60; trial++) {
            int nodes = 1 + random.nextInt(9);
            int sockets = 2;
            int ppn = sockets * (1 + random.nextInt(4));
            int perTor = 1 + random.nextInt(4);
            SwitchModel.Leaders leaders = random.nextBoolean() ? SwitchModel.Leaders.NODE : SwitchModel.Leaders.SOCKET;
            int elements = 1 + random.nextInt(300);
            int slots = 1 + random.nextInt(3);
            int ranks = nodes * ppn;
            long[][] data = new long[ranks][elements];
            long[] sum = new long[elements];
            for (int r = 0; r < ranks; r++) {
                for (int e = 0; e < elements; e++) {
                    data[r][e] = random.nextInt(1_000_000) - 500_000;
                    sum[e] += data[r][e];
                }
            }
            SwitchModel m = new SwitchModel(nodes, ppn, perTor, leaders, 8L * elements, 8, data, params(slots));
            SimResult res = run(m);
            String what = nodes + " nodes x " + ppn + ", " + perTor + " per ToR, " + leaders + ", " + elements
                    + " longs, " + slots + " slots";
            for (int r = 0; r < ranks; r++) {
                assertArrayEquals(sum, m.data(r), "rank " + r + ": " + what);
                assertTrue(res.finishNs()[r] > 0, what);
            }
        }
    }

    /** Same input, same result; and fewer slots than chunks cannot make an allreduce faster. */
    @Test
    void deterministicAndSlotsLimitThePipeline() {
        SimParams many = params(64);
        SimResult a = run(new SwitchModel(9, 8, 3, SwitchModel.Leaders.SOCKET, 4096, 4, null, many));
        SimResult b = run(new SwitchModel(9, 8, 3, SwitchModel.Leaders.SOCKET, 4096, 4, null, many));
        assertEquals(a.completionNs(), b.completionNs());
        assertArrayEquals(a.finishNs(), b.finishNs());
        assertEquals(a.events(), b.events());
        SimResult one = run(new SwitchModel(9, 8, 3, SwitchModel.Leaders.SOCKET, 4096, 4, null, params(1)));
        assertTrue(one.completionNs() > a.completionNs(), one.completionNs() + " vs " + a.completionNs());
    }

    /** Local reduce and broadcast: a node of 4 ranks adds two shared-memory tree levels each way. */
    @Test
    void intraNodeTreesUseTheHostCosts() {
        SimParams p = params(4).with(Map.of("shm_latency", "7"));
        long w = 8;
        SimResult one = run(new SwitchModel(1, 1, 1, SwitchModel.Leaders.NODE, 8, 8, null, p));
        assertEquals(OS + (w + LINK + PORT) + ALU + (w + LINK) + OR, one.completionNs());
        SimResult four = run(new SwitchModel(1, 4, 1, SwitchModel.Leaders.NODE, 8, 8, null, p));
        // reduce: 1 -> 0 and 3 -> 2 at once, then 2 -> 0: two levels of o_s + shm_latency + o_r;
        // broadcast: 0 -> 2 (then 0 -> 1), then 2 -> 3: rank 3 takes the result in two levels later
        long reduce = 2 * (OS + 7 + OR);
        long network = OS + (w + LINK + PORT) + ALU + (w + LINK) + OR;
        long bcast = OS + 7 + OR + OS + 7 + OR;
        assertEquals(reduce + network + bcast, four.completionNs());
    }

    @Test
    void badLayoutsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(2, 3, 1, SwitchModel.Leaders.SOCKET, 8, 8, null, params(4)));
        assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(2, 2, 1, SwitchModel.Leaders.NODE, 12, 8, null, params(4)));
    }
}
