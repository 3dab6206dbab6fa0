package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ports and published names under {@code tutti run} ({@link PortMeeter}): two halves of a job meet
 * at a port over shared memory and over the rails, a spawned job connects to a port its parents
 * published, two separate runs meet at a port whose name one hands the other, the misuses fail
 * with clear errors, and rank threads are told why they cannot.
 */
@Timeout(240)
class PortsIT {
    @TempDir
    Path work;

    /** Runs PortMeeter with {@code program} (its mode first) on {@code ranks} ranks, {@code options} for tutti run. */
    private Launch.Result run(Map<String, String> env, String ranks, List<String> program, String... options)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "--verbose", "-n", ranks, "--timeout", "150s"));
        args.addAll(List.of(options));
        args.addAll(List.of("--cp", Launch.testClasses(), "io.tutti.systest.PortMeeter"));
        args.addAll(program);
        return Launch.run(work, env, Duration.ofSeconds(200), args.toArray(String[]::new));
    }

    @Test
    void twoHalvesOfAJobMeetAtAPublishedPort() throws Exception {
        Launch.Result r = run(Map.of(), "4", List.of("split"));
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.matches("rank \\d of 4: ports ok")).count(), r::toString);
        assertTrue(r.stderr().contains("joined job "), r::toString);
        r.assertNoJobDirectory();
    }

    @Test
    void overTheRailsToo() throws Exception {
        Launch.Result r = run(Map.of("TUTTI_TRANSPORT", "net"), "2", List.of("split"));
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.endsWith(": ports ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /** The spawned job and its parents' job share no secret: each side gets the joined job's sealed with its own. */
    @Test
    void aSpawnedJobConnectsToItsParentsPublishedPort() throws Exception {
        Launch.Result r = run(Map.of(), "2", List.of("spawn"));
        assertExit(0, r);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("parent \\d: ports ok")).count(), r::toString);
        assertEquals(2, r.stdout().lines().filter(l -> l.matches("child \\d: ports ok")).count(), r::toString);
        r.assertNoJobDirectory();
    }

    /** Two separate tutti runs: the client's launcher proves the port's credential to the server's. */
    @Test
    void twoSeparateRunsMeetAtAPortNamePassedAsText() throws Exception {
        String file = work.resolve("port-name").toString();
        CompletableFuture<Launch.Result> server = CompletableFuture.supplyAsync(() -> {
            try {
                return run(Map.of(), "2", List.of("serve", file));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        Launch.Result client = run(Map.of(), "3", List.of("dial", file));
        Launch.Result served = server.join();
        assertExit(0, client);
        assertExit(0, served);
        assertEquals(3, client.stdout().lines().filter(l -> l.matches("client \\d: ports ok")).count(), client::toString);
        assertEquals(2, served.stdout().lines().filter(l -> l.matches("server \\d: ports ok")).count(), served::toString);
        assertTrue(served.stderr().contains("joined job "), served::toString);
        served.assertNoJobDirectory();
    }

    @Test
    void rankThreadsCannotOpenPortsAndSaySo() throws Exception {
        Launch.Result r = run(Map.of(), "2", List.of("split"), "--threads");
        assertExit(1, r);
        assertTrue(r.toString().contains("ports and published names needs a JVM per rank"), r::toString);
    }
}
