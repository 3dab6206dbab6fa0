package io.tutti.testing;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;

/** Runs a job of ranks as threads for a test, and fails it with the first rank's failure as the cause. */
public final class RankThreads {
    private RankThreads() {
    }

    /** {@code n} ranks running {@code body}, at most {@code timeout}; an AssertionError naming the rank that failed first. */
    public static void run(int n, Duration timeout, ThreadLauncher.RankBody body) {
        run(n, timeout, (rank, env) -> { }, body);
    }

    /** As {@link #run(int, Duration, ThreadLauncher.RankBody)}, each rank with the settings {@code env} adds to its environment. */
    public static void run(int n, Duration timeout, BiConsumer<Integer, Map<String, String>> env,
                           ThreadLauncher.RankBody body) {
        String jobId = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        ThreadLauncher.Outcome o = ThreadLauncher.run(jobId, ShmFiles.defaultRoot().resolve("tutti-" + jobId), n,
                timeout, body, env);
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
