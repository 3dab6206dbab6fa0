package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tutti.bootstrap.ShmFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counters of a running job, read from another process with {@code tutti status}: exact
 * message and byte counts per rank, transport and peer after a known exchange ({@link Counted}),
 * over shared memory and over the network rails with injected loss (then retransmissions show on
 * the rails); and the stuck view of ranks hanging in known calls ({@link Stuck}), from
 * {@code tutti status --stuck} and from the message of {@code tutti run --timeout}; and the same
 * counts from the launcher's monitor ({@code tutti run --monitor}) as JSON and Prometheus metrics.
 */
@Timeout(240)
class MonitorIT {
    private static final int RANKS = 4;
    private static final int ROUNDS = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void countersOfARunningJobMatchWhatItSentOverSharedMemory() throws Exception {
        JsonNode job = exchangeAndRead(Map.of(), "shm", this::statusJson);
        for (JsonNode rank : job.get("ranks")) {
            assertEquals(0, rank.get("net").get("messagesSent").asLong(), rank::toString);
        }
    }

    @Test
    void countersOverLossyRailsMatchAndShowRetransmissions() throws Exception {
        JsonNode job = exchangeAndRead(Map.of("TUTTI_TRANSPORT", "net", "TUTTI_NET_DROP", "0.05"), "net",
                this::statusJson);
        long retransmits = 0;
        for (JsonNode rank : job.get("ranks")) {
            assertEquals(0, rank.get("shm").get("messagesSent").asLong(), rank::toString);
            assertEquals(1, rank.get("rails").size(), rank::toString);
            retransmits += rank.get("rails").get(0).get("retransmits").asLong();
            assertTrue(rank.get("rails").get(0).get("datagramsSent").asLong() > 0, rank::toString);
        }
        assertTrue(retransmits > 0, () -> "5 % of the datagrams dropped, yet no retransmission counted: " + job);
    }

    /**
     * The job's monitor, served by the launcher ({@code tutti run --monitor 0}): {@code /api/jobs/JOB}
     * holds the same exact counts as {@code tutti status --json}, and {@code /metrics} has them per rank
     * and peer as Prometheus counters, with the rails' datagrams.
     */
    @Test
    void theLaunchersMonitorServesTheExactCountsAsJsonAndPrometheusMetrics() throws Exception {
        exchangeAndRead(Map.of("TUTTI_TRANSPORT", "net"), "net", (run, id) -> {
            Matcher url = Pattern.compile("tutti run: serving job " + id + " at (http://127\\.0\\.0\\.1:\\d+/)")
                    .matcher(Files.readString(run.stderr()));
            assertTrue(url.find(), () -> "the launcher did not say where its monitor is:\n" + read(run.stderr()));
            JsonNode job = JSON.readTree(get(url.group(1) + "api/jobs/" + id));
            assertEquals(id, job.get("job").asText());
            assertTrue(job.get("running").asBoolean(), job::toString);
            Map<String, Double> metrics = Prometheus.parse(get(url.group(1) + "metrics"));
            for (int rank = 0; rank < RANKS; rank++) {
                assertEquals("running", job.get("ranks").get(rank).get("state").asText());
                for (int peer = 0; peer < RANKS; peer++) {
                    if (peer == rank) {
                        continue;
                    }
                    String labels = "{job=\"" + id + "\",peer=\"" + peer + "\",rank=\"" + rank + "\",transport=\"net\"}";
                    String where = "rank " + rank + " with peer " + peer;
                    assertEquals(messagesTo(rank, peer), metrics.get("tutti_sent_messages_total" + labels), where);
                    assertEquals(bytesTo(rank, peer), metrics.get("tutti_sent_bytes_total" + labels), where);
                    assertEquals(messagesTo(peer, rank), metrics.get("tutti_received_messages_total" + labels), where);
                    assertEquals(bytesTo(peer, rank), metrics.get("tutti_received_bytes_total" + labels), where);
                }
                String rail = "{interface=\"" + job.get("ranks").get(rank).get("rails").get(0).get("name").asText()
                        + "\",job=\"" + id + "\",rail=\"0\",rank=\"" + rank + "\"}";
                assertTrue(metrics.getOrDefault("tutti_rail_sent_datagrams_total" + rail, 0.0) > 0, metrics::toString);
                assertEquals(1.0, metrics.get("tutti_rank_state{job=\"" + id + "\",rank=\"" + rank
                        + "\",tutti_rank_state=\"running\"}"), metrics::toString);
            }
            return job;
        }, "--monitor", "0");
    }

    /** Reads the counters of job {@code id}, which {@code run} runs, as the JSON of {@code tutti status --json}. */
    @FunctionalInterface
    private interface CountersRead {
        JsonNode read(Launch.Running run, String id) throws Exception;
    }

    private JsonNode statusJson(Launch.Running run, String id) throws Exception {
        Launch.Result status = Launch.run(work, Duration.ofSeconds(60), "status", id, "--json");
        assertEquals(0, status.exitCode(), status::toString);
        return JSON.readTree(status.stdout());
    }

    /** Messages rank {@code from} sends rank {@code to} in {@link Counted}: one a round, and the big one to its successor. */
    private static long messagesTo(int from, int to) {
        return ROUNDS + (to == (from + 1) % RANKS ? 1 : 0);
    }

    private static double bytesTo(int from, int to) {
        long b = 0;
        for (int i = 0; i < ROUNDS; i++) {
            b += Counted.length(from, i);
        }
        return b + (to == (from + 1) % RANKS ? Counted.BIG : 0);
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), () -> url + ": " + r.body());
        return r.body();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /**
     * Runs {@link Counted} with {@code env}, reads its counters with {@code reader} once every rank
     * is done, checks the counts against the exchange, releases the ranks, and returns the JSON.
     */
    private JsonNode exchangeAndRead(Map<String, String> env, String transport, CountersRead reader,
                                     String... launcherOptions) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("run", "--verbose", "-n", Integer.toString(RANKS),
                "--timeout", "150s"));
        args.addAll(List.of(launcherOptions));
        args.addAll(List.of("--cp", Launch.testClasses(), "io.tutti.systest.Counted", work.toString(),
                Integer.toString(ROUNDS)));
        Launch.Running run = Launch.start(work, env, args.toArray(String[]::new));
        JsonNode job;
        try {
            for (int r = 0; r < RANKS; r++) {
                Launch.awaitFile(run, work.resolve("rank-" + r + ".done"), Duration.ofSeconds(120));
            }
            String id = jobId(run);
            job = reader.read(run, id);
            // every rank's counters, or the files of the job's directory to say which are missing
            try (var files = Files.list(ShmFiles.defaultRoot().resolve("tutti-" + id))) {
                String listing = files.map(f -> f.getFileName().toString()).sorted().toList().toString();
                JsonNode read = job;
                assertEquals(RANKS, job.get("ranks").size(), () -> listing + "\n" + read);
            }
        } finally {
            Files.writeString(work.resolve("go"), "");
        }
        Launch.Result r = run.await(Duration.ofSeconds(90));
        assertEquals(0, r.exitCode(), r::toString);
        for (int rank = 0; rank < RANKS; rank++) {
            JsonNode m = job.get("ranks").get(rank);
            assertEquals(rank, m.get("rank").asInt());
            assertTrue(m.get("enabled").asBoolean(), m::toString);
            long sentBytes = 0;
            long receivedBytes = 0;
            for (int peer = 0; peer < RANKS; peer++) {
                if (peer == rank) {
                    continue;
                }
                JsonNode p = m.get("peers").get(peer);
                assertEquals(transport, p.get("transport").asText(), p::toString);
                JsonNode t = p.get("traffic");
                String where = "rank " + rank + " with peer " + peer + ": " + t;
                assertEquals(messagesTo(rank, peer), t.get("messagesSent").asLong(), where);
                assertEquals((long) bytesTo(rank, peer), t.get("bytesSent").asLong(), where);
                assertEquals(messagesTo(peer, rank), t.get("messagesReceived").asLong(), where);
                assertEquals((long) bytesTo(peer, rank), t.get("bytesReceived").asLong(), where);
                assertTrue(p.get("lastHeardMillis").asLong() >= m.get("startedMillis").asLong(), where);
                sentBytes += t.get("bytesSent").asLong();
                receivedBytes += t.get("bytesReceived").asLong();
            }
            JsonNode total = m.get(transport);
            assertEquals((long) ROUNDS * (RANKS - 1) + 1, total.get("messagesSent").asLong(), total::toString);
            assertEquals((long) ROUNDS * (RANKS - 1) + 1, total.get("messagesReceived").asLong(), total::toString);
            assertEquals(sentBytes, total.get("bytesSent").asLong(), total::toString);
            assertEquals(receivedBytes, total.get("bytesReceived").asLong(), total::toString);
            assertTrue(m.get("blocked").isNull(), m::toString);
        }
        return job;
    }

    /**
     * Collectives by the algorithm that ran them and the offload engine's counters, read from outside
     * with {@code tutti status --json} and {@code --once}: exact for a job of known calls with forced
     * algorithms ({@link CountedCollectives}).
     */
    @Test
    void collectivesByAlgorithmAndTheOffloadEngineFromOutside() throws Exception {
        Launch.Running run = Launch.start(work, Map.of("TUTTI_COLL_ALLREDUCE", "ring", "TUTTI_COLL_BARRIER", "linear"),
                "run", "--verbose", "-n", Integer.toString(RANKS), "--timeout", "150s", "--cp", Launch.testClasses(),
                "io.tutti.systest.CountedCollectives", work.toString());
        JsonNode job;
        String table;
        try {
            for (int r = 0; r < RANKS; r++) {
                Launch.awaitFile(run, work.resolve("rank-" + r + ".done"), Duration.ofSeconds(120));
            }
            String id = jobId(run);
            job = statusJson(run, id);
            Launch.Result once = Launch.run(work, Duration.ofSeconds(60), "status", id, "--once");
            assertEquals(0, once.exitCode(), once::toString);
            table = once.stdout();
        } finally {
            Files.writeString(work.resolve("go"), "");
        }
        Launch.Result r = run.await(Duration.ofSeconds(90));
        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(RANKS, job.get("ranks").size(), job::toString);
        for (JsonNode m : job.get("ranks")) {
            Map<String, Map<String, Long>> byAlgorithm = new java.util.TreeMap<>();
            for (JsonNode c : m.get("collectives")) {
                Map<String, Long> algorithms = new java.util.TreeMap<>();
                c.get("algorithms").forEach(a -> algorithms.put(a.get("algorithm").asText(), a.get("calls").asLong()));
                byAlgorithm.put(c.get("operation").asText(), algorithms);
                assertEquals(c.get("calls").asLong(), algorithms.values().stream().mapToLong(Long::longValue).sum(),
                        c::toString);
            }
            assertEquals(Map.of("allreduce", Map.of("ring", (long) CountedCollectives.ALLREDUCES),
                    "barrier", Map.of("linear", (long) CountedCollectives.BARRIERS),
                    "bcast", Map.of("chain", (long) CountedCollectives.BCASTS)), byAlgorithm, m::toString);
            JsonNode o = m.get("offload");
            assertEquals(1, o.get("collectives").asLong(), o::toString);
            assertEquals(CountedCollectives.RUNS, o.get("runs").asLong(), o::toString);
            assertEquals(CountedCollectives.RUNS, o.get("fired-complete").asLong(), o::toString);
            long fired = 0;
            for (var e : o.properties()) {
                fired += e.getKey().startsWith("fired-") ? e.getValue().asLong() : 0;
            }
            assertTrue(fired > CountedCollectives.RUNS, () -> "entries besides COMPLETE fired: " + o);
            assertEquals(0, fired % CountedCollectives.RUNS, () -> "each run fires the same entries: " + o);
            assertTrue(m.get("inNetwork").properties().stream().allMatch(e -> e.getValue().asLong() == 0),
                    m::toString);
        }
        assertTrue(table.lines().anyMatch(l -> l.matches("\\s+3 allreduce\\s+ring\\s+" + CountedCollectives.ALLREDUCES
                + "\\s.*")), table);
        assertTrue(table.lines().anyMatch(l -> l.matches("\\s+0 offload\\s+collectives 1, runs "
                + CountedCollectives.RUNS + ",.*")), table);
    }

    @Test
    void stuckViewNamesTheCallPeerAndTagEachRankWaitsIn() throws Exception {
        Launch.Running run = Launch.start(work, Map.of(), "run", "--verbose", "-n", Integer.toString(RANKS),
                "--timeout", "60s", "--cp", Launch.testClasses(), "io.tutti.systest.Stuck", work.toString());
        for (int r = 0; r < RANKS; r++) {
            Launch.awaitFile(run, work.resolve("rank-" + r + ".ready"), Duration.ofSeconds(30));
        }
        String id = jobId(run);
        // a wait shows once it stops spinning: ask until rank 1's does, a bounded number of times
        Predicate<String> complete = s -> s.contains("rank 1 (pid") && s.contains("blocked in recv from rank 0, tag 77")
                && s.lines().filter(l -> l.contains("blocked in barrier")).count() == RANKS - 2;
        String view = "";
        for (int i = 0; i < 20 && !complete.test(view); i++) {
            Launch.Result stuck = Launch.run(work, Duration.ofSeconds(30), "status", id, "--stuck");
            view = stuck.stdout();
            if (stuck.exitCode() != 0) {
                view += stuck;
                break;
            }
            Thread.sleep(250);
        }
        assertTrue(complete.test(view), view);
        assertTrue(view.lines().anyMatch(l -> l.startsWith("  rank 0 ") && l.endsWith("not blocked in a call")), view);
        Launch.Result r = run.await(Duration.ofSeconds(90));
        assertEquals(124, r.exitCode(), r::toString);
        assertTrue(r.stderr().contains("where they wait") && r.stderr().contains("blocked in recv from rank 0, tag 77"),
                r::toString);
        r.assertNoJobDirectory();
    }

    /**
     * {@code Tutti.metrics()} inside the ranks, and the flight-recorder events of a recorded job:
     * every blocking collective (io.tutti.Collective) and the large message, at both ends
     * (io.tutti.LargeMessage), with job and rank.
     */
    @Test
    void metricsInTheProgramAndFlightRecorderEvents() throws Exception {
        Launch.Result r = Launch.run(work, Duration.ofSeconds(120), "run", "--verbose", "-n", "2", "--timeout", "100s",
                "--jvm-opt", "-XX:StartFlightRecording=filename=" + work.resolve("rank-%p.jfr"), "--cp",
                Launch.testClasses(), "io.tutti.systest.Recorded");
        assertEquals(0, r.exitCode(), r::toString);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.stdout().contains("rank " + rank + ": allreduce 5 calls, 1 timed"), r::toString);
            assertTrue(r.stdout().contains("rank " + rank + ": barrier 1 calls, 1 timed"), r::toString);
        }
        List<Long> pids = r.rankPids(2);
        for (int rank = 0; rank < 2; rank++) {
            List<RecordedEvent> events = RecordingFile.readAllEvents(work.resolve("rank-" + pids.get(rank) + ".jfr"));
            int rk = rank;
            List<String> collectives = events.stream().filter(e -> e.getEventType().getName().equals("io.tutti.Collective"))
                    .peek(e -> assertEquals(rk, e.getInt("rank")))
                    .peek(e -> assertEquals(r.jobId(), e.getString("job")))
                    .map(e -> e.getString("operation")).toList();
            assertEquals(List.of("allreduce", "allreduce", "allreduce", "allreduce", "allreduce", "barrier"), collectives);
            List<RecordedEvent> large = events.stream()
                    .filter(e -> e.getEventType().getName().equals("io.tutti.LargeMessage")).toList();
            assertEquals(1, large.size(), large::toString);
            RecordedEvent m = large.get(0);
            assertEquals(rank == 0, m.getBoolean("sent"), m::toString);
            assertEquals(1 - rank, m.getInt("peer"), m::toString);
            assertEquals(3, m.getInt("tag"), m::toString);
            assertEquals(Recorded.BIG, m.getLong("bytes"), m::toString);
        }
    }

    /** The job id of a launcher started with {@code --verbose}, from what it has printed so far. */
    private static String jobId(Launch.Running run) throws Exception {
        return new Launch.Result(0, "", Files.readString(run.stderr()), Duration.ZERO).jobId();
    }
}
