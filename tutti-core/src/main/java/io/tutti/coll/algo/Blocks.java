package io.tutti.coll.algo;

import io.tutti.coll.schedule.ScheduleBuilder;
import java.util.Arrays;

/**
 * Arithmetic shared by the algorithm builders: blocks and segments cut on element boundaries (a
 * reduction must never see half an element), argument checks, and a small list of steps to join.
 */
public final class Blocks {
    private Blocks() {
    }

    /**
     * Offsets of {@code parts} consecutive blocks covering {@code bytes}, cut on multiples of
     * {@code extent}; sizes differ by at most one element, the larger blocks first. Returns
     * {@code parts + 1} offsets, the last being {@code bytes}.
     */
    public static long[] split(long bytes, int extent, int parts) {
        long elements = bytes / extent;
        long q = elements / parts;
        long r = elements % parts;
        long[] off = new long[parts + 1];
        for (int i = 0; i < parts; i++) {
            off[i + 1] = off[i] + (q + (i < r ? 1 : 0)) * extent;
        }
        return off;
    }

    private record Split(long bytes, int extent, int parts, long[] off) {
    }

    /** The last {@link #sharedSplit}, by its arguments. */
    private static volatile Split lastSplit;

    /**
     * {@link #split}, the array shared between calls with the same arguments, so that building
     * every rank's schedule of a communicator (the simulator does) costs O(P) rather than O(P²):
     * read it, never write it.
     */
    static long[] sharedSplit(long bytes, int extent, int parts) {
        Split s = lastSplit;
        if (s == null || s.bytes() != bytes || s.extent() != extent || s.parts() != parts) {
            s = new Split(bytes, extent, parts, split(bytes, extent, parts));
            lastSplit = s;
        }
        return s.off();
    }

    /** Prefix sums of {@code sizes}: {@code sizes.length + 1} offsets. */
    public static long[] offsets(long[] sizes) {
        long[] off = new long[sizes.length + 1];
        for (int i = 0; i < sizes.length; i++) {
            off[i + 1] = off[i] + sizes[i];
        }
        return off;
    }

    /** The segment length actually used: {@code segment} rounded down to whole elements, at least one element. */
    public static long segment(String name, long segment, int extent) {
        if (segment <= 0) {
            throw new IllegalArgumentException(name + ": segment size must be positive, got " + segment);
        }
        return Math.max(extent, segment / extent * extent);
    }

    /**
     * Segments of {@code seg} bytes needed for {@code len} bytes; at least one, so that empty data
     * still makes one (empty) message and the dependency structure stays the same.
     */
    public static int count(long len, long seg) {
        long c = Math.max(1, (len + seg - 1) / seg);
        if (c > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException("segment of " + seg + " B makes too many segments for " + len + " B");
        }
        return (int) c;
    }

    /** Length of segment {@code i} of {@code seg} bytes in a block of {@code len} bytes. */
    public static long segLen(long len, long seg, int i) {
        return Math.max(0, Math.min(seg, len - i * seg));
    }

    public static int ceilLog2(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }

    public static void checkData(String name, long bytes, int extent) {
        if (extent < 1) {
            throw new IllegalArgumentException(name + ": element extent must be positive, got " + extent);
        }
        if (bytes < 0 || bytes % extent != 0) {
            throw new IllegalArgumentException(name + ": " + bytes + " B is not a whole number of " + extent
                    + "-byte elements");
        }
    }

    public static void checkBlocks(String name, int size, long[] blockBytes, int extent) {
        if (blockBytes.length != size) {
            throw new IllegalArgumentException(name + ": " + blockBytes.length + " block sizes for " + size + " ranks");
        }
        for (long x : blockBytes) {
            checkData(name, x, extent);
        }
    }

    public static void checkRoot(String name, int size, int root) {
        if (root < 0 || root >= size) {
            throw new IllegalArgumentException(name + ": root " + root + " outside a group of " + size);
        }
    }

    public static void checkBytes(String name, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException(name + ": negative length " + bytes);
        }
    }

    public static void requireCommutative(String name, boolean commutative) {
        if (!commutative) {
            throw new IllegalArgumentException(name + " combines partial results out of rank order and needs a "
                    + "commutative operation; use a rank-ordered algorithm for this one");
        }
    }

    /**
     * Steps whose completion, together, finishes an algorithm; {@link #join} merges them into one.
     * A run of consecutive steps (a tree's receive and its sends) is kept as its first and count, so
     * that the common case makes no array (the simulator builds a million ranks' schedules).
     */
    public static final class Steps {
        private int first;
        private int n;
        /** All steps, once one did not follow the run; null while they are a run. */
        private int[] s;

        void add(int step) {
            if (step == ScheduleBuilder.NONE) {
                return;
            }
            if (s == null && (n == 0 || step == first + n)) {
                first = n == 0 ? step : first;
                n++;
                return;
            }
            append(step);
        }

        private void append(int step) {
            if (s == null) {
                s = new int[Math.max(8, 2 * n)];
                for (int i = 0; i < n; i++) {
                    s[i] = first + i;
                }
            } else if (n == s.length) {
                s = Arrays.copyOf(s, 2 * n);
            }
            s[n++] = step;
        }

        /** One step that completes when all added have; {@code none} when nothing was added. */
        int join(ScheduleBuilder b, int none) {
            if (n == 0) {
                return none;
            }
            if (s == null) {
                return n == 1 ? first : b.joinRun(first, n);
            }
            return b.join(Arrays.copyOf(s, n));
        }
    }
}
