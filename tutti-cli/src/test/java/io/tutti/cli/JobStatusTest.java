package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tutti.Metrics;
import io.tutti.metrics.Counters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code tutti status} prints of the collectives by algorithm and of the offload and in-network counters. */
class JobStatusTest {
    private static final List<Counters.Operation> OPS = List.of(
            new Counters.Operation("barrier", List.of("dissemination", "linear")),
            new Counters.Operation("allreduce", List.of("recursive-doubling", "ring")));

    /** Rank 0 of two: 4 ring allreduces, a linear barrier, 2 offload runs and 3 in-network packets. */
    private static Metrics rank() {
        MemorySegment s = Arena.ofAuto().allocate(Counters.fileLength(2, OPS), 128);
        Counters c = Counters.format(s, true, "beef", 0, 2, 77, OPS);
        for (int i = 0; i < 4; i++) {
            c.collective(1, 1, c.startTimer(1, 1));
        }
        c.collective(0, 1, 0);
        c.offload(Counters.OFFLOAD_RUNS);
        c.offload(Counters.OFFLOAD_RUNS);
        c.offloadFired(8);
        for (int i = 0; i < 3; i++) {
            c.inNetwork(Counters.INC_PACKETS_SENT);
        }
        return c.snapshot();
    }

    @Test
    void theTableListsEachAlgorithmThatRanAndTheCountersThatAreNotZero() {
        String t = new JobStatus("beef", List.of(rank())).table(System.currentTimeMillis());
        assertTrue(t.lines().anyMatch(l -> l.matches("\\s+0 allreduce\\s+ring\\s+4\\s+1\\s+.*")), t);
        assertTrue(t.lines().anyMatch(l -> l.matches("\\s+0 barrier\\s+linear\\s+1\\s+0\\s+-\\s+-")), t);
        assertFalse(t.contains("recursive-doubling"), "an algorithm that never ran is left out: " + t);
        assertTrue(t.lines().anyMatch(l -> l.matches("\\s+0 offload\\s+runs 2, fired-complete 1")), t);
        assertTrue(t.lines().anyMatch(l -> l.matches("\\s+0 in-network\\s+packets-sent 3")), t);
    }

    @Test
    void theJsonCarriesThemToo() throws Exception {
        JsonNode r = new ObjectMapper().readTree(new JobStatus("beef", List.of(rank())).json()).get("ranks").get(0);
        JsonNode allreduce = r.get("collectives").get(1);
        assertEquals("allreduce", allreduce.get("operation").asText());
        assertEquals("ring", allreduce.get("algorithms").get(0).get("algorithm").asText());
        assertEquals(4, allreduce.get("algorithms").get(0).get("calls").asLong());
        assertEquals(2, r.get("offload").get("runs").asLong());
        assertEquals(3, r.get("inNetwork").get("packets-sent").asLong());
    }
}
