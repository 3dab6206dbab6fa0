package io.tutti.net;

/**
 * The counters of the datagrams accepted from one peer, as IPsec keeps them (RFC 4303, 3.4.3):
 * the highest, and a bitmap of the {@value #SPAN} below it. A counter seen before, or older than
 * the span, is a replay. The span covers the reordering between rails (a batch of frames on one
 * rail against another's); a datagram older than it is taken for a replay, and the stream's
 * retransmission (a new counter) repairs the loss. Allocates nothing after construction.
 *
 * <p>Under the transport's in-poll flag.
 */
final class ReplayWindow {
    /** Counters below the highest that are still told apart. */
    static final int SPAN = 4096;

    private final long[] seen = new long[SPAN / 64];
    /** The highest counter accepted; 0: none yet (counters start at 1). */
    private long top;

    /** Whether {@code counter} is new: then it is marked seen. Counters start at 1. */
    boolean accept(long counter) {
        if (counter <= 0) {
            return false;
        }
        if (counter > top) {
            long shift = counter - top;
            if (shift >= SPAN) {
                java.util.Arrays.fill(seen, 0);
            } else {
                for (long c = top + 1; c < counter; c++) {
                    clear(c);
                }
            }
            top = counter;
            set(counter);
            return true;
        }
        if (top - counter >= SPAN || isSet(counter)) {
            return false;
        }
        set(counter);
        return true;
    }

    private void set(long c) {
        int bit = (int) (c & (SPAN - 1));
        seen[bit >>> 6] |= 1L << bit;
    }

    private void clear(long c) {
        int bit = (int) (c & (SPAN - 1));
        seen[bit >>> 6] &= ~(1L << bit);
    }

    private boolean isSet(long c) {
        int bit = (int) (c & (SPAN - 1));
        return (seen[bit >>> 6] & 1L << bit) != 0;
    }
}
