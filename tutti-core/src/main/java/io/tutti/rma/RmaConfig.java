package io.tutti.rma;

import io.tutti.Config;
import io.tutti.TuttiException;

/**
 * Settings of one-sided communication, read once from the job's {@link Config}: the property names
 * ({@code tutti.rma.batch}, or {@code TUTTI_RMA_BATCH} in the environment, and {@code tutti.rma.replies})
 * and their defaults here. docs/guide/configuration.md lists them.
 *
 * @param batchBytes the most payload bytes of one batch of small puts, accumulates, gets and
 *                   fetching operations to a rank reached over the network ({@link RmaBatch}),
 *                   and of the data its reply carries; bounded further by what one
 *                   record to that rank carries (the transport's frame); 0 sends each as a record
 *                   of its own
 * @param replies    how many gets (and fetching operations) to one rank reached over the network may
 *                   wait for their replies at once ({@link ReplyTable}); one more waits for the
 *                   oldest's reply first. A power of two
 */
public record RmaConfig(int batchBytes, int replies) {
    public static final String BATCH = "tutti.rma.batch";
    /**
     * 8 KiB: 341 puts of 8 B in one datagram over loopback's 64 KB frames, and a whole frame over
     * Ethernet's 1.5 KB ones (the frame bounds it there); the batch waits at most until the next
     * flush, so a larger one buys little more.
     */
    public static final int BATCH_DEFAULT = 8192;
    /** The largest batch: as large as a frame of the rails ever is. */
    public static final int BATCH_MAX = 1 << 16;
    public static final String REPLIES = "tutti.rma.replies";
    /**
     * 64: OSU's get bandwidth issues 64 gets per flush, all of which then travel at once; a table of
     * a target's replies costs about 80 bytes a slot, allocated at the first get to it.
     */
    public static final int REPLIES_DEFAULT = 64;
    public static final int REPLIES_MAX = 1 << 12;

    public RmaConfig {
        if (batchBytes < 0 || batchBytes > BATCH_MAX) {
            throw new TuttiException.InvalidArgument(Config.envName(BATCH) + " (" + BATCH + ") must be in 0.."
                    + BATCH_MAX + " bytes (0: no batching), got " + batchBytes);
        }
        if (replies < 1 || replies > REPLIES_MAX || Integer.bitCount(replies) != 1) {
            throw new TuttiException.InvalidArgument(Config.envName(REPLIES) + " (" + REPLIES + ") must be a power"
                    + " of two in 1.." + REPLIES_MAX + " (gets waiting for their replies per target), got " + replies);
        }
    }

    /** The one-sided settings of a job. */
    public static RmaConfig from(Config c) {
        return new RmaConfig(c.integer(BATCH, BATCH_DEFAULT), c.integer(REPLIES, REPLIES_DEFAULT));
    }
}
