package io.tutti.coll;

import io.tutti.coll.algo.LinearScan;
import io.tutti.coll.algo.RecursiveDoublingScan;
import io.tutti.coll.algo.Blocks;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import static io.tutti.coll.AlgorithmCheck.Op.MATMUL;
import static io.tutti.coll.AlgorithmCheck.Op.SUM;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.coll.AlgorithmCheck.Op;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Scan and exscan builders, inclusive and exclusive, against sequential prefixes. */
class ScanAlgorithmsTest {
    interface Builder {
        Schedule build(int rank, int size, long bytes, int extent, boolean inPlace, boolean commutative,
                       boolean exclusive);
    }

    static final long SENTINEL = 0x5EED_5EED_5EED_5EEDL;

    /** The scan ({@code exclusive}: exscan) algorithm named {@code name}, with parameters {@code p}. */
    static Builder of(String name, Params p) {
        return (r, n, b, e, ip, c, x) -> {
            ScheduleAlgorithm a = name.equals("linear") ? new LinearScan(x) : new RecursiveDoublingScan(x);
            return a.build(CollectiveCall.scan(b, e, ip, c, x), r, n, p);
        };
    }

    static final Builder RECURSIVE_DOUBLING = of("recursive-doubling", Params.DEFAULT);
    static final Builder LINEAR_SEGMENTED = of("linear", Params.DEFAULT.withSegment(64));
    static final Builder LINEAR_WHOLE = of("linear", Params.DEFAULT.withSegment(Long.MAX_VALUE));

    static void check(Builder algorithm, Op op) {
        for (int n : AlgorithmCheck.SIZES) {
            long[] counts = n <= 17 ? new long[] {0, 1, 5} : new long[] {3};
            for (long elements : counts) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    for (boolean exclusive : new boolean[] {false, true}) {
                        for (long seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                            run(algorithm, op, n, elements, inPlace, exclusive, seed);
                        }
                    }
                }
            }
        }
    }

    static SchedulePlayer.Stats run(Builder algorithm, Op op, int n, long elements, boolean inPlace,
                                    boolean exclusive, long seed) {
        Random rnd = new Random(seed * 31 + n * 17 + elements);
        long bytes = elements * op.extent;
        long[][] d = new long[n][];
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            d[r] = op.data(rnd, elements);
            long[] sentinel = new long[d[r].length];
            java.util.Arrays.fill(sentinel, SENTINEL);
            send[r] = inPlace ? null : AlgorithmCheck.seg(d[r]);
            recv[r] = AlgorithmCheck.seg(inPlace ? d[r] : sentinel);
        }
        Schedule[] s = AlgorithmCheck.schedules(n, r -> algorithm.build(r, n, bytes, op.extent, inPlace,
                op.commutative, exclusive));
        SchedulePlayer.Stats stats = AlgorithmCheck.play(s, send, recv, op, seed);
        for (int r = 0; r < n; r++) {
            long[] expected;
            if (!exclusive) {
                expected = op.fold(d, 0, r);
            } else if (r > 0) {
                expected = op.fold(d, 0, r - 1);
            } else {
                // rank 0's receive buffer is left alone
                expected = AlgorithmCheck.longs(inPlace ? AlgorithmCheck.seg(d[0]) : recvSentinel(d[0].length));
            }
            assertArrayEquals(expected, AlgorithmCheck.longs(recv[r]), s[r].name() + " P=" + n + " elements="
                    + elements + " inPlace=" + inPlace + " rank " + r);
        }
        return stats;
    }

    static MemorySegment recvSentinel(int longs) {
        long[] a = new long[longs];
        java.util.Arrays.fill(a, SENTINEL);
        return MemorySegment.ofArray(a);
    }

    @Test
    void recursiveDoublingKeepsRankOrder() {
        check(RECURSIVE_DOUBLING, MATMUL);
        check(RECURSIVE_DOUBLING, SUM);
    }

    @Test
    void linearKeepsRankOrder() {
        check(LINEAR_SEGMENTED, MATMUL);
        check(LINEAR_WHOLE, MATMUL);
    }

    @Test
    void trafficMatchesTheCostModel() {
        for (int n : new int[] {2, 3, 5, 8, 13, 16}) {
            SchedulePlayer.Stats rd = run(RECURSIVE_DOUBLING, SUM, n, 4, false, false, 0);
            assertEquals(Blocks.ceilLog2(n), AlgorithmCheck.max(rd.rounds()), "recursive doubling rounds P=" + n);
            assertTrue(AlgorithmCheck.max(rd.bytesSent()) <= 32L * Blocks.ceilLog2(n));
            // 10 elements of 32 B in segments of 64 B: 5 segments pipelined over P - 1 hops
            SchedulePlayer.Stats lin = run(LINEAR_SEGMENTED, MATMUL, n, 10, false, true, 0);
            assertEquals(n - 1 + 4, AlgorithmCheck.max(lin.rounds()), "linear rounds P=" + n);
            for (int r = 0; r < n; r++) {
                assertEquals(r < n - 1 ? 320 : 0, lin.bytesSent()[r]);
                assertEquals(r < n - 1 ? 5 : 0, lin.messagesSent()[r]);
            }
        }
        assertThrows(IllegalArgumentException.class,
                () -> of("linear", Params.DEFAULT.withSegment(-1)).build(0, 2, 64, 32, false, false, false));
        assertThrows(IllegalArgumentException.class, () -> RECURSIVE_DOUBLING.build(0, 2, 60, 32, false, false, true));
    }
}
