package io.tutti.bootstrap;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Runs ranks of a job as threads of this JVM, each with its own launch environment: all of them for
 * tests and small jobs ({@code tutti run --threads} on one host), or one host's ranks in that host's
 * JVM ({@code tutti run --threads} across hosts). When a rank fails, the job is aborted so that the
 * others' blocked calls end with an error rather than wait forever; when one ends the job with an
 * exit status ({@link JobControl#exit}), the wait ends at once with that rank's {@link Exited}.
 */
public final class ThreadLauncher {
    /** The code one rank runs. */
    @FunctionalInterface
    public interface RankBody {
        void run(int rank) throws Throwable;
    }

    /**
     * How one rank ended: {@code failure} is null for success; {@code failedAtNanos} is when it
     * failed ({@link System#nanoTime()}), {@code afterTimeout} whether that was a consequence of
     * the launcher aborting the job at its deadline.
     */
    public record RankResult(int rank, Throwable failure, long failedAtNanos, boolean afterTimeout) {
    }

    /** The outcome of a job; {@code timedOut} when some rank was still running at the deadline. */
    public record Outcome(List<RankResult> results, boolean timedOut, List<Integer> stillRunning) {
        public boolean succeeded() {
            return !timedOut && results.stream().allMatch(r -> r.failure() == null);
        }

        /**
         * The failure that happened first, or null. Ranks whose peers failed then fail too
         * ({@code PeerFailed}); the earliest one is the cause.
         */
        public RankResult firstFailure() {
            return results.stream().filter(r -> r.failure() != null)
                    .min(java.util.Comparator.comparingLong(RankResult::failedAtNanos)).orElse(null);
        }

        /** The first failure that was not caused by the timeout, or null. */
        public RankResult firstOwnFailure() {
            RankResult f = firstFailure();
            return f == null || f.afterTimeout() ? null : f;
        }
    }

    /** How often a launcher waiting for its rank threads looks whether one ended the job ({@link JobControl#exit}). */
    private static final Duration EXIT_POLL = Duration.ofMillis(50);

    /**
     * The failure of a rank thread that ended the job with an exit status ({@code Tutti.abort}, so
     * {@link JobControl#exit}): the thread is parked, and the job's exit code is {@code status}.
     */
    public static final class Exited extends Exception {
        private final int status;

        Exited(int rank, int status) {
            super("rank " + rank + " ended the job with exit status " + status, null, false, false);
            this.status = status;
        }

        /** The exit status the rank gave. */
        public int status() {
            return status;
        }
    }

    private ThreadLauncher() {
    }

    /** The environment of every rank of a thread job of {@code size} ranks in {@code jobDir}. */
    public static Map<String, String> environment(String jobId, Path jobDir, int rank, int size) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put(LaunchEnvironment.JOB_ID, jobId);
        env.put(LaunchEnvironment.RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.LOCAL_SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.NODE_ID, "0");
        env.put(LaunchEnvironment.JOB_DIR, jobDir.toString());
        env.put(LaunchEnvironment.KVS_DIR, jobDir.resolve("kvs").toString());
        env.put(LaunchEnvironment.THREADS, "1");
        return env;
    }

    /**
     * Runs {@code size} ranks and waits for all of them, at most {@code timeout} (null: no limit).
     * The job directory is created under the shared-memory root and removed afterwards.
     */
    public static Outcome run(int size, Duration timeout, RankBody body) {
        String jobId = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Path jobDir = ShmFiles.defaultRoot().resolve("tutti-" + jobId);
        return run(jobId, jobDir, size, timeout, body, (rank, env) -> { });
    }

    /** As {@link #run(int, Duration, RankBody)}, with extra variables set per rank by {@code extraEnv}. */
    public static Outcome run(String jobId, Path jobDir, int size, Duration timeout, RankBody body,
                              java.util.function.BiConsumer<Integer, Map<String, String>> extraEnv) {
        JobControl.reset();
        ShmFiles.createJobDirectory(jobDir);
        int[] ranks = new int[size];
        java.util.Arrays.setAll(ranks, r -> r);
        try {
            return run(ranks, timeout, body, rank -> {
                Map<String, String> env = environment(jobId, jobDir, rank, size);
                extraEnv.accept(rank, env);
                return env;
            });
        } finally {
            ShmFiles.deleteTree(jobDir);
        }
    }

    /**
     * Runs {@code ranks} (some or all of a job's) as threads, each seeing {@code envOf.apply(rank)}
     * as its environment, and waits for them, at most {@code timeout} (null: no limit). Whoever
     * started them owns the job directory: a thread job's launcher, or the ranks themselves when they
     * are one host's ranks of a job whose launcher is elsewhere ({@code tutti run --threads} across hosts).
     */
    public static Outcome run(int[] ranks, Duration timeout, RankBody body,
                              java.util.function.IntFunction<Map<String, String>> envOf) {
        int count = ranks.length;
        Throwable[] failures = new Throwable[count];
        long[] failedAt = new long[count];
        long[] timeoutAbortAt = {Long.MAX_VALUE};
        Thread[] threads = new Thread[count];
        try {
            for (int i = 0; i < count; i++) {
                final int slot = i;
                final int rank = ranks[i];
                Map<String, String> frozen = Map.copyOf(envOf.apply(rank));
                threads[i] = Thread.ofPlatform().name("tutti-rank-" + rank).unstarted(() -> {
                    LaunchEnvironment.enterRankThread(frozen);
                    ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT, frozen).run(() -> {
                        try {
                            body.run(rank);
                        } catch (Throwable t) {
                            failedAt[slot] = System.nanoTime();
                            failures[slot] = t;
                            JobControl.abort("rank " + rank + " failed: " + t);
                        }
                    });
                });
            }
            for (Thread t : threads) {
                t.start();
            }
            long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
            for (Thread t : threads) {
                // in slices: a rank thread that ended the job (JobControl.exit) parks for good
                while (t.isAlive() && JobControl.exited() == null) {
                    long slice = EXIT_POLL.toNanos();
                    if (timeout != null) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            break;
                        }
                        slice = Math.min(slice, left);
                    }
                    t.join(Duration.ofNanos(slice));
                }
            }
            JobControl.Exit exit = JobControl.exited();
            List<Integer> running = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (threads[i].isAlive()) {
                    running.add(ranks[i]);
                }
            }
            if (exit != null) {
                // the job ends with the exit status, as when a rank JVM exits: no waiting for the rest
                running.clear();
            }
            if (!running.isEmpty()) {
                timeoutAbortAt[0] = System.nanoTime();
                JobControl.abort("the job timed out after " + timeout.toMillis() + " ms");
                for (int i = 0; i < count; i++) {
                    if (threads[i].isAlive()) {
                        threads[i].interrupt();
                    }
                }
                for (Thread t : threads) {
                    t.join(2000);
                }
            }
            exit = JobControl.exited();
            List<RankResult> results = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (exit != null && exit.rank() == ranks[i] && failures[i] == null) {
                    failures[i] = new Exited(exit.rank(), exit.status());
                    failedAt[i] = exit.atNanos();
                }
                results.add(new RankResult(ranks[i], failures[i], failedAt[i],
                        failures[i] != null && failedAt[i] - timeoutAbortAt[0] >= 0));
            }
            return new Outcome(results, !running.isEmpty(), running);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            JobControl.abort("the launcher was interrupted");
            throw new IllegalStateException("interrupted while waiting for the ranks", e);
        }
    }
}
