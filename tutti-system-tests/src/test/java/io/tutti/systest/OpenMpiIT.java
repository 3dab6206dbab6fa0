package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tutti under Open MPI's {@code mpirun} (named as {@code mpirun.openmpi}: {@code mpirun} may be
 * MPICH's) on two hosts of a {@link Cluster}, reached with the cluster's ssh configuration: the
 * ranks meet through PMIx with no TUTTI_KVS_DIR, share memory inside a host and use the rails
 * between hosts, and leave no job directory in any host's /dev/shm; a rank that knows the job id
 * but not the secret that rank 0 spread through PMIx receives nothing.
 */
@Timeout(400)
class OpenMpiIT {
    private static final Path MPIRUN = Path.of("/usr/bin/mpirun.openmpi");
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    private static Cluster cluster;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Files.isExecutable(MPIRUN), MPIRUN + " is missing: install Open MPI (apt-get install openmpi-bin)");
        Cluster.assumeAvailable();
        cluster = Cluster.start(2);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void fourRanksOnTwoHostsMeetThroughPmix() throws Exception {
        List<String> cmd = mpirun(2, 2, "-np", "4");
        cmd.addAll(SlurmIT.java("LauncherCheck"));
        Cluster.Result r = cluster.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r::toString);
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.stdout().contains("rank " + rank + " of 4 on " + cluster.host(rank / 2)
                    + ": launcher OPEN_MPI, 2 over the network, checks ok\n"), r::toString);
        }
        assertNoJobDirectories();
    }

    @Test
    void aRankThatKnowsTheJobIdButNotTheSecretIsRejected() throws Exception {
        // ranks 0-2 idle on the first host; rank 3, alone on the second, is the intruder
        // the intruder names its interface (TUTTI_RAILS), as it opens its transport without Tutti's start-up
        List<String> cmd = mpirun(3, 1, "-x", "TUTTI_NET_STATS=1", "-x", "TUTTI_RAILS=eth0", "-np", "3");
        cmd.addAll(SlurmIT.java("LauncherCheck", "--idle", "6"));
        cmd.addAll(List.of(":", "-x", "TUTTI_NET_STATS=1", "-x", "TUTTI_RAILS=eth0", "-np", "1"));
        cmd.addAll(SlurmIT.java("Intruder", "4"));
        Cluster.Result r = cluster.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r::toString);
        SlurmIT.assertIntruderRejected(r, 3, "ompi-");
        assertNoJobDirectories();
    }

    /**
     * {@code mpirun} over the cluster's ssh with {@code first} and {@code second} slots on the two
     * hosts, its own traffic on the hosts' eth0, then {@code args}; the rails take their default
     * (the address the host's name resolves to).
     */
    private static List<String> mpirun(int first, int second, String... args) {
        List<String> cmd = new ArrayList<>(List.of(MPIRUN.toString(), "--allow-run-as-root",
                "--host", cluster.host(0) + ":" + first + "," + cluster.host(1) + ":" + second,
                "--mca", "plm_rsh_agent", "ssh -F " + cluster.sshConfig(),
                "--mca", "oob_tcp_if_include", "eth0", "--mca", "btl_tcp_if_include", "eth0"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static void assertNoJobDirectories() throws Exception {
        for (int h = 0; h < 2; h++) {
            Cluster.Result ls = cluster.exec(h, "sh", "-c", "ls -a /dev/shm");
            assertEquals(0, ls.exitCode(), ls::toString);
            String host = cluster.host(h);
            assertFalse(ls.stdout().contains("tutti-"), () -> host + " keeps " + ls.stdout());
        }
    }
}
