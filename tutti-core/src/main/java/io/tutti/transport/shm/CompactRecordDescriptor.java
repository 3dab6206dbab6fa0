package io.tutti.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Bodies of the compact inbound-ring records that ranks of one node send each other:
 * {@link InboundRingDescriptor#TYPE_EAGER} (an eager message) and
 * {@link InboundRingDescriptor#TYPE_OFFLOAD} (an offload engine's PUT or counter add). The full wire
 * header ({@code io.tutti.wire.MessageHeaderDescriptor}, 72 bytes) carries the job, the destination,
 * a checksum and rendezvous fields that a message between two processes of one job on one node does
 * not need; without them an eager message of up to 32 bytes, a counter add, or a PUT of up to 8
 * bytes fits one 64-byte line.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      communicator context                     |  0
 *  +---------------------------------------------------------------+
 *  |                      source (world rank)                      |  4
 *  +---------------------------------------------------------------+
 *  |                              tag                              |  8
 *  +---------------------------------------------------------------+
 *  |                         payload length                        | 12
 *  +---------------------------------------------------------------+
 *  |  EAGER: payload ...                                           | 16
 *
 *  OFFLOAD, after the same 16 bytes:
 *  +-------------------------------+---------------+---------------+
 *  |        counter (u16)          |  buffer (u8)  | kind (u8)     | 16
 *  +-------------------------------+---------------+---------------+
 *  |                 epoch (the sender's run number)               | 20
 *  +---------------------------------------------------------------+
 *  |                value added to the counter (i64)               | 24
 *  +---------------------------------------------------------------+
 *  |            offset in the destination buffer (i64)             | 32
 *  +---------------------------------------------------------------+
 *  |                          payload ...                          | 40
 * </pre>
 *
 * kind is {@code io.tutti.wire.MessageType.PUT} or {@code CNTR_ADD}. All fields are little-endian.
 * Only local producers write such records; what arrives from the network is always a whole wire
 * message. A field that does not fit (a counter above 65535, an epoch beyond 32 bits) makes the
 * sender use the whole wire header instead.
 */
public final class CompactRecordDescriptor {
    public static final int CONTEXT_OFFSET = 0;
    public static final int SOURCE_OFFSET = 4;
    public static final int TAG_OFFSET = 8;
    public static final int PAYLOAD_LENGTH_OFFSET = 12;
    /** Header of an EAGER record. */
    public static final int EAGER_LENGTH = 16;

    public static final int COUNTER_OFFSET = 16;
    public static final int BUFFER_OFFSET = 18;
    public static final int KIND_OFFSET = 19;
    public static final int EPOCH_OFFSET = 20;
    public static final int VALUE_OFFSET = 24;
    public static final int OFFSET_OFFSET = 32;
    /** Header of an OFFLOAD record. */
    public static final int OFFLOAD_LENGTH = 40;

    public static final int MAX_COUNTER = 0xFFFF;

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private CompactRecordDescriptor() {
    }

    /** The fields both kinds of record start with. */
    public static void write(MemorySegment s, long at, int context, int source, int tag, int payloadLength) {
        s.set(INT, at + CONTEXT_OFFSET, context);
        s.set(INT, at + SOURCE_OFFSET, source);
        s.set(INT, at + TAG_OFFSET, tag);
        s.set(INT, at + PAYLOAD_LENGTH_OFFSET, payloadLength);
    }

    /** The rest of an OFFLOAD record's header; {@code counter} at most {@link #MAX_COUNTER}. */
    public static void writeOffload(MemorySegment s, long at, byte kind, int buffer, int counter, int epoch, long value,
                                    long offset) {
        s.set(SHORT, at + COUNTER_OFFSET, (short) counter);
        s.set(ValueLayout.JAVA_BYTE, at + BUFFER_OFFSET, (byte) buffer);
        s.set(ValueLayout.JAVA_BYTE, at + KIND_OFFSET, kind);
        s.set(INT, at + EPOCH_OFFSET, epoch);
        s.set(LONG, at + VALUE_OFFSET, value);
        s.set(LONG, at + OFFSET_OFFSET, offset);
    }

    public static int context(MemorySegment s, long at) {
        return s.get(INT, at + CONTEXT_OFFSET);
    }

    public static int source(MemorySegment s, long at) {
        return s.get(INT, at + SOURCE_OFFSET);
    }

    public static int tag(MemorySegment s, long at) {
        return s.get(INT, at + TAG_OFFSET);
    }

    public static int payloadLength(MemorySegment s, long at) {
        return s.get(INT, at + PAYLOAD_LENGTH_OFFSET);
    }

    public static int counter(MemorySegment s, long at) {
        return Short.toUnsignedInt(s.get(SHORT, at + COUNTER_OFFSET));
    }

    public static int buffer(MemorySegment s, long at) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, at + BUFFER_OFFSET));
    }

    public static byte kind(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at + KIND_OFFSET);
    }

    public static int epoch(MemorySegment s, long at) {
        return s.get(INT, at + EPOCH_OFFSET);
    }

    public static long value(MemorySegment s, long at) {
        return s.get(LONG, at + VALUE_OFFSET);
    }

    public static long offset(MemorySegment s, long at) {
        return s.get(LONG, at + OFFSET_OFFSET);
    }
}
