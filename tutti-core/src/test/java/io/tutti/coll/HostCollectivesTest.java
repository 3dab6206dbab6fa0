package io.tutti.coll;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Barrier, broadcast, reduce and allreduce run by the host executor, against sequential references. */
@Timeout(120)
class HostCollectivesTest {

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(90), body);
    }

    static long value(int rank, int i) {
        return (rank + 1) * 1_000_003L + i * 7L;
    }

    /** Allreduce SUM of {@code count} longs, separate and in place, checked against the reference. */
    static void allreduceSums(Communicator w, int count) {
        long[] mine = new long[count];
        for (int i = 0; i < count; i++) {
            mine[i] = value(w.rank(), i);
        }
        long[] sum = new long[count];
        w.allreduce(mine, sum, count, Datatype.LONG, ReduceOp.SUM);
        long[] inPlace = mine.clone();
        w.allreduce(Communicator.IN_PLACE, inPlace, count, Datatype.LONG, ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            long expected = 0;
            for (int r = 0; r < w.size(); r++) {
                expected += value(r, i);
            }
            assertEquals(expected, sum[i], "allreduce of " + count + ", element " + i);
            assertEquals(expected, inPlace[i], "in-place allreduce of " + count + ", element " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
    void everyOperationMatchesTheReference(int n) {
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                for (int count : new int[] {0, 1, 3, 1000, 40_000}) {
                    allreduceSums(w, count);
                    // reduce MAX on doubles to every root; bcast from every root
                    for (int rt = 0; rt < n; rt++) {
                        final int root = rt;
                        double[] d = new double[count];
                        for (int i = 0; i < count; i++) {
                            d[i] = Math.sin(rank * 31 + i);
                        }
                        double[] max = new double[count];
                        w.reduce(d, rank == root ? max : null, count, Datatype.DOUBLE, ReduceOp.MAX, root);
                        if (rank == root) {
                            for (int i = 0; i < count; i++) {
                                double e = Double.NEGATIVE_INFINITY;
                                for (int r = 0; r < n; r++) {
                                    e = Math.max(e, Math.sin(r * 31 + i));
                                }
                                assertEquals(e, max[i], "reduce element " + i + " at root " + root);
                            }
                        }
                        int[] b = new int[count];
                        if (rank == root) {
                            Arrays.setAll(b, i -> i * 3 + root);
                        }
                        w.bcast(b, count, Datatype.INT, root);
                        for (int i = 0; i < count; i++) {
                            assertEquals(i * 3 + root, b[i], "bcast element " + i + " from root " + root);
                        }
                    }
                    w.barrier();
                }
            }
        });
    }

    /** 2x2 matrix product on longs: associative, not commutative. */
    static final UserOp MATMUL = new UserOp() {
        @Override
        public void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count,
                          Datatype type) {
            for (long m = 0; m + 4 <= count; m += 4) {
                long[] a = read(in, inOffset + m * 8);
                long[] b = read(inout, inoutOffset + m * 8);
                long[] c = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
                for (int k = 0; k < 4; k++) {
                    inout.set(ValueLayout.JAVA_LONG_UNALIGNED, inoutOffset + (m + k) * 8, c[k]);
                }
            }
        }

        @Override
        public boolean commutative() {
            return false;
        }

        private long[] read(MemorySegment s, long at) {
            long[] x = new long[4];
            for (int k = 0; k < 4; k++) {
                x[k] = s.get(ValueLayout.JAVA_LONG_UNALIGNED, at + k * 8L);
            }
            return x;
        }
    };

    static long[] matrix(int rank) {
        return new long[] {rank + 2, 1, rank, 1};
    }

    static long[] product(int n) {
        long[] acc = matrix(0);
        for (int r = 1; r < n; r++) {
            long[] b = matrix(r);
            long[] a = acc;
            acc = new long[] {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
        }
        return acc;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 6, 8})
    void nonCommutativeUserOpsReduceInRankOrder(int n) {
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                long[] expected = product(n);
                long[] out = new long[4];
                w.allreduce(matrix(rank), out, 4, Datatype.LONG, MATMUL);
                assertArrayEquals(expected, out, "allreduce in rank order");
                for (int root = 0; root < n; root++) {
                    long[] r = new long[4];
                    w.reduce(matrix(rank), r, 4, Datatype.LONG, MATMUL, root);
                    if (rank == root) {
                        assertArrayEquals(expected, r, "reduce to " + root + " in rank order");
                    }
                }
            }
        });
    }

    /**
     * Product of complex numbers held as (real, imaginary) pairs of longs (a commutative ring, so
     * wrapping overflow keeps the result exact): an operand is two elements, which a split between
     * them would pair wrongly.
     */
    static final UserOp COMPLEX_LONG = new UserOp() {
        @Override
        public void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count,
                          Datatype type) {
            assertEquals(0, count % 2, "a split inside an item");
            ValueLayout.OfLong l = ValueLayout.JAVA_LONG_UNALIGNED;
            for (long i = 0; i < count; i += 2) {
                long a = in.get(l, inOffset + i * 8);
                long b = in.get(l, inOffset + i * 8 + 8);
                long c = inout.get(l, inoutOffset + i * 8);
                long d = inout.get(l, inoutOffset + i * 8 + 8);
                inout.set(l, inoutOffset + i * 8, a * c - b * d);
                inout.set(l, inoutOffset + i * 8 + 8, a * d + b * c);
            }
        }

        @Override
        public int elementsPerItem() {
            return 2;
        }
    };

    static long[] complexInput(int rank, int items) {
        long[] x = new long[2 * items];
        for (int i = 0; i < items; i++) {
            x[2 * i] = rank + i % 7 + 1;
            x[2 * i + 1] = rank * 3 - i % 5;
        }
        return x;
    }

    static long[] complexProduct(int n, int items) {
        long[] acc = complexInput(0, items);
        for (int r = 1; r < n; r++) {
            long[] x = complexInput(r, items);
            for (int i = 0; i < 2 * items; i += 2) {
                long re = x[i] * acc[i] - x[i + 1] * acc[i + 1];
                acc[i + 1] = x[i] * acc[i + 1] + x[i + 1] * acc[i];
                acc[i] = re;
            }
        }
        return acc;
    }

    /**
     * Vectors long enough for the splitting algorithms (ring and Rabenseifner allreduce, Rabenseifner
     * reduce, ring reduce-scatter) at rank counts that split an odd number of elements: every split
     * falls between items of a two-element user operation, and a count of half an item is refused.
     */
    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void userOperationsGetWholeItems(int n) {
        int items = 40_001;                                  // 640 KB of longs: past every split threshold
        long[] expected = complexProduct(n, items);
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                long[] out = new long[2 * items];
                w.allreduce(complexInput(rank, items), out, 2 * items, Datatype.LONG, COMPLEX_LONG);
                assertArrayEquals(expected, out, "allreduce");
                long[] root = new long[2 * items];
                w.reduce(complexInput(rank, items), root, 2 * items, Datatype.LONG, COMPLEX_LONG, n - 1);
                if (rank == n - 1) {
                    assertArrayEquals(expected, root, "reduce");
                }
                int[] counts = new int[n];
                int[] starts = new int[n + 1];
                for (int r = 0; r < n; r++) {
                    counts[r] = 2 * (items / n + (r < items % n ? 1 : 0));
                    starts[r + 1] = starts[r] + counts[r];
                }
                long[] mine = new long[counts[rank]];
                w.reduceScatter(complexInput(rank, items), mine, counts, Datatype.LONG, COMPLEX_LONG);
                assertArrayEquals(Arrays.copyOfRange(expected, starts[rank], starts[rank + 1]), mine,
                        "reduce-scatter");
                TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.allreduce(new long[3], new long[3], 3, Datatype.LONG, COMPLEX_LONG));
                assertTrue(e.getMessage().contains("pass a multiple of 2"), e.getMessage());
                long[] after = new long[2 * items];
                w.allreduce(complexInput(rank, items), after, 2 * items, Datatype.LONG, COMPLEX_LONG);
                assertArrayEquals(expected, after, "allreduce after the refused call");
            }
        });
    }

    @Test
    void nonblockingAndPersistentCollectivesOverlapAndRepeat() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int[] a = {rank};
                int[] sumA = new int[1];
                double[] b = {rank * 0.5};
                double[] maxB = new double[1];
                // several collectives in flight on one communicator at once
                Request r1 = w.iallreduce(a, sumA, 1, Datatype.INT, ReduceOp.SUM);
                Request r2 = w.iallreduce(b, maxB, 1, Datatype.DOUBLE, ReduceOp.MAX);
                Request r3 = w.ibarrier();
                Request.waitAll(r3, r2, r1);
                assertEquals(6, sumA[0]);
                assertEquals(1.5, maxB[0]);

                long[] in = new long[3];
                long[] out = new long[3];
                Request p = w.allreduceInit(in, out, 3, Datatype.LONG, ReduceOp.SUM);
                Request bar = w.barrierInit();
                Random random = new Random(rank);
                for (int k = 0; k < 1000; k++) {
                    in[0] = k;
                    in[1] = rank;
                    in[2] = random.nextInt(100);
                    p.start();
                    p.waitFor();
                    assertEquals(4L * k, out[0], "start " + k);
                    assertEquals(6L, out[1], "start " + k);
                    bar.start();
                    bar.waitFor();
                }
            }
        });
    }

    @Test
    void badArgumentsAreRejectedBeforeAnythingIsSent() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                var e1 = assertThrows(io.tutti.TuttiException.InvalidArgument.class,
                        () -> w.allreduce(new double[2], new double[2], 2, Datatype.DOUBLE, ReduceOp.BAND));
                assertTrue(e1.getMessage().contains("BAND"), e1.getMessage());
                var e2 = assertThrows(io.tutti.TuttiException.InvalidArgument.class,
                        () -> w.allreduce(new int[2], new int[1], 2, Datatype.INT, ReduceOp.SUM));
                assertTrue(e2.getMessage().contains("receive buffer"), e2.getMessage());
                assertThrows(io.tutti.TuttiException.InvalidArgument.class,
                        () -> w.bcast(new int[2], 2, Datatype.INT, 5));
                assertThrows(io.tutti.TuttiException.InvalidArgument.class,
                        () -> w.bcast(new long[2], 2, Datatype.INT, 0));
                w.barrier();
            }
        });
    }
}
