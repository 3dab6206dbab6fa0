package io.tutti.rma;

/**
 * Layout of one rank's window area: a shared-memory file per rank and window, mapped by every rank
 * of the window. It holds what the epochs need (the lock words, the fence count, one line per origin
 * for post, complete and shared locks) and, for windows Tutti allocates, the window memory itself.
 *
 * <pre>
 *  +----------------------------------------------------------------------+
 *  | header (written before the file is published, read-only after):       |   0
 *  |   magic i32 | ranks i32 | dispUnit i32 | kind i32 | bytes i64 |        |
 *  |   pid i64 | address i64 (caller memory; 0 when the data follows)       |
 *  | accumulate lock i64: holder's rank + 1, 0 free (CAS by any origin)      |  64
 *  | exclusive lock  i64: holder's rank + 1, 0 free (CAS by any origin)      | 128
 *  | fence count     i64: fences this rank has entered (owner, release)      | 192
 *  | origin 0's line: shared i64 | post i64 | complete i64                  | 256
 *  | ...   one 64-byte line per rank r, written by rank r only:             |
 *  |   shared:   1 while r holds or asks for a shared lock on this rank      |
 *  |   post:     exposure epochs this rank may start on r (r posted to it)   |
 *  |   complete: access epochs r completed on this rank                     |
 *  | window data (bytes; absent when the memory is the caller's)            | 256 + 64 ranks
 *  |   or, for a dynamic window, its region table:                        |
 *  |     generation i64: odd while the owner changes the table            |   +0
 *  |     count i64 | REGIONS entries of (address i64 | bytes i64)          |   +8, +16
 *  +----------------------------------------------------------------------+
 * </pre>
 *
 * Why so: every word has one writer or is taken by CAS, and words of different writers sit on
 * different cache lines, so an origin's flag never bounces another's. Per-origin lines make a
 * shared lock a store and a load (no counter that dead holders leave raised: a waiter sees who
 * holds it and asks the engine whether that rank still lives). A dynamic window's memory is the
 * owner's own, attached and detached at any time: origins find the region an access falls in
 * through the table ({@link RegionTable}, a sequence lock with the owner as the one writer) and
 * reach it as they reach a created window's memory.
 */
public final class WindowAreaDescriptor {
    public static final int MAGIC = 0x57494e31; // "WIN1"
    public static final int MAGIC_OFFSET = 0;
    public static final int RANKS_OFFSET = 4;
    public static final int DISP_UNIT_OFFSET = 8;
    public static final int KIND_OFFSET = 12;
    public static final int BYTES_OFFSET = 16;
    public static final int PID_OFFSET = 24;
    public static final int ADDRESS_OFFSET = 32;
    public static final int ACCUMULATE_LOCK_OFFSET = 64;
    public static final int EXCLUSIVE_LOCK_OFFSET = 128;
    public static final int FENCE_OFFSET = 192;
    public static final int LINES_OFFSET = 256;
    public static final int LINE_LENGTH = 64;
    public static final int SHARED_IN_LINE = 0;
    public static final int POST_IN_LINE = 8;
    public static final int COMPLETE_IN_LINE = 16;
    /** Regions a dynamic window's rank may have attached at once. */
    public static final int REGIONS = 256;
    public static final int REGION_GENERATION_OFFSET = 0;
    public static final int REGION_COUNT_OFFSET = 8;
    public static final int REGION_ENTRIES_OFFSET = 16;
    public static final int REGION_LENGTH = 16;
    /** Bytes of the region table, the data of a dynamic window's area. */
    public static final long REGION_TABLE_BYTES = REGION_ENTRIES_OFFSET + (long) REGION_LENGTH * REGIONS;

    private WindowAreaDescriptor() {
    }

    /** Offset of the window data: after the line of every rank. */
    public static long dataOffset(int ranks) {
        return LINES_OFFSET + (long) LINE_LENGTH * ranks;
    }

    /** Bytes of the file of a window of {@code ranks} ranks holding {@code dataBytes} of data. */
    public static long fileLength(int ranks, long dataBytes) {
        return dataOffset(ranks) + dataBytes;
    }

    /** The file of rank {@code worldRank}'s area of window {@code sequence} on communicator {@code context}. */
    public static String fileName(int context, int sequence, int worldRank) {
        return "win-" + context + "-" + sequence + "-" + worldRank;
    }

    /** Offset of rank {@code r}'s line. */
    static long line(int r) {
        return LINES_OFFSET + (long) LINE_LENGTH * r;
    }
}
