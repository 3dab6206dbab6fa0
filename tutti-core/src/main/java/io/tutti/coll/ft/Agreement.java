package io.tutti.coll.ft;

import java.util.Arrays;

/**
 * One rank's side of one fault-tolerant agreement, as a state machine without I/O: early-deciding
 * flooding consensus over a perfect failure detector. Each round every rank sends its state to every
 * peer it does not know to have failed and waits until it holds this round's state from each of them
 * or learns that the peer failed; it merges what it gets (AND of the flags, maximum of the contexts,
 * union of who contributed and who was known failed, intersection of who had acknowledged which
 * failures). A message also carries the set its sender heard from in the round before; a round is
 * clean when every rank heard from reported only ranks also heard from now. After a clean round, or
 * round {@code max(1, n - 1)}, the rank decides; so does a rank that gets a DECIDE, which it adopts.
 * Every decided rank sends DECIDE once to every peer not known failed: its last message of the
 * agreement. Why it agrees, and the assumptions, are in docs/guide/fault-tolerance.md.
 *
 * <p>A message is {@code long[]}: kind and step ({@link #step(long[])}), flag, context, the bitmaps
 * of the contributors, the known failed, the acknowledged by all, and the heard-before set
 * ({@link #words(int)} words each). Not thread-safe; allocation only at creation and per message.
 */
public final class Agreement {
    /** Word 0 of a DECIDE; word 0 of a round's state is its round alone. */
    private static final long DECIDE = 1L << 32;
    /** Where the state starts in a message, and the heard-before bitmap. */
    private static final int STATE = 1;

    private final int n;
    private final int me;
    private final int rounds;
    private final int words;
    /** Flag, context, contributors, known failed, acknowledged by all: the state this rank sends and merges into. */
    private final long[] state;
    /** Peers this rank has learnt have failed; it neither waits for nor takes anything from them again. */
    private final long[] crashed;
    /** Peers whose state of the current round has been merged, and this rank: S_r. */
    private final long[] heard;
    /** What this rank heard from in the round before: S_{r-1} (S_0: every member it does not know failed). */
    private final long[] before;
    /** The union of the heard-before sets of this round's merged messages, this rank's own included. */
    private final long[] reported;
    /** A peer's state of the next round, arrived before this rank moved on (a peer is at most one ahead). */
    private final long[][] early;
    private int round = 1;
    private boolean decided;
    private boolean adopted;
    /** A message (the round's state or the decision) the caller has not taken yet. */
    private boolean pending;

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
        this.state = new long[2 + 3 * words];
        this.crashed = new long[words];
        this.heard = new long[words];
        this.before = new long[words];
        this.reported = new long[words];
        this.early = new long[n][];
        state[0] = flag;
        state[1] = context;
        set(state, 2, me);
        for (int r = 0; r < n; r++) {
            if (knownFailed[r] && r != me) {
                set(state, 2 + words, r);
                set(crashed, 0, r);
            } else {
                set(before, 0, r);
            }
            if (acked != null && acked[r]) {
                set(state, 2 + 2 * words, r);
            }
        }
        startRound();
        decided = n == 1;
        pending = !decided;
    }

    /** Longs per bitmap of {@code n} ranks. */
    public static int words(int n) {
        return (n + 63) >>> 6;
    }

    /** Length of a message for {@code n} ranks, in longs. */
    public static int messageLength(int n) {
        return 3 + 4 * words(n);
    }

    /**
     * A message's place in its sender's sequence to one peer: the round of a round's state, the
     * last round plus one of a DECIDE (its last message). Consecutive from 1, at most {@code max(2, n)}.
     */
    public static int step(long[] message) {
        return (int) message[0];
    }

    /** Whether {@code message} is a DECIDE: its sender's last message of the agreement. */
    public static boolean isDecision(long[] message) {
        return (message[0] & DECIDE) != 0;
    }

    /** The current round, from 1; once decided, the round in which this rank decided. */
    public int round() {
        return round;
    }

    public boolean decided() {
        return decided;
    }

    /** Whether this rank decided by adopting a DECIDE rather than by a clean or last round of its own. */
    public boolean adopted() {
        return adopted;
    }

    /**
     * Ends what can be ended and returns the next message for every peer not known failed (the
     * state of the round just started, or the DECIDE once decided), or null while there is none.
     * Call until null after every delivery and failure notice.
     */
    public long[] next() {
        if (!pending && !decided && endRound()) {
            pending = true;
        }
        if (!pending) {
            return null;
        }
        pending = false;
        long[] m = new long[messageLength(n)];
        m[0] = decided ? DECIDE | (round + 1) : round;
        System.arraycopy(state, 0, m, STATE, state.length);
        if (!decided) {
            System.arraycopy(before, 0, m, STATE + state.length, words);
        }
        return m;
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
     * A message from {@code peer}: a DECIDE is adopted at once; a state is merged now (this round),
     * kept (the next one), or ignored (a peer known failed, a message of a past round, or one
     * already merged). Everything is ignored once decided.
     */
    public void deliver(int peer, long[] message) {
        if (decided || peer == me || get(crashed, 0, peer) || message.length != messageLength(n)) {
            return;
        }
        int r = step(message);
        if (isDecision(message)) {
            System.arraycopy(message, STATE, state, 0, state.length);
            decided = true;
            adopted = true;
            // forwarded: a decider that fails after reaching only some must not leave the others waiting
            pending = true;
        } else if (r == round && !get(heard, 0, peer)) {
            take(peer, message);
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

    /** Ends the round if every peer has been heard or has failed: decides, or starts the next round. */
    private boolean endRound() {
        for (int w = 0; w < words; w++) {
            long all = w == words - 1 && (n & 63) != 0 ? (1L << (n & 63)) - 1 : -1L;
            if (((heard[w] | crashed[w]) & all) != all) {
                return false;
            }
        }
        boolean clean = true;
        for (int w = 0; w < words; w++) {
            clean &= (reported[w] & ~heard[w]) == 0;
        }
        if (clean || round == rounds) {
            decided = true;
            return true;
        }
        round++;
        System.arraycopy(heard, 0, before, 0, words);
        startRound();
        for (int p = 0; p < n; p++) {
            long[] m = early[p];
            if (m != null) {
                early[p] = null;
                take(p, m);
            }
        }
        return true;
    }

    private void startRound() {
        Arrays.fill(heard, 0);
        set(heard, 0, me);
        System.arraycopy(before, 0, reported, 0, words);
    }

    private void take(int peer, long[] m) {
        state[0] &= m[STATE];
        state[1] = Math.max(state[1], m[STATE + 1]);
        for (int i = 2; i < 2 + 2 * words; i++) {
            state[i] |= m[STATE + i];
        }
        for (int i = 2 + 2 * words; i < state.length; i++) {
            state[i] &= m[STATE + i];
        }
        for (int w = 0; w < words; w++) {
            reported[w] |= m[STATE + state.length + w];
        }
        set(heard, 0, peer);
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

    private static void set(long[] bits, int at, int r) {
        bits[at + (r >>> 6)] |= 1L << (r & 63);
    }

    private static boolean get(long[] bits, int at, int r) {
        return (bits[at + (r >>> 6)] & 1L << (r & 63)) != 0;
    }
}
