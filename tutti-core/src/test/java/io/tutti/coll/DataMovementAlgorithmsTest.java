package io.tutti.coll;

import io.tutti.coll.algo.BinomialGather;
import io.tutti.coll.algo.BinomialScatter;
import io.tutti.coll.algo.BruckAllgather;
import io.tutti.coll.algo.BruckAlltoall;
import io.tutti.coll.algo.ButterflyBarrier;
import io.tutti.coll.algo.DisseminationBarrier;
import io.tutti.coll.algo.LinearAlltoall;
import io.tutti.coll.algo.LinearGather;
import io.tutti.coll.algo.LinearScatter;
import io.tutti.coll.algo.SequentialGather;
import io.tutti.coll.algo.SequentialScatter;
import io.tutti.coll.algo.PairwiseAlltoall;
import io.tutti.coll.algo.RecursiveDoublingAllgather;
import io.tutti.coll.algo.RingAllgather;
import io.tutti.coll.algo.SlotsBarrier;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.TreeBarrier;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Gather, scatter, allgather, alltoall and barrier builders, played for every group size in
 * {@link AlgorithmCheck#SIZES}: random uneven blocks (zeros included) at random, permuted
 * displacements, every root, in place and not; results against a sequential reference, and the
 * traffic each algorithm's Javadoc promises.
 */
class DataMovementAlgorithmsTest {
    interface Rooted {
        Schedule build(int rank, int size, long[] bytes, long[] displs, int root, boolean inPlace);
    }

    interface Gathering {
        Schedule build(int rank, int size, long[] bytes, long[] displs, boolean inPlace);
    }

    interface Exchanging {
        Schedule build(int rank, int size, long[] sb, long[] sd, long[] rb, long[] rd, boolean inPlace);
    }

    static Rooted gather(ScheduleAlgorithm a) {
        return (r, n, bytes, displs, root, ip) -> a.build(CollectiveCall.gather(bytes, displs, root, ip), r, n);
    }

    static Rooted scatter(ScheduleAlgorithm a) {
        return (r, n, bytes, displs, root, ip) -> a.build(CollectiveCall.scatter(bytes, displs, root, ip), r, n);
    }

    static Gathering allgather(ScheduleAlgorithm a) {
        return (r, n, bytes, displs, ip) -> a.build(CollectiveCall.allgather(bytes, displs, ip), r, n);
    }

    static Exchanging alltoall(ScheduleAlgorithm a) {
        return (r, n, sb, sd, rb, rd, ip) -> a.build(CollectiveCall.alltoall(sb, sd, rb, rd, ip), r, n);
    }

    static long[] blocks(Random rnd, int n, boolean even) {
        long[] b = new long[n];
        long e = rnd.nextInt(4) * 8L;
        for (int r = 0; r < n; r++) {
            b[r] = even ? e : rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(40);
        }
        return b;
    }

    /** Displacements laying the blocks out in a random order with random gaps. */
    static long[] displs(Random rnd, long[] blocks) {
        List<Integer> order = new ArrayList<>();
        for (int r = 0; r < blocks.length; r++) {
            order.add(r);
        }
        Collections.shuffle(order, rnd);
        long[] d = new long[blocks.length];
        long at = 0;
        for (int r : order) {
            at += rnd.nextInt(3);
            d[r] = at;
            at += blocks[r];
        }
        return d;
    }

    static long end(long[] blocks, long[] displs) {
        long e = 0;
        for (int r = 0; r < blocks.length; r++) {
            e = Math.max(e, displs[r] + blocks[r]);
        }
        return e;
    }

    static byte value(int owner, int dest, long i) {
        return (byte) (owner * 31 + dest * 7 + i * 13 + 1);
    }

    static MemorySegment seg(long bytes) {
        return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
    }

    static void checkBlock(MemorySegment s, long at, long len, int owner, int dest, String what) {
        for (long i = 0; i < len; i++) {
            assertEquals(value(owner, dest, i), s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i),
                    what + " byte " + i);
        }
    }

    static void fill(MemorySegment s, long at, long len, int owner, int dest) {
        for (long i = 0; i < len; i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i, value(owner, dest, i));
        }
    }

    void gathers(String name, Rooted builder, boolean evenOnly) {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n);
            for (int root = 0; root < n; root += n <= 9 ? 1 : n / 3) {
                for (int seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        long[] bytes = blocks(rnd, n, evenOnly);
                        long[] displs = displs(rnd, bytes);
                        Schedule[] s = new Schedule[n];
                        MemorySegment[] send = new MemorySegment[n];
                        MemorySegment[] recv = new MemorySegment[n];
                        for (int r = 0; r < n; r++) {
                            s[r] = builder.build(r, n, bytes, displs, root, inPlace && r == root);
                            send[r] = seg(bytes[r]);
                            fill(send[r], 0, bytes[r], r, root);
                            recv[r] = r == root ? seg(end(bytes, displs)) : MemorySegment.NULL;
                        }
                        if (inPlace) {
                            fill(recv[root], displs[root], bytes[root], root, root);
                        }
                        SchedulePlayer.Stats st = SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(),
                                seed);
                        for (int q = 0; q < n; q++) {
                            checkBlock(recv[root], displs[q], bytes[q], q, root, name + " n " + n + " root " + root
                                    + " block " + q);
                        }
                        assertEquals(n - 1, java.util.Arrays.stream(st.messagesSent()).sum(), name + " messages");
                    }
                }
            }
        }
    }

    void scatters(String name, Rooted builder, boolean evenOnly) {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n * 3L);
            for (int root = 0; root < n; root += n <= 9 ? 1 : n / 3) {
                for (int seed = 0; seed < AlgorithmCheck.seeds(n); seed++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        long[] bytes = blocks(rnd, n, evenOnly);
                        long[] displs = displs(rnd, bytes);
                        Schedule[] s = new Schedule[n];
                        MemorySegment[] send = new MemorySegment[n];
                        MemorySegment[] recv = new MemorySegment[n];
                        for (int r = 0; r < n; r++) {
                            s[r] = builder.build(r, n, bytes, displs, root, inPlace && r == root);
                            send[r] = r == root ? seg(end(bytes, displs)) : MemorySegment.NULL;
                            recv[r] = seg(bytes[r]);
                        }
                        for (int q = 0; q < n; q++) {
                            fill(send[root], displs[q], bytes[q], root, q);
                        }
                        SchedulePlayer.Stats st = SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(),
                                seed);
                        for (int q = 0; q < n; q++) {
                            if (!(inPlace && q == root)) {
                                checkBlock(recv[q], 0, bytes[q], root, q, name + " n " + n + " root " + root + " at "
                                        + q);
                            }
                        }
                        assertEquals(n - 1, java.util.Arrays.stream(st.messagesSent()).sum(), name + " messages");
                    }
                }
            }
        }
    }

    void allgathers(String name, Gathering builder) {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n * 5L);
            for (int seed = 0; seed < AlgorithmCheck.seeds(n) + 1; seed++) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    long[] bytes = blocks(rnd, n, seed == 0);
                    long[] displs = displs(rnd, bytes);
                    Schedule[] s = new Schedule[n];
                    MemorySegment[] send = new MemorySegment[n];
                    MemorySegment[] recv = new MemorySegment[n];
                    for (int r = 0; r < n; r++) {
                        s[r] = builder.build(r, n, bytes, displs, inPlace);
                        send[r] = seg(bytes[r]);
                        fill(send[r], 0, bytes[r], r, 0);
                        recv[r] = seg(end(bytes, displs));
                        if (inPlace) {
                            fill(recv[r], displs[r], bytes[r], r, 0);
                        }
                    }
                    SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(), seed);
                    for (int r = 0; r < n; r++) {
                        for (int q = 0; q < n; q++) {
                            checkBlock(recv[r], displs[q], bytes[q], q, 0, name + " n " + n + " at " + r + " block "
                                    + q);
                        }
                    }
                }
            }
        }
    }

    void alltoalls(String name, Exchanging builder, boolean evenOnly) {
        for (int n : AlgorithmCheck.SIZES) {
            Random rnd = new Random(n * 7L);
            for (int seed = 0; seed < AlgorithmCheck.seeds(n) + 1; seed++) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    boolean even = evenOnly || inPlace || seed == 0;
                    long[][] size = new long[n][n]; // size[p][q]: from p to q
                    long e = rnd.nextInt(3) * 8L;
                    for (int p = 0; p < n; p++) {
                        for (int q = 0; q < n; q++) {
                            size[p][q] = even ? e : rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(30);
                        }
                    }
                    Schedule[] s = new Schedule[n];
                    MemorySegment[] send = new MemorySegment[n];
                    MemorySegment[] recv = new MemorySegment[n];
                    long[][] rb = new long[n][];
                    long[][] rd = new long[n][];
                    for (int r = 0; r < n; r++) {
                        long[] sb = size[r].clone();
                        rb[r] = new long[n];
                        for (int q = 0; q < n; q++) {
                            rb[r][q] = size[q][r];
                        }
                        long[] sd = inPlace ? null : displs(rnd, sb);
                        rd[r] = displs(rnd, rb[r]);
                        if (inPlace) {
                            sd = rd[r];
                        }
                        s[r] = builder.build(r, n, sb, sd, rb[r], rd[r], inPlace);
                        send[r] = inPlace ? MemorySegment.NULL : seg(end(sb, sd));
                        recv[r] = seg(end(rb[r], rd[r]));
                        for (int q = 0; q < n; q++) {
                            fill(inPlace ? recv[r] : send[r], sd[q], sb[q], r, q);
                        }
                    }
                    SchedulePlayer.Stats st = SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(),
                            seed);
                    for (int r = 0; r < n; r++) {
                        for (int q = 0; q < n; q++) {
                            checkBlock(recv[r], rd[r][q], rb[r][q], q, r, name + " n " + n + " at " + r + " from " + q);
                        }
                    }
                    if (!name.contains("bruck")) {
                        for (int r = 0; r < n; r++) {
                            assertEquals(n - 1, st.messagesSent()[r], name + " messages of rank " + r);
                        }
                    }
                }
            }
        }
    }

    @Test
    void gatherAndScatter() {
        gathers("gather/linear", gather(new LinearGather()), false);
        gathers("gather/binomial", gather(new BinomialGather()), false);
        scatters("scatter/linear", scatter(new LinearScatter()), false);
        scatters("scatter/binomial", scatter(new BinomialScatter()), false);
        gathers("gather/sequential", gather(new SequentialGather()), false);
        scatters("scatter/sequential", scatter(new SequentialScatter()), false);
    }

    /** MPICH 1.x's loops: the root's messages in rank order, each step waiting for the one before. */
    @Test
    void theSequentialRootTakesOnePeerAtATimeInRankOrder() {
        long[] bytes = {64, 64, 64, 64, 64};
        long[] displs = {0, 64, 128, 192, 256};
        for (boolean gather : new boolean[] {false, true}) {
            ScheduleAlgorithm a = gather ? new SequentialGather() : new SequentialScatter();
            CollectiveCall call = gather ? CollectiveCall.gather(bytes, displs, 2, false)
                    : CollectiveCall.scatter(bytes, displs, 2, false);
            Schedule root = a.build(call, 2, 5);
            java.util.List<Integer> peers = new java.util.ArrayList<>();
            for (int i = 0; i < root.steps(); i++) {
                if (root.kind(i) == Schedule.SEND || root.kind(i) == Schedule.RECV) {
                    peers.add(root.peer(i));
                }
                if (i > 0) {
                    assertArrayEquals(new int[] {i - 1}, root.dependencies(i), a.name() + " step " + i);
                }
            }
            assertEquals(java.util.List.of(0, 1, 3, 4), peers, a.name());
        }
    }

    @Test
    void allgather() {
        allgathers("allgather/ring", allgather(new RingAllgather()));
        allgathers("allgather/recursive-doubling", allgather(new RecursiveDoublingAllgather()));
        allgathers("allgather/bruck", allgather(new BruckAllgather()));
    }

    @Test
    void alltoall() {
        alltoalls("alltoall/pairwise", alltoall(new PairwiseAlltoall()), false);
        alltoalls("alltoall/linear", alltoall(new LinearAlltoall()), false);
        alltoalls("alltoall/bruck", alltoall(new BruckAlltoall()), true);
        assertThrows(IllegalArgumentException.class,
                () -> alltoall(new BruckAlltoall()).build(0, 2, new long[] {8, 16}, new long[] {0, 8},
                        new long[] {8, 8}, new long[] {0, 8}, false));
    }

    @Test
    void bruckAllgatherTakesCeilLog2Rounds() {
        for (int n : AlgorithmCheck.SIZES) {
            Schedule[] s = new Schedule[n];
            long[] bytes = new long[n];
            java.util.Arrays.fill(bytes, 8);
            long[] displs = new long[n];
            java.util.Arrays.setAll(displs, r -> 8L * r);
            MemorySegment[] send = new MemorySegment[n];
            MemorySegment[] recv = new MemorySegment[n];
            for (int r = 0; r < n; r++) {
                s[r] = allgather(new BruckAllgather()).build(r, n, bytes, displs, false);
                send[r] = seg(8);
                recv[r] = seg(8L * n);
            }
            SchedulePlayer.Stats st = SchedulePlayer.play(s, send, recv, AlgorithmCheck.Op.SUM.combiner(), 1);
            int log = 32 - Integer.numberOfLeadingZeros(n - 1);
            for (int r = 0; r < n; r++) {
                assertEquals(log, st.messagesSent()[r], "messages of rank " + r + " of " + n);
                assertEquals(8L * (n - 1), st.bytesSent()[r], "bytes of rank " + r + " of " + n);
            }
        }
    }

    @Test
    void barriers() {
        for (int n : AlgorithmCheck.SIZES) {
            for (String which : new String[] {"dissemination", "butterfly", "tree", "slots"}) {
                Schedule[] s = new Schedule[n];
                MemorySegment[] none = new MemorySegment[n];
                for (int r = 0; r < n; r++) {
                    ScheduleAlgorithm a = switch (which) {
                        case "dissemination" -> new DisseminationBarrier();
                        case "butterfly" -> new ButterflyBarrier();
                        case "slots" -> new SlotsBarrier();
                        default -> new TreeBarrier();
                    };
                    s[r] = a.build(CollectiveCall.barrier(), r, n);
                }
                SchedulePlayer.Stats st = SchedulePlayer.play(s, none, none, AlgorithmCheck.Op.SUM.combiner(), n);
                long messages = java.util.Arrays.stream(st.messagesSent()).sum();
                if (which.equals("tree")) {
                    assertEquals(2L * (n - 1), messages, "tree barrier messages for " + n);
                }
                assertTrue(BarrierOrder.everyExitAfterEveryEntry(s), which + " barrier of " + n
                        + " lets a rank leave before another entered");
            }
        }
    }
}
