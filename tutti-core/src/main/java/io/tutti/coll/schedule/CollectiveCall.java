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
