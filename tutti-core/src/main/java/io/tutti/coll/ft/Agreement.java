package io.tutti.coll.ft;

import java.util.Arrays;

/**
 * One rank's side of one fault-tolerant agreement, as a state machine without I/O: flooding
 * consensus over a perfect failure detector, in {@code max(1, n - 1)} rounds. Each round every
 * rank sends its whole state to every peer it does not know to have failed, and waits until it
 * holds this round's state from each of them or learns that the peer failed; it merges what it
 * gets (AND of the flags, maximum of the contexts, union of who contributed and who was known
 * failed, intersection of who had acknowledged which failures). After the last round the merged
 * state is the decision. Why it agrees, and the
 * assumptions, are in docs/guide/fault-tolerance.md.
 *
 * <p>The state travels as {@code long[]}: flag, context, then the bitmaps of the contributors, the
 * known failed and the acknowledged by all ({@link #words(int)} words each). Not thread-safe; allocation only at
 * creation and per buffered message.
 */
public final class Agreement {
    private final int n;
    private final int me;
    private final int rounds;
    private final int words;
    /** Flag, context, contributors, known failed, acknowledged by all: the state this rank sends and merges into. */
    private final long[] state;
    /** Peers this rank has learnt have failed; it neither waits for nor takes anything from them again. */
    private final long[] crashed;
    /** Peers whose state of the current round has been merged. */
    private final long[] heard;
    /** A peer's state of the next round, arrived before this rank moved on (a peer is at most one ahead). */
    private final long[][] early;
    private int round = 1;
    private boolean decided;

    /**
     * @param n           ranks in the communicator
     * @param me          this rank
     * @param flag        this rank's contribution to the AND
     * @param context     this rank's contribution to the maximum (a context it could take next)
     * @param knownFailed ranks this rank knows to have failed when it starts (not changed)
     * @param acked       ranks whose failure this rank has acknowledged (null: none)
     */
    public Agreement(int n, int me, long flag, long context, boolean[] knownFailed, boolean[] acked) {
        if (n < 1 || me < 0 || me >= n) {
            throw new IllegalArgumentException("rank " + me + " of " + n);
        }
        this.n = n;
        this.me = me;
        this.rounds = Math.max(1, n - 1);
        this.words = words(n);
        this.state = new long[messageLength(n)];
        this.crashed = new long[words];
        this.heard = new long[words];
        this.early = new long[n][];
        state[0] = flag;
        state[1] = context;
        set(state, 2, me);
        for (int r = 0; r < n; r++) {
            if (knownFailed[r] && r != me) {
                set(state, 2 + words, r);
                set(crashed, 0, r);
            }
            if (acked != null && acked[r]) {
                set(state, 2 + 2 * words, r);
            }
        }
        set(heard, 0, me);
        decided = n == 1;
    }

    /** Longs per bitmap of {@code n} ranks. */
    public static int words(int n) {
        return (n + 63) >>> 6;
    }

    /** Length of a state message for {@code n} ranks, in longs. */
    public static int messageLength(int n) {
        return 2 + 3 * words(n);
    }

    /** The current round, from 1. */
    public int round() {
        return round;
    }

    public boolean decided() {
        return decided;
    }

    /** A copy of the state to send to every peer in the current round. */
    public long[] message() {
        return state.clone();
    }

    /** Whether this round still waits for {@code peer}'s state: not heard, not known failed, not this rank. */
    public boolean waitingFor(int peer) {
        return !decided && !get(heard, 0, peer) && !get(crashed, 0, peer);
    }

    /** Whether {@code peer} is one this rank has learnt has failed. */
    public boolean knownCrashed(int peer) {
        return get(crashed, 0, peer);
    }

    /**
     * {@code peer}'s state of round {@code r}: merged now (this round), kept (the next one), or
     * ignored (a peer known failed, a message of a past round, or one already merged).
     */
    public void deliver(int peer, int r, long[] message) {
        if (decided || peer == me || get(crashed, 0, peer) || message.length != state.length) {
            return;
        }
        if (r == round && !get(heard, 0, peer)) {
            merge(message);
            set(heard, 0, peer);
        } else if (r == round + 1) {
            early[peer] = message.clone();
        }
    }

    /** The failure detector says {@code peer} has failed: nothing more is awaited from it, or taken. */
    public void crashed(int peer) {
        if (peer != me) {
            set(crashed, 0, peer);
            early[peer] = null;
        }
    }

    /**
     * Ends the round if every peer has been heard or has failed: then either decides (after the
     * last round) or starts the next, merging what had come early. Returns true when a new round
     * started, whose {@link #message()} the caller sends to every peer not known failed.
     */
    public boolean advance() {
        if (decided) {
            return false;
        }
        for (int w = 0; w < words; w++) {
            long all = w == words - 1 && (n & 63) != 0 ? (1L << (n & 63)) - 1 : -1L;
            if (((heard[w] | crashed[w]) & all) != all) {
                return false;
            }
        }
        if (round == rounds) {
            decided = true;
            return false;
        }
        round++;
        Arrays.fill(heard, 0);
        set(heard, 0, me);
        for (int p = 0; p < n; p++) {
            long[] m = early[p];
            if (m != null) {
                early[p] = null;
                merge(m);
                set(heard, 0, p);
            }
        }
        return true;
    }

    /** The decided AND of the flags that were counted (every survivor's, perhaps some failed ranks'). */
    public long flag() {
        checkDecided();
        return state[0];
    }

    /** The decided maximum of the contexts. */
    public long context() {
        checkDecided();
        return state[1];
    }

    /**
     * The decided failed set: ranks whose contribution no survivor received, and ranks some rank
     * knew to have failed when it started. Every rank in it has failed.
     */
    public boolean[] failed() {
        checkDecided();
        boolean[] f = new boolean[n];
        for (int r = 0; r < n; r++) {
            f[r] = !get(state, 2, r) || get(state, 2 + words, r);
        }
        return f;
    }

    /**
     * The decided failed ranks that not every contributor had acknowledged before the call: what
     * makes agree fail with PeerFailed, at every survivor alike (ULFM's rule).
     */
    public boolean[] unacknowledged() {
        boolean[] f = failed();
        for (int r = 0; r < n; r++) {
            f[r] &= !get(state, 2 + 2 * words, r);
        }
        return f;
    }

    private void checkDecided() {
        if (!decided) {
            throw new IllegalStateException("the agreement has not decided yet (round " + round + " of " + rounds + ")");
        }
    }

    private void merge(long[] m) {
        state[0] &= m[0];
        state[1] = Math.max(state[1], m[1]);
        for (int i = 2; i < 2 + 2 * words; i++) {
            state[i] |= m[i];
        }
        for (int i = 2 + 2 * words; i < state.length; i++) {
            state[i] &= m[i];
        }
    }

    private static void set(long[] bits, int at, int r) {
        bits[at + (r >>> 6)] |= 1L << (r & 63);
    }

    private static boolean get(long[] bits, int at, int r) {
        return (bits[at + (r >>> 6)] & 1L << (r & 63)) != 0;
    }
}
