package io.tutti.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import io.tutti.monitor.JobSnapshot.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON the page draws: ranks with their state, the traffic matrix, alerts, merged collectives, rates. */
class MonitorJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theHeatMapIsWhatEachRankSentEachPeer() throws Exception {
        JsonNode j = JSON.readTree(MonitorJson.job(Snapshots.job(3, "shm")));
        assertEquals(3, j.get("size").asInt());
        JsonNode bytes = j.get("heatmap").get("bytes");
        JsonNode messages = j.get("heatmap").get("messages");
        for (int r = 0; r < 3; r++) {
            for (int p = 0; p < 3; p++) {
                long sent = r == p ? 0 : 10L * r + p;
                assertEquals(sent, messages.get(r).get(p).asLong(), "messages " + r + " to " + p);
                assertEquals(100 * sent, bytes.get(r).get(p).asLong(), "bytes " + r + " to " + p);
            }
        }
        assertTrue(j.get("heatmap").get("bytesPerSecond").isNull(), "no rate before two samples");
        assertEquals("running", j.get("ranks").get(0).get("state").asText());
        assertEquals(2, j.get("ranks").get(1).get("peers").get(2).get("rank").asInt());
    }

    @Test
    void collectivesAreMergedOverTheRanksWithTheirPercentiles() throws Exception {
        JsonNode c = JSON.readTree(MonitorJson.job(Snapshots.job(2, "shm"))).get("collectives").get(0);
        assertEquals("allreduce", c.get("operation").asText());
        assertEquals(6, c.get("calls").asLong());
        assertEquals(6, c.get("timed").asLong());
        // 2 calls in [1, 2) us, 2 in [2, 4) us, 2 about 1 ms: the median under 4096 ns, p99 in the ms bucket
        assertEquals(4096, c.get("p50Nanos").asLong());
        assertEquals(1L << 21, c.get("p99Nanos").asLong());
        assertEquals(2, c.get("log2Histogram").get(10).asLong());
        JsonNode a = c.get("algorithms");
        assertEquals(2, a.size());
        assertEquals("recursive-doubling", a.get(0).get("algorithm").asText());
        assertEquals(2, a.get(0).get("calls").asLong(), "one call on each of the two ranks");
        assertEquals(1L << 21, a.get(0).get("p50Nanos").asLong());
        assertEquals("ring", a.get(1).get("algorithm").asText());
        assertEquals(4, a.get(1).get("calls").asLong());
        assertEquals(4096, a.get(1).get("p99Nanos").asLong());
    }

    @Test
    void aRankCarriesItsAlgorithmsAndItsOffloadAndInNetworkCounters() throws Exception {
        JsonNode r = JSON.readTree(MonitorJson.job(Snapshots.job(2, "shm"))).get("ranks").get(1);
        JsonNode c = r.get("collectives").get(0);
        assertEquals(3, c.get("calls").asLong());
        assertEquals("ring", c.get("algorithms").get(1).get("algorithm").asText());
        assertEquals(2, c.get("algorithms").get(1).get("calls").asLong());
        assertEquals(1, c.get("algorithms").get(1).get("log2Histogram").get(11).asLong());
        assertEquals(4, r.get("offload").get("runs").asLong());
        assertEquals(9, r.get("offload").get("fired-put").asLong());
        assertEquals(0, r.get("offload").get("fired-complete").asLong(), "every counter, 0 or not");
        assertEquals(6, r.get("inNetwork").get("packets-sent").asLong());
        assertEquals(1, r.get("inNetwork").get("retransmits").asLong());
    }

    @Test
    void failedRanksSilentPeersDownRailsAndPeerFailuresAreAlerts() throws Exception {
        int size = 6;
        List<Rank> ranks = new ArrayList<>();
        // rank 0 waits 6 s for rank 5, last heard 6 s ago: silent; rank 1 waits as long for rank 2, heard 3 s
        // ago: not silent
        ranks.add(new Rank(Snapshots.rank(0, size, "net", "free", new Metrics.Blocked("recv", 5, 1, 0,
                Snapshots.NOW - 6000), List.of()), Liveness.RUNNING));
        ranks.add(new Rank(Snapshots.rank(1, size, "net", "down", new Metrics.Blocked("recv", 2, 1, 0,
                Snapshots.NOW - 6000), List.of()), Liveness.RUNNING));
        ranks.add(new Rank(Snapshots.rank(2, size, "net", "free", null, List.of()), Liveness.FAILED));
        ranks.add(new Rank(Snapshots.rank(3, size, "net", "free", null, List.of(new Metrics.ErrorCount("peer-failed", 1))),
                Liveness.DONE));
        JobSnapshot s = new JobSnapshot("job1", Snapshots.NOW, true, ranks, List.of(), Map.of(), null);
        JsonNode alerts = JSON.readTree(MonitorJson.job(s)).get("alerts");
        List<String> kinds = new ArrayList<>();
        alerts.forEach(a -> kinds.add(a.get("kind").asText() + " " + a.get("rank").asInt() + " " + a.get("peer").asInt()));
        assertEquals(List.of("silent 0 5", "rail-down 1 -1", "failed 2 -1", "peer-failed 3 -1"), kinds, alerts::toString);
        assertTrue(alerts.get(0).get("message").asText().contains("rank 0 waits in recv for rank 5, silent for 6 s"),
                alerts::toString);
        JsonNode list = JSON.readTree(MonitorJson.jobs(List.of(s), Snapshots.NOW, false));
        assertEquals(1, list.get("jobs").get(0).get("failed").asInt());
        assertEquals(4, list.get("jobs").get(0).get("alerts").asInt());
        assertEquals(false, list.get("control").asBoolean());
    }

    @Test
    void historyHoldsTheRatesBetweenSamples() throws Exception {
        List<Sample> samples = List.of(
                new Sample(10_000, 0, 0, Map.of(0, new long[] {0, 0, 0}), Map.of("allreduce", 0L)),
                new Sample(11_000, 10, 1000, Map.of(0, new long[] {500, 2, 5}), Map.of("allreduce", 8L)),
                new Sample(13_000, 30, 5000, Map.of(0, new long[] {1500, 2, 15}), Map.of("allreduce", 16L)));
        JobSnapshot j = Snapshots.job(2, "net");
        j = new JobSnapshot(j.job(), j.atMillis(), true, j.ranks(), samples, Map.of(0, "10.0.0.0"), new double[][] {
            {0, 1.5}, {2.5, 0}});
        JsonNode h = JSON.readTree(MonitorJson.job(j)).get("history");
        assertEquals("[11000,13000]", h.get("atMillis").toString());
        assertEquals("[10.0,10.0]", h.get("messagesPerSecond").toString());
        assertEquals("[1000.0,2000.0]", h.get("bytesPerSecond").toString());
        JsonNode rail = h.get("rails").get(0);
        assertEquals("10.0.0.0", rail.get("name").asText());
        assertEquals("[500.0,500.0]", rail.get("bytesPerSecond").toString());
        assertEquals("[2.0,0.0]", rail.get("retransmitsPerSecond").toString());
        assertEquals("[5.0,5.0]", rail.get("datagramsPerSecond").toString());
        // 8 calls over 2 ranks in 1 s, then 8 over 2 ranks in 2 s
        assertEquals("[4.0,2.0]", h.get("collectives").get(0).get("callsPerSecond").toString());
        assertEquals("[[0.0,1.5],[2.5,0.0]]", JSON.readTree(MonitorJson.job(j)).get("heatmap").get("bytesPerSecond")
                .toString());
    }
}
