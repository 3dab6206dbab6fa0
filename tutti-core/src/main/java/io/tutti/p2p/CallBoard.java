package io.tutti.p2p;

import io.tutti.wire.MessageType;

/**
 * Which collective call each peer last said it is waiting in (CALL announcements), so that a rank
 * stalled in one call can tell that a peer waits in a different one and fail with a clear error
 * instead of waiting for ever. Slow path: one announcement per stall. Owner thread only.
 */
final class CallBoard {
    private final Outbox outbox;
    private final int size;
    /** The latest CALL of each source: context, sequence, three signature words; null until one comes. */
    private long[] calls;
    /**
     * The latest CALL of each source that said the call failed there ({@link Engine#CALL_FAILED}),
     * the same way: kept apart, so that the source's next call does not hide it.
     */
    private long[] failures;

    CallBoard(Outbox outbox, int size) {
        this.outbox = outbox;
        this.size = size;
    }

    /** See {@link Engine#announceCall}. */
    void announce(int dest, int context, int sequence, long w0, long w1, long w2) {
        outbox.control(dest, MessageType.CALL, (short) 0, context, sequence, w0, w1, w2, 0);
    }

    /** See {@link Engine#announcedCall}. */
    boolean announced(int source, int context, long[] into) {
        if (calls == null || calls[source * 5] != ((long) context << 1 | 1)) {
            return false;
        }
        System.arraycopy(calls, source * 5 + 1, into, 0, 4);
        return true;
    }

    /** See {@link Engine#announcedFailure}. */
    boolean failed(int source, int context, long[] into) {
        if (failures == null || failures[source * 5] != ((long) context << 1 | 1)) {
            return false;
        }
        System.arraycopy(failures, source * 5 + 1, into, 0, 4);
        return true;
    }

    void onCall(int source, int context, int sequence, long w0, long w1, long w2) {
        if (calls == null) {
            calls = new long[size * 5];
        }
        store(calls, source, context, sequence, w0, w1, w2);
        if ((w0 & Engine.CALL_FAILED) != 0) {
            if (failures == null) {
                failures = new long[size * 5];
            }
            store(failures, source, context, sequence, w0, w1, w2);
        }
    }

    private static void store(long[] board, int source, int context, int sequence, long w0, long w1, long w2) {
        int at = source * 5;
        board[at] = (long) context << 1 | 1;
        board[at + 1] = sequence;
        board[at + 2] = w0;
        board[at + 3] = w1;
        board[at + 4] = w2;
    }
}
