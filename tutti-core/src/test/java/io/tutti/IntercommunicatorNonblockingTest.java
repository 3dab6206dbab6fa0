package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * An intercommunicator's nonblocking, persistent and v-form collectives, and reduce-scatter, on random groups of 1 to 3
 * ranks each (world ranks dealt out at random): all nonblocking calls started at once and waited
 * together, then the blocking forms, each against the other and against what MPI says each rank
 * holds. Rooted calls take a random root in either group.
 */
@Timeout(240)
class IntercommunicatorNonblockingTest {
    /** Rank w's i-th value. */
    private static int v(int w, int i) {
        return 100 * w + i + 1;
    }

    /** Elements world rank w contributes to a v-form. */
    private static int count(int w) {
        return 1 + w % 3;
    }

    /** Elements world rank w sends to world rank u in alltoallv. */
    private static int pair(int w, int u) {
        return (w + 2 * u) % 3;
    }

    /** Displacements of blocks {@code counts} in reverse rank order with a gap of one after each. */
    private static int[] reversedWithGaps(int[] counts) {
        int[] d = new int[counts.length];
        int at = 0;
        for (int q = counts.length - 1; q >= 0; q--) {
            d[q] = at;
            at += counts[q] + 1;
        }
        return d;
    }

    private static int end(int[] counts, int[] displs) {
        int e = 0;
        for (int q = 0; q < counts.length; q++) {
            e = Math.max(e, displs[q] + counts[q]);
        }
        return e;
    }

    /** Everything one rank computes and receives, its own calls in the order made. */
    private static final class Run {
        final List<Object> results = new ArrayList<>();

        int[] add(int[] x) {
            results.add(x);
            return x;
        }

        long[] add(long[] x) {
            results.add(x);
            return x;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void nonblockingFormsMatchTheBlockingOnesAndMpisMeaning(long seed) {
        Random shape = new Random(seed);
        int a = 1 + shape.nextInt(3);
        int b = 1 + shape.nextInt(3);
        int n = a + b;
        List<Integer> dealt = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        java.util.Collections.shuffle(dealt, shape);
        int[] groupA = dealt.subList(0, a).stream().mapToInt(Integer::intValue).toArray();
        int[] groupB = dealt.subList(a, n).stream().mapToInt(Integer::intValue).toArray();
        // roots: a group (0 = A) and a rank in it, for bcast, reduce, gather(v), scatter(v)
        int[][] roots = new int[6][];
        for (int k = 0; k < roots.length; k++) {
            int g = shape.nextInt(2);
            roots[k] = new int[] {g, shape.nextInt(g == 0 ? a : b)};
        }
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(200), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                int colour = Arrays.stream(groupA).anyMatch(w -> w == rank) ? 0 : 1;
                int[] mine = colour == 0 ? groupA : groupB;
                int[] theirs = colour == 0 ? groupB : groupA;
                Communicator local = world.split(colour, dealt.indexOf(rank));
                Intercommunicator inter = local.createIntercomm(0, local.rank() == 0 ? world : null, theirs[0], 11);
                assertEquals(rank, mine[inter.rank()]);
                Run nb = calls(inter, rank, colour, mine, theirs, roots, true);
                Run bl = calls(inter, rank, colour, mine, theirs, roots, false);
                assertEquals(nb.results.size(), bl.results.size());
                for (int k = 0; k < nb.results.size(); k++) {
                    Object x = nb.results.get(k);
                    Object y = bl.results.get(k);
                    if (x instanceof int[] xi) {
                        assertArrayEquals((int[]) y, xi, "result " + k + " of rank " + rank);
                    } else {
                        assertArrayEquals((long[]) y, (long[]) x, "result " + k + " of rank " + rank);
                    }
                }
                check(nb, rank, colour, mine, theirs, roots);
                // a persistent allreduce, started twice
                int[] in = {rank + 1};
                int[] sum = new int[1];
                Request p = inter.allreduceInit(in, sum, 1, Datatype.INT, ReduceOp.SUM);
                for (int round = 1; round <= 2; round++) {
                    in[0] = round * (rank + 1);
                    p.start();
                    p.waitFor();
                    assertEquals(round * Arrays.stream(theirs).map(w -> w + 1).sum(), sum[0], "persistent allreduce");
                }
                p.free();
                world.barrier();
            }
        });
    }

    /** Root argument of rooted call k at this rank. */
    private static int root(int[][] roots, int k, int colour, Intercommunicator inter) {
        if (roots[k][0] != colour) {
            return roots[k][1];
        }
        return inter.rank() == roots[k][1] ? Intercommunicator.ROOT : Intercommunicator.PROC_NULL;
    }

    /** The calls, nonblocking (all started, then waited for together) or blocking; every buffer filled with -1 first. */
    private static Run calls(Intercommunicator inter, int rank, int colour, int[] mine, int[] theirs, int[][] roots,
                             boolean nonblocking) {
        Run run = new Run();
        List<Request> started = new ArrayList<>();
        int r = theirs.length;
        java.util.function.Consumer<Request> go = q -> started.add(q);
        int[] own = IntStream.range(0, 3).map(i -> v(rank, i)).toArray();

        if (nonblocking) {
            go.accept(inter.ibarrier());
        } else {
            inter.barrier();
        }
        int[] sum = run.add(filled(3));
        if (nonblocking) {
            go.accept(inter.iallreduce(own, sum, 3, Datatype.INT, ReduceOp.SUM));
        } else {
            inter.allreduce(own, sum, 3, Datatype.INT, ReduceOp.SUM);
        }
        int root = root(roots, 0, colour, inter);
        int[] msg = run.add(root == Intercommunicator.ROOT ? own.clone() : filled(3));
        if (nonblocking) {
            go.accept(inter.ibcast(msg, 3, Datatype.INT, root));
        } else {
            inter.bcast(msg, 3, Datatype.INT, root);
        }
        root = root(roots, 1, colour, inter);
        long[] reduced = run.add(new long[] {-1, -1});
        long[] contribution = {rank, 10L * rank};
        if (nonblocking) {
            go.accept(inter.ireduce(contribution, reduced, 2, Datatype.LONG, ReduceOp.MAX, root));
        } else {
            inter.reduce(contribution, reduced, 2, Datatype.LONG, ReduceOp.MAX, root);
        }
        int[] gathered = run.add(filled(2 * r));
        if (nonblocking) {
            go.accept(inter.iallgather(new int[] {v(rank, 0), v(rank, 1)}, gathered, 2, Datatype.INT));
        } else {
            inter.allgather(new int[] {v(rank, 0), v(rank, 1)}, gathered, 2, Datatype.INT);
        }
        root = root(roots, 2, colour, inter);
        int[] atRoot = run.add(filled(r));
        if (nonblocking) {
            go.accept(inter.igather(new int[] {v(rank, 0)}, atRoot, 1, Datatype.INT, root));
        } else {
            inter.gather(new int[] {v(rank, 0)}, atRoot, 1, Datatype.INT, root);
        }
        root = root(roots, 3, colour, inter);
        int[] block = run.add(filled(2));
        int[] blocks = IntStream.range(0, 2 * r).map(i -> v(rank, i)).toArray();
        if (nonblocking) {
            go.accept(inter.iscatter(blocks, block, 2, Datatype.INT, root));
        } else {
            inter.scatter(blocks, block, 2, Datatype.INT, root);
        }
        int[] swapped = run.add(filled(r));
        int[] out = Arrays.stream(theirs).map(u -> v(rank, u)).toArray();
        if (nonblocking) {
            go.accept(inter.ialltoall(out, swapped, 1, Datatype.INT));
        } else {
            inter.alltoall(out, swapped, 1, Datatype.INT);
        }

        // the v-forms: counts of the remote group's ranks, laid out in reverse order with gaps
        int[] counts = Arrays.stream(theirs).map(IntercommunicatorNonblockingTest::count).toArray();
        int[] displs = reversedWithGaps(counts);
        int[] ownBlock = IntStream.range(0, count(rank)).map(i -> v(rank, i)).toArray();
        int[] allv = run.add(filled(end(counts, displs)));
        if (nonblocking) {
            go.accept(inter.iallgatherv(ownBlock, ownBlock.length, allv, counts, displs, Datatype.INT));
        } else {
            inter.allgatherv(ownBlock, ownBlock.length, allv, counts, displs, Datatype.INT);
        }
        root = root(roots, 4, colour, inter);
        boolean isRoot = root == Intercommunicator.ROOT;
        int[] gv = run.add(filled(isRoot ? end(counts, displs) : 0));
        if (nonblocking) {
            go.accept(inter.igatherv(ownBlock, ownBlock.length, gv, isRoot ? counts : null, isRoot ? displs : null,
                    Datatype.INT, root));
        } else {
            inter.gatherv(ownBlock, ownBlock.length, gv, isRoot ? counts : null, isRoot ? displs : null, Datatype.INT,
                    root);
        }
        root = root(roots, 5, colour, inter);
        isRoot = root == Intercommunicator.ROOT;
        int[] source = IntStream.range(0, end(counts, displs)).map(i -> v(rank, i)).toArray();
        int[] sv = run.add(filled(count(rank)));
        if (nonblocking) {
            go.accept(inter.iscatterv(source, isRoot ? counts : null, isRoot ? displs : null, sv, count(rank),
                    Datatype.INT, root));
        } else {
            inter.scatterv(source, isRoot ? counts : null, isRoot ? displs : null, sv, count(rank), Datatype.INT, root);
        }
        int[] sc = Arrays.stream(theirs).map(u -> pair(rank, u)).toArray();
        int[] sd = reversedWithGaps(sc);
        int[] rc = Arrays.stream(theirs).map(u -> pair(u, rank)).toArray();
        int[] rd = reversedWithGaps(rc);
        int[] sendv = IntStream.range(0, end(sc, sd)).map(i -> v(rank, i)).toArray();
        int[] recvv = run.add(filled(end(rc, rd)));
        if (nonblocking) {
            go.accept(inter.ialltoallv(sendv, sc, sd, recvv, rc, rd, Datatype.INT));
        } else {
            inter.alltoallv(sendv, sc, sd, recvv, rc, rd, Datatype.INT);
        }
        // reduceScatter: this group's blocks of a vector of six, the other group's sum
        int[] split = split(mine.length);
        int[] vector = IntStream.range(0, 6).map(i -> v(rank, i)).toArray();
        int[] part = run.add(filled(split[inter.rank()]));
        if (nonblocking) {
            go.accept(inter.ireduceScatter(vector, part, split, Datatype.INT, ReduceOp.SUM));
            // in reverse order: completion does not depend on the order the program waits in
            java.util.Collections.reverse(started);
            Request.waitAll(started.toArray(Request[]::new));
        } else {
            inter.reduceScatter(vector, part, split, Datatype.INT, ReduceOp.SUM);
        }
        return run;
    }

    /** Six elements in blocks over a group of {@code n} ranks. */
    private static int[] split(int n) {
        return n == 1 ? new int[] {6} : n == 2 ? new int[] {2, 4} : new int[] {1, 2, 3};
    }

    private static int[] filled(int n) {
        int[] x = new int[n];
        Arrays.fill(x, -1);
        return x;
    }

    /** What MPI says each result is. */
    private static void check(Run run, int rank, int colour, int[] mine, int[] theirs, int[][] roots) {
        int me = IntStream.range(0, mine.length).filter(i -> mine[i] == rank).findFirst().orElseThrow();
        int k = 0;
        int[] sum = (int[]) run.results.get(k++);
        assertArrayEquals(IntStream.range(0, 3).map(i -> Arrays.stream(theirs).map(w -> v(w, i)).sum()).toArray(), sum,
                "allreduce: the other group's sum");
        int[] msg = (int[]) run.results.get(k++);
        boolean rootHere = roots[0][0] == colour;
        int bcastRoot = rootHere ? rank : theirs[roots[0][1]];
        assertArrayEquals(rootHere && roots[0][1] != me ? filled(3)
                : IntStream.range(0, 3).map(i -> v(bcastRoot, i)).toArray(), msg, "bcast");
        long[] reduced = (long[]) run.results.get(k++);
        int maxW = Arrays.stream(theirs).max().orElseThrow();
        assertArrayEquals(roots[1][0] == colour && roots[1][1] == me ? new long[] {maxW, 10L * maxW}
                : new long[] {-1, -1}, reduced, "reduce");
        int[] gathered = (int[]) run.results.get(k++);
        assertArrayEquals(Arrays.stream(theirs).flatMap(w -> IntStream.of(v(w, 0), v(w, 1))).toArray(), gathered,
                "allgather");
        int[] atRoot = (int[]) run.results.get(k++);
        assertArrayEquals(roots[2][0] == colour && roots[2][1] == me ? Arrays.stream(theirs).map(w -> v(w, 0)).toArray()
                : filled(theirs.length), atRoot, "gather");
        int[] block = (int[]) run.results.get(k++);
        int scatterer = roots[3][0] == colour ? -1 : theirs[roots[3][1]];
        assertArrayEquals(scatterer < 0 ? filled(2) : new int[] {v(scatterer, 2 * me), v(scatterer, 2 * me + 1)}, block,
                "scatter");
        int[] swapped = (int[]) run.results.get(k++);
        assertArrayEquals(Arrays.stream(theirs).map(w -> v(w, rank)).toArray(), swapped, "alltoall");

        int[] counts = Arrays.stream(theirs).map(IntercommunicatorNonblockingTest::count).toArray();
        int[] displs = reversedWithGaps(counts);
        int[] expectAll = filled(end(counts, displs));
        for (int q = 0; q < theirs.length; q++) {
            for (int i = 0; i < counts[q]; i++) {
                expectAll[displs[q] + i] = v(theirs[q], i);
            }
        }
        assertArrayEquals(expectAll, (int[]) run.results.get(k++), "allgatherv");
        int[] gv = (int[]) run.results.get(k++);
        assertArrayEquals(roots[4][0] == colour && roots[4][1] == me ? expectAll : filled(gv.length), gv, "gatherv");
        int[] sv = (int[]) run.results.get(k++);
        if (roots[5][0] == colour) {
            assertArrayEquals(filled(count(rank)), sv, "scatterv: the root's group receives nothing");
        } else {
            int from = theirs[roots[5][1]];
            int[] theirCounts = Arrays.stream(mine).map(IntercommunicatorNonblockingTest::count).toArray();
            int at = reversedWithGaps(theirCounts)[me];
            assertArrayEquals(IntStream.range(0, count(rank)).map(i -> v(from, at + i)).toArray(), sv, "scatterv");
        }
        int[] rc = Arrays.stream(theirs).map(u -> pair(u, rank)).toArray();
        int[] rd = reversedWithGaps(rc);
        int[] expectV = filled(end(rc, rd));
        for (int q = 0; q < theirs.length; q++) {
            int u = theirs[q];
            int[] uCounts = Arrays.stream(mine).map(x -> pair(u, x)).toArray();
            int uAt = reversedWithGaps(uCounts)[me];
            for (int i = 0; i < rc[q]; i++) {
                expectV[rd[q] + i] = v(u, uAt + i);
            }
        }
        assertArrayEquals(expectV, (int[]) run.results.get(k++), "alltoallv");
        int[] split = split(mine.length);
        int at = Arrays.stream(split).limit(me).sum();
        assertArrayEquals(IntStream.range(at, at + split[me]).map(i -> Arrays.stream(theirs).map(w -> v(w, i)).sum())
                .toArray(), (int[]) run.results.get(k++), "reduceScatter: this rank's part of the other group's sum");
    }
}
