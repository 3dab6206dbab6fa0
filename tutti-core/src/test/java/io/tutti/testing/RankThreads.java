package io.tutti.testing;

import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;

/** Runs a job of ranks as threads for a test, and fails it with the first rank's failure as the cause. */
public final class RankThreads {
    private RankThreads() {
    }

    /** {@code n} ranks running {@code body}, at most {@code timeout}; an AssertionError naming the rank that failed first. */
    public static void run(int n, Duration timeout, ThreadLauncher.RankBody body) {
        ThreadLauncher.Outcome o = ThreadLauncher.run(n, timeout, body);
        if (!o.succeeded()) {
            ThreadLauncher.RankResult f = o.firstFailure();
            AssertionError e = new AssertionError(f != null ? "rank " + f.rank() + " failed" : "timed out: "
                    + o.stillRunning());
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }
}
