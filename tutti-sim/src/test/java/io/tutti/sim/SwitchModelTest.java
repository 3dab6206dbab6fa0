package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.sw.AggregationSwitch;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Switch mode: in-network aggregation of an allreduce in ToR and spine switches, each the real
 * {@link AggregationSwitch} driven with simulated time, over links that may lose packets.
 */
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

    /**
     * Cost 1, between CPUs: on one node of 4 ranks over 2 CPUs, a Node leader's binomial trees cross
     * the CPUs once up (rank 2 to 0) and once down, so shm_cross adds twice to the completion; a
     * Socket leader's trees stay on their CPU, so it adds nothing.
     */
    @Test
    void nodeLeadersCrossTheCpusTwiceAndSocketLeadersNever() {
        long cross = 700;
        SimParams none = params(4);
        SimParams some = none.with(Map.of("shm_cross", Long.toString(cross)));
        for (SwitchModel.Leaders l : SwitchModel.Leaders.values()) {
            long base = run(new SwitchModel(1, 4, 1, l, 8, 8, null, none)).completionNs();
            long with = run(new SwitchModel(1, 4, 1, l, 8, 8, null, some)).completionNs();
            assertEquals(l == SwitchModel.Leaders.NODE ? 2 * cross : 0, with - base, l.name());
        }
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

    /** Random layouts, windows and chunk counts over links losing up to a third of the packets. */
    @Test
    void lossyAllreduceDeliversTheSequentialSums() {
        Random random = new Random(29);
        long lost = 0;
        long again = 0;
        for (int trial = 0; trial < 80; trial++) {
            int nodes = 1 + random.nextInt(9);
            int ppn = 2 * (1 + random.nextInt(3));
            int perTor = 1 + random.nextInt(4);
            SwitchModel.Leaders leaders = random.nextBoolean() ? SwitchModel.Leaders.NODE : SwitchModel.Leaders.SOCKET;
            int elements = 1 + random.nextInt(200);
            int slots = 1 + random.nextInt(4);
            double loss = 0.02 + 0.3 * random.nextDouble();
            long seed = random.nextLong();
            int ranks = nodes * ppn;
            long[][] data = new long[ranks][elements];
            long[] sum = new long[elements];
            for (int r = 0; r < ranks; r++) {
                for (int e = 0; e < elements; e++) {
                    data[r][e] = random.nextLong() >> 8;
                    sum[e] += data[r][e];
                }
            }
            SimParams p = params(slots).with(Map.of("inc_loss", "" + loss, "inc_seed", "" + seed));
            SwitchModel m = new SwitchModel(nodes, ppn, perTor, leaders, 8L * elements, 8, data, p);
            SimResult res = run(m);
            String what = nodes + " nodes x " + ppn + ", " + perTor + " per ToR, " + leaders + ", " + elements
                    + " longs, " + slots + " slots, loss " + loss;
            for (int r = 0; r < ranks; r++) {
                assertArrayEquals(sum, m.data(r), "rank " + r + ": " + what);
            }
            if (m.retransmitted() > 0) {
                assertTrue(res.completionNs() > p.incRto(), "a contribution sent again waited inc_rto: " + what);
            }
            lost += m.lost();
            again += m.retransmitted();
        }
        assertTrue(lost > 100 && again > 100, "the links lost " + lost + " packets, " + again + " sent again");
    }

    /**
     * The switches are the real ones: the group their notify installed, every contribution counted
     * once in its slot, and with loss the duplicates they suppressed and the results they sent again
     * (counters only {@link AggregationSwitch} keeps). The same seed loses the same packets.
     */
    @Test
    void theSwitchesAreTheRealAggregationSwitch() {
        SimParams clean = params(2);
        int chunks = 4096 / 256;
        SwitchModel m = new SwitchModel(6, 4, 2, SwitchModel.Leaders.SOCKET, 4096, 8, null, clean);
        run(m);
        List<AggregationSwitch> sw = m.switches();
        assertEquals(4, sw.size(), "three ToRs and the spine");
        for (int t = 0; t < 3; t++) {
            AggregationSwitch.Counters c = sw.get(t).counters();
            assertEquals(1, sw.get(t).groups(), "the group the leaders' notifies installed");
            assertEquals(4L * chunks, c.aggregated, "two nodes x two socket leaders under ToR " + t);
            assertEquals(0, c.duplicates + c.resent + c.wrongToken + c.dropped);
            assertEquals(4L * chunks, c.toChildren);
        }
        assertEquals(3L * chunks, sw.get(3).counters().aggregated, "the spine adds the three ToRs' partial sums");

        SimParams lossy = clean.with(Map.of("inc_loss", "0.2", "inc_seed", "7"));
        SwitchModel a = new SwitchModel(6, 4, 2, SwitchModel.Leaders.SOCKET, 4096, 8, null, lossy);
        SimResult ra = run(a);
        long duplicates = 0;
        long resent = 0;
        for (AggregationSwitch s : a.switches()) {
            duplicates += s.counters().duplicates;
            resent += s.counters().resent;
            assertEquals(0, s.counters().dropped, "a leader never runs ahead of the window");
        }
        assertTrue(a.lost() > 0 && a.retransmitted() > 0, a.lost() + " lost, " + a.retransmitted() + " sent again");
        assertTrue(duplicates > 0, "contributions sent again reach switches that already had them");
        assertTrue(resent > 0, "switches answer a repeated contribution with the result they kept");
        SwitchModel b = new SwitchModel(6, 4, 2, SwitchModel.Leaders.SOCKET, 4096, 8, null, lossy);
        SimResult rb = run(b);
        assertEquals(ra.completionNs(), rb.completionNs(), "the same seed, the same losses");
        assertEquals(a.lost(), b.lost());
    }

    /** A leader whose packets are all but always lost gives up after the client's timeout, in simulated time. */
    @Test
    void aLeaderWithoutResultsGivesUp() {
        SimParams hopeless = params(4).with(Map.of("inc_loss", "0.999"));
        SimulationException e = assertThrows(SimulationException.class,
                () -> run(new SwitchModel(1, 1, 1, SwitchModel.Leaders.NODE, 8, 8, null, hopeless)));
        assertTrue(e.getMessage().contains("got no result for 10000 ms"), e.getMessage());
    }

    @Test
    void layoutsBeyondTheRealSwitchAreRefusedWithTheReason() {
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(40, 2, 40, SwitchModel.Leaders.SOCKET, 8, 8, null, params(4)));
        assertTrue(wide.getMessage().contains("at most 64 children"), wide.getMessage());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(2, 1, 1, SwitchModel.Leaders.NODE, 8, 8, null,
                        params(4).with(Map.of("inc_payload", "512"))));
        assertTrue(big.getMessage().contains("at most 256"), big.getMessage());
    }

    @Test
    void badLayoutsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(2, 3, 1, SwitchModel.Leaders.SOCKET, 8, 8, null, params(4)));
        assertThrows(IllegalArgumentException.class,
                () -> new SwitchModel(2, 2, 1, SwitchModel.Leaders.NODE, 12, 8, null, params(4)));
    }
}
