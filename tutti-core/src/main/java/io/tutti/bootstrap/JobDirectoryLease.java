package io.tutti.bootstrap;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * A rank's hold on its job's shared-memory directory when a foreign launcher (srun, mpiexec,
 * mpirun) started it, since no {@code tutti run} removes the directory then: each rank keeps a
 * file {@code ranks/<rank>} naming its pid and start time; the rank that lets go last (at close or
 * when its JVM ends) removes the directory. A directory whose every named process is gone (a
 * crashed job's) is removed by the next job that starts on the host. Changes happen under a lock
 * on {@code ranks/.lock}, so a rank and a sweeper never both decide.
 */
final class JobDirectoryLease {
    private static final String RANKS = "ranks";
    private static final String LOCK = ".lock";
    private final Path jobDir;
    private final Path mine;
    private final Thread atExit;
    private boolean released;

    private JobDirectoryLease(Path jobDir, Path mine) {
        this.jobDir = jobDir;
        this.mine = mine;
        this.atExit = new Thread(this::release, "tutti-job-directory");
    }

    /** Sweeps stale job directories beside {@code job}'s, then takes a hold on {@code job}'s. */
    static JobDirectoryLease take(JobInfo job) {
        sweep(job.jobDir().getParent(), job.jobDir());
        for (int attempt = 0; ; attempt++) {
            ShmFiles.createJobDirectory(job.jobDir());
            Path ranks = job.jobDir().resolve(RANKS);
            try {
                Files.createDirectories(ranks);
                Path mine = ranks.resolve(Integer.toString(job.rank()));
                try (FileChannel ch = lockChannel(ranks); FileLock ignored = ch.lock()) {
                    Files.writeString(mine, self());
                }
                JobDirectoryLease lease = new JobDirectoryLease(job.jobDir(), mine);
                Runtime.getRuntime().addShutdownHook(lease.atExit);
                return lease;
            } catch (NoSuchFileException e) {
                if (attempt > 3) {
                    throw new IllegalStateException("the job directory " + job.jobDir() + " keeps vanishing", e);
                }
                // a sweeper removed it just now, taking our directory for a stale one: make it again
            } catch (IOException e) {
                throw new IllegalStateException("cannot register in the job directory " + job.jobDir() + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /** Lets go of the directory; the last rank of the host removes it. Idempotent. */
    synchronized void release() {
        if (released) {
            return;
        }
        released = true;
        if (Thread.currentThread() != atExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException e) {
                // the JVM is ending: the hook runs and finds this released
            }
        }
        Path ranks = mine.getParent();
        try (FileChannel ch = lockChannel(ranks); FileLock ignored = ch.lock()) {
            Files.deleteIfExists(mine);
            if (allGone(ranks)) {
                ShmFiles.deleteTree(jobDir);
            }
        } catch (IOException e) {
            // gone already (a sweeper, or another rank): nothing to remove
        }
    }

    /** Removes the directories under {@code root} (other than {@code keep}) whose ranks all ended. */
    static void sweep(Path root, Path keep) {
        if (root == null || !Files.isDirectory(root)) {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "tutti-*")) {
            for (Path dir : dirs) {
                Path ranks = dir.resolve(RANKS);
                if (dir.equals(keep) || !Files.isDirectory(ranks)) {
                    continue;
                }
                try (FileChannel ch = lockChannel(ranks); FileLock lock = ch.tryLock()) {
                    if (lock != null && hasRanks(ranks) && allGone(ranks)) {
                        ShmFiles.deleteTree(dir);
                    }
                } catch (IOException | RuntimeException e) {
                    // not ours to read, or removed meanwhile
                }
            }
        } catch (IOException e) {
            // an unreadable root: nothing to sweep
        }
    }

    private static FileChannel lockChannel(Path ranks) throws IOException {
        return FileChannel.open(ranks.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    private static boolean hasRanks(Path ranks) throws IOException {
        try (var files = Files.list(ranks)) {
            return files.anyMatch(f -> !f.getFileName().toString().equals(LOCK));
        }
    }

    /** Whether no file in {@code ranks} names a live process. */
    private static boolean allGone(Path ranks) throws IOException {
        List<Path> files;
        try (var list = Files.list(ranks)) {
            files = list.filter(f -> !f.getFileName().toString().equals(LOCK)).toList();
        }
        for (Path f : files) {
            try {
                if (alive(Files.readString(f).strip())) {
                    return false;
                }
            } catch (NoSuchFileException e) {
                // released meanwhile
            }
        }
        return true;
    }

    private static String self() {
        ProcessHandle me = ProcessHandle.current();
        return me.pid() + " " + me.info().startInstant().map(i -> i.toEpochMilli()).orElse(-1L);
    }

    /** Whether "pid startMillis" names a process that still runs (the same one, not a reuse of its pid). */
    static boolean alive(String entry) {
        String[] parts = entry.split(" ");
        try {
            long pid = Long.parseLong(parts[0]);
            long started = parts.length > 1 ? Long.parseLong(parts[1]) : -1;
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .map(p -> started < 0 || p.info().startInstant().map(i -> i.toEpochMilli()).orElse(started)
                            == started)
                    .orElse(false);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
