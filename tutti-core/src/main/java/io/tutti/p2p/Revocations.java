package io.tutti.p2p;

import io.tutti.wire.MessageType;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Which communicators are revoked, and which failed peers each has acknowledged (ULFM's revoke and
 * failure acknowledgement). A revoke is flooded: the rank that revokes, and every rank the first
 * time it hears of it, sends REVOKE to every other member it does not know to have failed, so it
 * reaches every live member even when the revoking rank dies half way. Used only by whoever holds
 * the engine (the owner, or the progress agent in a pass); {@link #revoked} is read on every call,
 * allocation-free.
 */
final class Revocations {
    private final Outbox outbox;
    private final int rank;
    /**
     * Contexts below this are kept as bits (128 KiB at most); larger ones, which only a job that has
     * made half a million communicators reaches, in a sorted list: a REVOKE naming any context then
     * costs little memory, whoever sent it.
     */
    static final int DENSE_CONTEXTS = 1 << 20;
    /** Revoked contexts below {@link #DENSE_CONTEXTS}, a communicator's and its collectives' (context + 1): bit c of word c / 64. */
    private long[] revoked = new long[0];
    /** Revoked contexts from {@link #DENSE_CONTEXTS} on, ascending. */
    private int[] sparse = new int[0];
    /** Communicator context to its group (world ranks), for the flood; registered at creation. */
    private final Map<Integer, int[]> groups = new HashMap<>();
    /** Communicator context to the world ranks it has acknowledged as failed. */
    private final Map<Integer, BitSet> acknowledged = new HashMap<>();

    Revocations(Outbox outbox, int rank) {
        this.outbox = outbox;
        this.rank = rank;
    }

    /** Whether operations on {@code context} must fail. */
    boolean revoked(int context) {
        if (context >= DENSE_CONTEXTS) {
            return sparse.length != 0 && java.util.Arrays.binarySearch(sparse, context) >= 0;
        }
        long[] bits = revoked;
        int word = context >>> 6;
        return context >= 0 && word < bits.length && (bits[word] & 1L << (context & 63)) != 0;
    }

    /** Whether {@code context} can name a communicator: contexts are handed out from 2 upwards, two at a time. */
    static boolean valid(int context) {
        return context >= 0 && context < Integer.MAX_VALUE;
    }

    /** Records the group of the communicator on {@code context}; floods a revoke that came before it. */
    void register(int context, int[] group, Liveness liveness) {
        groups.put(context, group);
        if (revoked(context)) {
            flood(context, group, liveness);
        }
    }

    /** Revokes {@code context} here (a local call or a REVOKE record); floods it the first time. */
    void revoke(int context, Liveness liveness) {
        if (!valid(context) || revoked(context)) {
            return;
        }
        mark(context);
        mark(context + 1);
        int[] group = groups.get(context);
        if (group != null) {
            flood(context, group, liveness);
        }
    }

    private void mark(int context) {
        if (context >= DENSE_CONTEXTS) {
            int at = java.util.Arrays.binarySearch(sparse, context);
            if (at < 0) {
                int[] s = new int[sparse.length + 1];
                int i = -at - 1;
                System.arraycopy(sparse, 0, s, 0, i);
                s[i] = context;
                System.arraycopy(sparse, i, s, i + 1, sparse.length - i);
                sparse = s;
            }
            return;
        }
        if (context >>> 6 >= revoked.length) {
            revoked = java.util.Arrays.copyOf(revoked, (context >>> 6) + 1);
        }
        revoked[context >>> 6] |= 1L << (context & 63);
    }

    private void flood(int context, int[] group, Liveness liveness) {
        for (int worldRank : group) {
            // a failed peer's ring may be full for good: a record there would stay queued until close
            if (worldRank != rank && liveness.failure(worldRank) == null) {
                outbox.control(worldRank, MessageType.REVOKE, (short) 0, context, 0, 0, 0, 0, 0);
            }
        }
    }

    /** Acknowledges the failure of {@code worldRank} on {@code context}: its wildcard receives stop failing for it. */
    void acknowledge(int context, int worldRank) {
        acknowledged.computeIfAbsent(context, c -> new BitSet()).set(worldRank);
    }

    /** Slow path (a liveness check): whether {@code context} has acknowledged the failure of {@code worldRank}. */
    boolean acknowledged(int context, int worldRank) {
        BitSet acked = acknowledged.isEmpty() ? null : acknowledged.get(context);
        return acked != null && acked.get(worldRank);
    }

    /** What the flood asks of the failure detector. */
    @FunctionalInterface
    interface Liveness {
        /** Why {@code worldRank} is known to have failed, or null while it is not. */
        String failure(int worldRank);
    }
}
