package io.tutti.bootstrap;

/**
 * Job-wide abort signal inside one JVM. The thread-mode launcher raises it when a rank fails, so the
 * other ranks' blocked calls end with an error instead of waiting for a peer that is gone.
 */
public final class JobControl {
    private static volatile String abortReason;

    private JobControl() {
    }

    /** Marks the job as failed; the first reason wins. */
    public static synchronized void abort(String reason) {
        if (abortReason == null) {
            abortReason = reason;
        }
    }

    /** Clears the signal before a new job starts in this JVM. */
    public static synchronized void reset() {
        abortReason = null;
    }

    /** The reason the job was aborted, or null. Volatile read. */
    public static String abortReason() {
        return abortReason;
    }
}
