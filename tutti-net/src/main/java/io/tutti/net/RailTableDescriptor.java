package io.tutti.net;

/**
 * Layout of a node's rail table: the load of every rail, shared by all ranks of one host, so that
 * each chooses FREE rails by what the whole node has in flight, as MNC's {@code NICStatus} table
 * does. One file per host in the job directory ({@code rails-<host>}), little-endian, native order.
 *
 * <pre>
 *  0                               64                              128
 *  +-------------------------------+-------------------------------+
 *  | magic i32 | rails i32 | rows  | members i32                   |  header line
 *  |  "TRT1"   |           |  i32  | (rows registered so far)      |
 *  +-------------------------------+-------------------------------+
 *  | member[0] i32 | member[1] i32 | ... member[rows - 1] i32      |  MEMBERS_OFFSET
 *  |   (rank + 1 of each registered row; 0 while not yet written)  |  padded to 128
 *  +---------------------------------------------------------------+
 *  | row of rank 0: outstanding[rail] i64 x MAX_RAILS (128 bytes)  |  rowsOffset(rows)
 *  +---------------------------------------------------------------+
 *  | row of rank 1 ...                                             |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * A row belongs to one rank, its only writer: the bytes that rank has sent on each rail and not yet
 * seen acknowledged. A rail's load on the node is the sum of the registered rows; the rail is BUSY
 * when that exceeds {@link NetConfig#busyBytes()}. Each row is one 128-byte line of its own, so a
 * rank's updates do not disturb the lines the others write.
 */
public final class RailTableDescriptor {
    private RailTableDescriptor() {
    }

    /** "TRT1". */
    public static final int MAGIC = 0x31545254;
    public static final int MAGIC_OFFSET = 0;
    public static final int RAILS_OFFSET = 4;
    public static final int ROWS_OFFSET = 8;
    public static final int MEMBERS_COUNT_OFFSET = 64;
    public static final int MEMBERS_OFFSET = 128;
    public static final int LINE = 128;
    /** Rails per row: one 128-byte line of 64-bit counters. */
    public static final int MAX_RAILS = LINE / Long.BYTES;

    /** Where the rows start in a table of {@code rows} rows. */
    public static long rowsOffset(int rows) {
        return MEMBERS_OFFSET + align((long) rows * Integer.BYTES);
    }

    /** Where rank {@code row}'s counter of {@code rail} is. */
    public static long counterOffset(int rows, int row, int rail) {
        return rowsOffset(rows) + (long) row * LINE + (long) rail * Long.BYTES;
    }

    /** Bytes of a table of {@code rows} rows. */
    public static long length(int rows) {
        return rowsOffset(rows) + (long) rows * LINE;
    }

    private static long align(long n) {
        return (n + LINE - 1) / LINE * LINE;
    }
}
