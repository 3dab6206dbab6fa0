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
 * Ports and published names under {@code tutti run} ({@link PortMeeter}): two halves of a job meet
 * at a port over shared memory and over the rails, a spawned job connects to a port its parents
 * published, the misuses fail with clear errors, and rank threads are told why they cannot.
 */
@Timeout(240)
class PortsIT {
    @TempDir
    Path work;

    /** Runs PortMeeter in {@code mode} on {@code ranks} ranks, with {@code options} for tutti run. */
    private Launch.Result run(Map<String, String> env, String ranks, String mode, String... options) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", "--verbose", "-n", ranks,
                "--timeout", "150s"));
        args.addAll(java.util.List.of(options));
        args.addAll(java.util.List.of("--cp", Launch.testClasses(), "io.tutti.systest.PortMeeter", mode));
        return Launch.run(work, env, Duration.ofSeconds(200), args.toArray(String[]::new));
    }

    @Test
    void twoHalvesOfAJobMeetAtAPublishedPort() throws Exception {
        Launch.Result r = run(Map.of(), "4", "split");
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.matches("rank \\d of 4: ports ok")).count(), r::toString);
        assertTrue(r.stderr().contains("joined job "), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void overTheRailsToo() throws Exception {
        Launch.Result r = run(Map.of("TUTTI_TRANSPORT", "net"), "2", "split");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.endsWith(": ports ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /** The spawned job and its parents' job share no secret: each side gets the joined job's sealed with its own. */
    @Test
    void aSpawnedJobConnectsToItsParentsPublishedPort() throws Exception {
        Launch.Result r = run(Map.of(), "2", "spawn");
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("parent \\d: ports ok")).count(), r::toString);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("child \\d: ports ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void rankThreadsCannotOpenPortsAndSaySo() throws Exception {
        Launch.Result r = run(Map.of(), "2", "split", "--threads");
        assertExit(1, r);
        assertTrue(r.toString().contains("ports and published names needs a JVM per rank"), r::toString);
    }
}
