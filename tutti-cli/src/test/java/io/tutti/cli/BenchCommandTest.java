package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

class BenchCommandTest {
    private static BenchCommand parse(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(all);
        return parsed.subcommand().commandSpec().commandLine().getCommand();
    }

    @Test
    void pointToPointModesStayAsTheyWere() {
        BenchCommand b = parse("latency", "--sizes", "8,1k", "--iters", "5");
        assertEquals(BenchCommand.Mode.latency, b.mode);
        assertNull(b.check());
        assertEquals(List.of("latency", "--sizes", "8,1k", "--iters", "5", "--buffer", "segment"), b.benchmarkArgs());
        assertTrue(parse("bw", "--bcl3").check().contains("collective"));
        assertTrue(parse("latency", "-n", "1").check().contains("at least 2 ranks"));
        assertTrue(parse("mr", "-n", "3").check().contains("even -n"));
        assertTrue(parse("mr", "--format", "osu").check().contains("own columns"));
        assertNull(parse("mr", "-n", "4").check());
    }

    @Test
    void oneSidedModesTakeTheSynchronisationAndTheWindowKind() {
        BenchCommand b = parse("put", "--sync", "lock", "--win", "create", "--sizes", "8");
        assertNull(b.check());
        assertTrue(b.mode.oneSided() && b.mode.pointToPoint());
        assertEquals(List.of("put", "--sizes", "8", "--buffer", "segment", "--sync", "lock", "--win", "create"),
                b.benchmarkArgs());
        assertEquals(List.of("getbw", "--buffer", "segment"), parse("getbw").benchmarkArgs());
        assertTrue(parse("latency", "--sync", "lock").check().contains("one-sided"));
        assertTrue(parse("acc", "-n", "1").check().contains("at least 2 ranks"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "put", "--sync", "sometimes"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "get", "--win", "shared"));
    }

    @Test
    void everyCollectiveIsAMode() {
        for (String op : List.of("barrier", "bcast", "reduce", "allreduce", "scatter", "gather", "allgather",
                "alltoall", "reducescatter", "shift")) {
            BenchCommand b = parse(op, "-n", "4");
            assertEquals(op, b.mode.name());
            assertEquals(4, b.ranks);
            assertNull(b.check(), op);
            assertEquals(op, b.benchmarkArgs().get(0));
        }
        assertNull(parse("allreduce", "-n", "1").check());
    }

    @Test
    void collectiveOptionsPassToTheBenchmark() {
        BenchCommand b = parse("allreduce", "-n", "4", "--sizes", "8,1m", "--algorithm", "ring", "--iters", "10",
                "--warmup", "1", "--json", "--blocking");
        assertNull(b.check());
        assertEquals(List.of("allreduce", "--sizes", "8,1m", "--iters", "10", "--warmup", "1", "--json",
                "--buffer", "segment", "--algorithm", "ring", "--blocking"), b.benchmarkArgs());

        BenchCommand nb = parse("allreduce", "--nonblocking", "--test-calls", "4");
        assertNull(nb.check());
        assertEquals(List.of("allreduce", "--buffer", "segment", "--nonblocking", "--test-calls", "4"),
                nb.benchmarkArgs());

        BenchCommand t = parse("bcast", "-n", "4", "--bcl3", "--link-bw", "10", "--plot", "out/b.png");
        assertNull(t.check());
        assertEquals(List.of("bcast", "--buffer", "segment", "--bcl3", "--link-bw", "10.0", "--plot",
                Path.of("out/b.png").toAbsolutePath().toString()), t.benchmarkArgs());
        assertTrue(parse("gather", "--bcl3").benchmarkArgs()
                .contains(Path.of("gather-bandwidth.png").toAbsolutePath().toString()));
        assertEquals(List.of("barrier", "--buffer", "segment", "--bcl3"), parse("barrier", "--bcl3").benchmarkArgs());
    }

    @Test
    void badCombinationsAreUsageErrors() {
        assertTrue(parse("shift", "--nonblocking").check().contains("no nonblocking"));
        assertTrue(parse("barrier", "--paired", "4").check().contains("--offload"));
        assertTrue(parse("barrier", "--offload", "--paired", "4", "--json").check().contains("--offload"));
        assertEquals(null, parse("barrier", "--offload", "--paired", "4").check());
        assertTrue(parse("barrier", "--offload", "--paired", "4").benchmarkArgs().containsAll(List.of("--paired", "4")));
        assertTrue(parse("shift", "--algorithm", "ring").check().contains("no algorithm"));
        assertTrue(parse("bcast", "--nonblocking", "--bcl3").check().contains("cannot be combined"));
        assertTrue(parse("bcast", "--plot", "x.png").check().contains("with --bcl3"));
        assertTrue(parse("bcast", "--bcl3", "--link-bw", "0").check().contains("positive"));
        assertTrue(parse("bcast", "--test-calls", "3").check().contains("--nonblocking"));
        assertTrue(parse("bcast", "-n", "1", "--bcl3").check().contains("2 ranks"));
        assertTrue(parse("barrier", "--bcl3", "--plot", "b.png").check().contains("no bandwidth"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "shift", "--nonblocking"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "allsum"));
    }

    @Test
    void formatOsuPassesToTheBenchmark() {
        BenchCommand b = parse("allreduce", "-n", "4", "--format", "osu", "--full", "--blocking");
        assertNull(b.check());
        assertEquals(List.of("allreduce", "--format", "osu", "--full", "--buffer", "segment", "--blocking"),
                b.benchmarkArgs());
        assertEquals(List.of("latency", "--format", "osu", "--buffer", "segment"),
                parse("latency", "--format", "osu").benchmarkArgs());
        assertEquals(List.of("bw", "--json", "--buffer", "segment"), parse("bw", "--format", "json").benchmarkArgs());
        assertEquals(List.of("bw", "--buffer", "segment"), parse("bw", "--format", "table").benchmarkArgs());
        assertTrue(parse("loggp", "--format", "osu").check().contains("no OSU counterpart"));
        assertTrue(parse("bw", "--json", "--format", "osu").check().contains("one format"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "shift", "--format", "osu"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "allreduce", "--offload", "--format", "osu"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "bcast", "--bcl3", "--format", "osu"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "latency", "--full", "--format", "osu"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "bcast", "--full"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "bcast", "--bcl3", "--plot", "b.pdf"));
    }

    /** What the ranks' own parser would reject fails in the launcher, before any rank starts. */
    @Test
    void badSizesFailBeforeTheRanksStart() {
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "latency", "--sizes", "8,lots"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "allreduce", "--sizes", "3g"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "alltoall", "--offload"));
        assertTrue(BenchCommand.isRow("1024   2.50   2.00") && BenchCommand.isRow("{\"benchmark\":\"bw\"}"));
        assertFalse(BenchCommand.isRow("# Size  Avg(us)") || BenchCommand.isRow("  "));
    }

    private static int quietly(String... args) {
        PrintStream err = System.err;
        try {
            System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new java.io.PrintWriter(new ByteArrayOutputStream()));
            return cl.execute(args);
        } finally {
            System.setErr(err);
        }
    }

    /**
     * The whole path but the terminal: the parsed command line's arguments, the launcher, two rank
     * processes, the table rank 0 prints (tagged, so the launcher hands it to us instead of letting
     * the ranks write to this JVM's standard output).
     */
    @Test
    @Timeout(60)
    void allreduceRunsEndToEnd() {
        BenchCommand b = parse("allreduce", "-n", "2", "--sizes", "8,1k", "--iters", "10", "--warmup", "1");
        assertNull(b.check());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "tutti bench");
        int code = launcher.run(new Launcher.Options(b.ranks, false, java.time.Duration.ofSeconds(50), true, "",
                List.of(), BenchCommand.COLLECTIVE_CLASS, b.benchmarkArgs(), false));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, () -> text + err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("[0] # Tutti allreduce"), text);
        List<String> rows = text.lines().filter(l -> l.startsWith("[0] ") && !l.startsWith("[0] #"))
                .map(l -> l.substring(4)).toList();
        assertEquals(2, rows.size(), text);
        String[] first = rows.get(0).trim().split("\\s+");
        assertEquals("8", first[0]);
        assertEquals("10", first[4]);
        double avg = Double.parseDouble(first[1]);
        double min = Double.parseDouble(first[2]);
        double max = Double.parseDouble(first[3]);
        assertTrue(min > 0 && min <= avg && avg <= max, rows.get(0));
        assertTrue(rows.get(1).startsWith("1024 "), rows.get(1));
        assertTrue(text.lines().noneMatch(l -> l.startsWith("[1] ")), "only rank 0 prints: " + text);
    }

    /** Rank 0's lines of a two-rank run of {@code args}, untagged; nothing from rank 1. */
    private static List<String> run(String className, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "tutti bench");
        int code = launcher.run(new Launcher.Options(2, false, java.time.Duration.ofSeconds(50), true, "",
                List.of(), className, args, false));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, () -> text + err.toString(StandardCharsets.UTF_8));
        assertTrue(text.lines().allMatch(l -> l.startsWith("[0] ")), "only rank 0 prints: " + text);
        return text.lines().map(l -> l.substring(4)).toList();
    }

    /**
     * {@code --format osu} end to end: OSU's lines and nothing else on standard output, rows that
     * are OSU's printf formats of their own figures, read as a script reads OSU's output (lines not
     * starting with # and not blank, split on blanks: size, then the figures).
     */
    @Test
    @Timeout(60)
    void osuCollectiveIsOsusLineByLine() {
        BenchCommand b = parse("allreduce", "-n", "2", "--sizes", "4,8,1k", "--iters", "10", "--warmup", "1",
                "--format", "osu", "--full");
        assertNull(b.check());
        List<String> lines = run(BenchCommand.COLLECTIVE_CLASS, b.benchmarkArgs());
        assertEquals(List.of("", "# OSU MPI Allreduce Latency Test v7.4", "# Datatype: MPI_DOUBLE.",
                "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"),
                lines.subList(0, 4));
        List<String> rows = lines.subList(4, lines.size());
        assertEquals(2, rows.size(), "4 B is no whole double, so no row, as OSU: " + lines);
        long[] sizes = {8, 1024};
        for (int i = 0; i < rows.size(); i++) {
            String[] f = rows.get(i).trim().split("\\s+");
            assertEquals(sizes[i], Long.parseLong(f[0]));
            double avg = Double.parseDouble(f[1]);
            double min = Double.parseDouble(f[2]);
            double max = Double.parseDouble(f[3]);
            assertEquals(String.format(java.util.Locale.ROOT, "%-10d%18.2f%18.2f%18.2f%12d", sizes[i], avg, min, max,
                    10), rows.get(i));
            assertTrue(min > 0 && min <= avg && avg <= max, rows.get(i));
        }
    }

    /** The same for a point-to-point benchmark: osu_latency's lines. */
    @Test
    @Timeout(60)
    void osuLatencyIsOsusLineByLine() {
        BenchCommand lat = parse("latency", "--sizes", "1,1k", "--iters", "100", "--format", "osu");
        List<String> p2p = run(BenchCommand.BENCHMARK_CLASS, lat.benchmarkArgs());
        assertEquals(List.of("", "# OSU MPI Latency Test v7.4", "# Datatype: MPI_CHAR.",
                "# Size       Avg Latency(us)"), p2p.subList(0, 4));
        assertEquals(2, p2p.size() - 4, p2p.toString());
        for (String row : p2p.subList(4, p2p.size())) {
            String[] f = row.trim().split("\\s+");
            assertEquals(String.format(java.util.Locale.ROOT, "%-10d%18.2f", Long.parseLong(f[0]),
                    Double.parseDouble(f[1])), row);
        }
    }
}
