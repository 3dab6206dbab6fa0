package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.metrics.CountersReader;
import io.tutti.transport.RailCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The launcher's copies of the counters of its ranks on other hosts: each such rank sends its
 * counters file every second over the rendezvous, and the copy is kept under the same name in the
 * launcher's job directory, so {@code tutti status} and {@code tutti monitor} on the launcher's host
 * show the whole job (docs/guide/monitoring.md). The copy's header says it is one and whether its
 * rank still runs ({@link CountersDescriptor#COPY_OFFSET}), which the rank's pid cannot say here. A
 * rank whose own file is already in this directory (hosts that share /dev/shm) is left alone.
 * The copy's rail command and answer words belong to this host: a command an operator posts there
 * ({@code tutti rail}, the page) is forwarded to its rank ({@link #forward}), and the rank's answer
 * written back ({@link #answered}); refreshes leave both words alone.
 */
final class CounterCopies implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final Path dir;
    private final Arena arena = Arena.ofShared();
    private final Map<Integer, MemorySegment> copies = new HashMap<>();
    /** Per copy: where its command and answer words are, and the last command forwarded. */
    private final Map<Integer, long[]> control = new HashMap<>();
    private static final int COMMAND_AT = 0;
    private static final int ANSWER_AT = 1;
    private static final int FORWARDED = 2;
    /** How often posted commands are looked for: as often as {@code RailControl} looks for answers. */
    private static final long FORWARD_POLL_MILLIS = 5;
    /** Ranks whose own counters file is in this directory, or whose copies were refused. */
    private final Set<Integer> ignored = new HashSet<>();
    private boolean closed;
    /** Where posted commands go once there is a copy to look at; null until {@link #forward}. */
    private Forwarder forwarder;
    private boolean forwarding;

    CounterCopies(Path dir) {
        this.dir = dir;
    }

    /**
     * Rank {@code rank} sent {@code bytes} as its file {@code name}: kept when it is that rank's
     * counters file in this layout; anything else is dropped (a rank writes only its own copy).
     */
    synchronized void copied(int rank, String name, byte[] bytes) {
        if (closed || ignored.contains(rank) || !name.equals(CountersDescriptor.fileName(rank))) {
            return;
        }
        MemorySegment copy = copies.get(rank);
        if (copy == null) {
            if (!valid(rank, bytes) || Files.exists(dir.resolve(name))) {
                ignored.add(rank);
                return;
            }
            copy = ShmFiles.createAndMap(dir.resolve(name), bytes.length, arena);
            long[] words;
            try (CountersReader r = CountersReader.of(MemorySegment.ofArray(aligned(bytes)), null)) {
                words = new long[] {r.commandOffset(), r.answerOffset(), 0};
            }
            copies.put(rank, copy);
            control.put(rank, words);
            refresh(copy, bytes, words);
            LONG.setRelease(copy, (long) CountersDescriptor.MAGIC_OFFSET, CountersDescriptor.MAGIC);
            startForwarding();
        } else if (bytes.length == copy.byteSize()) {
            refresh(copy, bytes, control.get(rank));
        }
    }

    /** Where forwarded commands go: false when the rank cannot be reached. */
    @FunctionalInterface
    interface Forwarder {
        boolean send(int rank, long command);
    }

    /**
     * Forwards the rail commands operators post in the copies to their ranks through {@code to},
     * from a thread of its own that looks every few milliseconds from the first copy on, until
     * {@link #close}: a job whose ranks all share this host's files keeps no copies and no thread.
     */
    synchronized void forward(Forwarder to) {
        forwarder = to;
        if (!copies.isEmpty()) {
            startForwarding();
        }
    }

    /** Starts the forwarding thread once, when there is a forwarder and a copy. Under the lock. */
    private void startForwarding() {
        if (forwarding || forwarder == null) {
            return;
        }
        forwarding = true;
        Forwarder to = forwarder;
        Thread.ofPlatform().daemon().name("tutti-rail-forward").start(() -> {
            while (forwardOnce(to)) {
                try {
                    Thread.sleep(FORWARD_POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Whether the forwarding thread has been started (for tests). */
    synchronized boolean forwarding() {
        return forwarding;
    }

    /**
     * One look at every copy: a command posted and not yet answered or forwarded goes to its rank
     * (a rank that cannot be reached is answered {@link RailCounters#ENDED}). False once closed.
     * Acquire loads of both words; the answer is a release store.
     */
    synchronized boolean forwardOnce(Forwarder to) {
        if (closed) {
            return false;
        }
        for (Map.Entry<Integer, MemorySegment> e : copies.entrySet()) {
            MemorySegment copy = e.getValue();
            long[] words = control.get(e.getKey());
            long command = (long) LONG.getAcquire(copy, words[COMMAND_AT]);
            long answer = (long) LONG.getAcquire(copy, words[ANSWER_AT]);
            if (command == 0 || command == words[FORWARDED]
                    || RailCounters.sequence(command) == RailCounters.sequence(answer)) {
                continue;
            }
            words[FORWARDED] = command;
            boolean running = (int) INT.getAcquire(copy, (long) CountersDescriptor.COPY_OFFSET)
                    == CountersDescriptor.COPY_RUNNING;
            if (!running || !to.send(e.getKey(), command)) {
                LONG.setRelease(copy, words[ANSWER_AT], RailCounters.answer(command, RailCounters.ENDED));
            }
        }
        return true;
    }

    /** Rank {@code rank} answered a forwarded command: written to its copy if it is the latest one. Release. */
    synchronized void answered(int rank, long answer) {
        MemorySegment copy = copies.get(rank);
        if (closed || copy == null) {
            return;
        }
        long[] words = control.get(rank);
        if (RailCounters.sequence((long) LONG.getAcquire(copy, words[COMMAND_AT])) == RailCounters.sequence(answer)) {
            LONG.setRelease(copy, words[ANSWER_AT], answer);
        }
    }

    /** Rank {@code rank}'s process has ended: its copy says whether it failed. */
    synchronized void ended(int rank, boolean failed) {
        MemorySegment copy = copies.get(rank);
        if (!closed && copy != null && (int) INT.getAcquire(copy, (long) CountersDescriptor.COPY_OFFSET)
                == CountersDescriptor.COPY_RUNNING) {
            INT.setRelease(copy, (long) CountersDescriptor.COPY_OFFSET,
                    failed ? CountersDescriptor.COPY_FAILED : CountersDescriptor.COPY_DONE);
            // a command still waiting for this rank gets its answer now, not at the operator's timeout
            long[] words = control.get(rank);
            long command = (long) LONG.getAcquire(copy, words[COMMAND_AT]);
            if (command != 0 && RailCounters.sequence(command)
                    != RailCounters.sequence((long) LONG.getAcquire(copy, words[ANSWER_AT]))) {
                LONG.setRelease(copy, words[ANSWER_AT], RailCounters.answer(command, RailCounters.ENDED));
            }
        }
    }

    /** Whether a launcher keeps a copy of rank {@code rank} (for tests and the verbose line). */
    synchronized boolean keeps(int rank) {
        return copies.containsKey(rank);
    }

    @Override
    public synchronized void close() {
        closed = true;
        arena.close();
    }

    /** The bytes in a long array, as the reader's cells are 8-byte aligned. */
    private static long[] aligned(byte[] bytes) {
        long[] a = new long[(bytes.length + 7) / 8];
        MemorySegment.copy(bytes, 0, MemorySegment.ofArray(a), ValueLayout.JAVA_BYTE, 0, bytes.length);
        return a;
    }

    private static boolean valid(int rank, byte[] bytes) {
        try (CountersReader r = CountersReader.of(MemorySegment.ofArray(aligned(bytes)), null)) {
            return r != null && r.rank() == rank && r.copyState() == CountersDescriptor.COPY_NONE;
        } catch (RuntimeException e) {
            return false; // another layout version, or cut short: a copy nobody could read
        }
    }

    /**
     * Copies all but the magic, the two copy cells and the command and answer words, which keep what
     * this host wrote (zero at first), then stamps the time. Bulk copies move aligned 8-byte cells
     * whole, so readers see no torn counter.
     */
    private static void refresh(MemorySegment copy, byte[] bytes, long[] words) {
        int state = CountersDescriptor.COPY_OFFSET;
        int after = CountersDescriptor.COPIED_OFFSET + 8;
        long command = words[COMMAND_AT];
        long answer = words[ANSWER_AT];
        MemorySegment.copy(bytes, 8, copy, ValueLayout.JAVA_BYTE, 8, state - 8);
        MemorySegment.copy(bytes, after, copy, ValueLayout.JAVA_BYTE, after, (int) (command - after));
        MemorySegment.copy(bytes, (int) command + 8, copy, ValueLayout.JAVA_BYTE, command + 8,
                (int) (answer - command - 8));
        MemorySegment.copy(bytes, (int) answer + 8, copy, ValueLayout.JAVA_BYTE, answer + 8,
                (int) (bytes.length - answer - 8));
        if ((int) INT.getAcquire(copy, (long) state) == CountersDescriptor.COPY_NONE) {
            INT.setRelease(copy, (long) state, CountersDescriptor.COPY_RUNNING);
        }
        LONG.setRelease(copy, (long) CountersDescriptor.COPIED_OFFSET, System.currentTimeMillis());
    }
}
