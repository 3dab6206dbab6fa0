package io.tutti.monitor;

import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import io.tutti.monitor.JobSnapshot.Sample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The jobs the monitor watches: every {@link #TICK} it asks which job directories there are and reads
 * their ranks, and every {@link #SAMPLE} it keeps a sample of each job ({@link #HISTORY} of them), so
 * the page has its charts from the moment it opens. A rank once seen failed stays failed (the launcher removes the job's
 * files a few seconds later, record first); a job whose directory is gone is kept as ended, with its
 * last reading, for {@link #KEEP_ENDED}. Requests read the running jobs afresh, so counts are exact
 * at the moment asked. Every method is synchronized: the ticking thread and the server's share it.
 */
public final class Watch implements AutoCloseable {
    /**
     * How often the jobs are read: often enough to see a killed rank before its job's files go (its
     * peers notice within 1.5 s, the launcher then stops them and removes the files).
     */
    public static final Duration TICK = Duration.ofMillis(250);
    /** How often a job's totals are kept as a sample for the charts. */
    public static final Duration SAMPLE = Duration.ofSeconds(1);
    /** Samples kept per job: two minutes. */
    static final int HISTORY = 120;
    /** How long an ended job stays on the page. */
    static final Duration KEEP_ENDED = Duration.ofMinutes(10);

    private final Supplier<List<Path>> directories;
    private final LongPredicate alive;
    private final LongSupplier clock;
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private Thread ticker;

    /** One watched job: its directory, last reading, samples, and the ranks seen failed (rank to pid). */
    private static final class Job {
        final String id;
        final Path dir;
        final ArrayDeque<Sample> samples = new ArrayDeque<>();
        final Map<Integer, Long> failed = new HashMap<>();
        final Map<Integer, String> railNames = new TreeMap<>();
        List<Rank> ranks = List.of();
        long readAt;
        long endedAt;
        long[][] lastMatrix;
        long lastMatrixAt;
        double[][] heatRate;

        Job(String id, Path dir) {
            this.id = id;
            this.dir = dir;
        }
    }

    /** Watches the job directories {@code directories} lists, each time it is asked. */
    public Watch(Supplier<List<Path>> directories) {
        this(directories, JobCounters::alive, System::currentTimeMillis);
    }

    /** As above, with the liveness test and the clock given (tests). */
    Watch(Supplier<List<Path>> directories, LongPredicate alive, LongSupplier clock) {
        this.directories = directories;
        this.alive = alive;
        this.clock = clock;
    }

    /** Samples once now, then every {@link #TICK} on a daemon thread until {@link #close()}. */
    public synchronized Watch start() {
        tick();
        ticker = Thread.ofPlatform().daemon().name("tutti-monitor-watch").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(TICK);
                    tick();
                }
            } catch (InterruptedException e) {
                // closed
            }
        });
        return this;
    }

    /** Finds the jobs, reads and samples each running one, marks vanished ones ended, drops old ended ones. */
    public synchronized void tick() {
        long now = clock.getAsLong();
        List<Path> listed = directories.get();
        for (Path dir : listed) {
            jobs.computeIfAbsent(JobCounters.jobId(dir), id -> new Job(id, dir));
        }
        for (Iterator<Job> it = jobs.values().iterator(); it.hasNext(); ) {
            Job j = it.next();
            if (j.endedAt == 0 && (!listed.contains(j.dir) || !Files.isDirectory(j.dir))) {
                j.endedAt = now;
            }
            if (j.endedAt != 0) {
                if (now - j.endedAt > KEEP_ENDED.toMillis()) {
                    it.remove();
                }
                continue;
            }
            read(j, now);
            if (j.endedAt != 0 || (!j.samples.isEmpty() && now - j.samples.getLast().atMillis()
                    < SAMPLE.toMillis() - TICK.toMillis() / 2)) {
                continue;
            }
            j.samples.addLast(JobSnapshot.sample(now, j.ranks));
            while (j.samples.size() > HISTORY) {
                j.samples.removeFirst();
            }
            long[][] m = JobSnapshot.bytesMatrix(j.ranks);
            if (j.lastMatrix != null && j.lastMatrix.length == m.length && now > j.lastMatrixAt) {
                double[][] rate = new double[m.length][m.length];
                for (int r = 0; r < m.length; r++) {
                    for (int p = 0; p < m.length; p++) {
                        rate[r][p] = Math.max(0, m[r][p] - j.lastMatrix[r][p]) * 1000.0 / (now - j.lastMatrixAt);
                    }
                }
                j.heatRate = rate;
            }
            j.lastMatrix = m;
            j.lastMatrixAt = now;
        }
    }

    /** Reads a running job's ranks, keeping the failures seen before. */
    private void read(Job j, long now) {
        if (!Files.isDirectory(j.dir)) {
            j.endedAt = now;
            return;
        }
        List<Rank> ranks = new ArrayList<>();
        for (Rank r : JobCounters.ranks(j.dir, alive)) {
            Metrics m = r.metrics();
            Long failedPid = j.failed.get(m.rank());
            if (r.liveness() == Liveness.FAILED) {
                j.failed.put(m.rank(), m.pid());
            } else if (failedPid != null && failedPid == m.pid()) {
                r = new Rank(m, Liveness.FAILED);
            }
            for (Metrics.Rail rail : m.rails()) {
                j.railNames.putIfAbsent(rail.index(), rail.name());
            }
            ranks.add(r);
        }
        // a rank whose file went (the launcher removing the job's files) keeps its last reading
        for (Rank old : j.ranks) {
            if (ranks.stream().noneMatch(r -> r.metrics().rank() == old.metrics().rank())) {
                ranks.add(old);
            }
        }
        ranks.sort(java.util.Comparator.comparingInt(r -> r.metrics().rank()));
        j.ranks = ranks;
        j.readAt = now;
    }

    /** Every job watched, running ones read now, in the order they were found. */
    public synchronized List<JobSnapshot> jobs() {
        List<JobSnapshot> out = new ArrayList<>();
        for (Job j : jobs.values()) {
            out.add(snapshot(j));
        }
        return out;
    }

    /** The directory of running job {@code id}, or null when no such job runs here. */
    public synchronized Path directory(String id) {
        Job j = jobs.get(id);
        return j == null || j.endedAt != 0 ? null : j.dir;
    }

    /** The job {@code id}, read now if it runs; null when it is not watched. */
    public synchronized JobSnapshot job(String id) {
        Job j = jobs.get(id);
        return j == null ? null : snapshot(j);
    }

    private JobSnapshot snapshot(Job j) {
        if (j.endedAt == 0) {
            read(j, clock.getAsLong());
        }
        return new JobSnapshot(j.id, j.readAt, j.endedAt == 0, List.copyOf(j.ranks), List.copyOf(j.samples),
                Map.copyOf(j.railNames), j.heatRate);
    }

    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.interrupt();
        }
    }
}
