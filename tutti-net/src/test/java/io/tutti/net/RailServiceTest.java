package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Metrics;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersReader;
import io.tutti.metrics.RailControl;
import io.tutti.transport.RailCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rails taken out of service by an operator and brought back ({@link RailService}): the rank stops
 * sending data on the rail and moves what it carried to the other at once, the peer learns of it
 * and stops too, the last rail is refused, and everything sent arrives once and in order.
 */
@Timeout(120)
class RailServiceTest {
    private static final Map<String, String> TWO_RAILS = Map.of("TUTTI_RAILS", "lo,lo",
            // failover by silence must not be what saves a stream here
            "TUTTI_NET_RAIL_TIMEOUT_MS", "60000");

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"udp", "tcp"})
    void aRailTakenOutCarriesNoDataEitherWayUntilItIsBroughtBack(String wire) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(TWO_RAILS);
        settings.put("TUTTI_NET", wire);
        try (Fixture f = new Fixture(2, settings)) {
            ReliableDeliveryTest.exchange(f, 4_000, 11, 8192, null);
            assertTrue(f.t[0].dataSent(1) > 0 && f.t[1].dataSent(1) > 0, "both rails carried data before");

            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 1));
            assertTrue(f.t[0].outOfService(1, 1));
            awaitPeerKnows(f, true);
            long sent0 = f.t[0].dataSent(1);
            long sent1 = f.t[1].dataSent(1);
            ReliableDeliveryTest.exchange(f, 4_000, 12, 8192, null);
            assertEquals(sent0, f.t[0].dataSent(1), "rank 0 sent data on the rail it took out");
            assertEquals(sent1, f.t[1].dataSent(1), "rank 1 sent data on the rail its peer took out");
            assertFalse(f.t[0].railUp(1, 1) || f.t[1].railUp(0, 1));

            assertEquals(RailCounters.DONE, f.t[0].railCommand(false, 1));
            awaitPeerKnows(f, false);
            ReliableDeliveryTest.exchange(f, 4_000, 13, 8192, null);
            assertTrue(f.t[0].dataSent(1) > sent0 && f.t[1].dataSent(1) > sent1, "traffic did not return to rail 1");
        }
    }

    /** Polls until rank 1 knows that rank 0 took rail 1 out ({@code out}) or brought it back. */
    private static void awaitPeerKnows(Fixture f, boolean out) {
        long end = System.nanoTime() + 10_000_000_000L;
        while (f.t[1].outOfService(0, 1) != out && System.nanoTime() < end) {
            f.pollAll();
        }
        assertEquals(out, f.t[1].outOfService(0, 1), "rank 1 was not told");
    }

    /**
     * Records in flight on the rail when it is taken out go again on the other at once, not after a
     * timeout: the rail then loses everything, yet every record arrives once, in order.
     */
    @Test
    void whatTheRailCarriedMovesToTheOtherAtOnceAndNothingIsLost() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(TWO_RAILS);
        // a retransmission timeout of a minute: only the move can repair in time
        settings.put("TUTTI_NET_RTO_FLOOR_US", "60000000");
        try (Fixture f = new Fixture(2, settings)) {
            f.awaitHandshake(5000);
            int records = 32;
            for (int i = 0; i < records; i++) {
                assertTrue(f.t[0].canSend(1), "the window holds " + i + " records only");
                f.t[0].send(1, MemorySegment.ofArray(record(i)), 0, 1000);
            }
            assertTrue(f.t[0].railOutstanding(1, 1) > 0, "nothing in flight on rail 1 to move");
            long resent = f.t[0].retransmits();
            f.t[0].injectFaults(1, 1.0, 0, 1.0, 0);
            f.t[1].injectFaults(1, 1.0, 0, 1.0, 0);
            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 1));
            assertEquals(0, f.t[0].railOutstanding(1, 1), "what rail 1 carried is still counted on it");
            assertTrue(f.t[0].retransmits() > resent, "nothing was sent again");
            Fixture.Collector got = new Fixture.Collector();
            long end = System.nanoTime() + 20_000_000_000L;
            while ((got.got.size() < records || !f.t[0].quiescent()) && System.nanoTime() < end) {
                f.pollAll(null, got);
            }
            assertEquals(records, got.got.size(), f.t[0].statistics());
            for (int i = 0; i < records; i++) {
                assertArrayEquals(record(i), got.got.get(i), "record " + i);
            }
            assertTrue(f.t[0].quiescent(), "not all acknowledged: " + f.t[0].statistics());
        }
    }

    private static byte[] record(int i) {
        byte[] b = new byte[1000];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i * 37 + k);
        }
        return b;
    }

    @Test
    void theLastRailInServiceIsRefusedAndAnUnknownOneNamed() throws Exception {
        try (Fixture f = new Fixture(2, TWO_RAILS)) {
            f.awaitHandshake(5000);
            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 0));
            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 0), "again: it is so already");
            assertEquals(RailCounters.LAST_RAIL, f.t[0].railCommand(true, 1));
            assertEquals(RailCounters.NO_SUCH_RAIL, f.t[0].railCommand(true, 2));
            assertEquals(RailCounters.DONE, f.t[0].railCommand(false, 0));
            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 1));
            assertFalse(f.t[0].outOfService(1, 0));
            assertTrue(f.t[0].outOfService(1, 1));
        }
    }

    /**
     * When both ends took out a different rail, the pair's last one that works stays in service:
     * the stream goes on, on both.
     */
    @Test
    void whenTheTwoOperatorsLeaveNoRailBetweenThemTheStreamStillFlows() throws Exception {
        try (Fixture f = new Fixture(2, TWO_RAILS)) {
            f.awaitHandshake(5000);
            assertEquals(RailCounters.DONE, f.t[0].railCommand(true, 0));
            assertEquals(RailCounters.DONE, f.t[1].railCommand(true, 1));
            long end = System.nanoTime() + 10_000_000_000L;
            while (!(f.t[0].outOfService(1, 0) == f.t[0].outOfService(1, 1)) && System.nanoTime() < end) {
                f.pollAll();
            }
            assertFalse(f.t[0].outOfService(1, 0) || f.t[0].outOfService(1, 1));
            ReliableDeliveryTest.exchange(f, 2_000, 14, 8192, null);
        }
    }

    /**
     * The whole channel: an operator's command posted in rank 0's counters file is taken by its
     * transport (the keep-alive agent polls while the test does not) and answered, and both ranks'
     * counters show the rail {@code down (admin)}, then back in use.
     */
    @Test
    void aCommandInTheCountersFileIsTakenAndTheStateShown(@TempDir Path dir) throws Exception {
        try (Fixture f = new Fixture(2, TWO_RAILS); Arena arena = Arena.ofShared()) {
            f.awaitHandshake(5000);
            List<MemorySegment> files = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                MemorySegment s = ShmFiles.createAndMap(dir.resolve("counters-" + r), Counters.fileLength(2, List.of(new Counters.Operation("barrier", List.of("linear")))), arena);
                f.t[r].attach(Counters.format(s, true, "j", r, 2, 1, List.of(new Counters.Operation("barrier", List.of("linear")))));
                files.add(s);
            }
            try (RailControl control = RailControl.open(dir.resolve("counters-0"))) {
                assertEquals(List.of("lo", "lo"), control.rails());
                RailControl.Outcome down = control.command(RailCounters.RAIL_DOWN, 1, Duration.ofSeconds(30));
                assertTrue(down.done(), down.message());
                assertEquals("down (admin)", rail(files.get(0), 1).state());
                awaitState(files.get(1), "down (admin)");
                RailControl.Outcome last = control.command(RailCounters.RAIL_DOWN, 0, Duration.ofSeconds(30));
                assertFalse(last.done());
                assertTrue(last.message().contains("last rail in service"), last.message());
                RailControl.Outcome up = control.command(RailCounters.RAIL_UP, 1, Duration.ofSeconds(30));
                assertTrue(up.done(), up.message());
                assertNotEquals("down (admin)", rail(files.get(0), 1).state());
                awaitState(files.get(1), "free");
            }
        }
    }

    private static Metrics.Rail rail(MemorySegment file, int index) {
        return CountersReader.of(file, null).read().rails().get(index);
    }

    /** Waits (the agents poll) until rail 1 in {@code file} shows {@code state}. */
    private static void awaitState(MemorySegment file, String state) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!rail(file, 1).state().equals(state) && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(state, rail(file, 1).state());
    }
}
