package io.tutti.coll;

import io.tutti.coll.algo.PairwiseReduceScatter;
import io.tutti.coll.algo.RecursiveHalvingReduceScatter;
import io.tutti.coll.algo.RingReduceScatter;
import io.tutti.coll.algo.Blocks;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import static io.tutti.coll.AlgorithmCheck.Op.MATMUL;
import static io.tutti.coll.AlgorithmCheck.Op.SUM;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.coll.AlgorithmCheck.Op;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Every reduce-scatter builder, with equal, uneven and empty blocks, against a sequential reference. */
class ReduceScatterAlgorithmsTest {
    interface Builder {
        Schedule build(int rank, int size, long[] blockBytes, int extent, boolean inPlace, boolean commutative);
    }

    static Builder of(ScheduleAlgorithm a) {
        return (r, n, blocks, e, ip, c) -> a.build(CollectiveCall.reduceScatter(blocks, e, ip, c), r, n);
    }

    static final Builder RECURSIVE_HALVING = of(new RecursiveHalvingReduceScatter());
    static final Builder RING = of(new RingReduceScatter());
    static final Builder PAIRWISE = of(new PairwiseReduceScatter());

    /** Block sizes in elements: equal, uneven with empty ones, all empty, one non-empty. */
    static long[][] layouts(int n, Random rnd, boolean many) {
        long[] equal = new long[n];
        long[] uneven = new long[n];
        long[] empty = new long[n];
        long[] one = new long[n];
        for (int r = 0; r < n; r++) {
            equal[r] = 3;
            uneven[r] = rnd.nextInt(4);
        }
        one[n - 1] = 1;
        return many ? new long[][] {equal, uneven, empty, one} : new long[][] {uneven};
    }

    static void check(Builder algorithm, Op op) {
        for (int n : AlgorithmCheck.SIZES) {
            for (boolean inPlace : new boolean[] {false, true}) {
                for (long seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                    for (long[] elements : layouts(n, new Random(seed + n), n <= 17)) {
                        run(algorithm, op, elements, inPlace, seed);
                    }
                }
            }
        }
    }

    static SchedulePlayer.Stats run(Builder algorithm, Op op, long[] elements, boolean inPlace, long seed) {
        int n = elements.length;
        Random rnd = new Random(seed * 7919 + n);
        long[] blockBytes = new long[n];
        long total = 0;
        for (int r = 0; r < n; r++) {
            blockBytes[r] = elements[r] * op.extent;
            total += elements[r];
        }
        long[] off = Blocks.offsets(blockBytes);
        long[][] d = new long[n][];
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            d[r] = op.data(rnd, total);
            send[r] = inPlace ? null : AlgorithmCheck.seg(d[r]);
            // exactly the block's size, so a stray write is out of bounds
            recv[r] = inPlace ? AlgorithmCheck.seg(d[r]) : AlgorithmCheck.seg(new long[(int) (blockBytes[r] / 8)]);
        }
        Schedule[] s = AlgorithmCheck.schedules(n, r -> algorithm.build(r, n, blockBytes, op.extent, inPlace,
                op.commutative));
        SchedulePlayer.Stats stats = AlgorithmCheck.play(s, send, recv, op, seed);
        long[] all = op.fold(d, 0, n - 1);
        for (int r = 0; r < n; r++) {
            assertArrayEquals(AlgorithmCheck.slice(all, off[r], blockBytes[r]),
                    AlgorithmCheck.slice(AlgorithmCheck.longs(recv[r]), 0, blockBytes[r]),
                    s[r].name() + " P=" + n + " inPlace=" + inPlace + " rank " + r);
        }
        return stats;
    }

    @Test
    void recursiveHalving() {
        check(RECURSIVE_HALVING, SUM);
    }

    @Test
    void ring() {
        check(RING, SUM);
    }

    @Test
    void pairwiseKeepsRankOrder() {
        check(PAIRWISE, MATMUL);
    }

    @Test
    void commutativeOnlyAlgorithmsRefuseOtherOperations() {
        for (Builder b : new Builder[] {RECURSIVE_HALVING, RING}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> b.build(0, 3, new long[] {32, 32, 32}, 32, false, false));
            assertTrue(e.getMessage().contains("commutative"), e.getMessage());
        }
        // a block that is not a whole number of elements, and a wrong number of blocks
        assertThrows(IllegalArgumentException.class,
                () -> PAIRWISE.build(0, 3, new long[] {32, 16, 32}, 32, false, false));
        assertThrows(IllegalArgumentException.class,
                () -> RING.build(0, 3, new long[] {8, 8}, 8, false, true));
    }

    @Test
    void trafficMatchesTheCostModel() {
        for (int n : new int[] {2, 3, 5, 8, 13, 16}) {
            long[] elements = new long[n];
            for (int r = 0; r < n; r++) {
                elements[r] = 1 + r % 3;
            }
            long total = 8 * AlgorithmCheck.sum(elements);
            SchedulePlayer.Stats ring = run(RING, SUM, elements, false, 2);
            SchedulePlayer.Stats pair = run(PAIRWISE, MATMUL, elements, false, 2);
            for (int r = 0; r < n; r++) {
                // both send everything but the own block, once
                assertEquals(total - 8 * elements[r], ring.bytesSent()[r]);
                assertEquals(4 * (total - 8 * elements[r]), pair.bytesSent()[r]);
                assertEquals(n - 1, pair.messagesSent()[r]);
            }
            assertEquals(n - 1, AlgorithmCheck.max(ring.rounds()), "ring rounds P=" + n);
            assertEquals(1, AlgorithmCheck.max(pair.rounds()), "pairwise rounds P=" + n);
            int p2 = Integer.highestOneBit(n);
            SchedulePlayer.Stats rh = run(RECURSIVE_HALVING, SUM, elements, false, 2);
            assertEquals(Integer.numberOfTrailingZeros(p2) + (n == p2 ? 0 : 2), AlgorithmCheck.max(rh.rounds()),
                    "recursive halving rounds P=" + n);
            if (n == p2) {
                long[] equal = new long[n];
                java.util.Arrays.fill(equal, 5);
                SchedulePlayer.Stats eq = run(RECURSIVE_HALVING, SUM, equal, false, 2);
                for (int r = 0; r < n; r++) {
                    assertEquals(40L * (n - 1), eq.bytesSent()[r], "recursive halving sends (P-1)/P of the input");
                }
            }
        }
    }
}
