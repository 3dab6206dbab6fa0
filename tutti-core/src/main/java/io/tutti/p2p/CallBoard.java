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

    void onCall(int source, int context, int sequence, long w0, long w1, long w2) {
        if (calls == null) {
            calls = new long[size * 5];
        }
        int at = source * 5;
        calls[at] = (long) context << 1 | 1;
        calls[at + 1] = sequence;
        calls[at + 2] = w0;
        calls[at + 3] = w1;
        calls[at + 4] = w2;
    }
}
