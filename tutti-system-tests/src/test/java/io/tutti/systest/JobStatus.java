package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A running job's {@code tutti status ID --json}, read by the worktree's tutti as an operator would,
 * and waits until it shows something, bounded for a loaded machine.
 */
final class JobStatus {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobStatus() {
    }

    /** The status of job {@code id}, parsed. */
    static JsonNode read(Path work, String id) throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(60), "status", id, "--json");
        assertExit(0, r);
        return JSON.readTree(r.stdout());
    }

    /** Rail {@code index} of rank {@code rank} in a status. */
    static JsonNode rail(JsonNode job, int rank, int index) {
        for (JsonNode r : job.get("ranks")) {
            if (r.get("rank").asInt() == rank) {
                return r.get("rails").get(index);
            }
        }
        throw new AssertionError("no rank " + rank + " in " + job);
    }

    /** The datagrams rank {@code rank} sent on rail {@code index}. */
    static long sent(JsonNode job, int rank, int index) {
        return rail(job, rank, index).get("datagramsSent").asLong();
    }

    /** Reads the status until {@code what} holds, for at most two minutes; the status that did. */
    static JsonNode await(Path work, String id, Predicate<JsonNode> what, String name) throws Exception {
        long end = System.nanoTime() + 120_000_000_000L;
        JsonNode job = read(work, id);
        while (!what.test(job)) {
            if (System.nanoTime() > end) {
                throw new AssertionError(name + " did not come within two minutes: " + job);
            }
            Thread.sleep(200);
            job = read(work, id);
        }
        return job;
    }
}
