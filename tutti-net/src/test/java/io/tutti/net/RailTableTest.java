package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's rail table: ranks 0 and 1 on host a, rank 2 on host b, two rails. A rail that one rank
 * of a host has loaded is BUSY for the other, which sends on the FREE one.
 */
@Timeout(60)
class RailTableTest {
    private static final int RECORD = 16_000;

    @TempDir
    Path jobDir;

    private static Map<String, String> settings(Path jobDir) {
        Map<String, String> m = new HashMap<>(Map.of("TUTTI_RAILS", "lo,lo", "TUTTI_NET_BUSY_BYTES", "8192",
                // records of 16000 bytes go whole, on one rail
                "TUTTI_NET_STRIPE_MIN", "65536"));
        if (jobDir != null) {
            m.put("TUTTI_JOB_DIR", jobDir.toString());
        }
        return m;
    }

    private static void send(Fixture f, int from, int to) {
        assertTrue(f.t[from].canSend(to));
        f.t[from].send(to, MemorySegment.ofArray(new byte[RECORD]), 0, RECORD);
    }

    @Test
    void twoRanksOfOneHostSeeEachOthersLoadAndBalanceOverTheRails() throws Exception {
        try (Fixture f = new Fixture(new String[] {"a", "a", "b"}, settings(jobDir))) {
            f.awaitHandshake(5000);
            assertTrue(Files.exists(jobDir.resolve("rails-a")) && Files.exists(jobDir.resolve("rails-b")));
            // rank 2 does not poll meanwhile: nothing is acknowledged, the bytes stay in flight
            send(f, 0, 2);
            assertEquals(RECORD, f.t[0].railOutstanding(2, 0), "the first record goes on rail 0");
            assertEquals(RECORD, f.t[1].nodeRailLoad(0), "rank 1 sees rank 0's load");
            assertEquals(0, f.t[1].nodeRailLoad(1));
            assertEquals(0, f.t[2].nodeRailLoad(0), "host b has its own table");
            // rank 1 would start on rail 0 too, but rail 0 is BUSY on the node
            send(f, 1, 2);
            assertEquals(0, f.t[1].railOutstanding(2, 0));
            assertEquals(RECORD, f.t[1].railOutstanding(2, 1), "rank 1 took the FREE rail");
            assertEquals(RECORD, f.t[0].nodeRailLoad(1), "rank 0 sees rank 1's load");
            // both records arrive; the acknowledgements take the load off the table
            Fixture.Collector got = new Fixture.Collector();
            long end = System.nanoTime() + 5_000_000_000L;
            while ((got.got.size() < 2 || f.t[0].nodeRailLoad(0) + f.t[0].nodeRailLoad(1) > 0)
                    && System.nanoTime() < end) {
                f.pollAll(null, null, got);
            }
            assertEquals(2, got.got.size());
            assertEquals(0, f.t[0].nodeRailLoad(0) + f.t[0].nodeRailLoad(1));
            assertEquals(0, f.t[1].nodeRailLoad(0) + f.t[1].nodeRailLoad(1));
            // a rank that closes with bytes in flight leaves no load behind
            send(f, 0, 2);
            assertEquals(RECORD, f.t[1].nodeRailLoad(0) + f.t[1].nodeRailLoad(1));
            f.t[0].close();
            assertEquals(0, f.t[1].nodeRailLoad(0) + f.t[1].nodeRailLoad(1));
        }
    }

    @Test
    void withoutASharedTableEachRankSeesOnlyItsOwnLoad() throws Exception {
        try (Fixture f = new Fixture(new String[] {"a", "a", "b"}, settings(null))) {
            f.awaitHandshake(5000);
            send(f, 0, 2);
            assertEquals(RECORD, f.t[0].nodeRailLoad(0));
            assertEquals(0, f.t[1].nodeRailLoad(0));
            send(f, 1, 2);
            assertEquals(RECORD, f.t[1].railOutstanding(2, 0), "blind to rank 0, rank 1 loads rail 0 too");
        }
    }

    @Test
    void ranksGivenDifferentRailsAreToldSo() throws Exception {
        try (RailTable t = RailTable.open(jobDir, "a", 0, 3, 2)) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> RailTable.open(jobDir, "a", 1, 3, 1));
            assertTrue(e.getMessage().contains("same rails"), e.getMessage());
            assertEquals(0, t.load(0));
        }
    }
}
