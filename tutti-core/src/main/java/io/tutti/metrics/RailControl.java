package io.tutti.metrics;

import static io.tutti.metrics.CountersDescriptor.*;

import io.tutti.transport.RailCounters;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Takes a network rail of a running rank out of service and brings it back, through the command
 * line of its counters file ({@link CountersDescriptor}): what {@code tutti rail} and the status
 * page call. {@link #apply} does it for the ranks of a job whose files are on this host, and for
 * those its launcher here keeps copies of (the launcher forwards a command posted in a copy to its
 * rank on the other host and writes the answer back); an instance is one rank's
 * file, mapped read-write after checking that it and its directory belong to this user and nobody
 * else may write them. A command is posted by compare-and-set once the previous one is answered
 * (two operators at once take turns), and the rank's transport answers it from the poll that copies
 * its counters, within milliseconds while the rank runs.
 *
 * <p>Memory ordering: the command word is read with acquire and replaced by a volatile
 * compare-and-set (release: the transport that loads it with acquire sees a whole word); the
 * answer word is read with acquire, after the transport's release store.
 */
public final class RailControl implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long POLL_MILLIS = 5;

    /** What became of a command at one rank: {@link #done} false says why in {@link #message}. */
    public record Outcome(int rank, int rail, String railName, boolean done, String message) {
    }

    private final Arena arena;
    private final MemorySegment s;
    private final CountersReader reader;
    private final long command;
    private final long answer;

    private RailControl(Arena arena, MemorySegment s, CountersReader reader) {
        this.arena = arena;
        this.s = s;
        this.reader = reader;
        this.command = reader.commandOffset();
        this.answer = reader.answerOffset();
    }

    /**
     * Commands through a counters segment the caller has mapped and checked (tests; a caller that
     * keeps its own mapping), which it unmaps itself; null while the segment is not formatted.
     */
    public static RailControl of(MemorySegment s) {
        CountersReader r = CountersReader.of(s, null);
        return r == null ? null : new RailControl(null, s, r);
    }

    /**
     * Maps rank's counters file {@code file} for commands. Throws {@link IllegalArgumentException}
     * saying what to do when it is not this user's, may be written by others, is not formatted yet
     * or counts nothing ({@code tutti.counters=false}).
     */
    public static RailControl open(Path file) {
        checkOwnerOnly(file);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment s = ch.size() < HEADER_LENGTH + LABELS_LENGTH ? null
                    : ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            CountersReader r = s == null ? null : CountersReader.of(s, null);
            if (r == null) {
                throw new IllegalArgumentException(file + " is not formatted yet (its rank is starting): try again");
            }
            return new RailControl(arena, s, r);
        } catch (IOException e) {
            arena.close();
            throw new IllegalArgumentException("cannot open " + file + " for rail commands: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Refuses a file or directory of another user, or one others may write: commands come from its owner only. */
    static void checkOwnerOnly(Path file) {
        // the process's user as the system knows it (unknown: opening the owner-only file decides)
        String me = ProcessHandle.current().info().user().orElse(null);
        for (Path p : new Path[] {file.getParent(), file}) {
            try {
                String owner = Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
                if (me != null && !owner.equals(me)) {
                    throw new IllegalArgumentException(p + " belongs to " + owner + ", not " + me
                            + ": only the user who runs a job controls its rails");
                }
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                    throw new IllegalArgumentException(p + " may be written by others (" + perms
                            + "): not a Tutti job's file, which is its owner's only");
                }
            } catch (UnsupportedOperationException e) {
                // no POSIX attributes (not Linux): the file system's own checks apply
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot check " + p + ": " + e.getMessage(), e);
            }
        }
    }

    /** The rank whose file this is. */
    public int rank() {
        return reader.rank();
    }

    /** The rank's rails, by index: their names as {@code tutti status} shows them (empty: no network rails). */
    public List<String> rails() {
        return reader.railNames();
    }

    /** Whether the rank counts (and so reads commands): false with {@code tutti.counters=false}. */
    public boolean enabled() {
        return reader.read().enabled();
    }

    /**
     * The index of rail {@code spec}, a number or a name as {@link #rails()} lists it; -1 when the
     * rank has no such rail.
     */
    public int railIndex(String spec) {
        List<String> names = rails();
        if (spec.matches("\\d{1,3}")) {
            int i = Integer.parseInt(spec);
            return i < names.size() ? i : -1;
        }
        return names.indexOf(spec);
    }

    /**
     * Posts {@code op} ({@link RailCounters#RAIL_DOWN} or {@link RailCounters#RAIL_UP}) on
     * {@code rail} and waits up to {@code timeout} for the rank's answer.
     */
    public Outcome command(int op, int rail, Duration timeout) throws InterruptedException {
        String name = rail >= 0 && rail < rails().size() ? rails().get(rail) : "?";
        long answered = postAndWait(op, rail, timeout);
        if (answered == UNPOSTED) {
            return new Outcome(rank(), rail, name, false, "its previous rail command is still unanswered after "
                    + timeout.toMillis() + " ms (is the process stopped?); try again");
        }
        if (answered == UNANSWERED) {
            return new Outcome(rank(), rail, name, false, "no answer within " + timeout.toMillis()
                    + " ms (is the process stopped?); the command stays posted and is taken when it polls again");
        }
        return outcome(rail, name, op, RailCounters.operation(answered));
    }

    /**
     * Posts {@code op} on {@code rail} and waits up to {@code timeout} for the answer: its result
     * ({@link RailCounters#DONE}, ...), or 0 when it could not be posted or was not answered in time.
     * What a rank runs for a command its launcher forwards from another host.
     */
    public int carryOut(int op, int rail, Duration timeout) {
        try {
            long answered = postAndWait(op, rail, timeout);
            return answered == UNPOSTED || answered == UNANSWERED ? 0 : RailCounters.operation(answered);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static final long UNPOSTED = -1;
    private static final long UNANSWERED = -2;

    /** The answer word, or {@link #UNPOSTED} / {@link #UNANSWERED} when the deadline passed first. */
    private long postAndWait(int op, int rail, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long posted;
        while ((posted = tryPost(op, rail)) == 0) {
            if (System.nanoTime() > deadline) {
                return UNPOSTED;
            }
            Thread.sleep(POLL_MILLIS);
        }
        while (true) {
            long answered = (long) LONG.getAcquire(s, answer);
            if (RailCounters.sequence(answered) == RailCounters.sequence(posted)) {
                return answered;
            }
            if (System.nanoTime() > deadline) {
                return UNANSWERED;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /**
     * Posts {@code op} on {@code rail} if the previous command has been answered: the command
     * word posted, or 0 when the previous one is still unanswered. Acquire loads of both words,
     * then a volatile compare-and-set of the command word, tried again while other operators win.
     */
    public long tryPost(int op, int rail) {
        while (true) {
            long current = (long) LONG.getAcquire(s, command);
            long answered = (long) LONG.getAcquire(s, answer);
            if (current != 0 && RailCounters.sequence(answered) != RailCounters.sequence(current)) {
                return 0;
            }
            long next = RailCounters.command(RailCounters.sequence(current) % Integer.MAX_VALUE + 1, op, rail);
            if (LONG.compareAndSet(s, command, current, next)) {
                return next;
            }
        }
    }

    /** The latest command word posted (0: none). Acquire. */
    public long commandWord() {
        return (long) LONG.getAcquire(s, command);
    }

    private Outcome outcome(int rail, String name, int op, int result) {
        String what = op == RailCounters.RAIL_DOWN ? "out of service" : "in service";
        return switch (result) {
            case RailCounters.DONE -> new Outcome(rank(), rail, name, true, "rail " + rail + " (" + name + ") " + what);
            case RailCounters.LAST_RAIL -> new Outcome(rank(), rail, name, false, "refused: rail " + rail + " (" + name
                    + ") is its last rail in service; bring another one up first");
            case RailCounters.NO_SUCH_RAIL -> new Outcome(rank(), rail, name, false, "it has no rail " + rail);
            case RailCounters.ENDED -> new Outcome(rank(), rail, name, false, "not changed: the rank ended first");
            default -> new Outcome(rank(), rail, name, false, "unknown answer " + result);
        };
    }

    /**
     * Takes rail {@code rail} (index or name) out of service ({@code down}) or brings it back, at
     * every rank of the job whose directory is {@code jobDir} on this host, or at {@code onlyRank}
     * alone (-1: all); waits up to {@code timeout} for each. Throws {@link IllegalArgumentException}
     * saying what is wrong when there is no such job, rank or rail here.
     */
    public static List<Outcome> apply(Path jobDir, String rail, boolean down, int onlyRank, Duration timeout)
            throws InterruptedException {
        String job = jobDir.getFileName().toString().replaceFirst("^tutti-", "");
        if (!Files.isDirectory(jobDir)) {
            throw new IllegalArgumentException("no job " + job + " on this host (no directory " + jobDir
                    + "); 'tutti status' lists the jobs here");
        }
        List<RailControl> ranks = new ArrayList<>();
        List<Integer> ended = new ArrayList<>();
        try {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(jobDir, "counters-*")) {
                for (Path f : files) {
                    RailControl c = open(f);
                    int copy = c.reader.copyState();
                    if (onlyRank >= 0 && c.rank() != onlyRank) {
                        c.close();
                    } else if (copy == COPY_DONE || copy == COPY_FAILED) {
                        // a launcher's copy of a rank on another host that has ended
                        ended.add(c.rank());
                        c.close();
                    } else {
                        // a rank's own file, or a launcher's copy: the launcher forwards the command
                        ranks.add(c);
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot list " + jobDir + ": " + e.getMessage(), e);
            }
            ranks.sort(Comparator.comparingInt(RailControl::rank));
            ended.sort(null);
            if (ranks.isEmpty() && !ended.isEmpty()) {
                throw new IllegalArgumentException("rank(s) " + ended + " of job " + job + " ran on other hosts and"
                        + " have ended: there is no rail to change");
            }
            if (ranks.isEmpty()) {
                throw new IllegalArgumentException(onlyRank >= 0 ? "job " + job + " has no rank " + onlyRank
                        + " with counters on this host; 'tutti status " + job + "' lists its ranks here"
                        : "job " + job + " has no rank with counters on this host (not started yet, ended, or run"
                        + " with tutti.counters=false, which rail commands need)");
            }
            List<int[]> targets = new ArrayList<>();
            for (RailControl c : ranks) {
                if (!c.enabled()) {
                    throw new IllegalArgumentException("rank " + c.rank() + " runs with tutti.counters=false: rail"
                            + " commands travel through the counters file, which it does not keep");
                }
                if (c.rails().isEmpty()) {
                    if (onlyRank >= 0) {
                        throw new IllegalArgumentException("rank " + c.rank() + " has no network rails (its peers"
                                + " are all reached through shared memory)");
                    }
                    continue;
                }
                int index = c.railIndex(rail);
                if (index < 0) {
                    throw new IllegalArgumentException("rank " + c.rank() + " has no rail " + rail + "; its rails: "
                            + describe(c.rails()));
                }
                targets.add(new int[] {ranks.indexOf(c), index});
            }
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("no rank of job " + job + " on this host has network rails");
            }
            List<Outcome> out = new ArrayList<>();
            for (int[] t : targets) {
                out.add(ranks.get(t[0]).command(down ? RailCounters.RAIL_DOWN : RailCounters.RAIL_UP, t[1], timeout));
            }
            for (int r : ended) {
                out.add(new Outcome(r, -1, "", false, "not changed: it ran on another host and has ended"));
            }
            return out;
        } finally {
            ranks.forEach(RailControl::close);
        }
    }

    /** "0 (10.100.0.1), 1 (10.101.0.1)". */
    static String describe(List<String> rails) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < rails.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(i).append(" (").append(rails.get(i)).append(')');
        }
        return b.toString();
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
