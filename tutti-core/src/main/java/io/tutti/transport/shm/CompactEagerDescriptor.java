package io.tutti.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Body of an inbound-ring record of type {@link InboundRingDescriptor#TYPE_EAGER}: an eager message
 * from a rank of this node, with only the fields a receive matches on. The full wire header
 * ({@code io.tutti.wire.MessageHeaderDescriptor}, 72 bytes) carries the job, the destination, a
 * checksum and rendezvous fields that a message between two processes of one job on one node does
 * not need; without them a record of up to 32 payload bytes fits one 64-byte line.
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
 *  |                          payload ...                          | 16
 * </pre>
 *
 * All fields are little-endian. Only local producers write such records; what arrives from the
 * network is always a whole wire message.
 */
public final class CompactEagerDescriptor {
    public static final int CONTEXT_OFFSET = 0;
    public static final int SOURCE_OFFSET = 4;
    public static final int TAG_OFFSET = 8;
    public static final int PAYLOAD_LENGTH_OFFSET = 12;
    public static final int LENGTH = 16;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private CompactEagerDescriptor() {
    }

    public static void write(MemorySegment s, long at, int context, int source, int tag, int payloadLength) {
        s.set(INT, at + CONTEXT_OFFSET, context);
        s.set(INT, at + SOURCE_OFFSET, source);
        s.set(INT, at + TAG_OFFSET, tag);
        s.set(INT, at + PAYLOAD_LENGTH_OFFSET, payloadLength);
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
}
