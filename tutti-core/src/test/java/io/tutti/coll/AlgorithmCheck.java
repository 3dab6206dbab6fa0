package io.tutti.coll;

import io.tutti.coll.schedule.Schedule;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.function.IntFunction;

/** Shared by the algorithm tests: combiners with their sequential references, data, and playing. */
final class AlgorithmCheck {
    private AlgorithmCheck() {
    }

    /** Group sizes every algorithm is played for. */
    static final int[] SIZES = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 31, 32, 33, 64};

    /** Fewer random orders for large groups, which are slow to play. */
    static int seeds(int n) {
        return n <= 8 ? 3 : n <= 17 ? 2 : 1;
    }

    /** An operation on longs, its element size and its sequential meaning. */
    enum Op {
        /** Commutative: one long per element. */
        SUM(8, true),
        /** Non-commutative: a 2×2 matrix of longs per element, product mod 2^64. */
        MATMUL(32, false);

        final int extent;
        final boolean commutative;

        Op(int extent, boolean commutative) {
            this.extent = extent;
            this.commutative = commutative;
        }

        int longs() {
            return extent / 8;
        }

        /** left ∘ right, element by element. */
        long[] combine(long[] left, long[] right) {
            long[] out = new long[left.length];
            if (this == SUM) {
                for (int i = 0; i < out.length; i++) {
                    out[i] = left[i] + right[i];
                }
            } else {
                for (int m = 0; m < out.length; m += 4) {
                    long[] c = mul(left[m], left[m + 1], left[m + 2], left[m + 3], right[m], right[m + 1],
                            right[m + 2], right[m + 3]);
                    System.arraycopy(c, 0, out, m, 4);
                }
            }
            return out;
        }

        SchedulePlayer.Combiner combiner() {
            Op op = this;
            return new SchedulePlayer.Combiner() {
                @Override
                public void apply(MemorySegment inout, long io, MemorySegment in, long i, long bytes) {
                    long[] a = get(in, i, bytes);
                    long[] b = get(inout, io, bytes);
                    long[] c = op.combine(a, b);
                    MemorySegment.copy(MemorySegment.ofArray(c), 0, inout, io, bytes);
                }

                @Override
                public boolean commutative() {
                    return op.commutative;
                }
            };
        }

        /** Random contribution of {@code elements} elements. */
        long[] data(Random rnd, long elements) {
            long[] d = new long[Math.toIntExact(elements * longs())];
            for (int i = 0; i < d.length; i++) {
                d[i] = this == SUM ? rnd.nextLong() : rnd.nextInt(7) - 3;
            }
            return d;
        }

        /** d[from] ∘ … ∘ d[to] (inclusive), sequentially. */
        long[] fold(long[][] d, int from, int to) {
            long[] acc = d[from].clone();
            for (int r = from + 1; r <= to; r++) {
                acc = combine(acc, d[r]);
            }
            return acc;
        }
    }

    private static long[] mul(long a0, long a1, long a2, long a3, long b0, long b1, long b2, long b3) {
        return new long[] {a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3};
    }

    static long[] get(MemorySegment s, long off, long bytes) {
        return s.asSlice(off, bytes).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    static long[] longs(MemorySegment s) {
        return s.byteSize() == 0 ? new long[0] : s.toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    static MemorySegment seg(long[] a) {
        return MemorySegment.ofArray(a.clone());
    }

    static long[] slice(long[] a, long fromByte, long bytes) {
        long[] out = new long[Math.toIntExact(bytes / 8)];
        System.arraycopy(a, Math.toIntExact(fromByte / 8), out, 0, out.length);
        return out;
    }

    static Schedule[] schedules(int n, IntFunction<Schedule> build) {
        Schedule[] s = new Schedule[n];
        for (int r = 0; r < n; r++) {
            s[r] = build.apply(r);
        }
        return s;
    }

    /** Plays and checks that no rank's send buffer (the read-only input) changed. */
    static SchedulePlayer.Stats play(Schedule[] s, MemorySegment[] send, MemorySegment[] recv, Op op, long seed) {
        long[][] before = new long[send.length][];
        for (int r = 0; r < send.length; r++) {
            before[r] = send[r] == null ? null : longs(send[r]);
        }
        SchedulePlayer.Stats stats = SchedulePlayer.play(s, send, recv, op.combiner(), seed);
        for (int r = 0; r < send.length; r++) {
            if (send[r] != null) {
                assertArrayEquals(before[r], longs(send[r]), s[r].name() + ": rank " + r + " wrote its input");
            }
        }
        return stats;
    }

    static long max(long[] a) {
        long m = Long.MIN_VALUE;
        for (long x : a) {
            m = Math.max(m, x);
        }
        return m;
    }

    static int max(int[] a) {
        int m = Integer.MIN_VALUE;
        for (int x : a) {
            m = Math.max(m, x);
        }
        return m;
    }

    static long sum(long[] a) {
        long m = 0;
        for (long x : a) {
            m += x;
        }
        return m;
    }
}
