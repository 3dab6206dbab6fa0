package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --format osu}, line by line against what OSU Micro-Benchmarks 7.4 print: the expected
 * lines are written out as OSU's printf formats produce them (osu_util.h FIELD_WIDTH 20,
 * FLOAT_PRECISION 2; osu_util_mpi.c print_preamble, print_only_header, print_stats and the _nbc
 * forms), not computed by the class under test.
 */
class OsuFormatTest {
    private static final String LATENCY_COLUMNS = "# Size         Avg Latency(us)";
    private static final String FULL_COLUMNS =
            "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations";

    @Test
    void latencyAsOsuLatency() {
        assertEquals(List.of("", "# OSU MPI-Tutti Latency Test v7.4", "# Datatype: MPI_CHAR.", LATENCY_COLUMNS),
                OsuFormat.header("latency", false, false));
        assertEquals("8                         0.19", OsuFormat.row(8, 0.19));
        assertEquals("4194304               12345.68", OsuFormat.row(4194304, 12345.678));
    }

    @Test
    void bandwidthsAsOsuBwAndBibw() {
        assertEquals(List.of("", "# OSU MPI-Tutti Bandwidth Test v7.4", "# Datatype: MPI_CHAR.",
                "# Size        Bandwidth (MB/s)"), OsuFormat.header("bw", false, false));
        assertEquals(List.of("", "# OSU MPI-Tutti Bi-Directional Bandwidth Test v7.4", "# Datatype: MPI_CHAR.",
                "# Size        Bandwidth (MB/s)"), OsuFormat.header("bibw", false, false));
        assertEquals("1048576               10893.40", OsuFormat.row(1048576, 10893.4));
    }

    /** Every collective with a size: OSU's title, the datatype line, the columns, the rows, short and -f. */
    @Test
    void everySizedCollectiveAsOsus() {
        Map<String, String> titles = Map.of(
                "bcast", "Broadcast Latency Test",
                "reduce", "Reduce Latency Test",
                "allreduce", "Allreduce Latency Test",
                "scatter", "Scatter Latency Test",
                "gather", "Gather Latency Test",
                "allgather", "Allgather Latency Test",
                "alltoall", "All-to-All Personalized Exchange Latency Test",
                "reducescatter", "Reduce_scatter_block Latency Test");
        for (Map.Entry<String, String> e : titles.entrySet()) {
            String op = e.getKey();
            String type = List.of("reduce", "allreduce", "reducescatter").contains(op) ? "MPI_DOUBLE." : "MPI_CHAR.";
            assertEquals(List.of("", "# OSU MPI-Tutti " + e.getValue() + " v7.4", "# Datatype: " + type,
                    LATENCY_COLUMNS), OsuFormat.header(op, false, false), op);
            assertEquals(List.of("", "# OSU MPI-Tutti " + e.getValue() + " v7.4", "# Datatype: " + type,
                    FULL_COLUMNS), OsuFormat.header(op, false, true), op);
            assertEquals("1024                      2.50", OsuFormat.collectiveRow(op, false, 1024, 2.5, 2, 3, 1000));
            assertEquals("1024                      2.50                2.00                3.00        1000",
                    OsuFormat.collectiveRow(op, true, 1024, 2.5, 2, 3, 1000));
        }
    }

    /** osu_barrier prints no size column and no datatype; its figure is 17 wide. */
    @Test
    void barrierAsOsuBarrier() {
        assertEquals(List.of("", "# OSU MPI-Tutti Barrier Latency Test v7.4", "# Avg Latency(us)"),
                OsuFormat.header("barrier", false, false));
        assertEquals(List.of("", "# OSU MPI-Tutti Barrier Latency Test v7.4",
                "# Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations"),
                OsuFormat.header("barrier", false, true));
        assertEquals("             1.23", OsuFormat.collectiveRow("barrier", false, 0, 1.234, 1, 1.5, 1000));
        assertEquals("             1.23                1.00                1.50        1000",
                OsuFormat.collectiveRow("barrier", true, 0, 1.234, 1, 1.5, 1000));
    }

    /** The osu_i* benchmarks: their preamble with the Overall line and a blank one, and four columns. */
    @Test
    void nonblockingAsOsuI() {
        assertEquals(List.of("", "# OSU MPI-Tutti Non-blocking Allreduce Latency Test v7.4",
                "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait", "", "# Datatype: MPI_DOUBLE.",
                "# Size             Overall(us)         Compute(us)      Pure Comm.(us)          Overlap(%)"),
                OsuFormat.header("allreduce", true, false));
        assertEquals("# OSU MPI-Tutti Non-Blocking Broadcast Latency Test v7.4",
                OsuFormat.header("bcast", true, false).get(1));
        assertEquals("# OSU MPI-Tutti Non-blocking All-to-All Latency Test v7.4",
                OsuFormat.header("alltoall", true, false).get(1));
        assertEquals("# OSU MPI-Tutti Non-blocking Reduce_scatter_block Latency Test v7.4",
                OsuFormat.header("reducescatter", true, false).get(1));
        assertEquals("8                         5.00                4.00                2.00               50.00",
                OsuFormat.nonblockingRow("bcast", 8, 5, 4, 2, 50));
        assertEquals(List.of("", "# OSU MPI-Tutti Non-blocking Barrier Latency Test v7.4",
                "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait", "",
                "# Overall(us)         Compute(us)      Pure Comm.(us)          Overlap(%)"),
                OsuFormat.header("barrier", true, false));
        assertEquals("         5.00                4.00                2.00               50.00",
                OsuFormat.nonblockingRow("barrier", 0, 5, 4, 2, 50));
    }

    @Test
    void onlyWhatOsuHasHasAName() {
        assertNull(OsuFormat.name("shift", false));
        assertNull(OsuFormat.name("loggp", false));
        assertNull(OsuFormat.name("latency", true));
    }

    /** OSU's default sizes: 1 B to 4 MiB point-to-point, 1 B to 1 MiB collectives, powers of two. */
    @Test
    void osusSizes() {
        long[] p2p = P2pBenchmark.Options.parse(new String[] {"latency", "--format", "osu"}).sizes();
        assertEquals(23, p2p.length);
        assertEquals(1, p2p[0]);
        assertEquals(4L << 20, p2p[22]);
        assertArrayEquals(p2p, P2pBenchmark.Options.parse(new String[] {"bw", "--format", "osu"}).sizes());
        assertEquals(11, P2pBenchmark.Options.parse(new String[] {"latency"}).sizes().length, "the table's own");
        long[] coll = CollectiveBenchmark.Options.parse(new String[] {"gather", "--format", "osu"}).sizes();
        assertEquals(21, coll.length);
        assertEquals(1 << 20, coll[20]);
        assertArrayEquals(new long[] {0}, CollectiveBenchmark.Options.parse(
                new String[] {"barrier", "--format", "osu"}).sizes());
        assertArrayEquals(new long[] {8, 1024}, P2pBenchmark.Options.parse(
                new String[] {"latency", "--format", "osu", "--sizes", "8,1k"}).sizes());
    }

    /** Sizes mean what they mean in OSU; a size with no whole element prints no row. */
    @Test
    void osuSizesOfReductions() {
        assertEquals(-1, CollectiveBenchmark.Options.osuSize("allreduce", 4, 2));
        assertEquals(8, CollectiveBenchmark.Options.osuSize("allreduce", 8, 2));
        assertEquals(1024, CollectiveBenchmark.Options.osuSize("reduce", 1027, 2));
        assertEquals(1, CollectiveBenchmark.Options.osuSize("bcast", 1, 2));
        assertEquals(0, CollectiveBenchmark.Options.osuSize("barrier", 0, 2));
        // reducescatter: the whole vector of P blocks, as osu_reduce_scatter_block
        assertEquals(-1, CollectiveBenchmark.Options.osuSize("reducescatter", 16, 4));
        assertEquals(32, CollectiveBenchmark.Options.osuSize("reducescatter", 32, 4));
        assertEquals(1 << 20, CollectiveBenchmark.Options.osuSize("reducescatter", 1 << 20, 4));
        assertEquals(984, CollectiveBenchmark.Options.osuSize("reducescatter", 1000, 3));
    }

    @Test
    void whatOsuHasNoCounterpartForIsRefused() {
        assertTrue(refused("shift", "--format", "osu").contains("no OSU counterpart"));
        assertTrue(refused("allreduce", "--format", "osu", "--offload").contains("no OSU counterpart"));
        assertTrue(refused("bcast", "--format", "osu", "--bcl3").contains("--bcl3"));
        assertTrue(refused("bcast", "--format", "osu", "--nonblocking", "--full").contains("drop --full"));
        assertTrue(refused("bcast", "--full").contains("--format osu"));
        assertTrue(refused("bcast", "--json", "--format", "osu").contains("one format"));
        assertTrue(refused("bcast", "--format", "xml").contains("table, json or osu"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> P2pBenchmark.Options.parse(
                new String[] {"latency", "--format", "osu", "--full"})).getMessage().contains("drop --full"));
        CollectiveBenchmark.Options o = CollectiveBenchmark.Options.parse(
                new String[] {"bcast", "--format", "osu", "--full", "--blocking"});
        assertTrue(o.osu() && o.full() && o.blocking() && !o.json());
        assertTrue(CollectiveBenchmark.Options.parse(new String[] {"bcast", "--format", "json"}).json());
    }

    private static String refused(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> CollectiveBenchmark.Options.parse(args))
                .getMessage();
    }
}
