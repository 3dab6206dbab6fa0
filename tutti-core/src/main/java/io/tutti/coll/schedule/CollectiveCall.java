package io.tutti.coll.schedule;

import java.util.Arrays;

/**
 * What one rank asks of a collective, in bytes: everything a schedule depends on. Two calls with
 * equal fields get the same schedule, so a communicator builds it once and reuses it; {@link
 * #matches} compares without allocating, so that a loop of identical blocking calls costs no
 * garbage.
 *
 * <p>Block arrays are per rank of the communicator: {@code blocks}/{@code displs} are the
 * receive side (gather, allgather, alltoall, reduceScatter) or the send side (scatter);
 * {@code sendBlocks}/{@code sendDispls} are alltoall's send side. Null where unused.
 * {@code irregular}: a call whose layout not every rank knows (gatherv and scatterv: the root;
 * alltoallv: each rank its own blocks), so that the algorithm may not depend on it. Compare calls
 * with {@link #matches}, not {@code equals} (which compares the block arrays by identity).
 */
public record CollectiveCall(Kind kind, long bytes, int extent, int root, boolean inPlace, boolean commutative,
                             long[] blocks, long[] displs, long[] sendBlocks, long[] sendDispls, boolean irregular) {
    /** The operations. */
    public enum Kind {
        BARRIER, BCAST, REDUCE, ALLREDUCE, REDUCE_SCATTER, SCAN, EXSCAN, GATHER, SCATTER, ALLGATHER, ALLTOALL;

        /** The operation's name in algorithm settings ({@code TUTTI_COLL_<NAME>}). */
        public String settingName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace("_", "");
        }

        /** The name of the communicator's method ({@code reduceScatter}): schedules are named after it. */
        public String methodName() {
            return this == REDUCE_SCATTER ? "reduceScatter" : name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A barrier. */
    public static CollectiveCall barrier() {
        return new CollectiveCall(Kind.BARRIER, 0, 1, 0, false, true, null, null, null, null, false);
    }

    /** A broadcast of {@code bytes} from {@code root}. */
    public static CollectiveCall bcast(long bytes, int root) {
        return new CollectiveCall(Kind.BCAST, bytes, 1, root, false, true, null, null, null, null, false);
    }

    /** A reduce of {@code bytes} (elements of {@code extent} bytes) to {@code root}. */
    public static CollectiveCall reduce(long bytes, int extent, int root, boolean inPlace, boolean commutative) {
        return new CollectiveCall(Kind.REDUCE, bytes, extent, root, inPlace, commutative, null, null, null, null,
                false);
    }

    /** An allreduce of {@code bytes} (elements of {@code extent} bytes). */
    public static CollectiveCall allreduce(long bytes, int extent, boolean inPlace, boolean commutative) {
        return new CollectiveCall(Kind.ALLREDUCE, bytes, extent, 0, inPlace, commutative, null, null, null, null,
                false);
    }

    /** An inclusive scan, or with {@code exclusive} an exscan, of {@code bytes}. */
    public static CollectiveCall scan(long bytes, int extent, boolean inPlace, boolean commutative, boolean exclusive) {
        return new CollectiveCall(exclusive ? Kind.EXSCAN : Kind.SCAN, bytes, extent, 0, inPlace, commutative, null,
                null, null, null, false);
    }

    /** A reduce-scatter that leaves block r ({@code blocks[r]} bytes) at rank r. */
    public static CollectiveCall reduceScatter(long[] blocks, int extent, boolean inPlace, boolean commutative) {
        return new CollectiveCall(Kind.REDUCE_SCATTER, 0, extent, 0, inPlace, commutative, blocks, null, null, null,
                false);
    }

    /** A gather of rank r's {@code blocks[r]} bytes to {@code displs[r]} of the root's receive buffer. */
    public static CollectiveCall gather(long[] blocks, long[] displs, int root, boolean inPlace) {
        return new CollectiveCall(Kind.GATHER, 0, 1, root, inPlace, true, blocks, displs, null, null, false);
    }

    /** A scatter of the root's {@code blocks[r]} bytes at {@code displs[r]} to rank r. */
    public static CollectiveCall scatter(long[] blocks, long[] displs, int root, boolean inPlace) {
        return new CollectiveCall(Kind.SCATTER, 0, 1, root, inPlace, true, blocks, displs, null, null, false);
    }

    /** An allgather of rank r's {@code blocks[r]} bytes to {@code displs[r]} of every receive buffer. */
    public static CollectiveCall allgather(long[] blocks, long[] displs, boolean inPlace) {
        return new CollectiveCall(Kind.ALLGATHER, 0, 1, 0, inPlace, true, blocks, displs, null, null, false);
    }

    /** An alltoall: the block for rank v leaves from {@code sendDispls[v]}, v's lands at {@code recvDispls[v]}. */
    public static CollectiveCall alltoall(long[] sendBlocks, long[] sendDispls, long[] recvBlocks, long[] recvDispls,
                                          boolean inPlace) {
        return new CollectiveCall(Kind.ALLTOALL, 0, 1, 0, inPlace, true, recvBlocks, recvDispls, sendBlocks, sendDispls,
                false);
    }

    /**
     * What every rank of a correct program agrees on for this call, as three words: operation and
     * root, total bytes (-1 where ranks legitimately differ: gatherv, scatterv, alltoallv), and the
     * algorithm's name hash. Ranks compare these when a call stalls.
     */
    public long[] signature(String algorithm) {
        long total = bytes;
        if (blocks != null) {
            for (long b : blocks) {
                total += b;
            }
        }
        return new long[] {(long) kind.ordinal() << 32 | (root & 0xFFFFFFFFL), irregular ? -1 : total,
            algorithm.hashCode()};
    }

    /** Says in words what {@link #signature} encodes, for an error message. */
    public static String describe(long[] signature) {
        int k = (int) (signature[0] >>> 32);
        String name = k >= 0 && k < Kind.values().length ? Kind.values()[k].settingName() : "call " + k;
        String what = name + " with root " + (int) signature[0];
        return signature[1] < 0 ? what : what + " over " + signature[1] + " bytes";
    }

    /** Whether a call with these arguments would get the same schedule. */
    public boolean matches(Kind k, long b, int e, int r, boolean ip, boolean c, long[] bl, long[] di, long[] sb,
                           long[] sd, boolean irr) {
        return k == kind && irr == irregular && b == bytes && e == extent && r == root && ip == inPlace && c == commutative
                && Arrays.equals(bl, blocks) && Arrays.equals(di, displs) && Arrays.equals(sb, sendBlocks)
                && Arrays.equals(sd, sendDispls);
    }
}
