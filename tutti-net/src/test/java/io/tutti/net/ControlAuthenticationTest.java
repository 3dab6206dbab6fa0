package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Control records that someone on the path forges, replays or cuts short, from the real peer's
 * address and with its session's tag: dropped, counted, and without effect on the stream.
 */
@Timeout(60)
class ControlAuthenticationTest {

    /** An ACK from rank 1 to rank 0 acknowledging {@code ack}, tagged, counted; MAC and CRC left to the caller. */
    static ByteBuffer ack(long tag, long counter, long ack, int payload) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload);
        b.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).put(TYPE_OFFSET, ACK).putInt(JOB_OFFSET, Fixture.JOB)
                .putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0).putShort(PAYLOAD_LENGTH_OFFSET, (short) payload)
                .putLong(ACK_OFFSET, ack).putLong(CONSUMED_OFFSET, ack).putLong(TAG_OFFSET, tag)
                .putLong(COUNTER_OFFSET, counter);
        return b;
    }

    /** An ACK as a forger without the key makes it: MAC left zero, CRC valid. */
    static ByteBuffer forged(long tag, long counter, long ack) {
        ByteBuffer b = ack(tag, counter, ack, 0);
        seal(new CRC32C(), b, HEADER);
        return b;
    }

    /** Seals {@code b} as the real peer would: MAC by the session's key (all of it), then the CRC. */
    static ByteBuffer genuine(SessionKeys s, ByteBuffer b) {
        new RecordMac().seal(s.key(), b, b.capacity(), null, true);
        seal(new CRC32C(), b, b.capacity());
        return b;
    }

    /** Three records from rank 0 that rank 1 has not read: unacknowledged, so a forged ACK would free them. */
    private static void outstanding(Fixture f) {
        f.awaitHandshake(5000);
        for (int i = 0; i < 3; i++) {
            f.t[0].send(1, MemorySegment.ofArray(new byte[100]), 0, 100);
        }
        assertEquals(3, f.t[0].nextSequence(1));
        assertEquals(0, f.t[0].released(1));
    }

    @Test
    void forgedAcknowledgementsWithTheStolenTagAreDroppedAndChangeNothing() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            outstanding(f);
            SessionKeys s = f.t[0].session(1);
            InetSocketAddress spoofed = f.t[1].railAddresses().get(0);
            // the tag seen on the path, a fresh counter, a MAC made up (no key), a valid CRC
            f.t[0].inject(0, spoofed, forged(s.tag(), 1_000_000, 3), HEADER);
            assertEquals(1, f.t[0].dropped(DropReason.BAD_MAC), f.t[0].statistics());
            // a DATA header carries an acknowledgement too
            ByteBuffer data = forged(s.tag(), 1_000_001, 3).put(TYPE_OFFSET, DATA);
            data.putShort(FRAG_COUNT_OFFSET, (short) 1);
            seal(new CRC32C(), data, HEADER);
            f.t[0].inject(0, spoofed, data, HEADER);
            assertEquals(2, f.t[0].dropped(DropReason.BAD_MAC), f.t[0].statistics());
            // without the tag (an attacker off the path): dropped before any MAC
            f.t[0].inject(0, spoofed, forged(0x1234_5678L, 1_000_002, 3), HEADER);
            assertEquals(1, f.t[0].dropped(DropReason.SESSION), f.t[0].statistics());
            assertEquals(0, f.t[0].released(1), "a forged acknowledgement freed records");
        }
    }

    @Test
    void aReplayedControlRecordIsDroppedOnce() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            outstanding(f);
            SessionKeys s = f.t[0].session(1);
            InetSocketAddress from = f.t[1].railAddresses().get(0);
            // as the peer would send it (acknowledging nothing new): accepted once
            ByteBuffer real = genuine(s, ack(s.tag(), 1_000_000, 0, 0));
            f.t[0].inject(0, from, real, HEADER);
            assertEquals(0, f.t[0].dropped(DropReason.REPLAY) + f.t[0].dropped(DropReason.BAD_MAC));
            f.t[0].inject(0, from, real, HEADER);
            assertEquals(1, f.t[0].dropped(DropReason.REPLAY), f.t[0].statistics());
            // and one older than the window, never seen: a replay too
            ByteBuffer old = genuine(s, ack(s.tag(), 1_000_000 - ReplayWindow.SPAN, 0, 0));
            f.t[0].inject(0, from, old, HEADER);
            assertEquals(2, f.t[0].dropped(DropReason.REPLAY), f.t[0].statistics());
        }
    }

    @Test
    void truncatedControlRecordsAreDropped() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            outstanding(f);
            SessionKeys s = f.t[0].session(1);
            InetSocketAddress from = f.t[1].railAddresses().get(0);
            ByteBuffer nak = ack(s.tag(), 1_000_000, 0, NAK_PAYLOAD);
            nak.putLong(HEADER, 0).putLong(HEADER + 8, 3);
            genuine(s, nak);
            // cut short: the length field no longer matches
            f.t[0].inject(0, from, nak, HEADER + 8);
            assertEquals(1, f.t[0].dropped(DropReason.LENGTH), f.t[0].statistics());
            // below a header
            f.t[0].inject(0, from, nak, HEADER - 1);
            assertEquals(1, f.t[0].dropped(DropReason.SHORT), f.t[0].statistics());
            // cut to a plain ACK, its length and CRC fixed: the MAC covered the NAK range
            nak.putShort(PAYLOAD_LENGTH_OFFSET, (short) 0);
            seal(new CRC32C(), nak, HEADER);
            f.t[0].inject(0, from, nak, HEADER);
            assertEquals(1, f.t[0].dropped(DropReason.BAD_MAC), f.t[0].statistics());
            assertEquals(0, f.t[0].released(1));
        }
    }

    @Test
    void aHelloWhoseFlagsWereAlteredFailsItsMac() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            f.awaitHandshake(5000);
            ByteBuffer hello = ByteBuffer.allocate(HEADER + HELLO_PAYLOAD);
            hello.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).put(TYPE_OFFSET, HELLO)
                    .putInt(JOB_OFFSET, Fixture.JOB).putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0)
                    .putShort(PAYLOAD_LENGTH_OFFSET, (short) HELLO_PAYLOAD).putLong(COUNTER_OFFSET, 1_000_000);
            new RecordMac().seal(RecordMac.key(Fixture.SECRET), hello, hello.capacity(), null, true);
            hello.put(HEADER + 16, (byte) 3);
            seal(new CRC32C(), hello, hello.capacity());
            f.t[0].inject(0, f.t[1].railAddresses().get(0), hello, hello.capacity());
            assertEquals(1, f.t[0].dropped(DropReason.BAD_MAC), f.t[0].statistics());
        }
    }

    @Test
    void dataMacSettingCoversThePayload() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_NET_MAC_DATA", "true", "TUTTI_NET_DROP", "0.05"))) {
            ReliableDeliveryTest.exchange(f, 2000, 7, f.t[0].maxRecordLength(), null);
        }
    }
}
