package io.tutti.systest;

import static io.tutti.systest.ClusterRunIT.assertNoJobDirectories;
import static io.tutti.systest.ClusterRunIT.read;
import static io.tutti.systest.ClusterRunIT.runWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tutti run --threads --hostfile} on hosts that share nothing but the network ({@link Cluster}):
 * one JVM per host, started over ssh as a rank JVM is, runs that host's ranks as threads; they share
 * memory with each other and reach the other hosts over the rails. A rank thread that throws and a
 * host JVM that is killed end the job, named with their ranks, and no host keeps processes, nor
 * files past the next job there.
 */
@Timeout(300)
class ClusterThreadsIT {
    private static final Pattern LINE = Pattern.compile(
            "rank (\\d+) of 8 on (\\S+) pid (\\d+) \\((\\d+) over the network\\): every collective ok");

    @BeforeEach
    void available() {
        Cluster.assumeAvailable();
    }

    @Test
    void eightRanksRunAsThreadsOfOneJvmPerHost() throws Exception {
        try (Cluster c = Cluster.start(4)) {
            List<String> cmd = runWith(c, List.of("--threads", "--tag-output", "--hostfile",
                    ClusterRunIT.hostfile(c).toString()), "200s", "io.tutti.systest.WhereRanksRun");
            Cluster.Result r = c.exec(0, Duration.ofSeconds(240), cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            String[] pids = new String[8];
            for (String line : r.stdout().lines().toList()) {
                Matcher m = LINE.matcher(line);
                if (!m.find()) {
                    continue;
                }
                int rank = Integer.parseInt(m.group(1));
                // tagged by the host JVM, by thread
                assertTrue(line.startsWith("[" + rank + "] "), line);
                assertEquals(c.host(rank / 2), m.group(2), "the host of rank " + rank + ": " + line);
                // the other rank of its host over shared memory, the six of the other hosts over the rails
                assertEquals("6", m.group(4), line);
                pids[rank] = m.group(3);
            }
            for (int h = 0; h < 4; h++) {
                int first = 2 * h;
                assertTrue(pids[first] != null && pids[first + 1] != null, r::toString);
                assertEquals(pids[first], pids[first + 1], "ranks " + first + " and " + (first + 1) + " share a JVM");
                // one process each: the JVM itself on the launcher's host, the ssh session to it on the others
                assertTrue(r.stderr().matches("(?s).*ranks " + first + "-" + (first + 1) + " \\(threads of one JVM\\)"
                        + " are pid " + (h == 0 ? pids[0] : "\\d+") + " on " + c.host(h) + "\n.*"), r::toString);
            }
            assertNothingLeft(c, 4);
        }
    }

    /**
     * Rank 1 throws on the second host, whose JVM also runs rank 2: the job ends naming rank 1 and
     * its host's ranks (the others do not wait for rank 1, so no failure of theirs comes first).
     */
    @Test
    void aRankThreadThatThrowsEndsTheJobNamingIt() throws Exception {
        try (Cluster c = Cluster.start(2)) {
            List<String> cmd = runWith(c, List.of("--threads", "--host", c.host(0) + ":1," + c.host(1) + ":2"),
                    "100s", "io.tutti.systest.Boom", "alone");
            Cluster.Result r = c.exec(0, Duration.ofSeconds(150), cmd.toArray(String[]::new));
            assertEquals(1, r.exitCode(), r::toString);
            assertTrue(r.stderr().contains("tutti run: rank 1 failed: java.lang.IllegalStateException: boom"),
                    r::toString);
            assertTrue(r.stderr().contains("tutti run: ranks 1-2 (threads of one JVM) on host " + c.host(1)
                    + " (through 'ssh -F " + c.sshConfig() + "') exited with code 1"), r::toString);
            assertNothingLeft(c, 2);
        }
    }

    /**
     * A program of the mpi API, unchanged, as threads of one JVM per host: each rank has its own MPI
     * state. Then abort on the second host's last rank ends that host's JVM with its code, the rank
     * named there and its host's ranks by the launcher.
     */
    @Test
    void mpiProgramsRunAsThreadsAcrossHosts() throws Exception {
        try (Cluster c = Cluster.start(2)) {
            List<String> hosts = List.of("--threads", "--host", c.host(0) + ":2," + c.host(1) + ":2");
            Cluster.Result r = c.exec(0, Duration.ofSeconds(150), runWith(c, hosts, "100s",
                    "io.tutti.systest.mpi.MpiThreadRanks").toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            assertEquals(4, r.stdout().lines().filter(l -> l.endsWith(" of 4: thread ranks ok")).count(), r::toString);
            assertNothingLeft(c, 2);

            Cluster.Result abort = c.exec(0, Duration.ofSeconds(150), runWith(c, hosts, "100s",
                    "io.tutti.systest.mpi.MpiFatal", "abort").toArray(String[]::new));
            assertEquals(3, abort.exitCode(), abort::toString);
            assertTrue(abort.stderr().contains("mpi: MPI_ABORT was called on rank 3 in communicator MPI.COMM_WORLD"
                    + " with error code 3"), abort::toString);
            assertTrue(abort.stderr().contains("tutti run: rank 3 exited with code 3"), abort::toString);
            assertTrue(abort.stderr().contains("ranks 2-3 (threads of one JVM) on host " + c.host(1)), abort::toString);
            assertFalse(abort.stdout().contains("not ended"), abort::toString);
            assertNothingLeft(c, 2);
        }
    }

    /** The JVM of a host's two ranks is killed: the launcher names both ranks and their host, and ends the job. */
    @Test
    void aKilledHostJvmIsNamedWithItsRanks() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            Path dir = Files.createDirectories(c.dir().resolve("marks"));
            List<String> cmd = c.command(0, runWith(c, List.of("--threads", "--hostfile",
                    ClusterRunIT.hostfile(c).toString()), "100s", "io.tutti.systest.Blocker", dir.toString(), "-1")
                    .toArray(String[]::new));
            Path err = c.dir().resolve("launcher.err");
            Process launcher = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).start();
            try {
                assertTrue(ClusterRunIT.ready(dir, 6, Duration.ofSeconds(120)), () -> "not ready:\n" + read(err));
                String pid = Files.readString(dir.resolve("rank-4.pid")).strip();
                assertEquals(pid, Files.readString(dir.resolve("rank-5.pid")).strip(), "ranks 4 and 5 share a JVM");
                assertEquals(0, c.exec(2, "kill", "-9", pid).exitCode());
                assertTrue(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), () -> read(err));
                assertTrue(launcher.exitValue() != 0, () -> read(err));
                String said = read(err);
                assertTrue(said.contains("ranks 4-5 (threads of one JVM) on host " + c.host(2)), said);
            } finally {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
            }
            // the killed JVM could not remove its host's directory: the next job with ranks there sweeps it
            assertNothingLeft(c, 2);
            Cluster.Result next = c.exec(0, Duration.ofSeconds(150), runWith(c, List.of("--threads", "--hostfile",
                    ClusterRunIT.hostfile(c).toString()), "100s", "io.tutti.systest.Hello").toArray(String[]::new));
            assertEquals(0, next.exitCode(), next::toString);
            assertNothingLeft(c, 3);
        }
    }

    /** The launcher is killed: every host's JVM of rank threads stops by itself and leaves no files behind. */
    @Test
    void theLauncherKilledEndsEveryHostsJvm() throws Exception {
        try (Cluster c = Cluster.start(3)) {
            Path dir = Files.createDirectories(c.dir().resolve("marks"));
            List<String> cmd = c.command(0, runWith(c, List.of("--threads", "--hostfile",
                    ClusterRunIT.hostfile(c).toString()), "100s", "io.tutti.systest.Blocker", dir.toString(), "-1")
                    .toArray(String[]::new));
            Path err = c.dir().resolve("launcher.err");
            Process launcher = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).start();
            try {
                assertTrue(ClusterRunIT.ready(dir, 6, Duration.ofSeconds(120)), () -> "not ready:\n" + read(err));
                ProcessHandle java = launcher.descendants().filter(p -> p.info().commandLine()
                        .map(x -> x.contains("io.tutti.cli.Main")).orElse(false)).findFirst().orElseThrow();
                java.destroyForcibly();
                // the host JVMs see the launcher's connections close at once; the rest is slack for load
                for (int h = 1; h < 3; h++) {
                    assertNothingLeftOn(c, h);
                }
            } finally {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
            }
        }
    }

    /** No host keeps a job directory or a JVM of rank threads (30 s for each, for a loaded machine). */
    private static void assertNothingLeft(Cluster c, int hosts) throws Exception {
        assertNoJobDirectories(c, hosts);
        for (int h = 0; h < hosts; h++) {
            assertNothingLeftOn(c, h);
        }
    }

    /** Host {@code h} keeps no JVM of rank threads, then no job directory (30 s for each). */
    private static void assertNothingLeftOn(Cluster c, int h) throws Exception {
        {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            String left;
            do {
                left = c.exec(h, "sh", "-c", "pgrep -af 'cli[.]HostThreads' || true").stdout();
                if (left.isBlank()) {
                    break;
                }
                Thread.sleep(200);
            } while (System.nanoTime() < deadline);
            String host = c.host(h);
            String kept = left;
            assertTrue(kept.isBlank(), () -> "host " + host + " still runs " + kept);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String files;
        do {
            files = c.exec(h, "sh", "-c", "ls -d /dev/shm/tutti-* 2>/dev/null || true").stdout();
            if (files.isBlank()) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        String kept = files;
        String inside = c.exec(h, "sh", "-c", "ls -la /dev/shm/tutti-*/ 2>&1; cat /dev/shm/tutti-*/*.pid 2>&1 || true")
                .stdout();
        throw new AssertionError("host " + c.host(h) + " keeps " + kept + "holding:\n" + inside);
    }
}
