package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tutti under a real Slurm (slurmctld and a slurmd per host of a {@link SlurmCluster}): {@code srun
 * --mpi=pmi2} across three hosts and an {@code sbatch} script need no TUTTI_KVS_DIR, the ranks meet
 * and get their secret through PMI-2, and no job directory is left in any host's /dev/shm. Inside
 * {@code sbatch} and {@code salloc}, {@code tutti run} without host options places its ranks on the
 * allocation's nodes and starts each through srun, or says why it cannot.
 */
@Timeout(600)
class SlurmIT {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(180);
    /** Rank JVMs small enough for six on two cores. */
    private static final String SMALL_RANKS = "-Xmx128m -XX:TieredStopAtLevel=1";
    private static SlurmCluster slurm;

    @BeforeAll
    static void start() throws Exception {
        SlurmCluster.assumeAvailable();
        slurm = SlurmCluster.start(3);
    }

    @AfterAll
    static void stop() {
        if (slurm != null) {
            slurm.close();
        }
    }

    /** The command line of {@code java} running {@code main} with the assembly and the test classes. */
    static List<String> java(String main, String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String cp = Launch.lib().toAbsolutePath() + File.separator + "*" + File.pathSeparator + Launch.testClasses();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", cp,
                "io.tutti.systest." + main));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** PMI-2 is spoken on PMI_FD; PMIx through Slurm's pmix plugin and the ranks' libpmix.so.2. */
    @ParameterizedTest
    @ValueSource(strings = {"pmi2", "pmix"})
    void srunRunsSixRanksOnThreeHostsWithoutAKvsDirectory(String mpi) throws Exception {
        // no TUTTI_RAILS: the rails take the address each host's name resolves to
        List<String> cmd = new ArrayList<>(List.of("env", "srun", "--mpi=" + mpi, "-N", "3", "-n",
                "6"));
        cmd.addAll(java("LauncherCheck"));
        Cluster.Result r = slurm.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(0, r.exitCode(), () -> r + slurm.logs());
        assertFalse(r.stdout().contains("TUTTI_KVS_DIR") || r.stderr().contains("TUTTI_KVS_DIR"), r::toString);
        for (int rank = 0; rank < 6; rank++) {
            String host = slurm.cluster().host(rank / 2);
            assertTrue(r.stdout().contains("rank " + rank + " of 6 on " + host + ": launcher SLURM, 4 over the network,"
                    + " checks ok\n"), r::toString);
        }
        assertNoJobDirectories();
    }

    @Test
    void anSbatchScriptThatRunsSrunWorks() throws Exception {
        String text = batch("srun", "#SBATCH -N 3\n#SBATCH -n 6\nexport TUTTI_RAILS=eth0\nexec srun --mpi=pmi2 "
                + shellWords(java("LauncherCheck")) + "\n");
        for (int rank = 0; rank < 6; rank++) {
            assertTrue(text.contains("rank " + rank + " of 6 on "), text);
        }
        assertEquals(6, text.lines().filter(l -> l.endsWith("launcher SLURM, 4 over the network, checks ok")).count(),
                text);
        assertNoJobDirectories();
    }

    /**
     * An sbatch script calls {@code tutti run -n 6} with no host options: two ranks on each of the
     * three nodes, each started through srun, meet at tutti run's rendezvous and take their rails on
     * their address toward it (no TUTTI_RAILS).
     */
    @Test
    void anSbatchScriptThatCallsTuttiRunStartsTheRanksOnTheAllocationsNodes() throws Exception {
        String text = batch("tutti-run", "#SBATCH -N 3\n#SBATCH --ntasks-per-node=2\nexport TUTTI_JVM_OPTS='"
                + SMALL_RANKS + "'\n" + shellWords(Launch.tutti("run", "-n", "6", "--timeout", "150s", "--cp",
                Launch.testClasses(), "io.tutti.systest.LauncherCheck")) + "\necho \"tutti run exit $?\"\n");
        for (int rank = 0; rank < 6; rank++) {
            String host = slurm.cluster().host(rank / 2);
            assertTrue(text.contains("rank " + rank + " of 6 on " + host + ": launcher TUTTI, 4 over the network,"
                    + " checks ok\n"), text);
        }
        assertTrue(text.contains("tutti run exit 0\n"), text);
        assertNoJobDirectories();
    }

    /**
     * Inside an allocation, processes the ranks spawn start through {@code srun} as the ranks did,
     * on the nodes of the ranks, and join them.
     */
    @Test
    void ranksOfTuttiRunInAnAllocationSpawnThroughSrun() throws Exception {
        String text = batch("tutti-spawn", "#SBATCH -N 2\n#SBATCH --ntasks-per-node=2\nexport TUTTI_JVM_OPTS='"
                + SMALL_RANKS + "'\n" + shellWords(Launch.tutti("run", "-n", "4", "--verbose", "--timeout", "150s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Spawner", "4")) + "\necho \"tutti run exit $?\"\n");
        assertTrue(text.contains("tutti run exit 0\n"), text);
        assertEquals(4, text.lines().filter(l -> l.matches("parent \\d of 4: spawned 4, ok")).count(), text);
        assertEquals(4, text.lines().filter(l -> l.matches("child \\d of 4 with 4 parents: ok")).count(), text);
        // two on each of the allocation's nodes: spawned process k goes where rank k runs
        java.util.Map<String, Long> perHost = text.lines().filter(l -> l.matches("child \\d runs on .+"))
                .collect(java.util.stream.Collectors.groupingBy(
                        l -> l.substring(l.indexOf(" on ") + 4, l.indexOf(" with ")),
                        java.util.stream.Collectors.counting()));
        assertEquals(java.util.List.of(2L, 2L), java.util.List.copyOf(perHost.values()), text);
        assertNoJobDirectories();
    }

    /** In an allocation of 4 slots, {@code tutti run -n 8} is refused at once, as for a hostfile. */
    @Test
    void moreRanksThanTheAllocationsSlotsAreRefusedBeforeAnyStarts() throws Exception {
        List<String> cmd = new ArrayList<>(List.of("salloc", "-N", "2", "--ntasks-per-node=2", "-w",
                slurm.cluster().host(0) + "," + slurm.cluster().host(1)));
        cmd.addAll(Launch.tutti("run", "-n", "8", "--cp", Launch.testClasses(), "io.tutti.systest.LauncherCheck"));
        Cluster.Result r = slurm.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(2, r.exitCode(), () -> r + slurm.logs());
        assertTrue(r.stderr().matches("(?s).*tutti run: Slurm job \\d+: -n 8 is more than the 4 slots of the hosts \\("
                + slurm.cluster().host(0) + ":2, " + slurm.cluster().host(1) + ":2\\): give -n 4 or less, more slots,"
                + " or --oversubscribe to run more ranks than slots\n.*"), r::toString);
        assertFalse(r.stdout().contains("rank "), r::toString);
        // nothing starts: the refusal takes a JVM's start-up, the slack is for a loaded machine
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(60)) < 0, r::toString);
    }

    /**
     * {@code tutti run} on a host outside its allocation (salloc's shell on a login node) says so,
     * and without -n gives every slot a rank, which connects back to it over TCP.
     */
    @Test
    void aLauncherOutsideTheAllocationSaysSoAndItsRanksConnectBack() throws Exception {
        String node = slurm.cluster().host(2);
        List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_JVM_OPTS=" + SMALL_RANKS, "salloc", "-N", "1",
                "--ntasks-per-node=2", "-w", node));
        cmd.addAll(Launch.tutti("run", "--timeout", "150s", "--cp", Launch.testClasses(),
                "io.tutti.systest.LauncherCheck"));
        Cluster.Result r = slurm.exec(0, JOB_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(0, r.exitCode(), () -> r + slurm.logs());
        assertTrue(r.stderr().matches("(?s).*tutti run: this host is not one of Slurm job \\d+'s nodes \\(" + node
                + "\\): its ranks start there through srun and connect back here over TCP\n.*"), r::toString);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.stdout().contains("rank " + rank + " of 2 on " + node + ": launcher TUTTI, 0 over the"
                    + " network, checks ok\n"), r::toString);
        }
        assertNoJobDirectories();
    }

    @Test
    void aCrashedJobsDirectoriesAreSweptByTheNextJob() throws Exception {
        List<String> crash = new ArrayList<>(List.of("env", "TUTTI_RAILS=eth0", "srun", "--mpi=pmi2", "-N", "3",
                "-n", "6"));
        crash.addAll(java("LauncherCheck", "--crash"));
        Cluster.Result crashed = slurm.exec(0, JOB_TIMEOUT, crash.toArray(String[]::new));
        assertTrue(crashed.exitCode() != 0 && crashed.stdout().contains("rank 5 crashes"), crashed::toString);
        for (int h = 0; h < 3; h++) {
            Cluster.Result ls = slurm.cluster().exec(h, "sh", "-c", "ls /dev/shm");
            assertTrue(ls.stdout().contains("tutti-slurm-"), () -> "the crash left nothing to sweep: " + ls);
        }
        List<String> next = new ArrayList<>(List.of("env", "TUTTI_RAILS=eth0", "srun", "--mpi=pmi2", "-N", "3", "-n",
                "6"));
        next.addAll(java("LauncherCheck"));
        Cluster.Result r = slurm.exec(0, JOB_TIMEOUT, next.toArray(String[]::new));
        assertEquals(0, r.exitCode(), () -> r + slurm.logs());
        assertNoJobDirectories();
    }

    @Test
    void aRankThatKnowsTheJobIdButNotTheSecretIsRejected() throws Exception {
        // ranks 0-3 on the first two hosts idle; rank 4, alone on the third, is the intruder
        Path programs = slurm.dir().resolve("programs.conf");
        Files.writeString(programs, "0-3 " + String.join(" ", java("LauncherCheck", "--idle", "6")) + "\n"
                + "4 " + String.join(" ", java("Intruder", "4")) + "\n");
        Cluster.Result r = slurm.exec(0, JOB_TIMEOUT, "env", "TUTTI_RAILS=eth0", "TUTTI_NET_STATS=1", "srun",
                "--mpi=pmi2", "-N", "3", "-n", "5", "--multi-prog", programs.toString());
        assertEquals(0, r.exitCode(), () -> r + slurm.logs());
        assertIntruderRejected(r, 4, "slurm-");
        assertNoJobDirectories();
    }

    /**
     * Submits a batch script of {@code body} (its #SBATCH lines first) and waits, at most
     * {@link #JOB_TIMEOUT}, for its job to end; returns what the job printed.
     */
    private static String batch(String name, String body) throws Exception {
        Path out = slurm.dir().resolve(name + "-out.txt");
        Path script = slurm.dir().resolve(name + ".sh");
        Files.writeString(script, "#!/bin/sh\n#SBATCH -o " + out + "\n" + body);
        Cluster.Result submitted = slurm.exec(0, Duration.ofSeconds(30), "sbatch", "--parsable", script.toString());
        assertEquals(0, submitted.exitCode(), () -> submitted + slurm.logs());
        String job = submitted.stdout().strip().split(";")[0];
        long end = System.nanoTime() + JOB_TIMEOUT.toNanos();
        Cluster.Result q;
        do {
            Thread.sleep(250);
            q = slurm.exec(0, Duration.ofSeconds(30), "squeue", "-h", "-j", job, "-o", "%T");
        } while (System.nanoTime() < end && q.exitCode() == 0 && !q.stdout().isBlank());
        Cluster.Result last = q;
        String text = Files.exists(out) ? Files.readString(out) : "(no output file " + out + ")";
        assertTrue(last.stdout().isBlank(), () -> "job " + job + " did not end within " + JOB_TIMEOUT.toSeconds()
                + " s: " + last + "\n--- its output:\n" + text + slurm.logs());
        return text;
    }

    /** {@code words} as one line for sh, each word in single quotes (the class path's * stays a *). */
    private static String shellWords(List<String> words) {
        return words.stream().map(w -> "'" + w.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    }

    /**
     * Checks a job whose ranks below {@code intruder} ran {@code LauncherCheck --idle} and whose last
     * rank ran {@link Intruder} with TUTTI_NET_STATS=1: it received nothing, the others idled to the end,
     * and their rails counted HELLOs that failed the secret's check ({@code bad_mac}).
     */
    static void assertIntruderRejected(Cluster.Result r, int intruder, String jobPrefix) {
        org.junit.jupiter.api.Assertions.assertAll(
                () -> assertTrue(
                        r.stdout().contains("intruder rank " + intruder + " of " + jobPrefix), r::toString),
                () -> assertTrue(r.stdout().contains(": received 0 records"),
                        r::toString),
                () -> {
                    for (int rank = 0; rank < intruder; rank++) {
                        assertTrue(r.stdout().contains("rank " + rank + " idled"),
                                r::toString);
                    }
                },
                () -> assertTrue(r.stderr().lines()
                        .filter(l -> l.startsWith("tutti-net rank ") && l.contains(" bad_mac=")).count() >= 1,
                        r::toString));
    }

    /** No host's /dev/shm holds a job directory once the job ended. */
    private static void assertNoJobDirectories() throws Exception {
        for (int h = 0; h < 3; h++) {
            Cluster.Result ls = slurm.cluster().exec(h, "sh", "-c", "ls -a /dev/shm");
            assertEquals(0, ls.exitCode(), ls::toString);
            String host = slurm.cluster().host(h);
            assertFalse(ls.stdout().contains("tutti-"), () -> host + " keeps " + ls.stdout());
        }
    }
}
