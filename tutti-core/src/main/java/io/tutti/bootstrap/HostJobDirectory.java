package io.tutti.bootstrap;

import io.tutti.os.Platform;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * A job's shared-memory directory on the rank's own host, made or joined by each rank there: each
 * rank records itself in {@code rank-N.pid} ("pid boot-id"), and the last one to leave removes the
 * directory, unless the launcher runs on this host and owns it ({@code launcher.pid} of a live
 * process). Joining first sweeps the directories of crashed jobs: those whose recorded ranks are all
 * dead on this boot and whose launcher, if it was here, is dead too. A lock file keeps a joining and
 * the last leaving rank from crossing.
 */
public final class HostJobDirectory {
    static final String LAUNCHER_PID = "launcher.pid";
    private static final String LOCK = ".lock";
    /**
     * The file lock is the JVM's, not a thread's: ranks that are threads of one JVM (one host's ranks
     * under {@code tutti run --threads}) take turns here first, or a second lock would fail at once.
     */
    private static final Object IN_THIS_JVM = new Object();
    /** The ranks of this JVM that joined and have not left: one, or a host's rank threads. */
    private static final java.util.Set<HostJobDirectory> JOINED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final Path pidFile;

    private HostJobDirectory(Path dir, Path pidFile) {
        this.dir = dir;
        this.pidFile = pidFile;
    }

    /** This boot's id (/proc/sys/kernel/random/boot_id), or "" where there is none. */
    public static String bootId() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Sweeps stale directories beside {@code dir}, then makes or joins it and records {@code rank}. */
    public static HostJobDirectory join(Path dir, int rank) {
        synchronized (IN_THIS_JVM) {
            HostJobDirectory joined = joinLocked(dir, rank);
            JOINED.add(joined);
            return joined;
        }
    }

    /**
     * Every rank of this JVM leaves, before the JVM halts without its shutdown hooks (its launcher
     * died): with a host's ranks as threads of it, one rank's leaving alone would find the others'
     * records alive and keep the directory. Under the JVM's lock: a leave of another thread still
     * removing the directory ends before this returns and the JVM halts, which cut it short before
     * (ClusterThreadsIT, the launcher killed).
     */
    public static void leaveAll() {
        synchronized (IN_THIS_JVM) {
            for (HostJobDirectory d : List.copyOf(JOINED)) {
                d.leave();
            }
        }
    }

    private static HostJobDirectory joinLocked(Path dir, int rank) {
        String boot = bootId();
        sweep(dir.getParent(), dir, boot, HostJobDirectory::alive);
        Path pid = dir.resolve("rank-" + rank + ".pid");
        for (int attempt = 0; ; attempt++) {
            ShmFiles.createJobDirectory(dir);
            try (FileChannel lock = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock held = lock.lock()) {
                if (!Files.exists(dir.resolve(LOCK))) {
                    continue; // the last rank of the job before removed it while we waited
                }
                Path tmp = dir.resolve(".rank-" + rank + ".pid.tmp");
                Files.writeString(tmp, ProcessHandle.current().pid() + " " + boot + "\n");
                Files.move(tmp, pid, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return new HostJobDirectory(dir, pid);
            } catch (NoSuchFileException e) {
                if (attempt > 3) {
                    throw new IllegalStateException("the job directory " + dir + " keeps vanishing: " + e.getMessage());
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot join the job directory " + dir + ": " + e.getMessage(), e);
            }
        }
    }

    /** Removes this rank's record, and the directory when no live rank and no live launcher is left in it. */
    public void leave() {
        synchronized (IN_THIS_JVM) {
            JOINED.remove(this);
            leaveLocked();
        }
    }

    private void leaveLocked() {
        try (FileChannel lock = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.WRITE);
             FileLock held = lock.lock()) {
            Files.deleteIfExists(pidFile);
            // the records of ranks killed before they could leave do not keep the directory
            if (!anyAlive(rankPids(dir), bootId(), HostJobDirectory::alive)
                    && !launcherAlive(dir, HostJobDirectory::alive)) {
                ShmFiles.deleteTree(dir);
            }
        } catch (IOException | RuntimeException e) {
            // gone already, or the launcher removes it
        }
    }

    /**
     * Removes the directories of dead jobs of this user under {@code root} (except {@code keep}):
     * with at least one rank record, every recorded rank dead (another boot's, or a dead pid), and
     * no live launcher. Returns those removed.
     */
    static List<Path> sweep(Path root, Path keep, String boot, LongPredicate alive) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "tutti-*")) {
            for (Path d : dirs) {
                try {
                    if (d.equals(keep) || !Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                            || !Files.getOwner(d, LinkOption.NOFOLLOW_LINKS).getName().equals(Platform.USER)) {
                        continue;
                    }
                    List<String[]> ranks = rankPids(d);
                    if (ranks.isEmpty() || launcherAlive(d, alive)) {
                        continue;
                    }
                    if (!anyAlive(ranks, boot, alive)) {
                        ShmFiles.deleteTree(d);
                        removed.add(d);
                    }
                } catch (IOException | RuntimeException e) {
                    // vanished, or not ours to read
                }
            }
        } catch (IOException e) {
            // no root: nothing to sweep
        }
        return removed;
    }

    /** Whether a recorded rank ("pid boot-id") is a live process of this boot. */
    private static boolean anyAlive(List<String[]> ranks, String boot, LongPredicate alive) {
        for (String[] r : ranks) {
            boolean sameBoot = r.length < 2 || r[1].equals(boot);
            if (sameBoot && alive.test(Long.parseLong(r[0]))) {
                return true;
            }
        }
        return false;
    }

    private static List<String[]> rankPids(Path dir) throws IOException {
        List<String[]> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "rank-*.pid")) {
            for (Path f : files) {
                try {
                    String[] w = Files.readString(f).strip().split("\\s+");
                    Long.parseLong(w[0]);
                    out.add(w);
                } catch (IOException | NumberFormatException e) {
                    // vanished or being written: counts as a live rank
                    out.add(new String[] {Long.toString(ProcessHandle.current().pid())});
                }
            }
        }
        return out;
    }

    private static boolean launcherAlive(Path dir, LongPredicate alive) {
        try {
            return alive.test(Long.parseLong(Files.readString(dir.resolve(LAUNCHER_PID)).strip()));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | NumberFormatException e) {
            return true; // being written
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
