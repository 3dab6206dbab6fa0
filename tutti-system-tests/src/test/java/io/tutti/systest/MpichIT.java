package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tutti under MPICH's Hydra ({@code mpiexec.hydra}, named explicitly: {@code mpiexec} may be Open
 * MPI's): the ranks meet through PMI-2 on PMI_FD with no TUTTI_KVS_DIR, on this machine and across
 * two hosts of a {@link Cluster} that Hydra reaches with the cluster's ssh configuration; no job
 * directory is left in /dev/shm; a rank that knows the job id but not the secret rank 0 put in
 * the key-value space receives nothing.
 */
@Timeout(300)
class MpichIT {
    private static final Path HYDRA = Path.of("/usr/bin/mpiexec.hydra");
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);

    @BeforeEach
    void available() {
        assumeTrue(Files.isExecutable(HYDRA), HYDRA + " is missing: install MPICH (apt-get install mpich)");
    }

    @Test
    void fourRanksOnThisMachineMeetThroughPmi() throws Exception {
        Set<Path> before = jobDirectories();
        List<String> cmd = new ArrayList<>(List.of(HYDRA.toString(), "-n", "4"));
        cmd.addAll(SlurmIT.java("LauncherCheck"));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("TUTTI_KVS_DIR");
        Cluster.Result r = run(pb);
        assertEquals(0, r.exitCode(), r::toString);
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.stdout().contains("rank " + rank + " of 4 on "), r::toString);
        }
        assertEquals(4, r.stdout().lines().filter(l -> l.endsWith("launcher MPICH, 0 over the network, checks ok"))
                .count(), r::toString);
        Set<Path> left = jobDirectories();
        left.removeAll(before);
        assertTrue(left.isEmpty(), () -> "left behind: " + left);
    }

    @Test
    void fourRanksOnTwoHostsStartedOverSsh() throws Exception {
        Cluster.assumeAvailable();
        try (Cluster c = Cluster.start(2)) {
            List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_RAILS=eth0",
                    // Hydra's ssh launcher with the cluster's client configuration
                    "HYDRA_LAUNCHER_EXTRA_ARGS=-F " + c.sshConfig(), HYDRA.toString(), "-launcher", "ssh",
                    "-hosts", c.host(0) + ":2," + c.host(1) + ":2", "-n", "4"));
            cmd.addAll(SlurmIT.java("LauncherCheck"));
            Cluster.Result r = c.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            for (int rank = 0; rank < 4; rank++) {
                assertTrue(r.stdout().contains("rank " + rank + " of 4 on " + c.host(rank / 2)
                        + ": launcher MPICH, 2 over the network, checks ok\n"), r::toString);
            }
            for (int h = 0; h < 2; h++) {
                Cluster.Result ls = c.exec(h, "sh", "-c", "ls -a /dev/shm");
                assertFalse(ls.stdout().contains("tutti-"), ls::toString);
            }
        }
    }

    @Test
    void aRankThatKnowsTheJobIdButNotTheSecretIsRejected() throws Exception {
        Cluster.assumeAvailable();
        try (Cluster c = Cluster.start(2)) {
            // ranks 0-2 idle on the first host; rank 3, alone on the second, is the intruder
            List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_RAILS=eth0", "TUTTI_NET_STATS=1",
                    "HYDRA_LAUNCHER_EXTRA_ARGS=-F " + c.sshConfig(), HYDRA.toString(), "-launcher", "ssh",
                    "-hosts", c.host(0) + ":3," + c.host(1) + ":1", "-n", "3"));
            cmd.addAll(SlurmIT.java("LauncherCheck", "--idle", "6"));
            cmd.addAll(List.of(":", "-n", "1"));
            cmd.addAll(SlurmIT.java("Intruder", "4"));
            Cluster.Result r = c.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            SlurmIT.assertIntruderRejected(r, 3, "mpich-");
        }
    }

    private static Cluster.Result run(ProcessBuilder pb) throws IOException, InterruptedException {
        Path out = Files.createTempFile("mpich-out", ".txt");
        Path err = Files.createTempFile("mpich-err", ".txt");
        try {
            long start = System.nanoTime();
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(JOB_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            return new Cluster.Result(p.isAlive() ? -1 : p.exitValue(), Files.readString(out), Files.readString(err),
                    Duration.ofNanos(System.nanoTime() - start));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The job directories of MPICH jobs in /dev/shm. */
    private static Set<Path> jobDirectories() throws IOException {
        Set<Path> dirs = new HashSet<>();
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(shm, "tutti-mpich-*")) {
                s.forEach(dirs::add);
            }
        }
        return dirs;
    }
}
