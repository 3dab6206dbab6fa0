package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.metrics.CountersReader;
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
 */
final class CounterCopies implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final Path dir;
    private final Arena arena = Arena.ofShared();
    private final Map<Integer, MemorySegment> copies = new HashMap<>();
    /** Ranks whose own counters file is in this directory, or whose copies were refused. */
    private final Set<Integer> ignored = new HashSet<>();
    private boolean closed;

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
            copies.put(rank, copy);
            refresh(copy, bytes);
            LONG.setRelease(copy, (long) CountersDescriptor.MAGIC_OFFSET, CountersDescriptor.MAGIC);
        } else if (bytes.length == copy.byteSize()) {
            refresh(copy, bytes);
        }
    }

    /** Rank {@code rank}'s process has ended: its copy says whether it failed. */
    synchronized void ended(int rank, boolean failed) {
        MemorySegment copy = copies.get(rank);
        if (!closed && copy != null && (int) INT.getAcquire(copy, (long) CountersDescriptor.COPY_OFFSET)
                == CountersDescriptor.COPY_RUNNING) {
            INT.setRelease(copy, (long) CountersDescriptor.COPY_OFFSET,
                    failed ? CountersDescriptor.COPY_FAILED : CountersDescriptor.COPY_DONE);
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

    private static boolean valid(int rank, byte[] bytes) {
        // a long array, as the reader's cells are 8-byte aligned
        MemorySegment aligned = MemorySegment.ofArray(new long[(bytes.length + 7) / 8]);
        MemorySegment.copy(bytes, 0, aligned, ValueLayout.JAVA_BYTE, 0, bytes.length);
        try (CountersReader r = CountersReader.of(aligned, null)) {
            return r != null && r.rank() == rank && r.copyState() == CountersDescriptor.COPY_NONE;
        } catch (RuntimeException e) {
            return false; // another layout version, or cut short: a copy nobody could read
        }
    }

    /**
     * Copies all but the magic and the two copy cells, which keep what this launcher wrote, then
     * stamps the time. Bulk copies move aligned 8-byte cells whole, so readers see no torn counter.
     */
    private static void refresh(MemorySegment copy, byte[] bytes) {
        int state = CountersDescriptor.COPY_OFFSET;
        int after = CountersDescriptor.COPIED_OFFSET + 8;
        MemorySegment.copy(bytes, 8, copy, ValueLayout.JAVA_BYTE, 8, state - 8);
        MemorySegment.copy(bytes, after, copy, ValueLayout.JAVA_BYTE, after, bytes.length - after);
        if ((int) INT.getAcquire(copy, (long) state) == CountersDescriptor.COPY_NONE) {
            INT.setRelease(copy, (long) state, CountersDescriptor.COPY_RUNNING);
        }
        LONG.setRelease(copy, (long) CountersDescriptor.COPIED_OFFSET, System.currentTimeMillis());
    }
}
