package io.tutti.bootstrap;

/**
 * Job-wide abort signal inside one JVM. The thread-mode launcher raises it when a rank fails, so the
 * other ranks' blocked calls end with an error instead of waiting for a peer that is gone; a rank
 * thread that ends the job with an exit status ({@link #exit}) raises it too, and tells the launcher.
 */
public final class JobControl {
    private static volatile String abortReason;
    /** The first rank thread that ended the job with {@link #exit}, or null; guarded by the class. */
    private static Exit exit;

    /** Rank {@code rank} ended the job with exit status {@code status}, at {@code atNanos} ({@link System#nanoTime()}). */
    public record Exit(int rank, int status, long atNanos) {
    }

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
        exit = null;
    }

    /**
     * Ends the job of the calling rank thread with exit status {@code status}, as a rank JVM's
     * {@code System.exit} would end its rank: records it for the launcher (the first exit wins) and
     * aborts the job, then parks the thread for good, for the launcher to end the JVM. Never returns.
     */
    public static void exit(int rank, int status) {
        synchronized (JobControl.class) {
            if (exit == null) {
                exit = new Exit(rank, status, System.nanoTime());
            }
        }
        abort("rank " + rank + " ended the job with exit status " + status);
        while (true) {
            // as after System.exit: nothing of the rank's runs on, an interrupt included
            java.util.concurrent.locks.LockSupport.park(JobControl.class);
        }
    }

    /** The first rank thread's {@link #exit}, or null. Synchronized read. */
    public static synchronized Exit exited() {
        return exit;
    }

    /** The reason the job was aborted, or null. Volatile read. */
    public static String abortReason() {
        return abortReason;
    }
}
