package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Jobs that succeed: a ring and a checked all-to-all from 8 B to 1 MiB, as processes and as threads. */
@Timeout(90)
class ExchangeIT {
    @TempDir
    Path work;

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {2, 4, 8})
    void ringAndAllToAllAcrossProcesses(int ranks) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(80), "run", "--verbose", "-n", Integer.toString(ranks),
                "--timeout", "70s", "--cp", Launch.testClasses(), "io.tutti.systest.Exchange");
        assertExit(0, r);
        assertTrue(r.stdout().contains("ring ok: token " + 3L * ranks * (ranks + 1) / 2), r::toString);
        assertEquals(ranks, r.stdout().lines().filter(l -> l.endsWith("ring and all-to-all ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /** A rank that closed and exited has not failed: a receive from any source goes on, one from it says why not. */
    @Test
    void aRankThatEndedCleanlyDoesNotFailAWildcardReceive() throws Exception {
        Path pids = java.nio.file.Files.createDirectories(work.resolve("pids"));
        Launch.Result r = Launch.run(work, Duration.ofSeconds(80), "run", "--verbose", "-n", "3", "--timeout", "70s", "--cp",
                Launch.testClasses(), "io.tutti.systest.EarlyLeaver", pids.toString());
        assertExit(0, r);
        assertTrue(r.stdout().contains("wildcard receive from rank 1"), r::toString);
        assertTrue(r.stdout().contains("closed rank reported: rank 2 has closed Tutti and exited"), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void ringAndAllToAllAcrossThreads() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(80), "run", "--verbose", "-n", "4", "--threads",
                "--timeout", "70s", "--cp", Launch.testClasses(), "io.tutti.systest.Exchange");
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.endsWith("ring and all-to-all ok")).count(), r::toString);
        assertTrue(r.stderr().contains("4 ranks as threads"), r::toString);
        r.assertNoJobDirectory();
    }
}
