package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.transport.RemoteTransport;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When the rails acknowledge: on a DATA going back when there is one, standalone only when it
 * cannot wait (two datagrams unacknowledged, or the ack delay ran out). Each test polls one rank
 * at a time, so what a rank has read is known; the keep-alive agents and heartbeats are kept out
 * of the way (a heartbeat interval of a minute) and the retransmission timeout far above anything
 * a loaded machine adds (a floor of one second), so the counts do not depend on the timing.
 */
@Timeout(60)
class AcknowledgementTest {
    private static final byte[] SMALL = {1, 2, 3, 4, 5, 6, 7, 8};

    private static Map<String, String> settings(String wire, int ackDelayMicros) {
        Map<String, String> m = new HashMap<>();
        m.put("TUTTI_NET", wire);
        m.put("TUTTI_NET_HEARTBEAT_MS", "60000");
        m.put("TUTTI_NET_TIMEOUT_MS", "600000");
        m.put("TUTTI_NET_RTO_FLOOR_US", "1000000");
        m.put("TUTTI_NET_ACK_DELAY_US", Integer.toString(ackDelayMicros));
        return m;
    }

    private static void send(RailsTransport from, int to) {
        assertTrue(from.canSend(to));
        from.send(to, MemorySegment.ofArray(SMALL), 0, SMALL.length);
    }

    /** Polls {@code t} alone until {@code got} holds {@code count} records (at most 2 s). */
    private static void pollUntil(RailsTransport t, Fixture.Collector got, int count) {
        long end = System.nanoTime() + 2_000_000_000L;
        while (got.got.size() < count && System.nanoTime() < end) {
            t.poll(got);
        }
        assertEquals(count, got.got.size(), t.statistics());
    }

    /** Polls {@code t} alone until it has nothing unacknowledged (at most 2 s). */
    private static void pollUntilQuiescent(RailsTransport t) {
        RemoteTransport.Sink any = (s, m, o, l) -> true;
        long end = System.nanoTime() + 2_000_000_000L;
        while (!t.quiescent() && System.nanoTime() < end) {
            t.poll(any);
        }
        assertTrue(t.quiescent(), t.statistics());
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aPingPongCarriesEveryAcknowledgementOnTheReply(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire, 100))) {
            f.awaitHandshake(5000);
            Fixture.Collector at0 = new Fixture.Collector();
            Fixture.Collector at1 = new Fixture.Collector();
            long acks0 = 0;
            long acks1 = 0;
            long resent = 0;
            int rounds = 100;
            for (int i = 0; i <= rounds; i++) {
                if (i == 1) {
                    // counted from here: the first round timed the round trip, the timeout is on its floor
                    acks0 = f.t[0].acksSent();
                    acks1 = f.t[1].acksSent();
                    resent = f.t[0].retransmits() + f.t[1].retransmits();
                }
                send(f.t[0], 1);
                pollUntil(f.t[1], at1, i + 1);
                send(f.t[1], 0);
                pollUntil(f.t[0], at0, i + 1);
            }
            assertEquals(acks0, f.t[0].acksSent(), f.t[0].statistics());
            assertEquals(acks1, f.t[1].acksSent(), f.t[1].statistics());
            assertEquals(resent, f.t[0].retransmits() + f.t[1].retransmits());
            assertTrue(f.t[0].quiescent(), "the last reply did not acknowledge the last request");
            assertFalse(f.t[1].quiescent(), "rank 0 acknowledged the last reply at once");
            // nothing more goes to rank 1: the held acknowledgement leaves once its delay has run out
            Thread.sleep(2);
            f.t[0].poll(at0);
            assertEquals(acks0 + 1, f.t[0].acksSent(), f.t[0].statistics());
            pollUntilQuiescent(f.t[1]);
        }
    }

    @Test
    void aLoneRecordIsAcknowledgedOnceTheDelayHasRunOutWithoutARetransmission() throws Exception {
        try (Fixture f = new Fixture(2, settings("udp", 100))) {
            f.awaitHandshake(5000);
            Fixture.Collector got = new Fixture.Collector();
            send(f.t[0], 1);
            pollUntil(f.t[1], got, 1);
            assertEquals(0, f.t[1].acksSent(), "acknowledged in the poll that received it: " + f.t[1].statistics());
            Thread.sleep(2);
            f.t[1].poll(got);
            assertEquals(1, f.t[1].acksSent(), f.t[1].statistics());
            pollUntilQuiescent(f.t[0]);
            assertEquals(0, f.t[0].retransmits(), f.t[0].statistics());
        }
    }

    @Test
    void anAckDelayOfZeroAcknowledgesInThePollThatReceives() throws Exception {
        try (Fixture f = new Fixture(2, settings("udp", 0))) {
            f.awaitHandshake(5000);
            Fixture.Collector got = new Fixture.Collector();
            send(f.t[0], 1);
            pollUntil(f.t[1], got, 1);
            assertEquals(1, f.t[1].acksSent(), f.t[1].statistics());
        }
    }

    /**
     * A one-way stream, with an ack delay far longer than the test: two datagrams unacknowledged
     * make the acknowledgement go at once, so the sender's window never waits for the delay.
     */
    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aOneWayStreamIsAcknowledgedEverySecondDatagramAndNeverStallsTheWindow(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire, 400_000))) {
            f.awaitHandshake(5000);
            Fixture.Collector got = new Fixture.Collector();
            RemoteTransport.Sink any = (s, m, o, l) -> true;
            int sent = 0;
            for (int round = 0; round < 300; round++) {
                // three a round: an odd one stays held, the next round's first makes two
                for (int k = 0; k < 3; k++) {
                    send(f.t[0], 1);
                    sent++;
                }
                pollUntil(f.t[1], got, sent);
                // at most one datagram is left unacknowledged, and one acknowledgement covers at most
                // that one and a round's three
                assertTrue(f.t[1].acksSent() >= (sent - 1) / 4, "too few acknowledgements: " + f.t[1].statistics());
                // the acknowledgements are on their way: the window opens without waiting for the delay
                // (the next round's sends check it)
                long end = System.nanoTime() + 100_000_000L;
                while (!f.t[0].canSend(1) && System.nanoTime() < end) {
                    f.t[0].poll(any);
                }
                f.t[0].poll(any);
            }
            // every acknowledgement covers at least two datagrams: none went for a lone one
            assertTrue(f.t[1].acksSent() <= sent / 2, "more acknowledgements than every second datagram: "
                    + f.t[1].statistics());
            assertEquals(0, f.t[0].retransmits(), f.t[0].statistics());
        }
    }

    /** After an empty read, a UDP rail reads one datagram per poll, then twice as many while they keep coming. */
    @Test
    void theUdpReceiveBudgetStartsAtOneAndGrowsWhileDatagramsKeepComing() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        UdpWire wire = new UdpWire(List.of(lo), 1, 0, false);
        try (DatagramChannel out = DatagramChannel.open()) {
            int[] frames = new int[1];
            RailWire.Receiver count = new RailWire.Receiver() {
                @Override
                public void frame(int rail, Object from, ByteBuffer frame, MemorySegment segment, int length) {
                    frames[0]++;
                }

                @Override
                public void lost(int peer, int rail, String why) {
                }

                @Override
                public void opened(int peer, int rail) {
                }

                @Override
                public void garbled(DropReason why) {
                }
            };
            assertEquals(0, wire.receive(count, false));
            InetSocketAddress to = wire.localAddresses().get(0);
            int n = 20;
            for (int i = 0; i < n; i++) {
                out.send(ByteBuffer.wrap(SMALL), to);
            }
            long end = System.nanoTime() + 2_000_000_000L;
            int first;
            while ((first = wire.receive(count, false)) == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(1, first, "the budget after an empty read is one datagram");
            // 1, then at most 2, 4, 8, ...: each read full doubles the next one's budget
            int budget = 2;
            while (frames[0] < n && System.nanoTime() < end) {
                int got = wire.receive(count, false);
                assertTrue(got <= budget, got + " datagrams read with a budget of " + budget);
                budget = got == budget ? 2 * budget : Math.max(1, got);
            }
            assertEquals(n, frames[0]);
        } finally {
            wire.close();
        }
    }
}
