package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FabricTest {
    /** Walks the route from a to b; returns the number of links taken. */
    private static int walk(Fabric f, int a, int b) {
        int at = a;
        int hops = 0;
        while (at != b) {
            int link = f.route(at, b);
            assertTrue(link >= 0 && link < f.links(), f.name() + ": bad link " + link);
            at = f.to(link);
            assertTrue(++hops <= 2 * f.switches() + 2, f.name() + ": loop from " + a + " to " + b);
        }
        return hops;
    }

    /** Every pair is reachable; a k-ary n-tree path climbs to the lowest common ancestor level and back. */
    @Test
    void fatTreeRoutesUpAndDown() {
        int k = 4;
        Fabric f = Fabric.parse("fattree:k=4,n=3", 64);
        assertEquals(64, f.hosts());
        assertEquals(3 * 16, f.switches());
        for (int a = 0; a < 64; a++) {
            for (int b = 0; b < 64; b++) {
                if (a == b) {
                    continue;
                }
                int level = 0;
                while (a / (k * pow(k, level)) != b / (k * pow(k, level))) {
                    level++;
                }
                assertEquals(2 * (level + 1), walk(f, a, b), a + "->" + b);
            }
        }
    }

    private static int pow(int k, int e) {
        int p = 1;
        for (int i = 0; i < e; i++) {
            p *= k;
        }
        return p;
    }

    /** d-mod-k spreads traffic to different destinations over the top-level switches. */
    @Test
    void dModKSpreadsOverSpines() {
        Fabric f = Fabric.parse("fattree:k=4,n=2", 16);
        Set<Integer> tops = new HashSet<>();
        for (int b = 4; b < 16; b++) {
            int leaf = f.to(f.route(0, b));
            tops.add(f.to(f.route(leaf, b)));
        }
        assertEquals(4, tops.size());
    }

    @Test
    void otherShapes() {
        for (String spec : new String[] {"crossbar", "leafspine:hosts=8,spines=3", "bcl3", "bcl3:links=4"}) {
            Fabric f = Fabric.parse(spec, 40);
            for (int a = 0; a < 40; a++) {
                for (int b = 0; b < 40; b++) {
                    if (a != b) {
                        int hops = walk(f, a, b);
                        assertTrue(hops >= 2 && hops <= 4, spec + " " + a + "->" + b + ": " + hops);
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Fabric.parse("bcl3", 65));
        assertThrows(IllegalArgumentException.class, () -> Fabric.parse("torus", 4));
    }

    /**
     * [BCL-3]'s bisection: with two links between each pair of switches, an exchange between two
     * switches' 16 hosts each takes about twice as long as with four (table 5.17's two 32-node rows).
     */
    @Test
    void interSwitchLinksLimitAlltoall() {
        SimParams p = SimParams.defaults();
        CompiledSchedules cs = Sims.schedules(Kind.ALLTOALL, "pairwise", 32, 64 * 1024, 1);
        long two = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("bcl3:links=2", 32), p, 1),
                null).completionNs();
        long four = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("bcl3:links=4", 32), p, 1),
                null).completionNs();
        SimParams free = p.with(Map.of("contention", "false"));
        long none = Simulation.run(new HostModel(cs, free, null),
                new PacketNetwork(Fabric.parse("bcl3:links=2", 32), free, 1), null).completionNs();
        assertTrue(two > four * 1.3, "2 links " + two + " ns vs 4 links " + four + " ns");
        assertTrue(none < two, "without contention " + none + " ns vs " + two + " ns");
    }

    /** A packet carries link serialisation, latency and switch delay: one message across a crossbar. */
    @Test
    void packetTimingAcrossCrossbar() {
        SimParams p = SimParams.defaults().with(Map.of("o_s", "100", "o_r", "50", "g", "0", "O", "0", "mtu", "1000",
                "link_ns_per_byte", "2", "link_latency", "10", "switch_delay", "7", "L", "67"));
        CompiledSchedules cs = Sims.schedules(Kind.BCAST, "binomial", 2, 2500, 1);
        SimResult r = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("crossbar", 2), p, 1),
                null);
        // packets of 1000, 1000, 500 B (2000, 2000, 1000 ns on a link) leave the NIC back to back
        // after o_s; store and forward pipelines them: the first reaches the switch at
        // 100 + 2000 + 10 + 7, then the down link carries all three back to back (5000 ns), the
        // last arriving 10 ns after its end; the NICs then take L - 27 = 40 ns (cost 4) and the
        // receive CPU o_r
        assertEquals(100 + 2000 + 17 + 5000 + 10 + 40 + 50, r.finishNs()[1]);
    }

    /**
     * The packet network honours L: an empty message between neighbours takes [BCL-3]'s one-way
     * latency o_s + L + o_r (table 5.3: 18.34 us), whatever the link and switch figures, and a
     * path over more switches takes longer.
     */
    @Test
    void emptyMessageTakesTheLogGPLatency() throws IOException {
        SimParams p = SimParams.defaults().withCalibration(Path.of("..", "docs", "sim", "bcl3.cal"));
        CompiledSchedules cs = Sims.schedules(Kind.BARRIER, "dissemination", 2, 0, 1);
        long neighbours = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("crossbar", 2), p, 1),
                null).completionNs();
        assertEquals(p.os() + p.L() + p.or(), neighbours);
        SimParams shorter = p.with(Map.of("link_latency", "1000"));
        assertEquals(neighbours, Simulation.run(new HostModel(cs, shorter, null),
                new PacketNetwork(Fabric.parse("crossbar", 2), shorter, 1), null).completionNs());
        // one host per switch of [BCL-3]'s machine: the two hang off different switches, one hop more
        long across = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("bcl3:hosts=1", 2), p, 1),
                null).completionNs();
        assertEquals(p.os() + p.L() + p.linkLatency() + p.packetGap() + p.switchDelay() + p.or(), across);
    }

    /** Messages between ranks of one node go through shared memory: the node's NIC gap does not hold them. */
    @Test
    void intraNodeMessagesDoNotQueueOnTheNic() {
        SimParams p = SimParams.defaults().with(Map.of("o_s", "100", "o_r", "50", "g", "1000000", "O", "0",
                "shm_latency", "30", "shm_ns_per_byte", "0"));
        // a binomial bcast over 4 ranks of one node: the root sends twice, rank 2 once
        CompiledSchedules cs = Sims.schedules(Kind.BCAST, "binomial", 4, 8, 1);
        SimResult r = Simulation.run(new HostModel(cs, p, null), new PacketNetwork(Fabric.parse("crossbar", 1), p, 4),
                null);
        // 0 -> 2 arrives at 130, taken in at 180; 2 -> 3 arrives at 310, taken in at 360; 0 -> 1 sent at 100
        assertEquals(360, r.completionNs());
    }

    @Test
    void calibrationFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("c.cal");
        Files.writeString(f, "# test\nL = 123 ; made up\nG = 0.5 ; made up too\n");
        SimParams p = SimParams.defaults().withCalibration(f);
        assertEquals(123, p.L());
        assertEquals(0.5, p.G());
        assertEquals(SimParams.defaults().os(), p.os());
        Files.writeString(f, "L = 123\n");
        assertThrows(IllegalArgumentException.class, () -> SimParams.defaults().withCalibration(f));
        Files.writeString(f, "Q = 1 ; unknown\n");
        assertThrows(IllegalArgumentException.class, () -> SimParams.defaults().withCalibration(f));
    }

    /** The shipped calibration files parse and set every parameter. */
    @Test
    void shippedCalibrations() throws IOException {
        Path docs = Path.of("..", "docs", "sim");
        try (var files = Files.list(docs)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".cal")).toList()) {
                SimParams.defaults().withCalibration(f);
                long set = Files.readAllLines(f).stream().filter(l -> !l.isBlank() && !l.strip().startsWith("#")).count();
                assertEquals(SimParams.PROPERTIES.size(), set, f + " should record every parameter");
            }
        }
    }

    /** Every documented property round-trips: the names of PROPERTIES are exactly the parameters. */
    @Test
    void propertiesCoverEveryParameter() {
        java.util.List<String> names = SimParams.PROPERTIES.stream().map(SimParams.Property::name).toList();
        assertEquals(names, java.util.List.copyOf(SimParams.defaults().toMap().keySet()));
        SimParams p = SimParams.defaults();
        assertEquals(p, p.with(p.toMap()));
        for (SimParams.Property prop : SimParams.PROPERTIES) {
            assertEquals(Double.parseDouble(prop.defaultValue().replace("true", "1").replace("false", "0")),
                    Double.parseDouble(p.toMap().get(prop.name()).replace("true", "1").replace("false", "0")),
                    prop.name());
        }
    }
}
