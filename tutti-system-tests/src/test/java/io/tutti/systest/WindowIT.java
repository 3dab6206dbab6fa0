package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ShmFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One-sided windows between ranks that are processes ({@link WindowProcesses}): the caller's
 * memory reached through the kernel, dynamic windows' attached memory, a target killed while holding its lock, a
 * third rank killed holding a target's lock; and the same over the network rails ({@code TUTTI_TRANSPORT=net}), with a
 * target killed inside an origin's passive epoch.
 */
@Timeout(120)
class WindowIT {
    @TempDir
    Path work;

    @Test
    void windowsWorkBetweenProcesses() throws Exception {
        List<Process> ranks = start("kinds", 3, false);
        for (int r = 0; r < 3; r++) {
            assertTrue(ranks.get(r).waitFor(90, TimeUnit.SECONDS), "rank " + r + " did not end");
            assertEquals(0, ranks.get(r).exitValue(), output(r));
        }
        assertTrue(output(0).contains("windows ok"), output(0));
    }

    @Test
    void dynamicWindowsReachAttachedMemoryOfOtherProcesses() throws Exception {
        List<Process> ranks = start("dynamic", 3, false);
        for (int r = 0; r < 3; r++) {
            assertTrue(ranks.get(r).waitFor(90, TimeUnit.SECONDS), "rank " + r + " did not end");
            assertEquals(0, ranks.get(r).exitValue(), output(r));
            assertTrue(output(r).contains("dynamic ok"), output(r));
        }
    }

    @Test
    void aKilledLockHolderFailsTheWaiterWithPeerFailed() throws Exception {
        List<Process> ranks = start("dead", 2, false);
        assertTrue(ranks.get(1).waitFor(60, TimeUnit.SECONDS), "rank 1 did not end");
        assertEquals(7, ranks.get(1).exitValue());
        assertTrue(ranks.get(0).waitFor(30, TimeUnit.SECONDS), "rank 0 still waits for the dead rank's lock");
        String out = output(0);
        assertEquals(0, ranks.get(0).exitValue(), out);
        assertTrue(out.contains("caught after") && out.contains("rank 1 (pid " + ranks.get(1).pid() + ")"), out);
    }

    /**
     * Rank 2 dies holding the exclusive lock of rank 0's window; rank 1, asking for it after, gets
     * it (the dead holder's lock is released, ULFM's rule) and sees rank 2's last put.
     */
    @ParameterizedTest(name = "net={0}")
    @ValueSource(booleans = {false, true})
    void aLockWhoseHolderDiedGoesToTheNextWaiter(boolean net) throws Exception {
        List<Process> ranks = start("deadholder", 3, net);
        assertTrue(ranks.get(2).waitFor(60, TimeUnit.SECONDS), "rank 2 did not end");
        assertEquals(128 + 9, ranks.get(2).exitValue(), "rank 2 was not killed");
        assertTrue(ranks.get(1).waitFor(60, TimeUnit.SECONDS), "rank 1 still waits for the dead rank's lock");
        String out = output(1);
        assertEquals(0, ranks.get(1).exitValue(), out);
        assertTrue(out.contains("granted after") && out.contains("read 2 then 3"), out);
        assertTrue(ranks.get(0).waitFor(30, TimeUnit.SECONDS), "rank 0 did not end");
        assertEquals(0, ranks.get(0).exitValue(), output(0));
        assertTrue(output(0).contains("window holds 3"), output(0));
    }

    @Test
    void windowsWorkBetweenProcessesOverTheNetwork() throws Exception {
        List<Process> ranks = start("kinds", 3, true);
        for (int r = 0; r < 3; r++) {
            assertTrue(ranks.get(r).waitFor(90, TimeUnit.SECONDS), "rank " + r + " did not end");
            assertEquals(0, ranks.get(r).exitValue(), output(r));
        }
        assertTrue(output(0).contains("windows ok"), output(0));
    }

    @Test
    void aKilledLockHolderFailsTheWaiterOverTheNetwork() throws Exception {
        List<Process> ranks = start("dead", 2, true);
        assertTrue(ranks.get(1).waitFor(60, TimeUnit.SECONDS), "rank 1 did not end");
        assertEquals(7, ranks.get(1).exitValue());
        assertTrue(ranks.get(0).waitFor(60, TimeUnit.SECONDS), "rank 0 still waits for the dead rank's lock");
        String out = output(0);
        assertEquals(0, ranks.get(0).exitValue(), out);
        assertTrue(out.contains("caught after") && out.contains("rank 1"), out);
    }

    @Test
    void aTargetKilledInAPassiveEpochFailsTheFlushOverTheNetwork() throws Exception {
        List<Process> ranks = start("deadflush", 2, true);
        assertTrue(ranks.get(1).waitFor(60, TimeUnit.SECONDS), "rank 1 did not end");
        assertEquals(7, ranks.get(1).exitValue());
        assertTrue(ranks.get(0).waitFor(60, TimeUnit.SECONDS), "rank 0 still waits for the dead target");
        String out = output(0);
        assertEquals(0, ranks.get(0).exitValue(), out);
        assertTrue(out.contains("caught after") && out.contains("rank 1"), out);
    }

    /**
     * The same with many gets ({@code deadget}) or fetching operations ({@code deadfetch}) in flight
     * to the target when it dies: their flush or request fails.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"deadget", "deadfetch"})
    void aTargetKilledWithRepliesOwedFailsTheirFlushOverTheNetwork(String what) throws Exception {
        List<Process> ranks = start(what, 2, true);
        assertTrue(ranks.get(1).waitFor(60, TimeUnit.SECONDS), "rank 1 did not end");
        assertEquals(7, ranks.get(1).exitValue());
        assertTrue(ranks.get(0).waitFor(60, TimeUnit.SECONDS), "rank 0 still waits for the dead target's replies");
        String out = output(0);
        assertEquals(0, ranks.get(0).exitValue(), out);
        assertTrue(out.contains("caught after") && out.contains("rank 1"), out);
    }

    /**
     * The counter sample over the rails: its fetchAndOps' old values come after the call, and it
     * reads each after a flush; every task is drawn once (the sample checks it and fails if not).
     */
    @Test
    void theCounterSampleDrawsEveryTaskOnceOverTheNetwork() throws Exception {
        Launch.Result r = Launch.run(work, java.time.Duration.ofSeconds(110), "run", "-n", "3", "--transport", "net",
                "--timeout", "100s", "io.tutti.samples.DistributedCounter", "3000");
        Launch.assertExit(0, r);
        assertTrue(r.stdout().contains("3000 tasks done in all, each once: yes"), r::toString);
    }

    /**
     * Large puts and gets over the rails ({@code large}): exact at every size, and the target's
     * rails received some of the payloads straight into its window (their counters, printed at close).
     */
    @Test
    void largePutsAndGetsOverTheNetworkArriveExactAndInPlace() throws Exception {
        List<Process> ranks = start("large", 2, true, "TUTTI_NET_STATS", "true");
        for (int r = 0; r < 2; r++) {
            assertTrue(ranks.get(r).waitFor(90, TimeUnit.SECONDS), "rank " + r + " did not end");
            assertEquals(0, ranks.get(r).exitValue(), output(r));
        }
        assertTrue(output(0).contains("large ok"), output(0));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("placed=(\\d+)").matcher(output(1));
        assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, "the target placed no payload: " + output(1));
    }

    private String output(int rank) throws Exception {
        return Files.readString(work.resolve("out-" + rank)) + Files.readString(work.resolve("err-" + rank));
    }

    private List<Process> start(String what, int n, boolean net, String... env) throws Exception {
        String job = "it" + Long.toHexString(System.nanoTime());
        Path jobDir = ShmFiles.createJobDirectory(ShmFiles.defaultRoot().resolve("tutti-" + job));
        List<Process> ranks = new ArrayList<>();
        try {
            for (int rank = 0; rank < n; rank++) {
                ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-cp", Launch.lib() + "/*" + java.io.File.pathSeparator + Launch.testClasses(),
                        "io.tutti.systest.WindowProcesses", what)
                        .redirectOutput(work.resolve("out-" + rank).toFile())
                        .redirectError(work.resolve("err-" + rank).toFile());
                pb.environment().put(LaunchEnvironment.JOB_ID, job);
                pb.environment().put(LaunchEnvironment.RANK, Integer.toString(rank));
                pb.environment().put(LaunchEnvironment.SIZE, Integer.toString(n));
                pb.environment().put(LaunchEnvironment.JOB_DIR, jobDir.toString());
                if (net) {
                    pb.environment().put("TUTTI_TRANSPORT", "net");
                }
                for (int i = 0; i + 1 < env.length; i += 2) {
                    pb.environment().put(env[i], env[i + 1]);
                }
                ranks.add(pb.start());
            }
            cleanup.add(() -> {
                ranks.forEach(Process::destroyForcibly);
                ShmFiles.deleteTree(jobDir);
            });
            return ranks;
        } catch (Exception e) {
            ranks.forEach(Process::destroyForcibly);
            ShmFiles.deleteTree(jobDir);
            throw e;
        }
    }

    private final List<Runnable> cleanup = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void cleanUp() {
        cleanup.forEach(Runnable::run);
    }
}
