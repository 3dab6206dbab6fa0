package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.os.Platform;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Removes the shared-memory directories of jobs that ended without cleaning up (a launcher killed
 * with SIGKILL, a machine that lost power with /dev/shm on a persistent file system, a crashed
 * test JVM). Shared memory is not reclaimed by the kernel when its users die, so without this a
 * host fills /dev/shm over time.
 *
 * <p>A directory is removed only when nothing says it is alive: every pid recorded in it
 * ({@value #LAUNCHER_PID}, {@value #RANK_PIDS}, the ranks' {@code rank-N.pid}, the pids in {@code kvs/rank-N},
 * the pid in a {@code tutti-single-PID} name) names a dead process, and, when there is no
 * {@value #LAUNCHER_PID} (jobs not started by {@code tutti run}, or one that is just being set up),
 * it has not been modified for {@link #UNOWNED_GRACE}. A reused pid keeps a directory alive: that
 * errs on the side of never deleting a live job's files.
 */
final class StaleJobs {
    /** The launcher's pid, written first thing after the directory is created. */
    static final String LAUNCHER_PID = "launcher.pid";
    /** The ranks' pids (process mode), space separated, written once they have started. */
    static final String RANK_PIDS = "ranks.pid";
    /** How old a directory without {@value #LAUNCHER_PID} must be before it may be removed. */
    static final Duration UNOWNED_GRACE = Duration.ofHours(1);

    private StaleJobs() {
    }

    /** Removes the stale job directories of the current user under {@code root}; returns those removed. */
    static List<Path> clean(Path root) {
        return clean(root, pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), Instant.now());
    }

    /** As {@link #clean(Path)} with the liveness test and the clock given, for tests. */
    static List<Path> clean(Path root, LongPredicate alive, Instant now) {
        List<Path> removed = new ArrayList<>();
        String user = Platform.USER;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "tutti-*")) {
            for (Path dir : dirs) {
                try {
                    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                            || !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(user)) {
                        continue;
                    }
                    if (isStale(dir, alive, now)) {
                        ShmFiles.deleteTree(dir);
                        removed.add(dir);
                    }
                } catch (IOException | RuntimeException e) {
                    // Vanished under us, or not ours to read: either way not ours to remove.
                }
            }
        } catch (IOException e) {
            // No root (or unreadable): there is nothing we could clean.
        }
        return removed;
    }

    static boolean isStale(Path dir, LongPredicate alive, Instant now) throws IOException {
        // Looked at before the pids are read: a launcher that writes its pid in between (a job
        // being set up beside this one) must not make its directory look owned by no one alive.
        boolean launched = Files.exists(dir.resolve(LAUNCHER_PID));
        for (long pid : recordedPids(dir)) {
            if (alive.test(pid)) {
                return false;
            }
        }
        if (launched) {
            return true;
        }
        FileTime modified = Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS);
        return modified.toInstant().plus(UNOWNED_GRACE).isBefore(now);
    }

    private static List<Long> recordedPids(Path dir) {
        List<Long> pids = new ArrayList<>();
        readPids(dir.resolve(LAUNCHER_PID), pids, false);
        readPids(dir.resolve(RANK_PIDS), pids, false);
        // Each rank records "pid boot-id" in rank-N.pid of its host's job directory.
        try (DirectoryStream<Path> ranks = Files.newDirectoryStream(dir, "rank-*.pid")) {
            for (Path p : ranks) {
                readPids(p, pids, true);
            }
        } catch (IOException e) {
            // none
        }
        // The engine publishes "pid host" per rank in the rendezvous store; only the first word is a pid.
        try (DirectoryStream<Path> kvs = Files.newDirectoryStream(dir.resolve("kvs"), "rank-*")) {
            for (Path p : kvs) {
                readPids(p, pids, true);
            }
        } catch (IOException e) {
            // no rendezvous store (yet)
        }
        String name = dir.getFileName().toString();
        if (name.startsWith("tutti-single-")) {
            addPid(name.substring("tutti-single-".length()), pids);
        }
        return pids;
    }

    private static void readPids(Path file, List<Long> into, boolean firstWordOnly) {
        try {
            String text = Files.readString(file).trim();
            if (text.isEmpty()) {
                return;
            }
            String[] words = text.split("\\s+");
            for (int i = 0; i < (firstWordOnly ? 1 : words.length); i++) {
                addPid(words[i], into);
            }
        } catch (IOException | RuntimeException e) {
            // absent or being written: it simply records nothing
        }
    }

    private static void addPid(String word, List<Long> into) {
        try {
            long pid = Long.parseLong(word);
            if (pid > 0) {
                into.add(pid);
            }
        } catch (NumberFormatException e) {
            // not a pid: ignore
        }
    }
}
