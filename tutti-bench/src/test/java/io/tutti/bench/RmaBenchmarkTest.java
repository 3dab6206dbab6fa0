package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one-sided benchmarks' options and output, and every mode, synchronisation and window kind run
 * on three ranks as threads at a few sizes: the benchmark checks after each size that what arrived
 * is right (the target's window, the origin's buffer, the sums), so a wrong put, get or accumulate
 * fails here.
 */
@Timeout(300)
class RmaBenchmarkTest {
    private static RmaBenchmark.Options parse(String... args) {
        return RmaBenchmark.Options.parse(args);
    }

    @Test
    void defaultsAreOsus() {
        RmaBenchmark.Options o = parse("put");
        assertEquals(RmaBenchmark.Sync.flush, o.sync());
        assertEquals(RmaBenchmark.Win.allocate, o.win());
        assertEquals(8, o.sizes()[0]);
        assertEquals(1 << 20, o.sizes()[o.sizes().length - 1]);
        assertEquals(10000, o.itersFor(8192));
        assertEquals(1000, o.itersFor(8193));
        assertEquals(100, o.warmupFor(8));
        RmaBenchmark.Options bw = parse("putbw", "--format", "osu");
        assertEquals(21, bw.sizes().length, "OSU's 1 B .. 1 MiB");
        assertEquals(100, bw.itersFor(8));
        assertEquals(20, bw.itersFor(1 << 20));
        assertEquals(2, bw.warmupFor(1 << 20));
        RmaBenchmark.Options set = parse("acc", "--sync", "pscw", "--win", "dynamic", "--iters", "5", "--warmup", "0",
                "--buffer", "array", "--sizes", "1,4k");
        assertEquals(RmaBenchmark.Sync.pscw, set.sync());
        assertEquals(RmaBenchmark.Win.dynamic, set.win());
        assertEquals(5, set.itersFor(1 << 20));
        assertEquals(0, set.warmupFor(8));
        assertEquals(false, set.segment());
        assertEquals(List.of(1L, 4096L), java.util.Arrays.stream(set.sizes()).boxed().toList());
    }

    @Test
    void badCommandLinesSayWhatToChange() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("putt")).getMessage()
                .contains("use put, get, acc, putbw or getbw"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("put", "--sync", "flushed")).getMessage()
                .contains("--sync takes flush, flush_local, lock, lock_all, fence, pscw"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("get", "--win", "shared")).getMessage()
                .contains("--win takes allocate, create, dynamic"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("put", "--full")).getMessage()
                .contains("drop --full"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("put", "--sizes", "0,8")).getMessage()
                .contains("1 B to 32 MiB"));
    }

    @Test
    void osuHeaderAndRowsAreOsusOwn() {
        assertEquals(List.of("# OSU MPI_Put Latency Test v7.4", "# Window creation: MPI_Win_allocate",
                "# Synchronization: MPI_Win_flush", "# Datatype: MPI_CHAR.", "# Size          Latency (us)"),
                OsuFormat.oneSidedHeader("put", "allocate", "flush"));
        List<String> bw = OsuFormat.oneSidedHeader("getbw", "dynamic", "pscw");
        assertEquals("# OSU MPI_Get Bandwidth Test v7.4", bw.get(0));
        assertEquals("# Window creation: MPI_Win_create_dynamic", bw.get(1));
        assertEquals("# Synchronization: MPI_Win_post/start/complete/wait", bw.get(2));
        assertEquals("# Size      Bandwidth (MB/s)", bw.get(4));
        assertEquals("# OSU MPI_Accumulate latency Test v7.4",
                OsuFormat.oneSidedHeader("acc", "create", "lock").get(0));
        assertEquals("put_latency", RmaBenchmark.osuName("put"));
        assertEquals("get_bw", RmaBenchmark.osuName("getbw"));
    }

    @Test
    void jsonRowsKeepTheirFields() throws IOException {
        Map<String, String> lat = BenchmarkJsonTest.parse(RmaBenchmark.json(parse("get", "--sync", "lock"),
                new RmaBenchmark.Row(8, 1.5, 1.25, 1.0, 3.0, 0)));
        assertEquals(List.of("benchmark", "sync", "window", "buffer", "size", "avg_us", "median_us", "min_us", "p99_us",
                "alloc_bytes_per_op"), List.copyOf(lat.keySet()));
        assertEquals("lock", lat.get("sync"));
        assertEquals("1.500", lat.get("avg_us"));
        Map<String, String> bw = BenchmarkJsonTest.parse(RmaBenchmark.json(parse("putbw"),
                new RmaBenchmark.Row(1024, 5000, Double.NaN, Double.NaN, Double.NaN, 0.25)));
        assertEquals("5000.0", bw.get("mb_per_s"));
        assertEquals(List.of("benchmark", "sync", "window", "buffer", "size", "mb_per_s", "alloc_bytes_per_op"),
                List.copyOf(bw.keySet()));
    }

    /** Every mode under every synchronisation, then every window kind, on 3 ranks (rank 2 only fences). */
    @Test
    void everyModeSynchronisationAndWindowKindMovesTheRightBytes() {
        List<String[]> runs = new ArrayList<>();
        for (String mode : RmaBenchmark.Options.MODES) {
            for (RmaBenchmark.Sync sync : RmaBenchmark.Sync.values()) {
                String sizes = mode.endsWith("bw") ? "1,4097" : "1,100,70000";
                runs.add(new String[] {mode, "--sync", sync.name(), "--sizes", sizes, "--iters", "3", "--warmup", "1"});
            }
        }
        for (String win : List.of("create", "dynamic")) {
            for (String mode : List.of("put", "get", "acc", "putbw")) {
                for (String sync : List.of("flush", "fence")) {
                    runs.add(new String[] {mode, "--win", win, "--sync", sync, "--sizes", "3,5000", "--iters", "2",
                            "--warmup", "1", "--buffer", "array"});
                }
            }
        }
        runs.add(new String[] {"put", "--format", "osu", "--sizes", "8", "--iters", "2", "--warmup", "0"});
        runs.add(new String[] {"get", "--json", "--sizes", "8", "--iters", "2", "--warmup", "0"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Integer> rows = new ArrayList<>();
        ThreadLauncher.Outcome outcome = ThreadLauncher.run(3, Duration.ofSeconds(240), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                PrintStream out = new PrintStream(rank == 0 ? bytes : java.io.OutputStream.nullOutputStream(), true,
                        StandardCharsets.UTF_8);
                for (String[] args : runs) {
                    List<RmaBenchmark.Row> r = RmaBenchmark.run(t.world(), parse(args), out);
                    if (rank == 0) {
                        rows.add(r.size());
                        for (RmaBenchmark.Row row : r) {
                            assertTrue(row.avg() > 0, String.join(" ", args) + ": " + row);
                        }
                    }
                }
            }
        });
        if (!outcome.succeeded()) {
            ThreadLauncher.RankResult f = outcome.firstFailure();
            throw new AssertionError(f != null ? "rank " + f.rank() + " failed" : "timed out", f != null ? f.failure()
                    : null);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        for (int i = 0; i < runs.size(); i++) {
            assertEquals(runs.get(i)[java.util.Arrays.asList(runs.get(i)).indexOf("--sizes") + 1].split(",").length,
                    rows.get(i), String.join(" ", runs.get(i)));
        }
        assertTrue(out.contains("# OSU MPI_Put Latency Test v7.4\n# Window creation: MPI_Win_allocate\n"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("8         ") && l.length() == 28), out);
        assertTrue(out.contains("{\"benchmark\":\"get\",\"sync\":\"flush\",\"window\":\"allocate\""), out);
        assertTrue(out.contains("# Tutti acc (OSU's osu_acc_latency method), window dynamic, synchronisation fence"),
                out);
    }
}
