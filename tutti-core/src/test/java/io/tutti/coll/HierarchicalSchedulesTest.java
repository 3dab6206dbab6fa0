package io.tutti.coll;

import io.tutti.coll.algo.LeadersAllreduce;
import io.tutti.coll.algo.LeadersBarrier;
import io.tutti.coll.algo.LeadersBcast;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.Topology;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Node- and socket-leader schedules played over random domain layouts: contiguous blocks of ranks
 * (the usual placement) and interleaved ones, against sequential references; rank order kept for
 * a non-commutative operation on contiguous domains, and refused on interleaved ones.
 */
class HierarchicalSchedulesTest {
    /** Contiguous domains of random sizes. */
    static int[] blocks(Random rnd, int n) {
        int[] d = new int[n];
        int domain = 0;
        for (int r = 1; r < n; r++) {
            if (rnd.nextInt(3) == 0) {
                domain++;
            }
            d[r] = domain;
        }
        return d;
    }

    /** Round-robin domains. */
    static int[] interleaved(int n, int k) {
        int[] d = new int[n];
        for (int r = 0; r < n; r++) {
            d[r] = r % k;
        }
        return d;
    }

    /** Node leaders over {@code domains} as the ranks' nodes. */
    static Params nodes(int[] domains) {
        return Params.DEFAULT.withTopology(new Topology(domains, new int[domains.length], false));
    }

    @Test
    void allreduceMatchesTheReference() {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n);
            for (int seed = 0; seed < AlgorithmCheck.seeds(n) + 1; seed++) {
                for (AlgorithmCheck.Op op : AlgorithmCheck.Op.values()) {
                    int[] domains = op.commutative && seed % 2 == 1 ? interleaved(n, 1 + rnd.nextInt(3)) : blocks(rnd, n);
                    for (boolean inPlace : new boolean[] {false, true}) {
                        long elements = rnd.nextInt(5);
                        long bytes = elements * op.extent;
                        long[][] data = new long[n][];
                        MemorySegment[] send = new MemorySegment[n];
                        MemorySegment[] recv = new MemorySegment[n];
                        for (int r = 0; r < n; r++) {
                            data[r] = op.data(rnd, elements);
                            send[r] = inPlace ? null : AlgorithmCheck.seg(data[r]);
                            recv[r] = inPlace ? AlgorithmCheck.seg(data[r]) : MemorySegment.ofArray(new long[data[r].length]);
                        }
                        Schedule[] s = AlgorithmCheck.schedules(n, r -> new LeadersAllreduce(false).build(
                                CollectiveCall.allreduce(bytes, op.extent, inPlace, op.commutative), r, n,
                                nodes(domains)));
                        AlgorithmCheck.play(s, send, recv, op, seed);
                        long[] expected = op.fold(data, 0, n - 1);
                        for (int r = 0; r < n; r++) {
                            assertArrayEquals(expected, AlgorithmCheck.longs(recv[r]), "n " + n + " " + op + " rank " + r
                                    + " domains " + java.util.Arrays.toString(domains));
                        }
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new LeadersAllreduce(false).build(
                CollectiveCall.allreduce(32, 32, false, false), 0, 4, nodes(interleaved(4, 2))));
    }

    @Test
    void bcastFromEveryRootAndBarrierOrder() {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n * 11L);
            int[] domains = rnd.nextBoolean() ? blocks(rnd, n) : interleaved(n, 1 + rnd.nextInt(4));
            for (int root = 0; root < n; root += n <= 9 ? 1 : n / 4) {
                int rt = root;
                long[] payload = AlgorithmCheck.Op.SUM.data(rnd, 3);
                MemorySegment[] buf = new MemorySegment[n];
                for (int r = 0; r < n; r++) {
                    buf[r] = r == root ? AlgorithmCheck.seg(payload) : MemorySegment.ofArray(new long[3]);
                }
                Schedule[] s = AlgorithmCheck.schedules(n, r -> new LeadersBcast(false).build(
                        CollectiveCall.bcast(24, rt), r, n, nodes(domains)));
                SchedulePlayer.play(s, buf, buf, AlgorithmCheck.Op.SUM.combiner(), root);
                for (int r = 0; r < n; r++) {
                    assertArrayEquals(payload, AlgorithmCheck.longs(buf[r]), "bcast n " + n + " root " + root);
                }
            }
            Schedule[] b = AlgorithmCheck.schedules(n, r -> new LeadersBarrier(false).build(CollectiveCall.barrier(), r,
                    n, nodes(domains)));
            SchedulePlayer.play(b, new MemorySegment[n], new MemorySegment[n], AlgorithmCheck.Op.SUM.combiner(), 1);
            assertTrue(BarrierOrder.everyExitAfterEveryEntry(b), "leader barrier of " + n);
        }
    }

    @Test
    void theBarrierCheckCanFail() {
        // rank 0 signals rank 1 only: rank 0 may leave before rank 1 entered
        ScheduleBuilder a = new ScheduleBuilder("t", 0, 2);
        a.send(1, 0, Schedule.RECV_BUFFER, 0, 0);
        ScheduleBuilder b = new ScheduleBuilder("t", 1, 2);
        b.recv(0, 0, Schedule.RECV_BUFFER, 0, 0);
        assertFalse(BarrierOrder.everyExitAfterEveryEntry(new Schedule[] {a.build(), b.build()}));
    }
}
