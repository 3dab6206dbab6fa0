package io.tutti.transport.shm;

/**
 * Layout of a rank's inbound ring: the system channel, many producers (every local peer and the
 * network receive path) and one consumer (the owning rank).
 *
 * <pre>
 *  +------------------------------------------------------------+
 *  |  data: capacity bytes (a power of two), records below       |
 *  +------------------------------------------------------------+
 *  |  trailer, each field on its own 128-byte line:              |
 *  |    +0    tail position   i64  producers claim with CAS      |
 *  |    +128  head cache      i64  producers' hint of the head   |
 *  |    +256  head position   i64  written by the consumer only  |
 *  |    +384  doorbell        i32  0 awake, 1 asleep (futex word) |
 *  |    +388  sleeps          i32  1 if the consumer may sleep     |
 *  |    +512  cpu             i32  processor of its last wait + 1  |
 *  |    +516  closed          i32  1 once the consumer closed Tutti |
 *  +------------------------------------------------------------+
 *
 *  record (aligned to 64 bytes, a cache line):
 *  +------------------------------------------------------------+
 *  |  stamp  i64: ~position of the record; stored last (release) |  0
 *  |  length i32: header + body, unaligned                       |  8
 *  |  type   i32: MESSAGE, EAGER, OFFLOAD or PADDING             | 12
 *  |  body ...  MESSAGE: a wire message (header and payload)     | 16
 *  |            EAGER, OFFLOAD: a compact record from a local    |
 *  |            peer ({@link CompactRecordDescriptor})           |
 *  +------------------------------------------------------------+
 * </pre>
 *
 * Records start on a cache line of their own, so that a producer writing one never takes the line
 * the consumer is reading the previous one from, and a short message (an EAGER record of up to 32
 * payload bytes, a counter add, a PUT of up to 8 bytes) crosses from core to core as one line.
 *
 * A record is visible once its stamp equals the complement of its position (so the zeros of a
 * fresh file are never a record). Before it releases space, the consumer clears the stamp word of
 * every 64-byte line it has read: a later record may start at any of those lines, and a stale payload
 * there must not pass for that record's stamp (the rest of a line never decides anything).
 */
public final class InboundRingDescriptor {
    public static final int ALIGNMENT = 64;
    public static final int RECORD_HEADER_LENGTH = 16;
    public static final int STAMP_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int TYPE_OFFSET = 12;

    public static final int TYPE_PADDING = 1;
    public static final int TYPE_MESSAGE = 2;
    /** A compact eager message ({@link CompactRecordDescriptor}); only local peers write it, never the network path. */
    public static final int TYPE_EAGER = 3;
    /** A compact offload PUT or counter add ({@link CompactRecordDescriptor}); local peers only, as {@link #TYPE_EAGER}. */
    public static final int TYPE_OFFLOAD = 4;

    public static final int TAIL_POSITION_OFFSET = 0;
    public static final int HEAD_CACHE_POSITION_OFFSET = 128;
    public static final int HEAD_POSITION_OFFSET = 256;
    /** The consumer sets it to 1 before it sleeps on it (a futex); a producer that sees 1 wakes it. */
    public static final int DOORBELL_OFFSET = 384;
    /** Set once by the consumer before any producer maps the ring: whether producers must check the doorbell. */
    public static final int SLEEPS_OFFSET = 388;
    /**
     * The processor the consumer last waited on, plus one (0: none yet), written by the consumer
     * alone: a peer that waits on the same processor knows the consumer is queued behind it and
     * yields instead of spinning (docs/perf/contention.md). Its own line: waits rewrite it.
     */
    public static final int CPU_OFFSET = 512;
    /**
     * 1 once the consumer has closed Tutti cleanly (its sends flushed), written last before it
     * unmaps: a peer whose wildcard receive finds the consumer's process gone knows it ended, not failed.
     */
    public static final int CLOSED_OFFSET = 516;
    public static final int TRAILER_LENGTH = 640;

    private InboundRingDescriptor() {
    }

    /** The name of rank {@code rank}'s ring file in the job's directory. */
    public static String fileName(int rank) {
        return "ring-" + rank;
    }

    /** File size for a ring of the given data capacity. */
    public static long fileLength(int capacity) {
        checkCapacity(capacity);
        return (long) capacity + TRAILER_LENGTH;
    }

    public static void checkCapacity(int capacity) {
        if (capacity < 4096 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException(
                    "inbound ring capacity must be a power of two of at least 4096 bytes, got " + capacity);
        }
    }

    public static int align(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
