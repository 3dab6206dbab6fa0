package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rails over TCP ({@code TUTTI_NET=tcp}): the same stream guarantees as over UDP, on connections. */
@Timeout(120)
class TcpRailsTest {

    private static Map<String, String> tcp(String... more) {
        Map<String, String> m = new HashMap<>(Map.of("TUTTI_NET", "tcp"));
        for (int i = 0; i + 1 < more.length; i += 2) {
            m.put(more[i], more[i + 1]);
        }
        return m;
    }

    @Test
    void recordsOfRandomSizesArriveOnceInOrderAndIntact() throws Exception {
        try (Fixture f = new Fixture(2, tcp())) {
            assertEquals("tcp", f.t[0].wire());
            ReliableDeliveryTest.exchange(f, 50_000, 11, f.t[0].maxRecordLength(), null);
            assertEquals(0, f.t[0].retransmits() + f.t[1].retransmits(), "TCP repairs loss itself");
        }
    }

    @Test
    void longRecordsAreStripedOverTwoRailsAndReassembled() throws Exception {
        // small frames: every long record is cut into many, spread over both connections
        try (Fixture f = new Fixture(2, tcp("TUTTI_RAILS", "lo,lo", "TUTTI_NET_MTU", "1472"))) {
            ReliableDeliveryTest.exchange(f, 5_000, 5, f.t[0].maxRecordLength(), null);
            assertTrue(f.t[0].railUp(1, 0) && f.t[0].railUp(1, 1));
        }
    }

    /** 3 ranks: connections read directly; 6 ranks on two rails (10 connections each): through the selector. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 6})
    void everyRankReachesEveryOther(int n) throws Exception {
        try (Fixture f = new Fixture(n, tcp("TUTTI_RAILS", "lo,lo"))) {
            f.awaitHandshake(10_000);
            Fixture.Collector[] got = new Fixture.Collector[n];
            for (int b = 0; b < n; b++) {
                got[b] = new Fixture.Collector();
            }
            int rounds = 50;
            for (int i = 0; i < rounds; i++) {
                for (int a = 0; a < n; a++) {
                    for (int b = 0; b < n; b++) {
                        if (a != b) {
                            f.t[a].send(b, MemorySegment.ofArray(new byte[] {(byte) a, (byte) b, (byte) i}), 0, 3);
                        }
                    }
                }
                long end = System.nanoTime() + 5_000_000_000L;
                boolean all = false;
                while (!all && System.nanoTime() < end) {
                    f.pollAll(got);
                    all = true;
                    for (int b = 0; b < n; b++) {
                        all &= got[b].got.size() == (i + 1) * (n - 1);
                    }
                }
                assertTrue(all, "round " + i + " incomplete: " + f.t[0].statistics());
            }
            for (int b = 0; b < n; b++) {
                int[] next = new int[n];
                for (int k = 0; k < got[b].got.size(); k++) {
                    byte[] m = got[b].got.get(k);
                    int a = got[b].sources.get(k);
                    assertEquals(a, m[0]);
                    assertEquals(b, m[1]);
                    assertEquals(next[a]++, m[2], "from " + a + " to " + b + " out of order");
                }
            }
        }
    }

    /** A well-formed DATA frame from rank 1 to rank 0 of {@code job}, then edited by {@code edit}. */
    private static ByteBuffer frame(int job, Consumer<ByteBuffer> edit) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + 100);
        b.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).put(TYPE_OFFSET, DATA).putInt(JOB_OFFSET, job)
                .putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0).putShort(FRAG_COUNT_OFFSET, (short) 1)
                .putShort(PAYLOAD_LENGTH_OFFSET, (short) 100).putInt(RECORD_LENGTH_OFFSET, 100);
        seal(new CRC32C(), b, HEADER + 100);
        edit.accept(b);
        return b;
    }

    @Test
    void foreignAndOutOfRangeFramesAreDroppedAndCountedAndGarbageClosesOnlyItsConnection() throws Exception {
        try (Fixture f = new Fixture(2, tcp())) {
            f.awaitHandshake(5000);
            InetSocketAddress rail = f.t[0].railAddresses().get(0);
            CRC32C crc = new CRC32C();
            Fixture.Collector got = new Fixture.Collector();
            try (SocketChannel stranger = SocketChannel.open(rail)) {
                // frames that frame: each is dropped, the connection stays
                for (ByteBuffer b : new ByteBuffer[] {
                        frame(Fixture.JOB + 1, b -> seal(crc, b, b.capacity())),
                        frame(Fixture.JOB, b -> b.put(HEADER + 3, (byte) 0x55)),
                        frame(Fixture.JOB, b -> {
                            b.putInt(RECORD_LENGTH_OFFSET, 50);
                            seal(crc, b, b.capacity());
                        }),
                        frame(Fixture.JOB, b -> {
                            b.putInt(DEST_OFFSET, 1);
                            seal(crc, b, b.capacity());
                        }),
                        // well-formed, right job, but on a connection that never answered the challenge
                        frame(Fixture.JOB, b -> {
                        })}) {
                    b.clear();
                    while (b.hasRemaining()) {
                        stranger.write(b);
                    }
                }
                f.awaitDrop(DropReason.UNAUTHENTICATED, 3000, got);
                assertEquals(1, f.t[0].dropped(DropReason.JOB), f.t[0].statistics());
                assertEquals(1, f.t[0].dropped(DropReason.CRC), f.t[0].statistics());
                assertEquals(1, f.t[0].dropped(DropReason.FIELD), f.t[0].statistics());
                assertEquals(1, f.t[0].dropped(DropReason.DEST), f.t[0].statistics());
                assertEquals(1, f.t[0].dropped(DropReason.UNAUTHENTICATED), f.t[0].statistics());
                // then garbage: the stream cannot be framed any more, and is closed
                stranger.write(ByteBuffer.wrap(new byte[HEADER]));
                f.awaitDrop(DropReason.MAGIC, 3000, got);
                assertEquals(1, f.t[0].dropped(DropReason.MAGIC), f.t[0].statistics());
                ByteBuffer one = ByteBuffer.allocate(1);
                stranger.socket().setSoTimeout(3000);
                long end = System.nanoTime() + 3_000_000_000L;
                int n = 0;
                while (n == 0 && System.nanoTime() < end) {
                    f.pollAll(got);
                    stranger.configureBlocking(false);
                    try {
                        n = stranger.read(one);
                    } catch (java.io.IOException e) {
                        n = -1;
                    }
                    one.clear();
                }
                assertEquals(-1, n, "the garbled connection was not closed");
            }
            assertTrue(got.got.isEmpty(), "a rejected frame was delivered");
            assertNull(f.t[0].failure(1), "a stranger's garbage made the real peer fail");
            // and the real peer still gets through
            f.t[1].send(0, MemorySegment.ofArray(new byte[] {9, 8, 7}), 0, 3);
            f.awaitRecord(0, got);
            assertArrayEquals(new byte[] {9, 8, 7}, got.got.get(0));
        }
    }

    @Test
    void aPeerWithAnotherSecretNeverGetsThrough() throws Exception {
        RailsTransport[] pair = Fixture.withDifferentSecrets(tcp());
        RailsTransport a = pair[0];
        RailsTransport b = pair[1];
        try (a; b) {
            assertFalse(a.canSend(1));
            assertFalse(b.canSend(0));
            // the accepting side finds the first HELLO's MAC wrong and answers nothing at all
            assertTrue(b.dropped(DropReason.BAD_MAC) > 0, b.statistics());
        }
    }

    @Test
    void aPeerThatClosesIsReportedAsClosedAndItsLastRecordArrives() throws Exception {
        Fixture.closingPeer(tcp());
    }

    @Test
    void aConnectionThatEndsWithoutGoodbyeIsThePeersFailureAtOnce() throws Exception {
        try (Fixture f = new Fixture(2, tcp("TUTTI_NET_TIMEOUT_MS", "60000"))) {
            f.awaitHandshake(5000);
            f.t[1].abort();
            long start = System.nanoTime();
            String why = f.awaitFailure(0, 1, 5000);
            assertNotNull(why, "a dead peer was not reported");
            assertTrue(why.contains("rank 1") && why.contains("end of stream"), why);
            // long before the silence timeout (60 s): the end of the stream tells
            assertTrue(System.nanoTime() - start < 5_000_000_000L);
            assertFalse(f.t[0].canSend(1));
        }
    }

    @Test
    void aSilentPeerIsReportedWithinTheTimeout() throws Exception {
        try (Fixture f = new Fixture(2, tcp("TUTTI_NET_TIMEOUT_MS", "300"))) {
            f.awaitHandshake(5000);
            // rank 1's process stops (its connections stay open): no heartbeats
            f.t[1].stopKeepAlive();
            long start = System.nanoTime();
            String why = f.awaitFailure(0, 1, 5000);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(why, "silent peer not reported");
            assertTrue(why.contains("rank 1") && why.contains("not been heard"), why);
            assertTrue(tookMs >= 250, "reported after " + tookMs + " ms, before the timeout");
        }
    }

    @Test
    void aRailThatGoesSilentMidTransferIsTakenOutAndItsDataGoesOnTheOther() throws Exception {
        try (Fixture f = new Fixture(2, tcp("TUTTI_RAILS", "lo,lo", "TUTTI_NET_RAIL_TIMEOUT_MS", "200"))) {
            ReliableDeliveryTest.exchange(f, 20_000, 3, f.t[0].maxRecordLength(), () -> {
                assertTrue(f.t[0].railUp(1, 1) && f.t[1].railUp(0, 1), "rail 1 was up before");
                f.t[0].injectFaults(1, 1.0, 0, 0, 0);
                f.t[1].injectFaults(1, 1.0, 0, 0, 0);
            });
            long end = System.nanoTime() + 3_000_000_000L;
            while (f.t[0].railUp(1, 1) && System.nanoTime() < end) {
                f.pollAll();
            }
            assertFalse(f.t[0].railUp(1, 1), "the silent rail is still in use");
            assertTrue(f.t[0].railsDowned() > 0);
        }
    }

    @Test
    void faultInjectionIsRefusedOnTcpWithAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Fixture(2, tcp("TUTTI_NET_DROP", "0.01")));
        assertTrue(e.getMessage().contains("TUTTI_NET=udp"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Fixture(2, Map.of("TUTTI_NET", "sctp")));
        assertTrue(e.getMessage().contains("udp or tcp"), e.getMessage());
    }

    /**
     * Silent strangers that open many connections hold a bounded number of them (one per peer and
     * rail, and 16 spare): past it the oldest is closed and counted, and the ranks keep talking.
     */
    @Test
    void silentConnectionsBeyondTheJobsNeedAreClosedOldestFirst() throws Exception {
        try (Fixture f = new Fixture(2, tcp())) {
            f.awaitHandshake(5000);
            InetSocketAddress rail = f.t[0].railAddresses().get(0);
            Fixture.Collector[] got = {new Fixture.Collector(), new Fixture.Collector()};
            int opened = 100;
            int limit = 2 * 1 + 16;
            java.util.List<SocketChannel> strangers = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < opened; i++) {
                    strangers.add(SocketChannel.open(rail));
                    f.pollAll(got);
                }
                long end = System.nanoTime() + 30_000_000_000L;
                while (f.t[0].dropped(DropReason.STRANGER) < opened - limit && System.nanoTime() < end) {
                    f.pollAll(got);
                }
                assertEquals(opened - limit, f.t[0].dropped(DropReason.STRANGER), f.t[0].statistics());
                // the first ones were closed, the newest are still open
                assertTrue(closedByPeer(strangers.getFirst(), f, got), "the oldest stranger is closed");
                assertFalse(closedByPeer(strangers.getLast(), f, got), "the newest stranger is kept");
                // and the ranks still reach each other over the rail
                f.t[1].send(0, MemorySegment.ofArray(new byte[] {42}), 0, 1);
                end = System.nanoTime() + 30_000_000_000L;
                while (got[0].got.isEmpty() && System.nanoTime() < end) {
                    f.pollAll(got);
                }
                assertEquals(42, got[0].got.getLast()[0], f.t[0].statistics());
            } finally {
                for (SocketChannel c : strangers) {
                    c.close();
                }
            }
        }
    }

    /** Whether {@code c} reads end of stream (or a reset) within a few seconds of polling. */
    private static boolean closedByPeer(SocketChannel c, Fixture f, Fixture.Collector[] got) throws Exception {
        c.configureBlocking(false);
        ByteBuffer one = ByteBuffer.allocate(1);
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < end) {
            f.pollAll(got);
            try {
                if (c.read(one) < 0) {
                    return true;
                }
            } catch (java.io.IOException e) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }
}
