package io.tutti.transport.shm;

/**
 * Layout of a data-exchange ring: one per ordered pair of local ranks, one producer (the sender of
 * large messages) and one consumer (the receiver). Fixed-size slots, so both sides copy whole chunks
 * at the same time and the second copy hides behind the first.
 *
 * <pre>
 *  +------------------------------------------------------------+
 *  |  slot 0 | slot 1 | ... | slot (slots - 1)                   |
 *  +------------------------------------------------------------+
 *  |  trailer, each field on its own 128-byte line:              |
 *  |    +0    tail  i64  slots published (producer, release)     |
 *  |    +128  head  i64  slots consumed (consumer, release)      |
 *  |    +256  slots i32, chunk i32: the geometry, for checking   |
 *  +------------------------------------------------------------+
 *
 *  slot (SLOT_HEADER_LENGTH + chunk bytes, a multiple of 64):
 *  +------------------------------------------------------------+
 *  |  handle i64: the receive request the chunk belongs to       |  0
 *  |  offset i64: where the chunk goes in the message            |  8
 *  |  length i32: bytes in this chunk                            | 16
 *  |  (padding to 64)                                            | 20
 *  |  data ...                                                   | 64
 *  +------------------------------------------------------------+
 * </pre>
 */
public final class ExchangeRingDescriptor {
    public static final int SLOT_HEADER_LENGTH = 64;
    public static final int HANDLE_OFFSET = 0;
    public static final int OFFSET_OFFSET = 8;
    public static final int LENGTH_OFFSET = 16;

    public static final int TAIL_OFFSET = 0;
    public static final int HEAD_OFFSET = 128;
    public static final int SLOTS_OFFSET = 256;
    public static final int CHUNK_OFFSET = 260;
    public static final int TRAILER_LENGTH = 384;

    private ExchangeRingDescriptor() {
    }

    public static long slotLength(int chunk) {
        return SLOT_HEADER_LENGTH + (long) chunk;
    }

    /** The name of the file of the ring from {@code source} to {@code dest} in the job's directory. */
    public static String fileName(int source, int dest) {
        return "dx-" + source + "-" + dest;
    }

    public static long fileLength(int slots, int chunk) {
        if (slots < 2 || chunk < 4096 || chunk % 64 != 0) {
            throw new IllegalArgumentException("exchange ring needs at least 2 slots of at least 4096 bytes"
                    + " (a multiple of 64); got " + slots + " x " + chunk);
        }
        return slots * slotLength(chunk) + TRAILER_LENGTH;
    }
}
