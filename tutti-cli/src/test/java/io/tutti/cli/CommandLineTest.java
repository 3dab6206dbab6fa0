package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CommandLineTest {
    @Test
    void programArgumentsAfterTheMainClassPassThroughUntouched() {
        CommandLine cl = Main.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs("run", "-n", "2", "--jvm-opt", "-Xmx1g", "--jvm-opt=-Dx=1",
                "--timeout", "1.5s", "com.example.Main", "--bar", "-n", "3", "--timeout");
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        assertEquals(2, run.ranks);
        assertEquals(List.of("-Xmx1g", "-Dx=1"), run.jvmOptions);
        assertEquals(Duration.ofMillis(1500), run.timeout);
        assertEquals("com.example.Main", run.target);
        assertEquals(List.of("--bar", "-n", "3", "--timeout"), run.args);
    }

    @Test
    void atFileArgumentsPassThroughUntouched(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("args.txt"), "expanded words\n");
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs("run", "-n", "1", "Main", "@" + file, "x");
        RunCommand run = parsed.subcommand().commandSpec().commandLine().getCommand();
        assertEquals(List.of("@" + file, "x"), run.args);
        parsed = Main.commandLine().parseArgs("javac", "-d", "out", "@" + file, "--help");
        JavacCommand javac = parsed.subcommand().commandSpec().commandLine().getCommand();
        assertEquals(List.of("-d", "out", "@" + file, "--help"), javac.args);
    }

    @Test
    void demoHelpDescribesTheTwoDimensionalGrid() {
        StringWriter help = new StringWriter();
        Main.commandLine().getSubcommands().get("demo").usage(new PrintWriter(help));
        String text = help.toString().replaceAll("\\s+", " ");
        for (String words : List.of("2-D heat diffusion", "one block per rank", "halo exchange", "allreduce",
                "gather the grid on rank 0", "ping-pong table", "GRID", "STEPS")) {
            assertTrue(text.contains(words), "demo --help should say '" + words + "':\n" + help);
        }
        assertFalse(text.contains("rod"), help.toString());
    }

    @Test
    void theDemoGridSplitsIntoTheSamplesBlocks() {
        assertArrayEquals(new int[] {2, 2}, DemoCommand.blocks(4));
        assertArrayEquals(new int[] {2, 3}, DemoCommand.blocks(6));
        assertArrayEquals(new int[] {1, 5}, DemoCommand.blocks(5));
        assertEquals(384, DemoCommand.splittingGrid(384, 4), "the default grid stays where it splits");
        assertEquals(385, DemoCommand.splittingGrid(384, 5));
        assertEquals(385, DemoCommand.splittingGrid(384, 7));
        assertTrue(DemoCommand.splits(384, 6) && !DemoCommand.splits(100, 6));
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(2, cl.execute("demo", "-n", "6", "100"));
        assertEquals(2, cl.execute("demo", "-n", "2", "64", "3"));
        assertEquals(2, cl.execute("demo", "ten"));
        String text = err.toString();
        assertTrue(text.contains("tutti demo: a 100 x 100 grid does not split into 2 x 3 blocks for 6 ranks: give a"
                + " multiple of 6, e.g. 102"), text);
        assertTrue(text.contains("tutti demo: give at least 4 steps (got 3)"), text);
        assertTrue(text.contains("'ten' is not an int"), text);
    }

    @Test
    void durationsAcceptTheUsualUnits() {
        assertEquals(Duration.ofSeconds(30), Durations.parse("30s"));
        assertEquals(Duration.ofSeconds(30), Durations.parse("30"));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
        assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
        assertEquals(Duration.ofHours(1), Durations.parse("1h"));
        assertEquals("30 s", Durations.format(Duration.ofSeconds(30)));
        assertEquals("500 ms", Durations.format(Duration.ofMillis(500)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse("soon"));
        assertTrue(e.getMessage().contains("30s"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("0"));
    }

    @Test
    void exitCodesAbove128AreSignals() {
        assertEquals("exited with code 3", RankProcesses.describeExit(3));
        assertEquals("was killed by signal 9 (SIGKILL)", RankProcesses.describeExit(137));
        assertEquals("was killed by signal 15 (SIGTERM)", RankProcesses.describeExit(143));
        assertEquals("exited with code 255", RankProcesses.describeExit(255));
    }

    @Test
    void versionComesFromTheBuild() {
        String[] v = new Main.Version().getVersion();
        assertTrue(v[0].matches("tutti \\d+\\.\\d+\\.\\d+.*"), v[0]);
        assertTrue(v[1].startsWith("java "), v[1]);
    }
}
