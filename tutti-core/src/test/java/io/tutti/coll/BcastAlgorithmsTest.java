package io.tutti.coll;

import io.tutti.coll.algo.BinomialBcast;
import io.tutti.coll.algo.ChainBcast;
import io.tutti.coll.algo.KaryBcast;
import io.tutti.coll.algo.ScatterAllgatherBcast;
import io.tutti.coll.algo.Trinaryx3Bcast;
import io.tutti.coll.algo.Blocks;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Every broadcast builder, from every root, for sizes that do and do not divide evenly. */
class BcastAlgorithmsTest {
    interface Builder {
        Schedule build(int rank, int size, long bytes, int root);
    }

    /** {@code a}'s schedules with parameters {@code p}. */
    static Builder of(ScheduleAlgorithm a, Params p) {
        return (r, n, bytes, root) -> a.build(CollectiveCall.bcast(bytes, root), r, n, p);
    }

    static Builder kary(int k) {
        return of(new KaryBcast(), Params.DEFAULT.withKary(k));
    }

    static Builder segmented(ScheduleAlgorithm a, long segment) {
        return of(a, Params.DEFAULT.withSegment(segment));
    }

    static final Builder BINOMIAL = of(new BinomialBcast(), Params.DEFAULT);
    static final Builder BINARY = kary(2);
    static final Builder TERNARY = kary(3);
    static final Builder CHAIN = segmented(new ChainBcast(), 7);
    static final Builder TRINARYX3 = segmented(new Trinaryx3Bcast(), 5);
    static final Builder SCATTER_ALLGATHER = of(new ScatterAllgatherBcast(), Params.DEFAULT);

    static void check(Builder algorithm) {
        for (int n : AlgorithmCheck.SIZES) {
            long[] lengths = n <= 17 ? new long[] {0, 1, 2, 29, 3L * n + 1} : new long[] {1, 4L * n + 5};
            for (int root = 0; root < n; root += n <= 17 ? 1 : n / 3) {
                for (long bytes : lengths) {
                    for (long seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                        run(algorithm, n, bytes, root, seed);
                    }
                }
            }
        }
    }

    static SchedulePlayer.Stats run(Builder algorithm, int n, long bytes, int root, long seed) {
        byte[] data = new byte[(int) bytes];
        new Random(seed + 97L * n + bytes).nextBytes(data);
        MemorySegment[] recv = new MemorySegment[n];
        MemorySegment[] send = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            byte[] junk = new byte[(int) bytes];
            Arrays.fill(junk, (byte) 0x5A);
            recv[r] = MemorySegment.ofArray(r == root ? data.clone() : junk);
        }
        Schedule[] s = AlgorithmCheck.schedules(n, r -> algorithm.build(r, n, bytes, root));
        SchedulePlayer.Stats stats = SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(), seed);
        for (int r = 0; r < n; r++) {
            assertArrayEquals(data, recv[r].toArray(ValueLayout.JAVA_BYTE), s[r].name() + " P=" + n + " bytes="
                    + bytes + " root " + root + " rank " + r);
        }
        return stats;
    }

    @Test
    void binomial() {
        check(BINOMIAL);
    }

    @Test
    void kary() {
        check(BINARY);
        check(TERNARY);
    }

    @Test
    void chain() {
        check(CHAIN);
    }

    @Test
    void trinaryx3() {
        check(TRINARYX3);
    }

    @Test
    void scatterAllgather() {
        check(SCATTER_ALLGATHER);
    }

    @Test
    void trafficMatchesTheCostModel() {
        for (int n : new int[] {2, 3, 4, 5, 6, 7, 8, 11, 13, 16, 17, 31, 32}) {
            int root = n / 2;
            int log = 31 - Integer.numberOfLeadingZeros(n);
            SchedulePlayer.Stats bin = run(BINOMIAL, n, 10, root, 0);
            assertEquals(log, AlgorithmCheck.max(bin.rounds()), "binomial: a chain of ⌊log2 P⌋ messages, P=" + n);
            assertEquals(10L * Blocks.ceilLog2(n), bin.bytesSent()[root], "binomial root sends ⌈log2 P⌉ copies");

            for (int k = 2; k <= 4; k++) {
                int height = 0;
                for (long covered = 1, level = 1; covered < n; height++) {
                    level *= k;
                    covered += level;
                }
                SchedulePlayer.Stats kary = run(kary(k), n, 10, root, 0);
                assertEquals(height, AlgorithmCheck.max(kary.rounds()), k + "-ary height, P=" + n);
                assertTrue(AlgorithmCheck.max(kary.messagesSent()) <= k);
            }

            // chain: 70 bytes in segments of 7: P - 1 + 9 hops, n bytes per rank but the last
            SchedulePlayer.Stats chain = run(CHAIN, n, 70, root, 0);
            assertEquals(n - 1 + 9, AlgorithmCheck.max(chain.rounds()), "chain rounds P=" + n);
            assertEquals(70L * (n - 1), AlgorithmCheck.sum(chain.bytesSent()));
            assertEquals(70, AlgorithmCheck.max(chain.bytesSent()));

            // trinaryx3: every non-root forwards at most three copies of one part
            long bytes = 3 * 40 + 2;
            SchedulePlayer.Stats tri = run(TRINARYX3, n, bytes, root, 0);
            long part = (bytes + 2) / 3;
            long segsPerPart = (part + 4) / 5;
            for (int r = 0; r < n; r++) {
                if (r != root) {
                    assertTrue(tri.bytesSent()[r] <= 3 * part, "trinaryx3 rank " + r + " sends "
                            + tri.bytesSent()[r] + " B, P=" + n);
                    assertTrue(tri.messagesSent()[r] <= 3 * segsPerPart);
                }
            }
            assertTrue(tri.bytesSent()[root] <= bytes + part, "trinaryx3 root, P=" + n);
            assertEquals(bytes * (n - 1), AlgorithmCheck.sum(tri.bytesSent()), "every rank receives n bytes once");

            // scatter + ring allgather: no rank sends more than 2n
            SchedulePlayer.Stats sa = run(SCATTER_ALLGATHER, n, 10L * n, root, 0);
            assertTrue(AlgorithmCheck.max(sa.bytesSent()) <= 2 * (10L * n) * (n - 1) / n, "scatter-allgather, P=" + n);
            assertTrue(AlgorithmCheck.max(sa.rounds()) <= Blocks.ceilLog2(n) + n - 1);
        }
    }

    @Test
    void trinaryx3TreesShareTheForwarding() {
        for (int n = 2; n <= 70; n++) {
            for (int root : new int[] {0, n / 2}) {
                for (int r = 0; r < n; r++) {
                    Schedule s = segmented(new Trinaryx3Bcast(), 10).build(r, n, 99, root);
                    java.util.Set<Integer> sendTags = new java.util.HashSet<>();
                    java.util.Map<Integer, Integer> parentOfTree = new java.util.HashMap<>();
                    for (int i = 0; i < s.steps(); i++) {
                        if (s.kind(i) == Schedule.SEND) {
                            sendTags.add(s.tag(i));
                        } else if (s.kind(i) == Schedule.RECV) {
                            parentOfTree.put(s.tag(i), s.peer(i));
                        }
                    }
                    if (r != root) {
                        assertTrue(sendTags.size() <= 1, "rank " + r + " forwards in several trees, P=" + n);
                        assertEquals(3, parentOfTree.size());
                        if (n >= 4 && n != 6) {
                            assertEquals(3, new java.util.HashSet<>(parentOfTree.values()).size(),
                                    "rank " + r + " has three different upstream ranks, P=" + n);
                        }
                    }
                }
            }
        }
    }

    @Test
    void invalidArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> kary(1).build(0, 4, 8, 0));
        assertThrows(IllegalArgumentException.class, () -> segmented(new ChainBcast(), 0).build(0, 4, 8, 0));
        assertThrows(IllegalArgumentException.class, () -> segmented(new Trinaryx3Bcast(), 8).build(0, 4, 8, 4));
        assertThrows(IllegalArgumentException.class, () -> BINOMIAL.build(0, 4, -1, 0));
    }
}
