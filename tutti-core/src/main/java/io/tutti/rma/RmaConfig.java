package io.tutti.rma;

import io.tutti.Config;
import io.tutti.TuttiException;

/**
 * Settings of one-sided communication, read once from the job's {@link Config}: the property name
 * ({@code tutti.rma.batch}, or {@code TUTTI_RMA_BATCH} in the environment) and its default here.
 * docs/guide/configuration.md lists it.
 *
 * @param batchBytes the most payload bytes of one batch of small puts and accumulates to a rank
 *                   reached over the network ({@link RmaBatch}); bounded further by what one
 *                   record to that rank carries (the transport's frame); 0 sends each as a record
 *                   of its own
 */
public record RmaConfig(int batchBytes) {
    public static final String BATCH = "tutti.rma.batch";
    /**
     * 8 KiB: 341 puts of 8 B in one datagram over loopback's 64 KB frames, and a whole frame over
     * Ethernet's 1.5 KB ones (the frame bounds it there); the batch waits at most until the next
     * flush, so a larger one buys little more.
     */
    public static final int BATCH_DEFAULT = 8192;
    /** The largest batch: as large as a frame of the rails ever is. */
    public static final int BATCH_MAX = 1 << 16;

    public RmaConfig {
        if (batchBytes < 0 || batchBytes > BATCH_MAX) {
            throw new TuttiException.InvalidArgument(Config.envName(BATCH) + " (" + BATCH + ") must be in 0.."
                    + BATCH_MAX + " bytes (0: no batching), got " + batchBytes);
        }
    }

    /** The one-sided settings of a job. */
    public static RmaConfig from(Config c) {
        return new RmaConfig(c.integer(BATCH, BATCH_DEFAULT));
    }
}
