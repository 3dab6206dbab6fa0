package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.transport.RemoteTransport;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Two rails transports in one JVM: exactly once, in order, intact, over lossy and corrupting rails. */
@Timeout(120)
class ReliableDeliveryTest {

    /** Content of record {@code i}: its index, its length, and bytes derived from both. */
    private static void fill(byte[] b, int i) {
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i * 131 + k * 7 + (k >> 8));
        }
        if (b.length >= 8) {
            b[0] = (byte) i;
            b[1] = (byte) (i >> 8);
            b[2] = (byte) (i >> 16);
            b[3] = (byte) (i >> 24);
        }
    }

    /**
     * Sends {@code records} records of random sizes each way, checks every one arrives once, in
     * order and intact, and that both sides end with nothing unacknowledged.
     */
    static void exchange(Fixture f, int records, long seed, int maxSize, Runnable midway) {
        f.awaitHandshake(5000);
        SplittableRandom sizes0 = new SplittableRandom(seed);
        SplittableRandom check0 = new SplittableRandom(seed);
        int[] sent = new int[2];
        int[] received = new int[2];
        RemoteTransport.Sink[] sinks = new RemoteTransport.Sink[2];
        SplittableRandom[] sizeOfSent = {sizes0, new SplittableRandom(seed + 1)};
        SplittableRandom[] sizeOfReceived = {new SplittableRandom(seed + 1), check0};
        byte[] scratch = new byte[f.t[0].maxRecordLength()];
        for (int r = 0; r < 2; r++) {
            int me = r;
            int from = 1 - r;
            sinks[r] = (source, record, offset, length) -> {
                assertEquals(from, source);
                int i = received[me];
                int want = size(sizeOfReceived[me], maxSize);
                assertEquals(want, length, "record " + i + " from " + from + " has the wrong length");
                byte[] expect = new byte[length];
                fill(expect, i);
                byte[] got = new byte[length];
                MemorySegment.copy(record, offset, MemorySegment.ofArray(got), 0, length);
                assertArrayEquals(expect, got, "record " + i + " from " + from);
                received[me]++;
                return true;
            };
        }
        long deadline = System.nanoTime() + 100_000_000_000L;
        boolean fired = false;
        while (received[0] < records || received[1] < records) {
            for (int r = 0; r < 2; r++) {
                int dest = 1 - r;
                while (sent[r] < records && f.t[r].canSend(dest)) {
                    int len = size(sizeOfSent[r], maxSize);
                    byte[] b = len == scratch.length ? scratch : new byte[len];
                    fill(b, sent[r]);
                    f.t[r].send(dest, MemorySegment.ofArray(b), 0, len);
                    sent[r]++;
                }
            }
            f.pollAll(sinks);
            if (!fired && midway != null && received[1] >= records / 2) {
                fired = true;
                midway.run();
            }
            assertTrue(System.nanoTime() < deadline, "stalled at " + received[0] + "/" + received[1] + ": "
                    + f.t[0].statistics() + " | " + f.t[1].statistics());
        }
        // what arrived is acknowledged: both sides fall quiet with nothing outstanding
        long quiet = System.nanoTime() + 5_000_000_000L;
        while (!(f.t[0].quiescent() && f.t[1].quiescent()) && System.nanoTime() < quiet) {
            f.pollAll(sinks);
        }
        assertTrue(f.t[0].quiescent() && f.t[1].quiescent(), "not acknowledged: " + f.t[0].statistics());
        assertEquals(records, received[0]);
        assertEquals(records, received[1]);
    }

    /** Mostly small records, some up to the largest: sizes as the engine produces them. */
    private static int size(SplittableRandom r, int max) {
        int kind = r.nextInt(10);
        return kind < 7 ? 72 + r.nextInt(256) : kind < 9 ? r.nextInt(8192) : r.nextInt(max + 1);
    }

    @Test
    void hundredThousandRecordsArriveOnceInOrderDespiteDropsAndCorruption() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_NET_DROP", "0.05", "TUTTI_NET_CORRUPT", "0.01"))) {
            exchange(f, 100_000, 42, f.t[0].maxRecordLength(), null);
            // the faults really happened and were repaired
            assertTrue(f.t[0].retransmits() > 0 && f.t[1].retransmits() > 0, f.t[0].statistics());
            assertTrue(f.t[0].dropped(DropReason.CRC) + f.t[1].dropped(DropReason.CRC) > 0, f.t[1].statistics());
        }
    }

    @Test
    void smallMtuFragmentsOverTwoRails() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_RAILS", "lo,lo", "TUTTI_NET_MTU", "1472",
                "TUTTI_NET_DROP", "0.02"))) {
            assertEquals(1472, f.t[0].mtu());
            exchange(f, 5_000, 7, f.t[0].maxRecordLength(), null);
        }
    }

    /**
     * With datagrams smaller than the records, the frames of a record for one rail leave in one
     * system call where Linux segments UDP (since 4.18), and intact; one call per datagram without.
     */
    @Test
    void theFramesOfARecordLeaveEachRailInOneSystemCall() throws Exception {
        for (boolean gso : new boolean[] {true, false}) {
            try (Fixture f = new Fixture(2, Map.of("TUTTI_RAILS", "lo,lo", "TUTTI_NET_MTU", "1472",
                    "TUTTI_NET_GSO", String.valueOf(gso)))) {
                boolean expected = gso && System.getProperty("os.name", "").startsWith("Linux");
                for (int r = 0; r < 2; r++) {
                    assertEquals(expected, f.t[0].batching(r), "rail " + r);
                }
                exchange(f, 2_000, 11, f.t[0].maxRecordLength(), null);
                for (int r = 0; r < 2; r++) {
                    long sent = f.t[0].dataSent(r);
                    long calls = f.t[0].dataSendCalls(r);
                    assertTrue(sent > 2_000, f.t[0].statistics());
                    if (expected) {
                        // most records are one datagram, one call each; the largest, up to 47 datagrams, take a few
                        assertTrue(calls < sent / 2, calls + " calls for " + sent + " datagrams on rail " + r);
                    } else {
                        assertEquals(sent, calls, f.t[0].statistics());
                    }
                }
            }
        }
    }

    /**
     * A datagram that another rail overtakes is not lost: rank 1 reads its rail 0 before its rail 1
     * in every poll, so it meets the even fragments of a striped record before the odd ones, and
     * asks for none of them again while every rail has not passed them. (An RTO floor of a second
     * keeps the time fallback out of it.)
     */
    @Test
    void datagramsOvertakenByAnotherRailAreNotAskedForAgain() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_RAILS", "lo,lo", "TUTTI_NET_MTU", "1472",
                "TUTTI_NET_RTO_FLOOR_US", "1000000"))) {
            exchange(f, 2_000, 5, f.t[0].maxRecordLength(), null);
            assertEquals(0, f.t[0].naksSent() + f.t[1].naksSent(), f.t[0].statistics() + " | " + f.t[1].statistics());
        }
    }

    /**
     * Datagrams held back and overtaken by the next one on their rail ({@code TUTTI_NET_REORDER})
     * still arrive once, in order and intact (the order on the wire: {@code FaultInjectionTest}).
     */
    @Test
    void datagramsHeldBackAndOvertakenStillArriveOnceInOrder() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_RAILS", "lo", "TUTTI_NET_MTU", "1472",
                "TUTTI_NET_REORDER", "0.05"))) {
            exchange(f, 5_000, 11, f.t[0].maxRecordLength(), null);
            assertTrue(f.t[0].reordersInjected() > 0 && f.t[1].reordersInjected() > 0,
                    f.t[0].statistics() + " | " + f.t[1].statistics());
        }
    }

    /** ... and a flight recording shows the rail going down and coming back up (io.tutti.RailState). */
    @Test
    void aRailThatGoesSilentMidTransferIsTakenOutAndTheTransferCompletes(@TempDir Path tmp) throws Exception {
        try (Recording recording = new Recording();
             Fixture f = new Fixture(2, Map.of("TUTTI_RAILS", "lo,lo", "TUTTI_NET_RAIL_TIMEOUT_MS", "200"))) {
            recording.enable("io.tutti.RailState");
            recording.start();
            exchange(f, 20_000, 3, f.t[0].maxRecordLength(), () -> {
                assertTrue(f.t[0].railUp(1, 1) && f.t[1].railUp(0, 1), "rail 1 was up before");
                f.t[0].injectFaults(1, 1.0, 0, 0, 0);
                f.t[1].injectFaults(1, 1.0, 0, 0, 0);
            });
            // a transfer of this length outlasts the rail timeout only on slow machines: wait for it
            long end = System.nanoTime() + 3_000_000_000L;
            while (f.t[0].railUp(1, 1) && System.nanoTime() < end) {
                f.pollAll();
            }
            assertFalse(f.t[0].railUp(1, 1), "the silent rail is still in use");
            assertTrue(f.t[0].railsDowned() > 0);
            assertFalse(f.t[0].railUp(1, 1));
            // and it rejoins when it answers again
            f.t[0].injectFaults(1, 0, 0, 0, 0);
            f.t[1].injectFaults(1, 0, 0, 0, 0);
            end = System.nanoTime() + 3_000_000_000L;
            while (!(f.t[0].railUp(1, 1) && f.t[1].railUp(0, 1)) && System.nanoTime() < end) {
                f.pollAll();
            }
            assertTrue(f.t[0].railUp(1, 1) && f.t[1].railUp(0, 1), "rail 1 did not rejoin");
            // the rail is back as soon as it is heard; its event comes from the next poll's liveness check
            f.pollAll();
            recording.stop();
            Path file = tmp.resolve("rails.jfr");
            recording.dump(file);
            List<String> changes = new ArrayList<>();
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getInt("rank") == 0 && e.getInt("peer") == 1 && e.getInt("rail") == 1) {
                    changes.add(e.getBoolean("up") ? "up" : "down");
                }
            }
            assertTrue(changes.indexOf("down") >= 0 && changes.lastIndexOf("up") > changes.indexOf("down"),
                    "rank 0's rail state events for rail 1 to rank 1: " + changes);
        }
    }

    @Test
    void aSilentPeerIsReportedWithinTheTimeout() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_NET_TIMEOUT_MS", "300"))) {
            f.awaitHandshake(5000);
            assertNull(f.t[0].failure(1));
            // rank 1's process stops: neither it nor its keep-alive agent polls, no heartbeats, no acknowledgements
            f.t[1].stopKeepAlive();
            long start = System.nanoTime();
            String why = f.awaitFailure(0, 1, 5000);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(why, "silent peer not reported");
            assertTrue(why.contains("rank 1"), why);
            // the 5 s wait above bounds it from above; a tighter bound would be a timing figure that a loaded machine breaks
            assertTrue(tookMs >= 250, "reported after " + tookMs + " ms, before the timeout");
        }
    }

    @Test
    void aPeerThatKeepsPollingIsNotReportedFailed() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_NET_TIMEOUT_MS", "300"))) {
            f.awaitHandshake(5000);
            long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end) {
                f.pollAll();
                Thread.sleep(1);
            }
            assertNull(f.t[0].failure(1));
            assertNull(f.t[1].failure(0));
        }
    }

    @Test
    void aPeerThatClosesIsReportedAsClosedAndItsLastAcknowledgementArrives() throws Exception {
        Fixture.closingPeer(Map.of());
    }

    @Test
    void recordsLargerThanTheLimitAreRefused() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            f.awaitHandshake(5000);
            int max = f.t[0].maxRecordLength();
            assertThrows(IllegalArgumentException.class,
                    () -> f.t[0].send(1, MemorySegment.ofArray(new byte[max + 1]), 0, max + 1));
        }
    }
}
