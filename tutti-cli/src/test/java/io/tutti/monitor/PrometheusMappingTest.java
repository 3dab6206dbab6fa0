package io.tutti.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The counters of a job as the Prometheus client writes them: every series with its labels and exact value. */
class PrometheusMappingTest {

    /** The text exposition of {@code jobs} as series (name and labels) to value. */
    private static Map<String, Double> scrape(List<JobSnapshot> jobs) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, PrometheusMapping.snapshots(jobs), EscapingScheme.ALLOW_UTF8);
        Map<String, Double> series = new LinkedHashMap<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                int space = line.lastIndexOf(' ');
                series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return series;
    }

    private static String labels(String name, String... kv) {
        StringBuilder b = new StringBuilder(name).append('{');
        for (int i = 0; i < kv.length; i += 2) {
            b.append(i == 0 ? "" : ",").append(kv[i]).append("=\"").append(kv[i + 1]).append('"');
        }
        return b.append('}').toString();
    }

    @Test
    void trafficPerPeerIsLabelledByJobRankPeerAndTransport() throws IOException {
        Map<String, Double> s = scrape(List.of(Snapshots.job(3, "shm")));
        for (int r = 0; r < 3; r++) {
            for (int p = 0; p < 3; p++) {
                String[] l = {"job", "job1", "peer", Integer.toString(p), "rank", Integer.toString(r), "transport", "shm"};
                if (p == r) {
                    assertFalse(s.containsKey(labels("tutti_sent_messages_total", l)), "no series of a rank with itself");
                    continue;
                }
                assertEquals(10.0 * r + p, s.get(labels("tutti_sent_messages_total", l)), s::toString);
                assertEquals(100 * (10.0 * r + p), s.get(labels("tutti_sent_bytes_total", l)));
                assertEquals(10.0 * p + r, s.get(labels("tutti_received_messages_total", l)));
                assertEquals(100 * (10.0 * p + r), s.get(labels("tutti_received_bytes_total", l)));
                assertEquals((Snapshots.NOW - 1000.0 * (p + 1)) / 1000,
                        s.get(labels("tutti_peer_last_heard_timestamp_seconds", l)));
            }
        }
        assertFalse(s.keySet().stream().anyMatch(k -> k.startsWith("tutti_rail_")), "no rails over shared memory");
    }

    @Test
    void collectiveLatencyIsACumulativeHistogramInSeconds() throws IOException {
        Map<String, Double> s = scrape(List.of(Snapshots.job(2, "shm")));
        String[] l = {"job", "job1", "op", "allreduce", "rank", "1"};
        assertEquals(3.0, s.get(labels("tutti_collective_calls_total", l)));
        // buckets 10 and 11 are [1024, 2048) and [2048, 4096) ns: upper bounds 2.048 and 4.096 us
        assertEquals(0.0, s.get(labels("tutti_collective_latency_seconds_bucket", "job", "job1", "op", "allreduce", "rank",
                "1", "le", "1.024E-6")));
        assertEquals(1.0, s.get(labels("tutti_collective_latency_seconds_bucket", "job", "job1", "op", "allreduce", "rank",
                "1", "le", "2.048E-6")));
        assertEquals(2.0, s.get(labels("tutti_collective_latency_seconds_bucket", "job", "job1", "op", "allreduce", "rank",
                "1", "le", "4.096E-6")));
        assertEquals(3.0, s.get(labels("tutti_collective_latency_seconds_bucket", "job", "job1", "op", "allreduce", "rank",
                "1", "le", "+Inf")));
        assertEquals(3.0, s.get(labels("tutti_collective_latency_seconds_count", l)));
        String[] ring = {"algorithm", "ring", "job", "job1", "op", "allreduce", "rank", "1"};
        assertEquals(2.0, s.get(labels("tutti_collective_algorithm_calls_total", ring)), s::toString);
        assertEquals(1.0, s.get(labels("tutti_collective_algorithm_calls_total", "algorithm", "recursive-doubling",
                "job", "job1", "op", "allreduce", "rank", "1")));
        assertEquals(2.0, s.get(labels("tutti_collective_algorithm_latency_seconds_count", ring)));
        assertEquals(1.0, s.get(labels("tutti_collective_algorithm_latency_seconds_bucket", "algorithm", "ring", "job",
                "job1", "op", "allreduce", "rank", "1", "le", "2.048E-6")));
    }

    @Test
    void offloadAndInNetworkCountersAreFamiliesOfTheirOwn() throws IOException {
        Map<String, Double> s = scrape(List.of(Snapshots.job(2, "shm")));
        String[] l = {"job", "job1", "rank", "1"};
        assertEquals(4.0, s.get(labels("tutti_offload_runs_total", l)), s::toString);
        assertEquals(0.0, s.get(labels("tutti_offload_collectives_total", l)));
        assertEquals(9.0, s.get(labels("tutti_offload_fired_entries_total", "job", "job1", "op", "put", "rank", "1")));
        assertEquals(0.0, s.get(labels("tutti_offload_fired_entries_total", "job", "job1", "op", "complete", "rank",
                "1")));
        assertEquals(0.0, s.get(labels("tutti_offload_landed_packets_total", "job", "job1", "kind", "puts", "rank",
                "1")));
        assertEquals(6.0, s.get(labels("tutti_inc_packets_sent_total", l)));
        assertEquals(1.0, s.get(labels("tutti_inc_retransmits_total", l)));
        assertEquals(0.0, s.get(labels("tutti_inc_timeouts_total", l)));
    }

    @Test
    void railsCarryTheirIndexInterfaceAndState() throws IOException {
        JobSnapshot j = Snapshots.job(2, "net");
        Metrics down = Snapshots.rank(1, 2, "net", "down", null, List.of());
        j = new JobSnapshot(j.job(), j.atMillis(), true, List.of(j.ranks().get(0), new Rank(down, Liveness.RUNNING)),
                List.of(), Map.of(), null);
        Map<String, Double> s = scrape(List.of(j));
        String[] l1 = {"interface", "10.0.0.1", "job", "job1", "rail", "0", "rank", "1"};
        assertEquals(50.0, s.get(labels("tutti_rail_sent_datagrams_total", l1)), s::toString);
        assertEquals(5000.0, s.get(labels("tutti_rail_sent_bytes_total", l1)));
        assertEquals(40.0, s.get(labels("tutti_rail_received_datagrams_total", l1)));
        assertEquals(7.0, s.get(labels("tutti_rail_retransmits_total", l1)));
        assertEquals(300.0, s.get(labels("tutti_rail_outstanding_bytes", l1)));
        assertEquals(1.0, s.get(labels("tutti_rail_state", "interface", "10.0.0.1", "job", "job1", "rail", "0", "rank", "1",
                "tutti_rail_state", "down")));
        assertEquals(0.0, s.get(labels("tutti_rail_state", "interface", "10.0.0.1", "job", "job1", "rail", "0", "rank", "1",
                "tutti_rail_state", "free")));
        assertEquals(1.0, s.get(labels("tutti_rail_state", "interface", "10.0.0.0", "job", "job1", "rail", "0", "rank", "0",
                "tutti_rail_state", "free")));
        assertEquals(1.0, s.get(labels("tutti_net_dropped_datagrams_total", "job", "job1", "rank", "0", "reason", "foreign")));
        assertEquals(2.5e-5, s.get(labels("tutti_net_srtt_seconds", "job", "job1", "rank", "0")));
    }

    @Test
    void aFailedRankShowsInItsStateAndEndedJobsAreLeftOut() throws IOException {
        JobSnapshot running = Snapshots.job(2, "shm", Liveness.RUNNING, Liveness.FAILED);
        JobSnapshot ended = new JobSnapshot("old", Snapshots.NOW, false, running.ranks(), List.of(), Map.of(), null);
        Map<String, Double> s = scrape(List.of(running, ended));
        assertEquals(1.0, s.get(labels("tutti_rank_state", "job", "job1", "rank", "1", "tutti_rank_state", "failed")));
        assertEquals(0.0, s.get(labels("tutti_rank_state", "job", "job1", "rank", "1", "tutti_rank_state", "running")));
        assertEquals(1.0, s.get(labels("tutti_rank_state", "job", "job1", "rank", "0", "tutti_rank_state", "running")));
        assertTrue(s.keySet().stream().noneMatch(k -> k.contains("job=\"old\"")), "an ended job has no series");
    }

    @Test
    void blockedTimeAndErrorsByKind() throws IOException {
        Metrics m = Snapshots.rank(0, 2, "shm", "free", new Metrics.Blocked("recv", 1, 5, 0, Snapshots.NOW - 2500),
                List.of(new Metrics.ErrorCount("peer-failed", 2)));
        JobSnapshot j = new JobSnapshot("job1", Snapshots.NOW, true, List.of(new Rank(m, Liveness.RUNNING)), List.of(),
                Map.of(), null);
        Map<String, Double> s = scrape(List.of(j));
        assertEquals(2.5, s.get(labels("tutti_rank_blocked_seconds", "job", "job1", "rank", "0")));
        assertEquals(2.0, s.get(labels("tutti_errors_total", "job", "job1", "kind", "peer-failed", "rank", "0")));
    }
}
