package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Communicator.spawn} under {@code tutti run}: new processes join a job of their own with the
 * spawning ranks, over shared memory and over the rails; the launcher waits for them, reports one
 * that fails, and refuses what it cannot do with the same clear error at every rank.
 */
@Timeout(240)
class SpawnIT {
    @TempDir
    Path work;

    private Launch.Result spawn(Map<String, String> env, String... args) throws Exception {
        String[] head = {"run", "--verbose", "-n", "2", "--timeout", "150s", "--cp", Launch.testClasses()};
        String[] all = new String[head.length + 1 + args.length];
        System.arraycopy(head, 0, all, 0, head.length);
        all[head.length] = "io.tutti.systest.Spawner";
        System.arraycopy(args, 0, all, head.length + 1, args.length);
        return Launch.run(work, env, Duration.ofSeconds(200), all);
    }

    @Test
    void twoRanksSpawnThreeThatAnswerMergeAndReduce() throws Exception {
        Launch.Result r = spawn(Map.of(), "3");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("parent \\d of 2: spawned 3, ok")).count(),
                r::toString);
        assertEquals(3, r.stdout().lines().filter(l -> l.matches("child \\d of 3 with 2 parents: ok")).count(),
                r::toString);
        assertTrue(r.stderr().contains("spawned job "), r::toString);
        r.assertNoJobDirectory();
    }

    /** Two programs in one spawn make one world, the first program's processes first. */
    @Test
    void twoProgramsInOneSpawnMakeOneWorldInOrder() throws Exception {
        Launch.Result r = spawn(Map.of(), "multiple");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("parent \\d: spawned two programs, ok"))
                .count(), r::toString);
        for (String child : new String[] {"0 .* first", "1 .* first", "2 .* second"}) {
            assertEquals(1, r.stdout().lines().filter(l -> l.matches("child " + child.replace(" .* ", " runs on .*"
                    + " with last argument "))).count(), r::toString);
        }
        assertEquals(3, r.stdout().lines().filter(l -> l.matches("child \\d of 3 with 2 parents: ok")).count(),
                r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void overTheRailsToo() throws Exception {
        Launch.Result r = spawn(Map.of("TUTTI_TRANSPORT", "net"), "2");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.endsWith(": ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void aSpawnedProcessThatFailsFailsTheJobAndIsNamed() throws Exception {
        Launch.Result r = spawn(Map.of(), "1", "fail");
        assertExit(3, r);
        assertTrue(r.stderr().contains("spawned process 0 of 1 (io.tutti.systest.Spawner, pid "), r::toString);
        assertTrue(r.stderr().contains("exited with code 3"), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void anInvalidSpawnFailsAtEveryRankWithTheLaunchersReason() throws Exception {
        Launch.Result r = spawn(Map.of(), "bad");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.contains("refused: spawn from rank 0 failed: '-XX:+Evil' is"
                + " not the name of a class") && l.endsWith(" ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /**
     * Processes that exit before they join fail the spawn at every parent at once, naming them, not
     * at the rendezvous timeout (here longer than the test's own limit).
     */
    @Test
    void aSpawnWhoseProcessesNeverJoinFailsAtOnceNamingThem() throws Exception {
        Launch.Result r = spawn(Map.of("TUTTI_RENDEZVOUS_TIMEOUT_S", "900"), "never-joins");
        assertExit(4, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.contains(": spawn failed: ")
                && l.contains("(io.tutti.systest.Spawner, pid ") && l.contains("exited with code 4 before it joined"))
                .count(), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void anOpenMpiJavaProgramSpawnsAsItWouldThere() throws Exception {
        Launch.Result r = Launch.run(work, Map.of(), Duration.ofSeconds(200), "run", "--verbose", "-n", "2",
                "--timeout", "150s", "--cp", Launch.testClasses(), "io.tutti.systest.mpi.MpiSpawn");
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.endsWith(": spawn ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void rankThreadsCannotSpawnAndSaySo() throws Exception {
        Launch.Result r = Launch.run(work, Map.of(), Duration.ofSeconds(120), "run", "-n", "2", "--threads",
                "--timeout", "100s", "--cp", Launch.testClasses(), "io.tutti.systest.Spawner", "2");
        assertExit(1, r);
        assertTrue(r.toString().contains("spawning processes needs a JVM per rank"), r::toString);
    }
}
