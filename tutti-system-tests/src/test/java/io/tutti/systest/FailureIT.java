package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs that fail: the launcher must name the rank and the cause, stop the other ranks, exit with
 * the right code and leave no job directory behind.
 */
@Timeout(300)
class FailureIT {
    @TempDir
    Path work;

    @Test
    void aRankExitingWithACodeStopsTheOthersAndPassesTheCodeOn() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(150), "run", "--verbose", "-n", "4", "--timeout", "140s",
                "--cp", Launch.testClasses(), "io.tutti.systest.ExitAfterExchange", work.toString());
        assertExit(3, r);
        long pid1 = r.rankPids(4).get(1);
        assertTrue(r.stderr().contains("tutti run: rank 1 (pid " + pid1 + ") exited with code 3; stopping the other 3"
                + " ranks"), r::toString);
        // The others were asleep for 120 s: only the launcher can have ended them this soon.
        assertTrue(r.elapsed().toSeconds() < 100, r::toString);
        Launch.assertAllDead(r.rankPids(4));
        r.assertNoJobDirectory();
    }

    @Test
    void aRankKilledBySigkillIsReportedWithItsSignal() throws Exception {
        Launch.Running launcher = Launch.start(work, "run", "--verbose", "-n", "4", "--timeout", "200s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Blocker", work.toString(), "2");
        for (int rank = 0; rank < 4; rank++) {
            Launch.awaitFile(launcher, work.resolve("rank-" + rank + ".ready"), Duration.ofSeconds(150));
        }
        List<Long> pids = Launch.pids(work, 4);
        ProcessHandle.of(pids.get(2)).orElseThrow().destroyForcibly(); // SIGKILL, as kill -9
        Launch.Result r = launcher.await(Duration.ofSeconds(30));
        assertExit(128 + 9, r);
        assertTrue(r.stderr().contains("tutti run: rank 2 (pid " + pids.get(2) + ") was killed by signal 9 (SIGKILL)"),
                r::toString);
        Launch.assertAllDead(pids);
        r.assertNoJobDirectory();
    }

    @Test
    void aHungJobTimesOut() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "2", "--timeout", "3s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Blocker", work.toString(), "-1");
        assertExit(124, r);
        assertTrue(r.stderr().contains("tutti run: the job timed out after 3 s; ranks still running: 0, 1"),
                r::toString);
        Launch.assertAllDead(r.rankPids(2));
        r.assertNoJobDirectory();
    }

    @Test
    void aHungJobsRanksPrintTheirStacksBeforeItIsStopped() throws Exception {
        // long enough for two JVMs to start on a loaded machine: the stacks come only from ranks that joined
        Launch.Result r = Launch.run(work, Duration.ofSeconds(90), "run", "--verbose", "-n", "2", "--timeout", "30s",
                "--get-stack-traces", "--tag-output", "--cp", Launch.testClasses(), "io.tutti.systest.Blocker",
                work.toString(), "-1");
        assertExit(124, r);
        assertTrue(r.stderr().contains("tutti run: 2 of the 2 ranks asked printed their threads' stacks"),
                r::toString);
        for (int rank = 0; rank < 2; rank++) {
            // each rank's own lines, whatever the interleaving: its heading and its main thread's frame
            String tag = "[" + rank + "] ";
            List<String> own = r.stderr().lines().filter(l -> l.startsWith(tag)).toList();
            assertTrue(own.contains(tag + "tutti: rank " + rank + "'s threads, as the launcher asked:"), r::toString);
            assertTrue(own.stream().anyMatch(l -> l.contains("io.tutti.systest.Blocker.main(Blocker.java")),
                    r::toString);
        }
        r.assertNoJobDirectory();
    }

    @Test
    void aHungThreadJobTimesOut() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "2", "--threads",
                "--timeout", "2s", "--cp", Launch.testClasses(), "io.tutti.systest.Blocker", work.toString(), "-1");
        assertExit(124, r);
        assertTrue(r.stderr().contains("tutti run: the job timed out after 2 s; ranks still running: 0, 1"),
                r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void sigtermToTheLauncherStopsTheRanksAndRemovesTheJob() throws Exception {
        Launch.Running launcher = Launch.start(work, "run", "--verbose", "-n", "2", "--timeout", "200s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Blocker", work.toString(), "-1");
        for (int rank = 0; rank < 2; rank++) {
            Launch.awaitFile(launcher, work.resolve("rank-" + rank + ".ready"), Duration.ofSeconds(150));
        }
        launcher.process().destroy(); // SIGTERM, as Ctrl-C or kill would send
        Launch.Result r = launcher.await(Duration.ofSeconds(20));
        assertExit(128 + 15, r);
        assertTrue(r.stderr().contains("tutti run: the launcher is being stopped; stopping 2 ranks"), r::toString);
        Launch.assertAllDead(Launch.pids(work, 2));
        r.assertNoJobDirectory();
    }

    @Test
    void ranksEndWhenTheirLauncherIsKilled() throws Exception {
        Launch.Running launcher = Launch.start(work, "run", "--verbose", "-n", "2", "--timeout", "200s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Blocker", work.toString(), "-1");
        for (int rank = 0; rank < 2; rank++) {
            Launch.awaitFile(launcher, work.resolve("rank-" + rank + ".ready"), Duration.ofSeconds(150));
        }
        List<Long> pids = Launch.pids(work, 2);
        launcher.process().destroyForcibly(); // SIGKILL: the launcher cannot stop anything itself
        Launch.Result killed = launcher.await(Duration.ofSeconds(10));
        // nobody else would end the orphans: each rank watches its launcher
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (pids.stream().anyMatch(Launch::alive) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Launch.assertAllDead(pids);
        // the dead job's directory is removed by the next launcher that starts
        Launch.Result next = Launch.run(work, Duration.ofSeconds(40), "run", "-n", "1", "--timeout", "30s",
                "--cp", Launch.testClasses(), "io.tutti.systest.Hello");
        assertExit(0, next);
        killed.assertNoJobDirectory();
    }

    @Test
    void aRankThreadThatThrowsIsReported() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(40), "run", "--verbose", "-n", "3", "--threads",
                "--timeout", "30s", "--cp", Launch.testClasses(), "io.tutti.systest.Boom");
        assertExit(1, r);
        assertTrue(r.stderr().contains("tutti run: rank 1 failed: java.lang.IllegalStateException: boom"), r::toString);
        r.assertNoJobDirectory();
    }
}
