package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
