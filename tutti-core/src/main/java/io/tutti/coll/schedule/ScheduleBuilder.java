package io.tutti.coll.schedule;

import java.util.Arrays;

/**
 * Accumulates the steps of one rank's {@link Schedule}. Each add returns the new step's index,
 * which later steps name as a dependency. Algorithms are small classes that drive a builder.
 *
 * <p>{@link #reset} starts another schedule in the same arrays: a caller that builds every rank's
 * schedule in turn (the simulator, a million of them) then grows the arrays once, not per rank,
 * and reads the steps where they are ({@link ScheduleSteps}) instead of trimming them into a
 * {@code Schedule} with {@link #build}.
 */
public final class ScheduleBuilder implements ScheduleSteps {
    /** "No step": may be passed as a dependency and is ignored, so that first steps need no special case. */
    public static final int NONE = -1;

    private String name;
    private int rank;
    private int size;
    private int steps;
    private byte[] kind = new byte[16];
    private int[] peer = new int[16];
    private int[] tag = new int[16];
    private byte[] buffer = new byte[16];
    private long[] offset = new long[16];
    private long[] length = new long[16];
    private byte[] srcBuffer = new byte[16];
    private long[] srcOffset = new long[16];
    private boolean[] srcIsLeft = new boolean[16];
    private int[] depStart = new int[17];
    private int[] deps = new int[32];
    private int depCount;
    private long tempBytes;

    public ScheduleBuilder(String name, int rank, int size) {
        reset(name, rank, size);
    }

    /** Forgets every step and starts rank {@code rank}'s schedule {@code name} of {@code size} ranks. */
    public ScheduleBuilder reset(String name, int rank, int size) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " of size " + size);
        }
        this.name = name;
        this.rank = rank;
        this.size = size;
        steps = 0;
        depCount = 0;
        tempBytes = 0;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    /** Reserves scratch memory of at least {@code bytes}. */
    public ScheduleBuilder temp(long bytes) {
        tempBytes = Math.max(tempBytes, bytes);
        return this;
    }

    /** Sends {@code len} bytes of {@code buf} at {@code off} to {@code to}. */
    public int send(int to, int tag, byte buf, long off, long len, int... after) {
        checkPeer(to);
        return add(Schedule.SEND, to, tag, buf, off, len, (byte) 0, 0, false, after);
    }

    /** Receives {@code len} bytes from {@code from} into {@code buf} at {@code off}. */
    public int recv(int from, int tag, byte buf, long off, long len, int... after) {
        checkPeer(from);
        return add(Schedule.RECV, from, tag, buf, off, len, (byte) 0, 0, false, after);
    }

    // The forms with one or two dependencies below are the varargs ones without an array per call:
    // the simulator builds a million ranks' schedules, and most steps wait for one step.

    /** {@link #send(int, int, byte, long, long, int...)} after one step. */
    public int send(int to, int tag, byte buf, long off, long len, int after) {
        checkPeer(to);
        return add(Schedule.SEND, to, tag, buf, off, len, (byte) 0, 0, false, after, NONE);
    }

    /** {@link #recv(int, int, byte, long, long, int...)} after one step. */
    public int recv(int from, int tag, byte buf, long off, long len, int after) {
        checkPeer(from);
        return add(Schedule.RECV, from, tag, buf, off, len, (byte) 0, 0, false, after, NONE);
    }

    /** {@link #reduce(byte, long, byte, long, long, boolean, int...)} after one step. */
    public int reduce(byte dst, long dstOff, byte src, long srcOff, long len, boolean srcIsLeft, int after) {
        return add(Schedule.REDUCE, -1, 0, dst, dstOff, len, src, srcOff, srcIsLeft, after, NONE);
    }

    /** {@link #reduce(byte, long, byte, long, long, boolean, int...)} after two steps. */
    public int reduce(byte dst, long dstOff, byte src, long srcOff, long len, boolean srcIsLeft, int after,
                      int after2) {
        return add(Schedule.REDUCE, -1, 0, dst, dstOff, len, src, srcOff, srcIsLeft, after, after2);
    }

    /** {@link #copy(byte, long, byte, long, long, int...)} after one step. */
    public int copy(byte dst, long dstOff, byte src, long srcOff, long len, int after) {
        return add(Schedule.COPY, -1, 0, dst, dstOff, len, src, srcOff, false, after, NONE);
    }

    /**
     * Reduces {@code len} bytes of {@code src} into {@code dst}: dst = src ∘ dst when
     * {@code srcIsLeft}, else dst = dst ∘ src (which, for a non-commutative operation, may overwrite
     * the source region: use it only on data received into scratch).
     */
    public int reduce(byte dst, long dstOff, byte src, long srcOff, long len, boolean srcIsLeft, int... after) {
        return add(Schedule.REDUCE, -1, 0, dst, dstOff, len, src, srcOff, srcIsLeft, after);
    }

    /** Copies {@code len} bytes from {@code src} to {@code dst}. */
    public int copy(byte dst, long dstOff, byte src, long srcOff, long len, int... after) {
        return add(Schedule.COPY, -1, 0, dst, dstOff, len, src, srcOff, false, after);
    }

    /** Exchanges {@code len} bytes of {@code buf} at {@code off} with the aggregation switches, in place. */
    public int inc(byte buf, long off, long len, int... after) {
        return add(Schedule.INC, -1, 0, buf, off, len, (byte) 0, 0, false, after);
    }

    /**
     * Gathers {@code len} bytes from {@code src} at {@code srcOff} of every rank into {@code dst}
     * at {@code dstOff} (rank order, {@code len} bytes each) through the communicator's shared-memory
     * slots; {@code len} at most {@link Schedule#SLOT_BYTES}.
     */
    public int slots(byte dst, long dstOff, byte src, long srcOff, long len, int... after) {
        return add(Schedule.SLOTS, -1, 0, dst, dstOff, checkSlot(len), src, srcOff, false, after);
    }

    /**
     * Reduces {@code len} bytes from {@code src} at {@code srcOff} of every rank, in rank order, into
     * {@code dst} at {@code dstOff} (which may be the source) through the communicator's shared-memory
     * slots; {@code len} at most {@link Schedule#SLOT_BYTES}.
     */
    public int slotsReduce(byte dst, long dstOff, byte src, long srcOff, long len, int... after) {
        return add(Schedule.SLOTS_REDUCE, -1, 0, dst, dstOff, checkSlot(len), src, srcOff, false, after);
    }

    private long checkSlot(long len) {
        if (len > Schedule.SLOT_BYTES) {
            throw new IllegalArgumentException(name + ": " + len + " bytes do not fit a shared-memory slot of "
                    + Schedule.SLOT_BYTES);
        }
        return len;
    }

    /**
     * A step that does nothing but wait for {@code after}: joins several branches so that a later
     * step, or a composed algorithm, can depend on one step.
     */
    public int join(int... after) {
        return add(Schedule.COPY, -1, 0, Schedule.TEMP_BUFFER, 0, 0, Schedule.TEMP_BUFFER, 0, false, after);
    }

    /** {@link #join(int...)} of two steps. */
    public int join(int after, int after2) {
        return add(Schedule.COPY, -1, 0, Schedule.TEMP_BUFFER, 0, 0, Schedule.TEMP_BUFFER, 0, false, after, after2);
    }

    /** {@link #join(int...)} of the {@code count} consecutive steps from {@code first}, in that order. */
    public int joinRun(int first, int count) {
        if (count < 0) {
            throw new IllegalArgumentException(name + ": a join of " + count + " steps");
        }
        int i = open(Schedule.COPY, -1, 0, Schedule.TEMP_BUFFER, 0, 0, Schedule.TEMP_BUFFER, 0, false);
        for (int d = first; d < first + count; d++) {
            depend(i, d);
        }
        return close(i);
    }

    /** Steps added so far. */
    @Override
    public int steps() {
        return steps;
    }

    @Override
    public byte kind(int step) {
        return kind[check(step)];
    }

    @Override
    public int peer(int step) {
        return peer[check(step)];
    }

    @Override
    public int tag(int step) {
        return tag[check(step)];
    }

    @Override
    public long length(int step) {
        return length[check(step)];
    }

    @Override
    public int dependenciesFrom(int step) {
        // depStart[steps] is the end of the last step's list
        if (step < 0 || step > steps) {
            throw new IndexOutOfBoundsException("step " + step + " of " + steps);
        }
        return depStart[step];
    }

    @Override
    public int dependency(int k) {
        if (k < 0 || k >= depCount) {
            throw new IndexOutOfBoundsException("dependency " + k + " of " + depCount);
        }
        return deps[k];
    }

    /** The arrays hold earlier schedules' steps beyond {@link #steps}: reading one is a caller's bug. */
    private int check(int step) {
        if (step < 0 || step >= steps) {
            throw new IndexOutOfBoundsException("step " + step + " of " + steps);
        }
        return step;
    }

    private void checkPeer(int p) {
        if (p < 0 || p >= size || p == rank) {
            throw new IllegalArgumentException(name + ": rank " + rank + " of " + size + " cannot exchange with " + p);
        }
    }

    private int add(byte k, int p, int t, byte buf, long off, long len, byte sbuf, long soff, boolean left,
                    int[] after) {
        int i = open(k, p, t, buf, off, len, sbuf, soff, left);
        for (int d : after) {
            depend(i, d);
        }
        return close(i);
    }

    private int add(byte k, int p, int t, byte buf, long off, long len, byte sbuf, long soff, boolean left,
                    int after, int after2) {
        int i = open(k, p, t, buf, off, len, sbuf, soff, left);
        depend(i, after);
        depend(i, after2);
        return close(i);
    }

    /** Writes step {@link #steps}'s fields (growing the arrays); its dependencies follow, then {@link #close}. */
    private int open(byte k, int p, int t, byte buf, long off, long len, byte sbuf, long soff, boolean left) {
        if (t < 0 || t >= Schedule.MAX_TAG) {
            throw new IllegalArgumentException(name + ": step tag " + t + " outside 0.." + (Schedule.MAX_TAG - 1));
        }
        if (len < 0 || off < 0 || soff < 0) {
            throw new IllegalArgumentException(name + ": negative region");
        }
        if (steps == kind.length) {
            int n = steps * 2;
            kind = Arrays.copyOf(kind, n);
            peer = Arrays.copyOf(peer, n);
            tag = Arrays.copyOf(tag, n);
            buffer = Arrays.copyOf(buffer, n);
            offset = Arrays.copyOf(offset, n);
            length = Arrays.copyOf(length, n);
            srcBuffer = Arrays.copyOf(srcBuffer, n);
            srcOffset = Arrays.copyOf(srcOffset, n);
            srcIsLeft = Arrays.copyOf(srcIsLeft, n);
            depStart = Arrays.copyOf(depStart, n + 1);
        }
        int i = steps;
        kind[i] = k;
        peer[i] = p;
        tag[i] = t;
        buffer[i] = buf;
        offset[i] = off;
        length[i] = len;
        srcBuffer[i] = sbuf;
        srcOffset[i] = soff;
        srcIsLeft[i] = left;
        return i;
    }

    /** Step {@code i} (being added) waits for {@code d}; {@link #NONE} is ignored. */
    private void depend(int i, int d) {
        if (d == NONE) {
            return;
        }
        if (d < 0 || d >= i) {
            throw new IllegalArgumentException(name + ": step " + i + " depends on unknown step " + d);
        }
        if (depCount == deps.length) {
            deps = Arrays.copyOf(deps, depCount * 2);
        }
        deps[depCount++] = d;
    }

    /** Step {@code i}'s dependencies are in: it counts from now on. */
    private int close(int i) {
        steps = i + 1;
        depStart[i + 1] = depCount;
        return i;
    }

    /** The finished schedule. */
    public Schedule build() {
        return new Schedule(name, rank, size, steps, Arrays.copyOf(kind, steps), Arrays.copyOf(peer, steps),
                Arrays.copyOf(tag, steps), Arrays.copyOf(buffer, steps), Arrays.copyOf(offset, steps),
                Arrays.copyOf(length, steps), Arrays.copyOf(srcBuffer, steps), Arrays.copyOf(srcOffset, steps),
                Arrays.copyOf(srcIsLeft, steps), Arrays.copyOf(depStart, steps + 1), Arrays.copyOf(deps, depCount),
                tempBytes);
    }
}
