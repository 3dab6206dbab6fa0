package io.tutti.net;

import static io.tutti.net.RailTableDescriptor.*;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The rail table of this rank's host ({@link RailTableDescriptor}): this rank writes its own row,
 * and reads the node's load of a rail as the sum of the rows of the ranks registered on the host.
 * A table without a job directory (a transport made by hand) is private to the rank.
 *
 * <p>Driven by the thread that drives the transport; other processes read and write the same file.
 */
final class RailTable implements AutoCloseable {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena;
    private final MemorySegment table;
    private final int rows;
    private final int rails;
    private final int row;
    /** The rank's own counters, so that its writes need no read of shared memory. */
    private final long[] mine;
    private final int[] members;
    private int memberCount;

    private RailTable(Arena arena, MemorySegment table, int rows, int rails, int row) {
        this.arena = arena;
        this.table = table;
        this.rows = rows;
        this.rails = rails;
        this.row = row;
        this.mine = new long[rails];
        this.members = new int[rows];
    }

    /**
     * Maps (creating it if this rank is the first of its host) the table of {@code host} in
     * {@code jobDir}, registers {@code rank}'s row, and returns it; a private table when
     * {@code jobDir} is null.
     */
    static RailTable open(Path jobDir, String host, int rank, int size, int rails) {
        if (rails > MAX_RAILS) {
            throw new IllegalArgumentException("at most " + MAX_RAILS + " rails, not " + rails);
        }
        Arena arena = Arena.ofShared();
        MemorySegment seg;
        if (jobDir == null) {
            seg = arena.allocate(length(size), LINE);
            init(seg, size, rails);
        } else {
            seg = map(jobDir, host, size, rails, arena);
        }
        if ((int) INT.getAcquire(seg, (long) MAGIC_OFFSET) != MAGIC || seg.get(ValueLayout.JAVA_INT, RAILS_OFFSET) != rails
                || seg.get(ValueLayout.JAVA_INT, ROWS_OFFSET) != size || seg.byteSize() != length(size)) {
            arena.close();
            throw new IllegalStateException("the rail table of host " + host + " in " + jobDir + " is not one of this"
                    + " job's (" + rails + " rails, " + size + " ranks): every rank must be given the same rails");
        }
        RailTable t = new RailTable(arena, seg, size, rails, rank);
        // release: the row is zero (a new file, or a rank of this job cannot run twice) before it is listed
        int i = (int) INT.getAndAdd(seg, (long) MEMBERS_COUNT_OFFSET, 1);
        if (i >= size) {
            arena.close();
            throw new IllegalStateException("more ranks registered in the rail table of host " + host + " than the job"
                    + " has (" + size + ")");
        }
        INT.setRelease(seg, MEMBERS_OFFSET + (long) i * Integer.BYTES, rank + 1);
        return t;
    }

    private static void init(MemorySegment seg, int size, int rails) {
        seg.set(ValueLayout.JAVA_INT, RAILS_OFFSET, rails);
        seg.set(ValueLayout.JAVA_INT, ROWS_OFFSET, size);
        // release: the geometry is visible to whoever sees the magic
        INT.setRelease(seg, (long) MAGIC_OFFSET, MAGIC);
    }

    /**
     * Creates the host's file complete under a name of its own and links it into place, so that a
     * rank that finds the file finds it whole; a rank that loses the race maps the winner's.
     */
    private static MemorySegment map(Path jobDir, String host, int size, int rails, Arena arena) {
        Path file = jobDir.resolve("rails-" + host.replaceAll("[^A-Za-z0-9._-]", "_"));
        MemorySegment seg = ShmFiles.mapExisting(file, arena);
        if (seg != null) {
            return seg;
        }
        // pid and clock alone collided once (CI, ClusterThreadsIT: rank threads of one JVM, or hosts whose
        // PID namespaces gave the same pid, sharing the directory); the random part makes that impossible
        Path tmp = jobDir.resolve(".rails-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + "-"
                + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()));
        try {
            MemorySegment made = ShmFiles.createAndMap(tmp, length(size), arena);
            init(made, size, rails);
            try {
                Files.createLink(file, tmp);
                return made;
            } catch (FileAlreadyExistsException e) {
                return ShmFiles.mapExisting(file, arena);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the rail table " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Adds {@code delta} to this rank's bytes in flight on {@code rail}. Release store of the row's
     * counter: single writer, so no read-modify-write on the shared line.
     */
    void add(int rail, long delta) {
        long v = mine[rail] += delta;
        LONG.setRelease(table, counterOffset(rows, row, rail), v);
    }

    /**
     * The node's bytes in flight on {@code rail}: the sum of the registered rows, each read with
     * acquire. A hint for choosing rails: a row changing meanwhile only makes the choice one
     * update old.
     */
    long load(int rail) {
        refreshMembers();
        long sum = 0;
        for (int i = 0; i < memberCount; i++) {
            sum += (long) LONG.getAcquire(table, counterOffset(rows, members[i], rail));
        }
        return sum;
    }

    /** Picks up rows registered since the last look (acquire: the member id is written whole). */
    private void refreshMembers() {
        int n = Math.min(rows, (int) INT.getAcquire(table, (long) MEMBERS_COUNT_OFFSET));
        while (memberCount < n) {
            int id = (int) INT.getAcquire(table, MEMBERS_OFFSET + (long) memberCount * Integer.BYTES);
            if (id == 0) {
                // registered, id not yet stored: its row is still zero, take it next time
                return;
            }
            members[memberCount++] = id - 1;
        }
    }

    /** This rank's own bytes in flight on {@code rail}. */
    long own(int rail) {
        return mine[rail];
    }

    int rails() {
        return rails;
    }

    /** Clears this rank's row (release) so it weighs on no one's choice, and unmaps the table. */
    @Override
    public void close() {
        for (int r = 0; r < rails; r++) {
            mine[r] = 0;
            LONG.setRelease(table, counterOffset(rows, row, r), 0L);
        }
        arena.close();
    }
}
