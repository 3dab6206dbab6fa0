package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code --format osu} against what OSU Micro-Benchmarks 7.4 really print: the files in
 * {@code osu-7.4/} are the benchmarks' own output (how they were made: its README). Each file's
 * lines before the first row must be ours, and each of its rows, re-printed from its own figures,
 * must come out character for character. Only the datatype line of a reduction differs, on purpose:
 * OSU reduces MPI_CHAR by default, Tutti reduces doubles and says so in OSU's words.
 */
class OsuFormatTest {
    private static final Pattern NUMBER = Pattern.compile("\\S+");

    /** The capture of one OSU run, split into the lines before the first row and the rows. */
    private record Capture(List<String> header, List<String> rows) {
        static Capture of(String file) throws IOException {
            try (InputStream in = OsuFormatTest.class.getResourceAsStream("/osu-7.4/" + file)) {
                assertNotNull(in, file);
                List<String> lines = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().toList();
                int first = 0;
                while (first < lines.size() && (lines.get(first).isEmpty() || lines.get(first).startsWith("#"))) {
                    first++;
                }
                assertTrue(first < lines.size(), file + " has no rows");
                return new Capture(lines.subList(0, first), lines.subList(first, lines.size()));
            }
        }
    }

    private static double[] figures(String row) {
        Matcher m = NUMBER.matcher(row);
        List<Double> out = new ArrayList<>();
        while (m.find()) {
            out.add(Double.parseDouble(m.group()));
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** OSU's header with Tutti's datatype for the reductions (doubles). */
    private static List<String> expectedHeader(String mode, Capture c) {
        return c.header().stream().map(l -> CollectiveOp.reduces(mode) && l.equals("# Datatype: MPI_CHAR.")
                ? "# Datatype: MPI_DOUBLE." : l).toList();
    }

    @Test
    void pointToPointAsOsuLatencyBwAndBibw() throws IOException {
        for (String mode : List.of("latency", "bw", "bibw")) {
            Capture c = Capture.of(mode + ".txt");
            assertEquals(expectedHeader(mode, c), OsuFormat.header(mode, false, false), mode);
            for (String row : c.rows()) {
                double[] f = figures(row);
                assertEquals(row, OsuFormat.row((long) f[0], f[1]), mode);
            }
        }
    }

    /** Every blocking collective, barrier included, as OSU prints it, short and with -f. */
    @Test
    void everyCollectiveAsOsus() throws IOException {
        Map<String, String> files = Map.of("barrier", "barrier", "bcast", "bcast", "reduce", "reduce",
                "allreduce", "allreduce", "scatter", "scatter", "gather", "gather", "allgather", "allgather",
                "alltoall", "alltoall", "reducescatter", "reduce_scatter_block");
        for (Map.Entry<String, String> e : files.entrySet()) {
            String mode = e.getKey();
            boolean sized = !mode.equals("barrier");
            for (boolean full : new boolean[] {false, true}) {
                Capture c = Capture.of(e.getValue() + (full ? "-f" : "") + ".txt");
                assertEquals(expectedHeader(mode, c), OsuFormat.header(mode, false, full), mode + " full=" + full);
                for (String row : c.rows()) {
                    double[] f = figures(row);
                    int i = sized ? 1 : 0;
                    long size = sized ? (long) f[0] : 0;
                    double min = full ? f[i + 1] : 0;
                    double max = full ? f[i + 2] : 0;
                    int iters = full ? (int) f[i + 3] : 0;
                    assertEquals(row, OsuFormat.collectiveRow(mode, full, size, f[i], min, max, iters),
                            mode + " full=" + full);
                }
            }
        }
    }

    /** The osu_i* benchmarks: their preamble with the Overall line and a blank one, and four columns. */
    @Test
    void nonblockingAsOsuI() throws IOException {
        Map<String, String> files = Map.of("barrier", "ibarrier", "bcast", "ibcast", "allreduce", "iallreduce",
                "alltoall", "ialltoall");
        for (Map.Entry<String, String> e : files.entrySet()) {
            String mode = e.getKey();
            Capture c = Capture.of(e.getValue() + ".txt");
            assertEquals(expectedHeader(mode, c), OsuFormat.header(mode, true, false), mode);
            for (String row : c.rows()) {
                double[] f = figures(row);
                int i = mode.equals("barrier") ? 0 : 1;
                long size = i == 0 ? 0 : (long) f[0];
                assertEquals(row, OsuFormat.nonblockingRow(mode, size, f[i], f[i + 1], f[i + 2], f[i + 3]), mode);
            }
        }
        assertEquals("# OSU MPI Non-blocking Reduce_scatter_block Latency Test v7.4",
                OsuFormat.header("reducescatter", true, false).get(1));
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
