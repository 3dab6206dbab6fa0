package io.tutti.systest;

import static io.tutti.systest.JobStatus.rail;
import static io.tutti.systest.JobStatus.sent;
import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operators' control on the two-host namespace fixture, two rails each: a rail taken out of
 * service and brought back in the middle of a transfer ({@code tutti rail}), read back from the
 * ranks' counters; and drained hosts left out of a hostfile ({@code tutti host drain}).
 */
@Timeout(300)
class RailControlIT {
    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    /**
     * {@link RailSwitch} runs between the hosts; rank 0's rail r1 is taken out: both ranks stop
     * sending data on it (rank 1 told by rank 0) while the other rail carries on, both show it
     * {@code down (admin)}; rank 0's last rail is refused; r1 brought back carries data again both
     * ways; and the transfer ends with every byte checked.
     */
    @Test
    void aRailTakenOutAndBroughtBackMidTransferMovesTheTrafficAndBack() throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Launch.Running job = Launch.start(work, Map.of(), "run", "--verbose", "-n", "2", "--hosts",
                    String.join(",", net.hosts()), "--ppn", "1", "--exec-prefix", "ip netns exec {host}", "--rails",
                    "r0,r1", "--timeout", "240s", "--cp", Launch.testClasses(), "io.tutti.systest.RailSwitch",
                    work.toString());
            try {
                Launch.awaitFile(job, work.resolve("started"), Duration.ofSeconds(90));
                String id = new Launch.Result(0, "", Files.readString(job.stderr()), Duration.ZERO).jobId();
                JobStatus.await(work, id, j -> sent(j, 0, 1) > 0 && sent(j, 1, 1) > 0,
                        "both ranks send on rail 1 before");

                Launch.Result down = Launch.run(work, Duration.ofSeconds(60), "rail", id, "down", "r1", "--rank", "0");
                assertExit(0, down);
                assertEquals("rank 0: rail 1 (r1) out of service", down.stdout().strip(), down::toString);
                assertEquals("down (admin)", rail(JobStatus.read(work, id), 0, 1).get("state").asText());
                // rank 1 stops once told; what it had sent until then is counted with the state
                JsonNode told = JobStatus.await(work, id,
                        j -> rail(j, 1, 1).get("state").asText().equals("down (admin)"),
                        "rank 1 shows rail 1 down (admin)");
                Launch.Result last = Launch.run(work, Duration.ofSeconds(60), "rail", id, "down", "0", "--rank", "0");
                assertExit(1, last);
                assertTrue(last.stderr().contains("rank 0: refused: rail 0 (r0) is its last rail in service"),
                        last::toString);
                long out0 = sent(told, 0, 1);
                long out1 = sent(told, 1, 1);
                long other0 = sent(told, 0, 0);
                long other1 = sent(told, 1, 0);
                JsonNode later = JobStatus.await(work, id,
                        j -> sent(j, 0, 0) > other0 + 2000 && sent(j, 1, 0) > other1 + 2000,
                        "traffic goes on on rail 0");
                assertEquals(out0, sent(later, 0, 1), "rank 0 sent data on the rail it took out");
                assertEquals(out1, sent(later, 1, 1), "rank 1 sent data on the rail rank 0 took out");

                Launch.Result up = Launch.run(work, Duration.ofSeconds(60), "rail", id, "up", "1");
                assertExit(0, up);
                assertTrue(up.stdout().contains("rank 0: rail 1 (r1) in service"), up::toString);
                JsonNode back = JobStatus.await(work, id,
                        j -> sent(j, 0, 1) > out0 + 100 && sent(j, 1, 1) > out1 + 100,
                        "traffic returns to rail 1 both ways");
                assertTrue(!rail(back, 0, 1).get("state").asText().startsWith("down")
                        && !rail(back, 1, 1).get("state").asText().startsWith("down"), back::toString);
            } finally {
                Files.writeString(work.resolve("stop"), "stop");
            }
            Launch.Result r = job.await(Duration.ofSeconds(120));
            assertExit(0, r);
            assertTrue(r.stdout().contains("each way, every byte checked"), r::toString);
            r.assertNoJobDirectory();
        }
    }

    /**
     * A drained host is left out of the hostfile, with one line saying so: both ranks run on the
     * other and talk through shared memory; with both drained, nothing runs and the error says why.
     */
    @Test
    void tuttiRunLeavesDrainedHostsOutOfTheHostfile() throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Map<String, String> env = Map.of("TUTTI_DRAINED_HOSTS", work.resolve("drained").toString());
            List<String> hosts = net.hosts();
            Path hostfile = work.resolve("hosts");
            Files.writeString(hostfile, hosts.get(0) + " slots=1\n" + hosts.get(1) + " slots=2\n");
            Launch.Result drain = Launch.run(work, env, Duration.ofSeconds(60), "host", "drain", hosts.get(0));
            assertExit(0, drain);
            Launch.Result r = Launch.run(work, env, Duration.ofSeconds(150), "run", "-n", "2", "--hostfile",
                    hostfile.toString(), "--exec-prefix", "ip netns exec {host}", "--rails", "r0,r1", "--timeout",
                    "100s", "--cp", Launch.testClasses(), "io.tutti.systest.Exchange");
            assertExit(0, r);
            assertTrue(r.stderr().lines().anyMatch(l -> l.equals("tutti run: leaving out drained host " + hosts.get(0)
                    + " (tutti host list; tutti host undrain HOST brings one back)")), r::toString);
            Predicate<String> local = l -> l.endsWith("(0 over the network): ring and all-to-all ok");
            assertEquals(2, r.stdout().lines().filter(local).count(), r::toString);

            assertExit(0, Launch.run(work, env, Duration.ofSeconds(60), "host", "drain", hosts.get(1)));
            Launch.Result none = Launch.run(work, env, Duration.ofSeconds(60), "run", "-n", "2", "--hostfile",
                    hostfile.toString(), "--exec-prefix", "ip netns exec {host}", "--cp", Launch.testClasses(),
                    "io.tutti.systest.Exchange");
            assertExit(2, none);
            assertTrue(none.stderr().contains("every host named is drained"), none::toString);
        }
    }
}
