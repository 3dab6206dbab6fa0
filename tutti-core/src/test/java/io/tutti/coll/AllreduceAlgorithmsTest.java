package io.tutti.coll;

import io.tutti.coll.algo.RabenseifnerAllreduce;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.algo.ReduceBcastAllreduce;
import io.tutti.coll.algo.RingAllreduce;
import io.tutti.coll.algo.SlotsAllreduce;
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

/** Every allreduce builder, played for many group sizes and orders against a sequential reference. */
class AllreduceAlgorithmsTest {
    interface Builder {
        Schedule build(int rank, int size, long bytes, int extent, boolean inPlace, boolean commutative);
    }

    /** {@code a}'s schedules, with the default parameters. */
    static Builder of(ScheduleAlgorithm a) {
        return (r, n, bytes, ext, ip, c) -> a.build(CollectiveCall.allreduce(bytes, ext, ip, c), r, n);
    }

    static final Builder RECURSIVE_DOUBLING = of(new RecursiveDoublingAllreduce());
    static final Builder REDUCE_BCAST = of(new ReduceBcastAllreduce());
    static final Builder RABENSEIFNER = of(new RabenseifnerAllreduce());
    static final Builder RING = of(new RingAllreduce());
    static final Builder RING_SEGMENTED = of(new RingAllreduce(24));
    static final Builder SLOTS = of(new SlotsAllreduce());

    static void check(Builder algorithm, Op op) {
        for (int n : AlgorithmCheck.SIZES) {
            long[] counts = n <= 17 ? new long[] {0, 1, 3, n, 2L * n + 1} : new long[] {1, n + 3};
            for (long elements : counts) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    for (long seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                        run(algorithm, op, n, elements, inPlace, seed);
                    }
                }
            }
        }
    }

    static SchedulePlayer.Stats run(Builder algorithm, Op op, int n, long elements, boolean inPlace, long seed) {
        Random rnd = new Random(seed * 1000 + n * 31 + elements);
        long bytes = elements * op.extent;
        long[][] d = new long[n][];
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            d[r] = op.data(rnd, elements);
            send[r] = inPlace ? null : AlgorithmCheck.seg(d[r]);
            recv[r] = inPlace ? AlgorithmCheck.seg(d[r]) : AlgorithmCheck.seg(new long[d[r].length]);
        }
        Schedule[] s = AlgorithmCheck.schedules(n, r -> algorithm.build(r, n, bytes, op.extent, inPlace,
                op.commutative));
        SchedulePlayer.Stats stats = AlgorithmCheck.play(s, send, recv, op, seed);
        long[] expected = op.fold(d, 0, n - 1);
        for (int r = 0; r < n; r++) {
            assertArrayEquals(expected, AlgorithmCheck.longs(recv[r]), s[r].name() + " P=" + n + " elements="
                    + elements + " inPlace=" + inPlace + " rank " + r);
        }
        return stats;
    }

    @Test
    void recursiveDoublingKeepsRankOrder() {
        check(RECURSIVE_DOUBLING, MATMUL);
    }

    @Test
    void reduceBcastKeepsRankOrder() {
        check(REDUCE_BCAST, MATMUL);
        check(REDUCE_BCAST, SUM);
    }

    @Test
    void slotsKeepRankOrder() {
        Builder slots = SLOTS;
        check(slots, MATMUL);
        check(slots, SUM);
        // longer than one slot: several exchanges, each reduced before the next reuses the scratch
        for (int n : new int[] {1, 2, 3, 5}) {
            for (long elements : new long[] {127, 128, 129, 400}) {
                run(slots, MATMUL, n, elements, false, elements);
                run(slots, SUM, n, elements * 4 + 1, true, elements);
            }
        }
        Schedule s = SLOTS.build(0, 3, 400 * 32, 32, false, false);
        long exchanges = java.util.stream.IntStream.range(0, s.steps()).filter(i -> s.kind(i) == Schedule.SLOTS_REDUCE).count();
        assertEquals(4, exchanges, "12 800 B in slots of " + io.tutti.coll.slots.SlotAreaDescriptor.SLOT_BYTES + " B\n" + s);
    }

    @Test
    void rabenseifner() {
        check(RABENSEIFNER, SUM);
    }

    @Test
    void ring() {
        check(RING, SUM);
    }

    @Test
    void ringSegmented() {
        check(RING_SEGMENTED, SUM);
    }

    @Test
    void commutativeOnlyAlgorithmsRefuseOtherOperations() {
        for (Builder b : new Builder[] {RABENSEIFNER, RING, RING_SEGMENTED}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> b.build(0, 4, 64, 32, false, false));
            assertTrue(e.getMessage().contains("commutative"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RING.build(0, 4, 12, 8, false, true));
        assertThrows(IllegalArgumentException.class, () -> of(new RingAllreduce(0)).build(0, 4, 64, 8, false, true));
    }

    @Test
    void trafficMatchesTheCostModel() {
        for (int n : new int[] {2, 3, 4, 5, 8, 12, 16, 17, 32}) {
            int p2 = Integer.highestOneBit(n);
            int log = Integer.numberOfTrailingZeros(p2);
            int extra = n == p2 ? 0 : 2;
            long elements = (long) n * p2;
            long bytes = elements * 8;

            // ring: 2(P-1) rounds, 2(P-1)/P·n bytes per rank, all of it to one neighbour
            SchedulePlayer.Stats ring = run(RING, SUM, n, elements, false, 1);
            for (int r = 0; r < n; r++) {
                assertEquals(2L * (n - 1) * bytes / n, ring.bytesSent()[r], "ring bytes P=" + n);
                assertEquals(2L * (n - 1), ring.messagesSent()[r]);
            }
            assertEquals(2 * (n - 1), AlgorithmCheck.max(ring.rounds()), "ring rounds P=" + n);

            // segmented ring: the same bytes, in more messages
            SchedulePlayer.Stats seg = run(RING_SEGMENTED, SUM, n, elements, false, 1);
            assertArrayEquals(ring.bytesSent(), seg.bytesSent());
            long segsPerBlock = (bytes / n + 23) / 24;
            assertEquals(2L * (n - 1) * segsPerBlock, seg.messagesSent()[0]);

            // Rabenseifner: 2·log2 P' rounds (+2), 2(P'-1)/P'·n per surviving rank (+n after a fold)
            SchedulePlayer.Stats rab = run(RABENSEIFNER, SUM, n, elements, false, 1);
            assertEquals(2 * log + extra, AlgorithmCheck.max(rab.rounds()), "rabenseifner rounds P=" + n);
            int rem = n - p2;
            for (int r = 2 * rem; r < n; r++) {
                assertEquals(2L * (p2 - 1) * bytes / p2, rab.bytesSent()[r], "rabenseifner bytes P=" + n);
            }
            for (int r = 0; r < 2 * rem; r++) {
                assertEquals(r % 2 == 0 ? bytes : bytes + 2L * (p2 - 1) * bytes / p2, rab.bytesSent()[r]);
            }

            // recursive doubling: log2 P' rounds (+2), n bytes per round
            SchedulePlayer.Stats rd = run(RECURSIVE_DOUBLING, SUM, n, elements, false, 1);
            assertEquals(log + extra, AlgorithmCheck.max(rd.rounds()), "recursive doubling rounds P=" + n);
            assertEquals((long) log * bytes, rd.bytesSent()[n - 1]);

            // reduce + bcast: at most 2⌈log2 P⌉, exactly that for powers of two
            SchedulePlayer.Stats rb = run(REDUCE_BCAST, MATMUL, n, 3, false, 1);
            int rounds = AlgorithmCheck.max(rb.rounds());
            assertTrue(rounds <= 2 * Blocks.ceilLog2(n) && (n != p2 || rounds == 2 * log), "reduce-bcast P=" + n);
        }
    }
}
