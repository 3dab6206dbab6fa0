package io.tutti.wire;

import static io.tutti.wire.MessageHeaderDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The fixed little-endian packet header: layout, round trip, byte order. */
@Timeout(30)
class MessageHeaderDescriptorTest {

    /** One field of the layout: name, offset, width in bytes. */
    record Field(String name, int offset, int width) {
    }

    static List<Field> fields() {
        return List.of(
                new Field("version", VERSION_OFFSET, 1),
                new Field("type", TYPE_OFFSET, 1),
                new Field("flags", FLAGS_OFFSET, 2),
                new Field("jobId", JOB_ID_OFFSET, 4),
                new Field("context", CONTEXT_OFFSET, 4),
                new Field("source", SOURCE_OFFSET, 4),
                new Field("dest", DEST_OFFSET, 4),
                new Field("tag", TAG_OFFSET, 4),
                new Field("payloadLength", PAYLOAD_LENGTH_OFFSET, 4),
                new Field("crc", CRC_OFFSET, 4),
                new Field("sequence", SEQUENCE_OFFSET, 8),
                new Field("handle", HANDLE_OFFSET, 8),
                new Field("peerHandle", PEER_HANDLE_OFFSET, 8),
                new Field("address", ADDRESS_OFFSET, 8),
                new Field("totalLength", TOTAL_LENGTH_OFFSET, 8));
    }

    @Test
    void lengthIs72AndFieldsTileTheHeaderWithoutOverlap() {
        assertEquals(72, LENGTH);
        boolean[] covered = new boolean[LENGTH];
        for (Field f : fields()) {
            assertTrue(f.offset() >= 0 && f.offset() + f.width() <= LENGTH, f + " lies outside the header");
            assertEquals(0, f.offset() % f.width(), f + " is not naturally aligned");
            for (int i = f.offset(); i < f.offset() + f.width(); i++) {
                assertFalse(covered[i], "byte " + i + " belongs to two fields (" + f.name() + ")");
                covered[i] = true;
            }
        }
        for (int i = 0; i < LENGTH; i++) {
            assertTrue(covered[i], "byte " + i + " belongs to no field");
        }
    }

    @Test
    void layoutsAreLittleEndian() {
        assertEquals(java.nio.ByteOrder.LITTLE_ENDIAN, SHORT.order());
        assertEquals(java.nio.ByteOrder.LITTLE_ENDIAN, INT.order());
        assertEquals(java.nio.ByteOrder.LITTLE_ENDIAN, LONG.order());
    }

    static void writeAndCheck(MemorySegment s, long at, byte type, short flags, int jobId, int context, int source,
                              int dest, int tag, int payloadLength, long handle, long peerHandle, long address,
                              long total) {
        write(s, at, type, flags, jobId, context, source, dest, tag, payloadLength, handle, peerHandle, address, total);
        assertEquals(CURRENT_VERSION, version(s, at));
        assertEquals(type, type(s, at));
        assertEquals(flags, flags(s, at));
        assertEquals(jobId, jobId(s, at));
        assertEquals(context, context(s, at));
        assertEquals(source, source(s, at));
        assertEquals(dest, dest(s, at));
        assertEquals(tag, tag(s, at));
        assertEquals(payloadLength, payloadLength(s, at));
        assertEquals(0L, sequence(s, at), "write() leaves the sequence number zero");
        assertEquals(0, s.get(INT, at + CRC_OFFSET), "write() leaves the CRC zero (shm)");
        assertEquals(handle, handle(s, at));
        assertEquals(peerHandle, peerHandle(s, at));
        assertEquals(address, address(s, at));
        assertEquals(total, totalLength(s, at));
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 3, 7, 4096 - 72})
    void everyFieldRoundTripsIncludingExtremes(long at) {
        try (Arena arena = Arena.ofConfined()) {
            // native memory at odd offsets: the layouts are unaligned, so any position must work
            MemorySegment s = arena.allocate(4096 + 8);
            byte[] types = {MessageType.EAGER, MessageType.MAX, 0, -1, Byte.MIN_VALUE, Byte.MAX_VALUE};
            short[] shorts = {0, 1, -1, Short.MIN_VALUE, Short.MAX_VALUE, (short) 0x8001};
            int[] ints = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x80000001, 0x7F00FF01};
            long[] longs = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x8000_0000_0000_0001L, 0x0123_4567_89AB_CDEFL};
            for (int i = 0; i < 7; i++) {
                writeAndCheck(s, at, types[i % types.length], shorts[i % shorts.length], ints[i % ints.length],
                        ints[(i + 1) % ints.length], ints[(i + 2) % ints.length], ints[(i + 3) % ints.length],
                        ints[(i + 4) % ints.length], ints[(i + 5) % ints.length], longs[i % longs.length],
                        longs[(i + 1) % longs.length], longs[(i + 2) % longs.length], longs[(i + 3) % longs.length]);
            }
            SplittableRandom rnd = new SplittableRandom(42);
            for (int i = 0; i < 2000; i++) {
                writeAndCheck(s, at, (byte) rnd.nextInt(), (short) rnd.nextInt(), rnd.nextInt(), rnd.nextInt(),
                        rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextLong(), rnd.nextLong(),
                        rnd.nextLong(), rnd.nextLong());
            }
        }
    }

    @Test
    void writeTouchesOnlyItsOwn72Bytes() {
        byte[] raw = new byte[LENGTH + 32];
        java.util.Arrays.fill(raw, (byte) 0x5A);
        MemorySegment s = MemorySegment.ofArray(raw);
        write(s, 16, MessageType.RTS, (short) -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
        for (int i = 0; i < 16; i++) {
            assertEquals(0x5A, raw[i] & 0xFF, "byte " + i + " before the header was written");
        }
        for (int i = 16 + LENGTH; i < raw.length; i++) {
            assertEquals(0x5A, raw[i] & 0xFF, "byte " + i + " after the header was written");
        }
    }

    @Test
    void bytesAreLittleEndianAtTheDocumentedOffsets() {
        byte[] raw = new byte[LENGTH];
        MemorySegment s = MemorySegment.ofArray(raw);
        write(s, 0, MessageType.CTS, (short) 0x0A0B, 0x11223344, 0x55667788, 0x01020304, 0x0A0B0C0D,
                0xCAFEBABE, 0x00F1F2F3, 0x0102030405060708L, 0x1112131415161718L, 0x2122232425262728L,
                0xF1F2F3F4F5F6F7F8L);
        assertEquals(CURRENT_VERSION, raw[0]);
        assertEquals(MessageType.CTS, raw[1]);
        assertBytes(raw, FLAGS_OFFSET, 0x0B, 0x0A);
        assertBytes(raw, JOB_ID_OFFSET, 0x44, 0x33, 0x22, 0x11);
        assertBytes(raw, CONTEXT_OFFSET, 0x88, 0x77, 0x66, 0x55);
        assertBytes(raw, SOURCE_OFFSET, 0x04, 0x03, 0x02, 0x01);
        assertBytes(raw, DEST_OFFSET, 0x0D, 0x0C, 0x0B, 0x0A);
        assertBytes(raw, TAG_OFFSET, 0xBE, 0xBA, 0xFE, 0xCA);
        assertBytes(raw, PAYLOAD_LENGTH_OFFSET, 0xF3, 0xF2, 0xF1, 0x00);
        assertBytes(raw, CRC_OFFSET, 0, 0, 0, 0);
        assertBytes(raw, SEQUENCE_OFFSET, 0, 0, 0, 0, 0, 0, 0, 0);
        assertBytes(raw, HANDLE_OFFSET, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01);
        assertBytes(raw, PEER_HANDLE_OFFSET, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11);
        assertBytes(raw, ADDRESS_OFFSET, 0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21);
        assertBytes(raw, TOTAL_LENGTH_OFFSET, 0xF8, 0xF7, 0xF6, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1);

        // and reading decodes bytes laid down by hand, independently of the writer
        byte[] hand = new byte[LENGTH];
        hand[TAG_OFFSET] = 0x01;
        hand[TAG_OFFSET + 3] = (byte) 0x80;
        hand[TOTAL_LENGTH_OFFSET] = 0x02;
        hand[TOTAL_LENGTH_OFFSET + 7] = 0x40;
        hand[FLAGS_OFFSET + 1] = (byte) 0xFF;
        MemorySegment h = MemorySegment.ofArray(hand);
        assertEquals(0x80000001, tag(h, 0));
        assertEquals(0x4000000000000002L, totalLength(h, 0));
        assertEquals((short) 0xFF00, flags(h, 0));
        assertEquals(0, source(h, 0));
    }

    @Test
    void readersMatchAnIndependentLittleEndianDecoding() {
        SplittableRandom rnd = new SplittableRandom(7);
        byte[] raw = new byte[LENGTH];
        MemorySegment s = MemorySegment.ofArray(raw);
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 500; i++) {
            rnd.nextBytes(raw);
            assertEquals(bb.get(VERSION_OFFSET), version(s, 0));
            assertEquals(bb.get(TYPE_OFFSET), type(s, 0));
            assertEquals(bb.getShort(FLAGS_OFFSET), flags(s, 0));
            assertEquals(bb.getInt(JOB_ID_OFFSET), jobId(s, 0));
            assertEquals(bb.getInt(CONTEXT_OFFSET), context(s, 0));
            assertEquals(bb.getInt(SOURCE_OFFSET), source(s, 0));
            assertEquals(bb.getInt(DEST_OFFSET), dest(s, 0));
            assertEquals(bb.getInt(TAG_OFFSET), tag(s, 0));
            assertEquals(bb.getInt(PAYLOAD_LENGTH_OFFSET), payloadLength(s, 0));
            assertEquals(bb.getLong(SEQUENCE_OFFSET), sequence(s, 0));
            assertEquals(bb.getLong(HANDLE_OFFSET), handle(s, 0));
            assertEquals(bb.getLong(PEER_HANDLE_OFFSET), peerHandle(s, 0));
            assertEquals(bb.getLong(ADDRESS_OFFSET), address(s, 0));
            assertEquals(bb.getLong(TOTAL_LENGTH_OFFSET), totalLength(s, 0));
        }
    }

    @Test
    void flagsAreDistinctBits() {
        short[] flags = {FLAG_HAS_ADDRESS, FLAG_PIPELINE, FLAG_SENDER_WRITES, FLAG_TRUNCATED};
        int seen = 0;
        for (short f : flags) {
            assertEquals(1, Integer.bitCount(f & 0xFFFF), "flag " + f + " is one bit");
            assertEquals(0, seen & f, "flag " + f + " is distinct");
            seen |= f;
        }
    }

    @Test
    void messageTypesAreDistinctAndNamed() {
        List<String> names = new ArrayList<>();
        for (byte t = MessageType.EAGER; t <= MessageType.MAX; t++) {
            String n = MessageType.name(t);
            assertFalse(n.startsWith("UNKNOWN"), "type " + t);
            assertFalse(names.contains(n), "duplicate name " + n);
            names.add(n);
        }
        assertTrue(MessageType.name((byte) 0).startsWith("UNKNOWN"));
        assertTrue(MessageType.name((byte) (MessageType.MAX + 1)).startsWith("UNKNOWN"));
    }

    private static void assertBytes(byte[] raw, int offset, int... expected) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i] & 0xFF, raw[offset + i] & 0xFF, "byte " + (offset + i) + " (field offset "
                    + offset + " + " + i + ")");
        }
    }
}
