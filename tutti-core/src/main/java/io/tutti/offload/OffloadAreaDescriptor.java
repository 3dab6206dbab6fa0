package io.tutti.offload;

/**
 * Layout of a rank's offload area: the shared memory through which the ranks of one node run an
 * offloaded persistent collective without messages. The owner's counters (water tanks) and its
 * temporary buffer live here, so that a peer on the same node performs a REMOTE_CNTR_ADD as an
 * atomic add into the owner's counter, and a PUT into the owner's temporary buffer as a copy
 * followed by that add. Each rank owns one area per offloaded collective (file
 * {@code offload-<context>-<tag>-<world rank>}).
 *
 * <pre>
 *  +--------------------------------------------------------------+
 *  |  header line (64 B)                                           |  0
 *  |    +0   magic        i32  {@link #MAGIC}                       |
 *  |    +4   counters     i32  C, counters of the owner's program   |
 *  |    +8   temp bytes   i64  T, its temporary buffer's length     |
 *  |    +16  cpu          i32  processor the owner ran on when it   |
 *  |                           last started a run (-1 unknown)     |
 *  +--------------------------------------------------------------+
 *  |  parity 0 block, S = 8C + T padded to a multiple of 64 bytes: | 64
 *  |    +8c  level of counter c   i64   (c = 0 ... C-1)            |
 *  |    +8C  temp                 T bytes                          |
 *  +--------------------------------------------------------------+
 *  |  parity 1 block, the same                                     | 64 + S
 *  +--------------------------------------------------------------+
 * </pre>
 *
 * The temporary buffer follows the counters on their line: a peer that puts a short vector into it
 * and adds to the counter takes one cache line from the owner, not two.
 *
 * Run {@code e} of the collective (its epoch, counted from 1 on every rank) uses parity
 * {@code e & 1}. A peer is at most one run ahead of the owner for the collectives offloaded this
 * way (each rank's run needs every rank's contribution to that run), so what a peer writes for run
 * {@code e + 1} lands in the other parity, where the owner will look only when it starts that run:
 * nothing has to be held back. The owner's program wraps the counters of run {@code e} back to 0
 * before it completes, so parity {@code e & 1} is clean again when run {@code e + 2} begins.
 *
 * <p>Ordering: a writer copies the data (plain stores), then adds to the counter (volatile
 * read-modify-write); the owner reads the level with an acquire load before it touches the data.
 * Several writers may add to one counter at once; adds commute and none is lost.
 */
public final class OffloadAreaDescriptor {
    public static final int MAGIC = 0x4F464C44; // "OFLD"
    public static final int MAGIC_OFFSET = 0;
    public static final int COUNTERS_OFFSET = 4;
    public static final int TEMP_BYTES_OFFSET = 8;
    public static final int CPU_OFFSET = 16;
    public static final int FIRST_BLOCK_OFFSET = 64;
    public static final int LINE = 64;

    private OffloadAreaDescriptor() {
    }

    /** File size of an area for {@code counters} counters and {@code tempBytes} of temporary buffer. */
    public static long fileLength(int counters, long tempBytes) {
        return FIRST_BLOCK_OFFSET + 2 * blockLength(counters, tempBytes);
    }

    /** Bytes of one parity's block: its counters and its temporary buffer, padded to whole lines. */
    public static long blockLength(int counters, long tempBytes) {
        return padded(8L * counters + tempBytes);
    }

    /** Offset of counter {@code counter}'s level in parity {@code parity}. */
    public static long counterOffset(int counters, long tempBytes, int parity, int counter) {
        return FIRST_BLOCK_OFFSET + parity * blockLength(counters, tempBytes) + 8L * counter;
    }

    /** Offset of parity {@code parity}'s temporary buffer. */
    public static long tempOffset(int counters, long tempBytes, int parity) {
        return FIRST_BLOCK_OFFSET + parity * blockLength(counters, tempBytes) + 8L * counters;
    }

    private static long padded(long bytes) {
        return (bytes + LINE - 1) & -LINE;
    }

    /** The file name of a rank's area for offloaded collective {@code tag} of context {@code context}. */
    public static String fileName(int context, int tag, int worldRank) {
        return "offload-" + context + "-" + tag + "-" + worldRank;
    }
}
