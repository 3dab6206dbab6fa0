package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectiveBenchmarkTest {
    private static CollectiveBenchmark.Options parse(String... args) {
        return CollectiveBenchmark.Options.parse(args);
    }

    @Test
    void defaultsAreOsusPowersOfFourUpTo1MiB() {
        CollectiveBenchmark.Options o = parse("allreduce");
        assertArrayEquals(new long[] {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 1048576}, o.sizes());
        assertEquals(1000, o.itersFor(8192));
        assertEquals(100, o.itersFor(8193));
        assertEquals(200, o.warmupFor(8));
        assertEquals(10, o.warmupFor(1 << 20));
        assertFalse(o.bcl3() || o.nonblocking() || o.blocking() || o.json());
        assertTrue(o.segment());
        assertNull(o.plot());
        assertEquals(10, o.testCalls());
    }

    @Test
    void optionsAreParsed() {
        CollectiveBenchmark.Options o = parse("bcast", "--sizes", "8,1k,1m", "--iters", "10", "--warmup", "0",
                "--json", "--buffer", "array", "--algorithm", "binomial", "--bcl3", "--link-bw", "12.5",
                "--plot", "x.png");
        assertArrayEquals(new long[] {8, 1024, 1 << 20}, o.sizes());
        assertEquals(10, o.itersFor(1 << 20));
        assertEquals(0, o.warmupFor(8));
        assertFalse(o.segment());
        assertEquals("binomial", o.algorithm());
        assertEquals(12.5e9, o.linkBytesPerSecond(), 1);
        assertEquals("x.png", o.plot());
        assertEquals("bcast-bandwidth.png", parse("bcast", "--bcl3").plot());
        assertArrayEquals(new long[] {0}, parse("barrier", "--sizes", "8,16").sizes());
        CollectiveBenchmark.Options nb = parse("allreduce", "--nonblocking", "--test-calls", "0");
        assertTrue(nb.nonblocking());
        assertEquals(0, nb.testCalls());
    }

    @Test
    void badCommandLinesSayWhatToChange() {
        assertThrows(IllegalArgumentException.class, () -> parse());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("allsum")).getMessage()
                .contains("reducescatter"));
        assertThrows(IllegalArgumentException.class, () -> parse("shift", "--nonblocking"));
        assertThrows(IllegalArgumentException.class, () -> parse("shift", "--algorithm", "ring"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--plot", "x.png"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--bcl3", "--link-bw", "-1"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--nonblocking", "--bcl3"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--iters", "0"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--sizes"));
        assertThrows(IllegalArgumentException.class, () -> parse("bcast", "--bogus"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("barrier", "--paired", "3")).getMessage()
                .contains("--offload"));
        assertThrows(IllegalArgumentException.class, () -> parse("barrier", "--offload", "--paired", "0"));
        assertEquals(3, parse("barrier", "--offload", "--paired", "3").pairs());
    }

    @Test
    void reductionsMeasureWholeDoubles() {
        assertEquals(8, CollectiveOp.effectiveSize("allreduce", 4));
        assertEquals(1024, CollectiveOp.effectiveSize("reduce", 1027));
        assertEquals(1027, CollectiveOp.effectiveSize("bcast", 1027));
        assertEquals(0, CollectiveOp.effectiveSize("barrier", 64));
        assertEquals(128, CollectiveOp.count("reducescatter", 1024));
        assertEquals(1024, CollectiveOp.count("alltoall", 1024));
        assertEquals("reducescatter", CollectiveOp.algorithmOperation("reducescatter"));
        assertEquals("allreduce", CollectiveOp.algorithmOperation("allreduce"));
        assertNull(CollectiveOp.algorithmOperation("shift"));
    }

    @Test
    void rowsAreFormattedAsOsuTables() {
        CollectiveBenchmark.Row r = new CollectiveBenchmark.Row(1024, 1000, 2.5, 2.0, 3.0, 0.0,
                1.0e9, 2.0e9, 3.0e9, Double.NaN, Double.NaN, Double.NaN);
        String plain = CollectiveBenchmark.format(parse("bcast"), 4, r);
        assertEquals(List.of("1024", "2.50", "2.00", "3.00", "1000", "0.00"), List.of(plain.trim().split("\\s+")));
        String bcl3 = CollectiveBenchmark.format(parse("bcast", "--bcl3"), 4, r);
        assertTrue(bcl3.endsWith("1000.0       2000.0       3000.0     0.33"), bcl3);
        String json = CollectiveBenchmark.format(parse("bcast", "--json", "--bcl3"), 4, r);
        assertTrue(json.startsWith("{\"benchmark\":\"bcast\",\"ranks\":4,\"size\":1024,\"iters\":1000,"
                + "\"avg_us\":2.500"), json);
        assertTrue(json.contains("\"bound_mb_per_s\":3000.0"), json);
        CollectiveBenchmark.Row nb = new CollectiveBenchmark.Row(8, 10, 5.0, Double.NaN, Double.NaN, 1.0,
                Double.NaN, Double.NaN, Double.NaN, 4.0, 2.0, 50.0);
        assertEquals(List.of("8", "5.00", "4.00", "2.00", "50.0", "10", "1.00"),
                List.of(CollectiveBenchmark.format(parse("bcast", "--nonblocking"), 2, nb).trim().split("\\s+")));
    }

    @Test
    void osuRowsAreOsusOwn() {
        CollectiveBenchmark.Row r = new CollectiveBenchmark.Row(1024, 1000, 2.5, 2.0, 3.0, 0.0,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        assertEquals("1024                    2.50",
                CollectiveBenchmark.format(parse("bcast", "--format", "osu"), 4, r));
        assertEquals("1024                    2.50              2.00              3.00        1000",
                CollectiveBenchmark.format(parse("bcast", "--format", "osu", "--full"), 4, r));
        CollectiveBenchmark.Row nb = new CollectiveBenchmark.Row(8, 10, 5.0, Double.NaN, Double.NaN, 1.0,
                Double.NaN, Double.NaN, Double.NaN, 4.0, 2.0, 50.0);
        assertEquals("8                       5.00              4.00              2.00             50.00",
                CollectiveBenchmark.format(parse("bcast", "--format", "osu", "--nonblocking"), 2, nb));
    }

    @Test
    void computeAndTestTakesAboutTheTargetTime() {
        int[] tests = {0};
        io.tutti.Request r = new io.tutti.Request() {
            @Override public io.tutti.Status waitFor() { return null; }
            @Override public void waitFor(io.tutti.Status into) { }
            @Override public boolean test() { return ++tests[0] >= 3; }
            @Override public boolean isActive() { return true; }
            @Override public boolean isDone() { return false; }
            @Override public io.tutti.Status status() { return null; }
        };
        long t0 = System.nanoTime();
        CollectiveBenchmark.computeAndTest(2_000_000, 10, r);
        long took = System.nanoTime() - t0;
        assertTrue(took >= 2_000_000 - 10 * 1000, "took " + took + " ns");
        assertEquals(3, tests[0], "test() stops once the request has completed");
    }

    @Test
    void thePlotIsAPng(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub/bcast.png");
        List<CollectiveBenchmark.Row> rows = List.of(
                new CollectiveBenchmark.Row(8, 10, 1, 1, 1, 0, 1e6, 2e6, 3e6, Double.NaN, Double.NaN, Double.NaN),
                new CollectiveBenchmark.Row(1024, 10, 2, 2, 2, 0, 1e8, 2e8, 3e8, Double.NaN, Double.NaN, Double.NaN));
        CollectivePlot.write(file, "bcast", 4, rows);
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(file), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        assertThrows(IllegalStateException.class, () -> CollectivePlot.write(dir.resolve("none.png"), "bcast", 1,
                List.of(new CollectiveBenchmark.Row(8, 10, 1, 1, 1, 0, 1e6, Double.NaN, Double.NaN, Double.NaN,
                        Double.NaN, Double.NaN))));
    }
}
