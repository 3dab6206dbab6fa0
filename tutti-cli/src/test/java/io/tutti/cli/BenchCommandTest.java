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
        assertTrue(parse("bw", "--thesis").check().contains("collective"));
        assertTrue(parse("latency", "-n", "1").check().contains("at least 2 ranks"));
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

        BenchCommand t = parse("bcast", "-n", "4", "--thesis", "--link-bw", "10", "--plot", "out/b.png");
        assertNull(t.check());
        assertEquals(List.of("bcast", "--buffer", "segment", "--thesis", "--link-bw", "10.0", "--plot",
                Path.of("out/b.png").toAbsolutePath().toString()), t.benchmarkArgs());
        assertTrue(parse("gather", "--thesis").benchmarkArgs()
                .contains(Path.of("gather-bandwidth.png").toAbsolutePath().toString()));
        assertEquals(List.of("barrier", "--buffer", "segment", "--thesis"), parse("barrier", "--thesis").benchmarkArgs());
    }

    @Test
    void badCombinationsAreUsageErrors() {
        assertTrue(parse("shift", "--nonblocking").check().contains("no nonblocking"));
        assertTrue(parse("barrier", "--paired", "4").check().contains("--offload"));
        assertTrue(parse("barrier", "--offload", "--paired", "4", "--json").check().contains("--offload"));
        assertEquals(null, parse("barrier", "--offload", "--paired", "4").check());
        assertTrue(parse("barrier", "--offload", "--paired", "4").benchmarkArgs().containsAll(List.of("--paired", "4")));
        assertTrue(parse("shift", "--algorithm", "ring").check().contains("no algorithm"));
        assertTrue(parse("bcast", "--nonblocking", "--thesis").check().contains("cannot be combined"));
        assertTrue(parse("bcast", "--plot", "x.png").check().contains("with --thesis"));
        assertTrue(parse("bcast", "--thesis", "--link-bw", "0").check().contains("positive"));
        assertTrue(parse("bcast", "--test-calls", "3").check().contains("--nonblocking"));
        assertTrue(parse("bcast", "-n", "1", "--thesis").check().contains("2 ranks"));
        assertTrue(parse("barrier", "--thesis", "--plot", "b.png").check().contains("no bandwidth"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "shift", "--nonblocking"));
        assertEquals(Launcher.EXIT_USAGE, quietly("bench", "allsum"));
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
}
