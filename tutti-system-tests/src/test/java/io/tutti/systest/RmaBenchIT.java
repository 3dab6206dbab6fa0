package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tutti bench put|get|acc|putbw} with ranks that are processes, at tiny iteration counts (the
 * benchmark checks the bytes that arrived after each size, and fails on a wrong one), its clear
 * refusal over the network, and {@code bench/compare-rma.sh} run end to end once. Functional only:
 * no figure is looked at.
 */
@Timeout(600)
class RmaBenchIT {
    @TempDir
    Path work;

    @Test
    void oneSidedBenchmarksRunBetweenProcesses() throws Exception {
        for (List<String> args : List.of(
                List.of("put", "--win", "create"),
                List.of("get", "--win", "dynamic", "--sync", "pscw"),
                List.of("acc", "--sync", "fence", "-n", "3"),
                List.of("putbw", "--sync", "lock", "--win", "dynamic"))) {
            List<String> cmd = new java.util.ArrayList<>(List.of("bench"));
            cmd.addAll(args);
            cmd.addAll(List.of("--sizes", "8,5000", "--iters", "3", "--warmup", "1", "--no-progress", "--timeout", "90s"));
            Launch.Result r = Launch.run(work, Duration.ofSeconds(120), cmd.toArray(String[]::new));
            assertExit(0, r);
            List<String> rows = r.stdout().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
            assertEquals(2, rows.size(), r::toString);
            assertTrue(rows.get(0).startsWith("8 ") && rows.get(1).startsWith("5000 "), r::toString);
        }
    }

    /** The same benchmarks with every pair over the network rails: the windows' RMA records, every synchronisation. */
    @Test
    void overTheNetworkTheBenchmarksRun() throws Exception {
        for (List<String> args : List.of(
                List.of("put", "--sync", "flush"),
                List.of("get", "--win", "create", "--sync", "pscw"),
                List.of("acc", "--sync", "fence"),
                List.of("putbw", "--sync", "lock"))) {
            List<String> cmd = new java.util.ArrayList<>(List.of("bench"));
            cmd.addAll(args);
            cmd.addAll(List.of("--transport", "net", "--sizes", "8,100000", "--iters", "3", "--warmup", "1",
                    "--no-progress", "--timeout", "90s"));
            Launch.Result r = Launch.run(work, Duration.ofSeconds(120), cmd.toArray(String[]::new));
            assertExit(0, r);
            List<String> rows = r.stdout().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
            assertEquals(2, rows.size(), r::toString);
            assertTrue(rows.get(0).startsWith("8 ") && rows.get(1).startsWith("100000 "), r::toString);
        }
    }

    /** compare-rma.sh, one round at tiny counts, through a wrapper that runs this build's assembly. */
    @Test
    void theComparisonScriptRunsEndToEnd() throws Exception {
        Path wrapper = work.resolve("tutti");
        Files.writeString(wrapper, "#!/bin/sh\nexec '" + String.join("' '", Launch.tutti()) + "' \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        Path out = work.resolve("compare");
        Path script = Path.of("..", "bench", "compare-rma.sh").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "1", "--sizes", "8,4096", "--iters", "2",
                "--warmup", "0", "--modes", "put,acc,putbw").redirectErrorStream(true)
                .redirectOutput(work.resolve("log").toFile());
        pb.environment().put("TUTTI_CMD", wrapper.toString());
        pb.environment().put("COMPARE_OUT", out.toString());
        pb.environment().put("TUTTI_JVM_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
        Process p = pb.start();
        if (!p.waitFor(400, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("compare-rma.sh did not end:\n" + Files.readString(work.resolve("log")));
        }
        String log = Files.readString(work.resolve("log"));
        assertEquals(0, p.exitValue(), log);
        String summary = Files.readString(out.resolve("summary.txt"));
        for (String config : List.of("tutti-put", "tutti-acc", "tutti-putbw")) {
            for (String size : List.of("8", "4096")) {
                assertTrue(summary.lines().anyMatch(l -> l.matches(config + " +" + size + " +[0-9.]+ +[0-9.]+")),
                        config + " " + size + " has a figure:\n" + summary + "\n" + log);
            }
        }
        boolean ompi = log.lines().noneMatch(l -> l.startsWith("# Open MPI not installed"));
        if (ompi) {
            assertTrue(summary.lines().anyMatch(l -> l.matches("ompi-put +8 +[0-9.]+ +[0-9.]+")), summary);
            assertTrue(summary.lines().anyMatch(l -> l.matches("putbw +4096 +[0-9.]+")), summary);
        }
    }
}
