package io.tutti.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of the fixed header that starts every Tutti message on every transport.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |             flags             |  0
 *  +---------------+---------------+-------------------------------+
 *  |                            job id                             |  4
 *  +---------------------------------------------------------------+
 *  |                      communicator context                     |  8
 *  +---------------------------------------------------------------+
 *  |                      source (world rank)                      | 12
 *  +---------------------------------------------------------------+
 *  |                    destination (world rank)                   | 16
 *  +---------------------------------------------------------------+
 *  |                              tag                              | 20
 *  +---------------------------------------------------------------+
 *  |                 payload length (bytes after header)           | 24
 *  +---------------------------------------------------------------+
 *  |                  CRC32C (network links; 0 on shm)             | 28
 *  +---------------------------------------------------------------+
 *  |                   sequence number (per link)                  | 32
 *  +---------------------------------------------------------------+
 *  |   handle: request at the receiver of this packet (CTS, FIN,   | 40
 *  |   DATA) or at its sender (RTS)                                |
 *  +---------------------------------------------------------------+
 *  |   peer handle: the other side's request (CTS: receiver's)     | 48
 *  +---------------------------------------------------------------+
 *  |   offset: fragment offset (DATA) or a buffer address for a    | 56
 *  |   single copy (RTS: sender's, CTS: receiver's; 0 = none)      |
 *  +---------------------------------------------------------------+
 *  |   total length of the whole message                           | 64
 *  +---------------------------------------------------------------+
 *  |                          payload ...                          | 72
 * </pre>
 *
 * All fields are little-endian. Fields a type does not use are zero.
 */
public final class MessageHeaderDescriptor {
    public static final byte CURRENT_VERSION = 1;

    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int JOB_ID_OFFSET = 4;
    public static final int CONTEXT_OFFSET = 8;
    public static final int SOURCE_OFFSET = 12;
    public static final int DEST_OFFSET = 16;
    public static final int TAG_OFFSET = 20;
    public static final int PAYLOAD_LENGTH_OFFSET = 24;
    public static final int CRC_OFFSET = 28;
    public static final int SEQUENCE_OFFSET = 32;
    public static final int HANDLE_OFFSET = 40;
    public static final int PEER_HANDLE_OFFSET = 48;
    public static final int ADDRESS_OFFSET = 56;
    public static final int TOTAL_LENGTH_OFFSET = 64;
    public static final int LENGTH = 72;

    /** RTS flag: {@code offset} holds the address of the sender's off-heap buffer. */
    public static final short FLAG_HAS_ADDRESS = 1;
    /** CTS flag: stream the data through the pair's exchange ring. */
    public static final short FLAG_PIPELINE = 2;
    /** CTS flag: write the data straight into the receiver's buffer at {@code offset}, then FIN. */
    public static final short FLAG_SENDER_WRITES = 4;
    /** CTS flag: the posted buffer is too small; the send completes without data. */
    public static final short FLAG_TRUNCATED = 8;
    /**
     * CTS flag: send the data as DATA packets through the receiver's inbound ring (the network
     * path, where there is no shared exchange ring): handle = the receiver's request, offset = where
     * the fragment goes.
     */
    public static final short FLAG_PACKETS = 16;

    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MessageHeaderDescriptor() {
    }

    /** Writes a whole header; plain stores, the transport publishes the record afterwards. */
    public static void write(MemorySegment s, long at, byte type, short flags, int jobId, int context, int source,
                             int dest, int tag, int payloadLength, long handle, long peerHandle, long address,
                             long totalLength) {
        s.set(BYTE, at + VERSION_OFFSET, CURRENT_VERSION);
        s.set(BYTE, at + TYPE_OFFSET, type);
        s.set(SHORT, at + FLAGS_OFFSET, flags);
        s.set(INT, at + JOB_ID_OFFSET, jobId);
        s.set(INT, at + CONTEXT_OFFSET, context);
        s.set(INT, at + SOURCE_OFFSET, source);
        s.set(INT, at + DEST_OFFSET, dest);
        s.set(INT, at + TAG_OFFSET, tag);
        s.set(INT, at + PAYLOAD_LENGTH_OFFSET, payloadLength);
        s.set(INT, at + CRC_OFFSET, 0);
        s.set(LONG, at + SEQUENCE_OFFSET, 0L);
        s.set(LONG, at + HANDLE_OFFSET, handle);
        s.set(LONG, at + PEER_HANDLE_OFFSET, peerHandle);
        s.set(LONG, at + ADDRESS_OFFSET, address);
        s.set(LONG, at + TOTAL_LENGTH_OFFSET, totalLength);
    }

    public static byte version(MemorySegment s, long at) {
        return s.get(BYTE, at + VERSION_OFFSET);
    }

    public static byte type(MemorySegment s, long at) {
        return s.get(BYTE, at + TYPE_OFFSET);
    }

    public static short flags(MemorySegment s, long at) {
        return s.get(SHORT, at + FLAGS_OFFSET);
    }

    public static int jobId(MemorySegment s, long at) {
        return s.get(INT, at + JOB_ID_OFFSET);
    }

    public static int context(MemorySegment s, long at) {
        return s.get(INT, at + CONTEXT_OFFSET);
    }

    public static int source(MemorySegment s, long at) {
        return s.get(INT, at + SOURCE_OFFSET);
    }

    public static int dest(MemorySegment s, long at) {
        return s.get(INT, at + DEST_OFFSET);
    }

    public static int tag(MemorySegment s, long at) {
        return s.get(INT, at + TAG_OFFSET);
    }

    public static int payloadLength(MemorySegment s, long at) {
        return s.get(INT, at + PAYLOAD_LENGTH_OFFSET);
    }

    public static long sequence(MemorySegment s, long at) {
        return s.get(LONG, at + SEQUENCE_OFFSET);
    }

    public static long handle(MemorySegment s, long at) {
        return s.get(LONG, at + HANDLE_OFFSET);
    }

    public static long peerHandle(MemorySegment s, long at) {
        return s.get(LONG, at + PEER_HANDLE_OFFSET);
    }

    public static long address(MemorySegment s, long at) {
        return s.get(LONG, at + ADDRESS_OFFSET);
    }

    public static long totalLength(MemorySegment s, long at) {
        return s.get(LONG, at + TOTAL_LENGTH_OFFSET);
    }
}
