package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A rank SIGKILLed mid-run under {@code tutti run --on-failure continue}: the launcher names it and
 * lets the others go on; they revoke, shrink, check collectives and agreement on the shrunk
 * communicator, and exit 0, so the job does, over shared memory and over the rails. A rank that
 * closes still delivers to the live ranks what it started sending.
 */
@Timeout(180)
class ShrinkAfterKillIT {
    @TempDir
    Path work;

    @ParameterizedTest(name = "{0} ranks over {1}")
    @CsvSource({"6, auto", "4, net"})
    void theSurvivorsOfAKilledRankShrinkAndFinish(int n, String transport) throws Exception {
        Launch.Result r = Launch.run(work, Map.of("TUTTI_NET", "tcp"), Duration.ofSeconds(170), "run", "--verbose",
                "-n", Integer.toString(n), "--transport", transport, "--on-failure", "continue", "--timeout", "150s",
                "--tag-output", "--cp", Launch.testClasses(), "io.tutti.systest.ShrinkAfterKill");
        assertExit(0, r);
        int victim = n - 2;
        long pid = r.rankPids(n).get(victim);
        assertTrue(r.stderr().contains("rank " + victim + " (pid " + pid + ") was killed by signal 9 (SIGKILL); the"
                + " other"), r::toString);
        for (int rank = 0; rank < n; rank++) {
            assertEquals(rank != victim, r.stdout().contains("survivor ok " + rank), r::toString);
        }
        assertTrue(r.stdout().contains("noticed: rank " + victim), r::toString);
        r.assertNoJobDirectory();
    }

    /** The sample: a rank dies at iteration 37, the survivors go back to the checkpoint of 30 and finish right. */
    @ParameterizedTest(name = "over {0}")
    @CsvSource({"auto", "net"})
    void theResilientSolverLosesARankAndFinishesWithTheRightAnswer(String transport) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(170), "run", "--verbose", "--tag-output", "-n", "5",
                "--transport", transport, "--on-failure", "continue", "--timeout", "150s", "io.tutti.samples.ResilientJacobi", "1200", "200",
                "2", "37");
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.contains("4 survivors back at iteration 30")).count(),
                r::toString);
        // the sample checks its block against a sequential run and exits non-zero when wrong
        assertEquals(4, r.stdout().lines().filter(l -> l.contains("largest error")).count(), r::toString);
        assertTrue(r.stdout().contains("x[600..899]"), r::toString);
        r.assertNoJobDirectory();
    }

    /** A rank's close delivers its started sends to the live ranks although another rank is dead. */
    /**
     * The sample with {@code respawn}: the survivors spawn a new rank for the dead one, merge with it
     * and finish as five, the new rank's block right too.
     */
    @ParameterizedTest(name = "over {0}")
    @CsvSource({"auto", "net"})
    void theResilientSolverReplacesTheLostRankAndFinishesAsFive(String transport) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(170), "run", "--verbose", "--tag-output", "-n", "5",
                "--transport", transport, "--on-failure", "continue", "--timeout", "150s",
                "io.tutti.samples.ResilientJacobi", "1200", "200", "2", "37", "respawn");
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.contains("4 survivors back at iteration 30")).count(),
                r::toString);
        assertEquals(4, r.stdout().lines().filter(l -> l.contains("1 replaced: 5 ranks back at iteration 30"))
                .count(), r::toString);
        assertTrue(r.stdout().contains("replacement rank 4 of 5 joins at iteration 30"), r::toString);
        // the four survivors and the new rank check their blocks against a sequential run
        assertEquals(5, r.stdout().lines().filter(l -> l.contains("largest error")).count(), r::toString);
        assertTrue(r.stdout().contains("(now 4 of 5) holds x[960..1199]"), r::toString);
        r.assertNoJobDirectory();
    }

    @ParameterizedTest(name = "over {0}")
    @CsvSource({"auto", "net"})
    void closingDeliversToTheLiveThoughAnotherRankIsDead(String transport) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(170), "run", "--verbose", "--tag-output", "-n", "3",
                "--transport", transport, "--on-failure", "continue", "--timeout", "150s", "--cp",
                Launch.testClasses(), "io.tutti.systest.FlushPastADeadRank");
        assertExit(0, r);
        assertTrue(r.stdout().contains("rank 0 closes with its sends started"), r::toString);
        assertTrue(r.stdout().contains("received all " + FlushPastADeadRank.MESSAGES), r::toString);
        r.assertNoJobDirectory();
    }

    @org.junit.jupiter.api.Test
    void withoutTheOptionAKilledRankStillEndsTheJob() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(120), "run", "--verbose", "-n", "3", "--timeout", "100s",
                "--cp", Launch.testClasses(), "io.tutti.systest.ShrinkAfterKill");
        assertExit(128 + 9, r);
        assertTrue(r.stderr().contains("was killed by signal 9 (SIGKILL); stopping the other"), r::toString);
        r.assertNoJobDirectory();
    }

    @org.junit.jupiter.api.Test
    void aBadPolicyIsAUsageError() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(60), "run", "-n", "2", "--on-failure", "ignore",
                "--cp", Launch.testClasses(), "io.tutti.systest.ShrinkAfterKill");
        assertExit(2, r);
        assertTrue(r.stderr().contains("--on-failure takes 'stop' or 'continue', not 'ignore'"), r::toString);
    }
}
