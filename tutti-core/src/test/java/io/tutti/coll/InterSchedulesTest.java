package io.tutti.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Intercommunicator;
import io.tutti.coll.AlgorithmCheck.Op;
import io.tutti.coll.algo.InterSchedules;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Schedule;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Every intercommunicator schedule, played for both groups at once on groups of 1 to 3 ranks each,
 * every root, regular and v-forms with random block sizes and displacements with gaps, against what
 * MPI says each rank holds after the call. Group A's ranks are players 0..a-1, group B's a..a+b-1
 * (B's schedules are built with the remote group first).
 */
class InterSchedulesTest {
    private static final long FILL = 0x5A5A5A5A5A5A5A5AL;

    /** Two groups of {@code a} and {@code b} ranks; player p's group and local rank. */
    private record Groups(int a, int b) {
        int n() {
            return a + b;
        }

        boolean inA(int p) {
            return p < a;
        }

        int local(int p) {
            return inA(p) ? p : p - a;
        }

        int localSize(int p) {
            return inA(p) ? a : b;
        }

        int remoteSize(int p) {
            return inA(p) ? b : a;
        }

        /** Player of remote rank q, seen from p. */
        int remote(int p, int q) {
            return inA(p) ? a + q : q;
        }

        Schedule[] schedules(IntFunction<CollectiveCall> call) {
            Schedule[] s = new Schedule[n()];
            for (int p = 0; p < n(); p++) {
                s[p] = InterSchedules.build(call.apply(p), local(p), localSize(p), remoteSize(p), inA(p));
            }
            return s;
        }
    }

    private static void forEachShape(ShapeCheck check) {
        for (int a = 1; a <= 3; a++) {
            for (int b = 1; b <= 3; b++) {
                for (long seed = 0; seed < 3; seed++) {
                    check.run(new Groups(a, b), new Random(seed * 31 + a * 7 + b), seed);
                }
            }
        }
    }

    private interface ShapeCheck {
        void run(Groups g, Random rnd, long seed);
    }

    private static long[] data(Random rnd, int longs) {
        return rnd.longs(longs).toArray();
    }

    private static long[] filled(int longs) {
        long[] x = new long[longs];
        Arrays.fill(x, FILL);
        return x;
    }

    private static CollectiveCall call(Kind kind, long bytes, int root, long[] blocks, long[] displs, long[] sendBlocks,
                                       long[] sendDispls, boolean vector, int extent, boolean commutative) {
        return new CollectiveCall(kind, bytes, extent, root, false, commutative, blocks, displs, sendBlocks, sendDispls,
                vector);
    }

    /** The root argument player p passes when the root is player {@code root}. */
    private static int rootArg(Groups g, int p, int root) {
        if (g.inA(p) == g.inA(root)) {
            return p == root ? Intercommunicator.ROOT : Intercommunicator.PROC_NULL;
        }
        return g.local(root);
    }

    @Test
    void barrierReleasesNoRankBeforeEveryRankOfBothGroupsEntered() {
        forEachShape((g, rnd, seed) -> {
            Schedule[] s = g.schedules(p -> call(Kind.BARRIER, 0, 0, null, null, null, null, false, 1, true));
            assertTrue(BarrierOrder.everyExitAfterEveryEntry(s), "barrier of " + g);
            SchedulePlayer.play(s, new MemorySegment[g.n()], new MemorySegment[g.n()], Op.SUM.combiner(), seed);
        });
    }

    @Test
    void bcastReachesTheOtherGroupOnly() {
        forEachShape((g, rnd, seed) -> {
            for (int root = 0; root < g.n(); root++) {
                int len = rnd.nextInt(4);
                long[] msg = data(rnd, len);
                MemorySegment[] buf = new MemorySegment[g.n()];
                for (int p = 0; p < g.n(); p++) {
                    buf[p] = MemorySegment.ofArray(p == root ? msg.clone() : filled(len));
                }
                int r = root;
                Schedule[] s = g.schedules(p -> call(Kind.BCAST, 8L * len, rootArg(g, p, r), null, null, null, null,
                        false, 1, true));
                SchedulePlayer.play(s, buf, buf, Op.SUM.combiner(), seed);
                for (int p = 0; p < g.n(); p++) {
                    long[] want = g.inA(p) == g.inA(root) && p != root ? filled(len) : msg;
                    assertArrayEquals(want, AlgorithmCheck.longs(buf[p]), "bcast " + g + " root " + root + " at " + p);
                }
            }
        });
    }

    /** Every player's random input vector of {@code elements} and a receive buffer of {@code recvLongs} filled. */
    private record Inputs(long[][] d, MemorySegment[] send, MemorySegment[] recv) {
        static Inputs of(Groups g, Op op, Random rnd, int elements, java.util.function.IntUnaryOperator recvLongs) {
            Inputs in = new Inputs(new long[g.n()][], new MemorySegment[g.n()], new MemorySegment[g.n()]);
            for (int p = 0; p < g.n(); p++) {
                in.d[p] = op.data(rnd, elements);
                in.send[p] = AlgorithmCheck.seg(in.d[p]);
                in.recv[p] = MemorySegment.ofArray(filled(recvLongs.applyAsInt(p)));
            }
            return in;
        }
    }

    @Test
    void reduceGivesTheRootTheRemoteGroupsReductionInRankOrder() {
        forEachShape((g, rnd, seed) -> {
            for (Op op : Op.values()) {
                for (int root = 0; root < g.n(); root++) {
                    int elements = rnd.nextInt(3);
                    int len = elements * op.longs();
                    Inputs in = Inputs.of(g, op, rnd, elements, p -> len);
                    long[][] d = in.d();
                    MemorySegment[] send = in.send();
                    MemorySegment[] recv = in.recv();
                    int r = root;
                    Schedule[] s = g.schedules(p -> call(Kind.REDUCE, 8L * len, rootArg(g, p, r), null, null, null,
                            null, false, op.extent, op.commutative));
                    AlgorithmCheck.play(s, send, recv, op, seed);
                    int first = g.inA(root) ? g.a() : 0;
                    long[] want = op.fold(d, first, first + g.remoteSize(root) - 1);
                    for (int p = 0; p < g.n(); p++) {
                        assertArrayEquals(p == root ? want : filled(len), AlgorithmCheck.longs(recv[p]),
                                op + " reduce " + g + " root " + root + " at " + p);
                    }
                }
            }
        });
    }

    @Test
    void allreduceGivesEachGroupTheOthersReduction() {
        forEachShape((g, rnd, seed) -> {
            for (Op op : Op.values()) {
                int elements = rnd.nextInt(3);
                Inputs in = Inputs.of(g, op, rnd, elements, p -> elements * op.longs());
                long[][] d = in.d();
                MemorySegment[] send = in.send();
                MemorySegment[] recv = in.recv();
                Schedule[] s = g.schedules(p -> call(Kind.ALLREDUCE, 8L * elements * op.longs(), 0, null, null, null,
                        null, false, op.extent, op.commutative));
                AlgorithmCheck.play(s, send, recv, op, seed);
                long[] forA = op.fold(d, g.a(), g.n() - 1);
                long[] forB = op.fold(d, 0, g.a() - 1);
                for (int p = 0; p < g.n(); p++) {
                    assertArrayEquals(g.inA(p) ? forA : forB, AlgorithmCheck.longs(recv[p]), op + " allreduce " + g
                            + " at " + p);
                }
            }
        });
    }

    @Test
    void reduceScatterScattersTheOtherGroupsReductionByThisGroupsBlocks() {
        forEachShape((g, rnd, seed) -> {
            for (Op op : Op.values()) {
                // both groups' blocks (in elements) add up to the same vector
                int total = rnd.nextInt(5);
                int[] elements = new int[g.n()];
                for (int side = 0; side < 2; side++) {
                    int from = side == 0 ? 0 : g.a();
                    int to = side == 0 ? g.a() : g.n();
                    for (int left = total, p = from; p < to; p++) {
                        elements[p] = p == to - 1 ? left : rnd.nextInt(left + 1);
                        left -= elements[p];
                    }
                }
                Inputs in = Inputs.of(g, op, rnd, total, p -> elements[p] * op.longs());
                long[][] d = in.d();
                MemorySegment[] send = in.send();
                MemorySegment[] recv = in.recv();
                Schedule[] s = g.schedules(p -> {
                    int from = g.inA(p) ? 0 : g.a();
                    long[] blocks = new long[g.localSize(p)];
                    for (int q = 0; q < blocks.length; q++) {
                        blocks[q] = (long) op.extent * elements[from + q];
                    }
                    return call(Kind.REDUCE_SCATTER, (long) op.extent * total, 0, blocks, null, null, null, false,
                            op.extent, op.commutative);
                });
                AlgorithmCheck.play(s, send, recv, op, seed);
                long[] forA = op.fold(d, g.a(), g.n() - 1);
                long[] forB = op.fold(d, 0, g.a() - 1);
                for (int p = 0; p < g.n(); p++) {
                    int from = g.inA(p) ? 0 : g.a();
                    long at = 0;
                    for (int q = from; q < p; q++) {
                        at += elements[q];
                    }
                    long[] want = Arrays.copyOfRange(g.inA(p) ? forA : forB, (int) (at * op.longs()),
                            (int) ((at + elements[p]) * op.longs()));
                    assertArrayEquals(want, AlgorithmCheck.longs(recv[p]), op + " reduceScatter " + g + " at " + p);
                }
            }
        });
    }

    /** Block sizes (longs) of each player's own block: one size for all, or random for a v-form. */
    private static int[] sizes(Groups g, Random rnd, boolean vector) {
        int uniform = rnd.nextInt(3);
        int[] n = new int[g.n()];
        for (int p = 0; p < g.n(); p++) {
            n[p] = vector ? rnd.nextInt(4) : uniform;
        }
        return n;
    }

    /** Displacements (longs) of p's remote group's blocks {@code sizes}: shuffled order, with gaps. */
    private static long[] layout(Groups g, int p, int[] sizes, Random rnd, boolean vector) {
        int r = g.remoteSize(p);
        long[] displs = new long[r];
        long at = 0;
        for (int q = vector ? r - 1 : 0; vector ? q >= 0 : q < r; q += vector ? -1 : 1) {
            displs[q] = at;
            at += sizes[g.remote(p, q)] + (vector ? rnd.nextInt(2) : 0);
        }
        return displs;
    }

    private static long[] bytes(long[] longs) {
        return Arrays.stream(longs).map(x -> 8 * x).toArray();
    }

    private static long[] remoteBlocks(Groups g, int p, int[] sizes) {
        long[] b = new long[g.remoteSize(p)];
        for (int q = 0; q < b.length; q++) {
            b[q] = sizes[g.remote(p, q)];
        }
        return b;
    }

    private static int end(long[] blocks, long[] displs) {
        long e = 0;
        for (int q = 0; q < blocks.length; q++) {
            e = Math.max(e, displs[q] + blocks[q]);
        }
        return Math.toIntExact(e);
    }

    @Test
    void gatherAndGathervCollectTheRemoteBlocksAtTheRoot() {
        forEachShape((g, rnd, seed) -> {
            for (boolean vector : new boolean[] {false, true}) {
                for (int root = 0; root < g.n(); root++) {
                    int[] sizes = sizes(g, rnd, vector);
                    long[] blocks = remoteBlocks(g, root, sizes);
                    long[] displs = layout(g, root, sizes, rnd, vector);
                    long[][] d = new long[g.n()][];
                    MemorySegment[] send = new MemorySegment[g.n()];
                    MemorySegment[] recv = new MemorySegment[g.n()];
                    for (int p = 0; p < g.n(); p++) {
                        d[p] = data(rnd, sizes[p]);
                        send[p] = AlgorithmCheck.seg(d[p]);
                        recv[p] = MemorySegment.ofArray(filled(p == root ? end(blocks, displs) : 0));
                    }
                    int r = root;
                    Schedule[] s = g.schedules(p -> {
                        int arg = rootArg(g, p, r);
                        boolean isRoot = arg == Intercommunicator.ROOT;
                        return call(Kind.GATHER, isRoot && vector ? 0 : 8L * sizes[p], arg, isRoot && vector
                                ? bytes(blocks) : null, isRoot && vector ? bytes(displs) : null, null, null, vector, 1,
                                true);
                    });
                    AlgorithmCheck.play(s, send, recv, Op.SUM, seed);
                    long[] want = filled(end(blocks, displs));
                    for (int q = 0; q < blocks.length; q++) {
                        System.arraycopy(d[g.remote(root, q)], 0, want, (int) displs[q], (int) blocks[q]);
                    }
                    assertArrayEquals(want, AlgorithmCheck.longs(recv[root]), (vector ? "gatherv " : "gather ") + g
                            + " root " + root);
                }
            }
        });
    }

    @Test
    void scatterAndScattervHandEachRemoteRankItsBlock() {
        forEachShape((g, rnd, seed) -> {
            for (boolean vector : new boolean[] {false, true}) {
                for (int root = 0; root < g.n(); root++) {
                    int[] sizes = sizes(g, rnd, vector);
                    long[] blocks = remoteBlocks(g, root, sizes);
                    long[] displs = layout(g, root, sizes, rnd, vector);
                    long[] all = data(rnd, end(blocks, displs));
                    MemorySegment[] send = new MemorySegment[g.n()];
                    MemorySegment[] recv = new MemorySegment[g.n()];
                    for (int p = 0; p < g.n(); p++) {
                        send[p] = p == root ? AlgorithmCheck.seg(all) : null;
                        recv[p] = MemorySegment.ofArray(filled(sizes[p]));
                    }
                    int r = root;
                    Schedule[] s = g.schedules(p -> {
                        int arg = rootArg(g, p, r);
                        boolean isRoot = arg == Intercommunicator.ROOT;
                        return call(Kind.SCATTER, isRoot && vector ? 0 : 8L * sizes[p], arg, isRoot && vector
                                ? bytes(blocks) : null, isRoot && vector ? bytes(displs) : null, null, null, vector, 1,
                                true);
                    });
                    AlgorithmCheck.play(s, send, recv, Op.SUM, seed);
                    for (int p = 0; p < g.n(); p++) {
                        long[] want = filled(sizes[p]);
                        if (g.inA(p) != g.inA(root)) {
                            want = Arrays.copyOfRange(all, (int) displs[g.local(p)],
                                    (int) (displs[g.local(p)] + blocks[g.local(p)]));
                        }
                        assertArrayEquals(want, AlgorithmCheck.longs(recv[p]), (vector ? "scatterv " : "scatter ") + g
                                + " root " + root + " at " + p);
                    }
                }
            }
        });
    }

    @Test
    void allgatherAndAllgathervGiveEveryRankTheOtherGroupsBlocks() {
        forEachShape((g, rnd, seed) -> {
            for (boolean vector : new boolean[] {false, true}) {
                int[] sizes = sizes(g, rnd, vector);
                long[][] blocks = new long[g.n()][];
                long[][] displs = new long[g.n()][];
                long[][] d = new long[g.n()][];
                MemorySegment[] send = new MemorySegment[g.n()];
                MemorySegment[] recv = new MemorySegment[g.n()];
                for (int p = 0; p < g.n(); p++) {
                    blocks[p] = remoteBlocks(g, p, sizes);
                    displs[p] = layout(g, p, sizes, rnd, vector);
                    d[p] = data(rnd, sizes[p]);
                    send[p] = AlgorithmCheck.seg(d[p]);
                    recv[p] = MemorySegment.ofArray(filled(end(blocks[p], displs[p])));
                }
                Schedule[] s = g.schedules(p -> call(Kind.ALLGATHER, 8L * sizes[p], 0, vector ? bytes(blocks[p]) : null,
                        vector ? bytes(displs[p]) : null, null, null, vector, 1, true));
                AlgorithmCheck.play(s, send, recv, Op.SUM, seed);
                for (int p = 0; p < g.n(); p++) {
                    long[] want = filled(end(blocks[p], displs[p]));
                    for (int q = 0; q < blocks[p].length; q++) {
                        System.arraycopy(d[g.remote(p, q)], 0, want, (int) displs[p][q], (int) blocks[p][q]);
                    }
                    assertArrayEquals(want, AlgorithmCheck.longs(recv[p]), (vector ? "allgatherv " : "allgather ") + g
                            + " at " + p);
                }
            }
        });
    }

    @Test
    void alltoallSwapsABlockBetweenEveryPairAcrossTheGroups() {
        forEachShape((g, rnd, seed) -> {
            for (boolean vector : new boolean[] {false, true}) {
                int uniform = rnd.nextInt(3);
                // c[x][y]: longs from player x to player y of the other group
                int[][] c = new int[g.n()][g.n()];
                for (int[] row : c) {
                    Arrays.setAll(row, y -> vector ? rnd.nextInt(3) : uniform);
                }
                long[][] sb = new long[g.n()][];
                long[][] sd = new long[g.n()][];
                long[][] rb = new long[g.n()][];
                long[][] rd = new long[g.n()][];
                MemorySegment[] send = new MemorySegment[g.n()];
                MemorySegment[] recv = new MemorySegment[g.n()];
                long[][] d = new long[g.n()][];
                for (int p = 0; p < g.n(); p++) {
                    int r = g.remoteSize(p);
                    sb[p] = new long[r];
                    rb[p] = new long[r];
                    for (int q = 0; q < r; q++) {
                        sb[p][q] = c[p][g.remote(p, q)];
                        rb[p][q] = c[g.remote(p, q)][p];
                    }
                    int[] out = new int[g.n()];
                    for (int q = 0; q < r; q++) {
                        out[g.remote(p, q)] = (int) rb[p][q];
                    }
                    sd[p] = layout(g, p, Arrays.stream(c[p]).toArray(), rnd, vector);
                    rd[p] = layout(g, p, out, rnd, vector);
                    d[p] = data(rnd, end(sb[p], sd[p]));
                    send[p] = AlgorithmCheck.seg(d[p]);
                    recv[p] = MemorySegment.ofArray(filled(end(rb[p], rd[p])));
                }
                Schedule[] s = g.schedules(p -> call(Kind.ALLTOALL, 0, 0, bytes(rb[p]), bytes(rd[p]), bytes(sb[p]),
                        bytes(sd[p]), vector, 1, true));
                AlgorithmCheck.play(s, send, recv, Op.SUM, seed);
                for (int p = 0; p < g.n(); p++) {
                    long[] want = filled(end(rb[p], rd[p]));
                    for (int q = 0; q < rb[p].length; q++) {
                        int x = g.remote(p, q);
                        int qx = g.local(p);
                        System.arraycopy(d[x], (int) sd[x][qx], want, (int) rd[p][q], (int) rb[p][q]);
                    }
                    assertArrayEquals(want, AlgorithmCheck.longs(recv[p]), "alltoall " + g + " at " + p);
                }
            }
        });
    }

    @Test
    void theRootsIdleGroupRunsNothing() {
        Groups g = new Groups(3, 2);
        Schedule s = InterSchedules.build(new CollectiveCall(Kind.BCAST, 8, 1, Intercommunicator.PROC_NULL, false, true,
                null, null, null, null, false), 1, 3, 2, true);
        assertEquals(0, s.steps(), "a PROC_NULL rank sends and receives nothing");
        assertEquals(g.n(), s.size());
    }
}
