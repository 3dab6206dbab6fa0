package io.tutti.coll;

import io.tutti.coll.algo.BinomialReduce;
import io.tutti.coll.algo.ChainReduce;
import io.tutti.coll.algo.RabenseifnerReduce;
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

/** Every reduce builder, to every root, in place and not, against a sequential reference. */
class ReduceAlgorithmsTest {
    interface Builder {
        Schedule build(int rank, int size, long bytes, int extent, int root, boolean inPlace, boolean commutative);
    }

    /** {@code a}'s schedules with parameters {@code p}. */
    static Builder of(ScheduleAlgorithm a, Params p) {
        return (r, n, b, e, root, ip, c) -> a.build(CollectiveCall.reduce(b, e, root, ip, c), r, n, p);
    }

    static final Builder BINOMIAL = of(new BinomialReduce(), Params.DEFAULT);
    static final Builder CHAIN = of(new ChainReduce(), Params.DEFAULT.withSegment(64));
    static final Builder RABENSEIFNER = of(new RabenseifnerReduce(), Params.DEFAULT);

    static void check(Builder algorithm, Op op) {
        for (int n : AlgorithmCheck.SIZES) {
            long[] counts = n <= 17 ? new long[] {0, 1, 5} : new long[] {3};
            for (int root = 0; root < n; root += n <= 17 ? 1 : n / 3) {
                for (long elements : counts) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        for (long seed = 0; seed < AlgorithmCheck.seeds(n) - (n > 5 ? 1 : 0); seed++) {
                            run(algorithm, op, n, elements, root, inPlace, seed);
                        }
                    }
                }
            }
        }
    }

    static SchedulePlayer.Stats run(Builder algorithm, Op op, int n, long elements, int root, boolean inPlace,
                                    long seed) {
        Random rnd = new Random(seed * 131 + n * 7 + elements + root * 1000L);
        long bytes = elements * op.extent;
        long[][] d = new long[n][];
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            d[r] = op.data(rnd, elements);
            boolean ip = inPlace && r == root;
            send[r] = ip ? null : AlgorithmCheck.seg(d[r]);
            // non-roots have no receive buffer
            recv[r] = r != root ? null : AlgorithmCheck.seg(ip ? d[r] : new long[d[r].length]);
        }
        Schedule[] s = AlgorithmCheck.schedules(n, r -> algorithm.build(r, n, bytes, op.extent, root,
                inPlace && r == root, op.commutative));
        SchedulePlayer.Stats stats = AlgorithmCheck.play(s, send, recv, op, seed);
        assertArrayEquals(op.fold(d, 0, n - 1), AlgorithmCheck.longs(recv[root]), s[root].name() + " P=" + n
                + " elements=" + elements + " inPlace=" + inPlace + " root " + root);
        return stats;
    }

    @Test
    void binomialKeepsRankOrder() {
        check(BINOMIAL, MATMUL);
        check(BINOMIAL, SUM);
    }

    @Test
    void chainKeepsRankOrder() {
        check(CHAIN, MATMUL);
        check(CHAIN, SUM);
    }

    @Test
    void rabenseifner() {
        check(RABENSEIFNER, SUM);
    }

    @Test
    void invalidArgumentsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RABENSEIFNER.build(0, 4, 64, 32, 0, false, false));
        assertTrue(e.getMessage().contains("commutative"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BINOMIAL.build(0, 4, 64, 32, 4, false, true));
        assertThrows(IllegalArgumentException.class,
                () -> of(new ChainReduce(), Params.DEFAULT.withSegment(-5)).build(0, 4, 64, 32, 0, false, true));
    }

    @Test
    void trafficMatchesTheCostModel() {
        for (int n : new int[] {2, 3, 4, 5, 7, 8, 12, 16, 17}) {
            int root = n - 1;
            int log = Blocks.ceilLog2(n);
            boolean pow2 = Integer.bitCount(n) == 1;
            SchedulePlayer.Stats bc = run(BINOMIAL, SUM, n, 4, root, false, 0);
            int rounds = AlgorithmCheck.max(bc.rounds());
            assertTrue(rounds <= log && (!pow2 || rounds == log), "binomial rounds P=" + n);
            SchedulePlayer.Stats bn = run(BINOMIAL, MATMUL, n, 4, root, false, 0);
            rounds = AlgorithmCheck.max(bn.rounds());
            assertTrue(rounds <= log + 1 && (!pow2 || rounds == log + 1), "non-commutative binomial rounds P=" + n);
            for (int r = 0; r < n; r++) {
                assertEquals(r == root ? 0 : 32, bc.bytesSent()[r]);
            }

            // chain: 10 elements of 32 B in segments of 64 B: P - 1 + 4 hops (+1 to forward to the root)
            SchedulePlayer.Stats cn = run(CHAIN, MATMUL, n, 10, root, false, 0);
            assertEquals(n - 1 + 4 + 1, AlgorithmCheck.max(cn.rounds()), "chain rounds P=" + n);
            assertEquals(320, AlgorithmCheck.max(cn.bytesSent()));
            SchedulePlayer.Stats cc = run(CHAIN, SUM, n, 40, root, false, 0);
            assertEquals(n - 1 + 4, AlgorithmCheck.max(cc.rounds()), "commutative chain rounds P=" + n);

            int p2 = Integer.highestOneBit(n);
            long elements = 2L * p2;
            SchedulePlayer.Stats rab = run(RABENSEIFNER, SUM, n, elements, root, false, 0);
            int lg = Integer.numberOfTrailingZeros(p2);
            assertEquals(2 * lg + (n == p2 ? 0 : 1), AlgorithmCheck.max(rab.rounds()), "rabenseifner rounds P=" + n);
            assertTrue(AlgorithmCheck.max(rab.bytesSent()) <= 2 * 8 * elements, "rabenseifner bytes P=" + n);
        }
    }
}
