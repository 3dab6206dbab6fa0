package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Datagrams of other jobs, garbled ones and ones from strangers are dropped, counted, and change nothing. */
@Timeout(60)
class RejectionTest {

    /** A well-formed DATA datagram from rank 1 to rank 0 of {@code job}, then edited by {@code edit}. */
    private static ByteBuffer datagram(int job, Consumer<ByteBuffer> edit) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + 100);
        b.putShort(MAGIC_OFFSET, MAGIC).put(VERSION_OFFSET, VERSION).put(TYPE_OFFSET, DATA).putInt(JOB_OFFSET, job)
                .putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0).putShort(FRAG_COUNT_OFFSET, (short) 1)
                .putShort(PAYLOAD_LENGTH_OFFSET, (short) 100).putInt(RECORD_LENGTH_OFFSET, 100);
        seal(new CRC32C(), b, HEADER + 100);
        edit.accept(b);
        return b;
    }

    private static void sendTo(InetSocketAddress to, ByteBuffer b) throws Exception {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.1", 0));
            b.clear();
            ch.send(b, to);
        }
    }

    @Test
    void foreignGarbledAndUnauthenticatedDatagramsAreDroppedAndCounted() throws Exception {
        try (Fixture f = new Fixture(2, Map.of())) {
            f.awaitHandshake(5000);
            InetSocketAddress rail = f.t[0].railAddresses().get(0);
            CRC32C crc = new CRC32C();
            sendTo(rail, datagram(Fixture.JOB + 1, b -> seal(crc, b, b.capacity())));
            sendTo(rail, datagram(Fixture.JOB, b -> b.put(HEADER + 3, (byte) 0x55)));
            sendTo(rail, datagram(Fixture.JOB, b -> b.putShort(MAGIC_OFFSET, (short) 0x1234)));
            sendTo(rail, datagram(Fixture.JOB, b -> {
                b.putInt(RECORD_LENGTH_OFFSET, 50);
                seal(crc, b, b.capacity());
            }));
            sendTo(rail, datagram(Fixture.JOB, b -> {
                b.putInt(DEST_OFFSET, 1);
                seal(crc, b, b.capacity());
            }));
            sendTo(rail, ByteBuffer.wrap(new byte[] {1, 2, 3}));
            // well-formed, right job, but from a socket that never answered the challenge
            sendTo(rail, datagram(Fixture.JOB, b -> {
            }));
            Fixture.Collector got = new Fixture.Collector();
            f.awaitDrop(DropReason.UNAUTHENTICATED, 2000, got);
            assertEquals(1, f.t[0].dropped(DropReason.JOB), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.CRC), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.MAGIC), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.FIELD), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.DEST), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.SHORT), f.t[0].statistics());
            assertEquals(1, f.t[0].dropped(DropReason.UNAUTHENTICATED), f.t[0].statistics());
            assertTrue(got.got.isEmpty(), "a rejected datagram was delivered");
            // and the real peer still gets through
            f.t[1].send(0, MemorySegment.ofArray(new byte[] {9, 8, 7}), 0, 3);
            f.awaitRecord(0, got);
            assertArrayEquals(new byte[] {9, 8, 7}, got.got.get(0));
        }
    }

    @Test
    void aPeerWithAnotherSecretNeverGetsThrough() throws Exception {
        RailsTransport[] pair = Fixture.withDifferentSecrets(Map.of());
        RailsTransport a = pair[0];
        RailsTransport b = pair[1];
        try (a; b) {
            assertFalse(a.canSend(1));
            assertFalse(b.canSend(0));
            assertTrue(a.dropped(DropReason.BAD_MAC) > 0 && b.dropped(DropReason.BAD_MAC) > 0, a.statistics());
        }
    }
}
