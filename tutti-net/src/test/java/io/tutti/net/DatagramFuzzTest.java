package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;

/**
 * Coverage-guided fuzzing of what the rails receive. {@link #check}: whatever the bytes,
 * {@link DatagramDescriptor#check} answers with a {@link DropReason} or accepts, never throws, and
 * what it accepts has every field within bounds. {@link #frames}: frames injected into a connected
 * transport from its peer's address, raw or sealed with the session's key (so that the fuzzer gets
 * past the tag and MAC to the protocol): each is taken or dropped and counted, never raising an
 * exception past the checks, and no acknowledgement frees what was never sent. {@link #tcpStream}:
 * bytes sent on a new connection to a TCP rail, which frames the stream: the rank goes on working. The corpora run as
 * regression tests in every build; {@code bench/fuzz.sh} fuzzes them.
 */
class DatagramFuzzTest {
    private static final int JOB = 5;
    private static final int SIZE = 4;
    private static final int MAX_RECORD = 65608;

    @FuzzTest(maxDuration = "30s")
    void check(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(bytes.length, HEADER));
        b.put(0, bytes);
        CRC32C crc = new CRC32C();
        // half the inputs resealed, so that the fuzzer reaches the checks behind the CRC
        if (bytes.length >= HEADER && (bytes[0] & 1) == 0) {
            seal(crc, b, bytes.length);
        }
        DropReason why = DatagramDescriptor.check(b, bytes.length, crc, JOB, 0, SIZE, MAX_RECORD);
        if (why == null) {
            int payload = bytes.length - HEADER;
            int source = b.getInt(SOURCE_OFFSET);
            assertTrue(source > 0 && source < SIZE, "source");
            assertEquals(payload, Short.toUnsignedInt(b.getShort(PAYLOAD_LENGTH_OFFSET)), "payload length");
            assertTrue(b.getLong(CONSUMED_OFFSET) >= 0 && b.getLong(CONSUMED_OFFSET) <= b.getLong(ACK_OFFSET));
            byte type = b.get(TYPE_OFFSET);
            assertTrue(type >= DATA && type <= RAIL, "type");
            if (type == DATA) {
                int record = b.getInt(RECORD_LENGTH_OFFSET);
                int offset = b.getInt(FRAG_OFFSET_OFFSET);
                assertTrue(record >= 0 && record <= MAX_RECORD && offset >= 0 && offset + payload <= record,
                        "fragment");
            }
        }
    }

    /** Two connected ranks over loopback, made at the first frame and kept for the run. */
    private static Fixture pair;
    /** The same over TCP, for {@link #tcpStream}. */
    private static Fixture tcpPair;
    private static long counter = 1L << 40;

    @AfterAll
    static void closePair() {
        if (pair != null) {
            pair.close();
            pair = null;
        }
        if (tcpPair != null) {
            tcpPair.close();
            tcpPair = null;
        }
    }

    @FuzzTest(maxDuration = "30s")
    void frames(FuzzedDataProvider data) throws Exception {
        if (pair == null) {
            pair = new Fixture(2, Map.of());
            pair.awaitHandshake(30_000);
        }
        RailsTransport t = pair.t[0];
        SessionKeys session = t.session(1);
        InetSocketAddress peer = pair.t[1].railAddresses().get(0);
        int mode = data.consumeInt(0, 2);
        ByteBuffer b;
        int length;
        if (mode == 0) {
            byte[] raw = data.consumeRemainingAsBytes();
            length = raw.length;
            b = ByteBuffer.allocate(Math.max(length, HEADER)).put(0, raw);
        } else {
            byte type = data.consumeByte((byte) 0, (byte) 6);
            byte flags = data.consumeByte();
            short index = data.consumeShort();
            short count = data.consumeShort();
            long seq = data.consumeLong();
            long ack = data.consumeLong();
            long consumed = data.consumeLong();
            int record = data.consumeInt();
            int offset = data.consumeInt();
            // mode 1: a fresh counter, as the peer sends; mode 2: the fuzzer's, to reach the replay window
            long n = mode == 1 ? counter++ : data.consumeLong();
            byte[] payload = data.consumeRemainingAsBytes();
            length = HEADER + Math.min(payload.length, MAX_PAYLOAD);
            b = ByteBuffer.allocate(length);
            b.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).put(TYPE_OFFSET, type)
                    .putInt(JOB_OFFSET, Fixture.JOB).putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0)
                    .put(FLAGS_OFFSET, flags).putShort(FRAG_INDEX_OFFSET, index).putShort(FRAG_COUNT_OFFSET, count)
                    .putShort(PAYLOAD_LENGTH_OFFSET, (short) (length - HEADER)).putLong(SEQ_OFFSET, seq)
                    .putLong(ACK_OFFSET, ack).putLong(CONSUMED_OFFSET, consumed).putInt(RECORD_LENGTH_OFFSET, record)
                    .putInt(FRAG_OFFSET_OFFSET, offset).putLong(TAG_OFFSET, session.tag()).putLong(COUNTER_OFFSET, n);
            b.put(HEADER, payload, 0, length - HEADER);
            new RecordMac().seal(session.key(), b, length, null, true);
            seal(new CRC32C(), b, length);
        }
        t.inject(0, peer, b, length);
        t.poll((source, record, at, bytes) -> {
            assertEquals(1, source, "a record from a rank that did not send it");
            assertTrue(bytes >= 0 && bytes <= t.maxRecordLength(), "a record of " + bytes + " bytes");
            return true;
        });
        assertNull(t.upset(), () -> "a frame passed the checks and raised " + t.upset());
        assertTrue(t.released(1) <= t.nextSequence(1), "an acknowledgement freed records never sent");
    }

    @FuzzTest(maxDuration = "30s")
    void tcpStream(byte[] bytes) throws Exception {
        if (tcpPair == null) {
            tcpPair = new Fixture(2, Map.of("TUTTI_NET", "tcp"));
            tcpPair.awaitHandshake(30_000);
        }
        RailsTransport t = tcpPair.t[0];
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(t.railAddresses().get(0))) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
                t.poll((source, record, at, n) -> true);
            }
            for (int i = 0; i < 3; i++) {
                t.poll((source, record, at, n) -> true);
            }
        }
        t.poll((source, record, at, n) -> true);
        assertNull(t.upset(), () -> "a frame passed the checks and raised " + t.upset());
        assertTrue(t.canSend(1), "a stranger's connection cut the rank off its peer");
    }
}
