package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import java.util.Arrays;

/**
 * Every blocking collective of the API, once at a small and once at a large size, each result
 * checked against what it must be on every rank, then a ring of point-to-point messages; prints one
 * line per rank with how many peers it reached over the network.
 */
public final class EveryCollective {
    static final int[] COUNTS = {3, 8 * 1024};

    private EveryCollective() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            for (int count : COUNTS) {
                check(w, count);
            }
            System.out.println("rank " + w.rank() + " of " + w.size() + " (" + io.tutti.runtime.Rank.of(tutti).engine()
                    .remotePeers() + " over the network): every collective ok");
        }
    }

    static void check(Communicator w, int count) {
        int rank = w.rank();
        int n = w.size();
        w.barrier();

        long[] b = new long[count];
        if (rank == n - 1) {
            Arrays.setAll(b, i -> i * 7L + 1);
        }
        w.bcast(b, n - 1);
        for (int i = 0; i < count; i++) {
            expect(b[i] == i * 7L + 1, "bcast", count, i);
        }

        long[] all = new long[count * n];
        Arrays.setAll(all, i -> value(i / count, i % count));
        long[] mine = new long[count];
        w.scatter(all, mine, count, Datatype.LONG, 0);
        for (int i = 0; i < count; i++) {
            expect(mine[i] == value(rank, i), "scatter", count, i);
        }

        long[] gathered = new long[count * n];
        w.gather(mine, gathered, count, Datatype.LONG, 0);
        if (rank == 0) {
            expect(Arrays.equals(gathered, all), "gather", count, -1);
        }
        Arrays.fill(gathered, 0);
        w.allgather(mine, gathered, count, Datatype.LONG);
        expect(Arrays.equals(gathered, all), "allgather", count, -1);

        // block d of rank r's send buffer is value(r * n + d): after alltoall, block s holds value(s * n + rank)
        long[] send = new long[count * n];
        long[] recv = new long[count * n];
        Arrays.setAll(send, i -> value(rank * n + i / count, i % count));
        w.alltoall(send, recv, count, Datatype.LONG);
        for (int i = 0; i < count * n; i++) {
            expect(recv[i] == value((i / count) * n + rank, i % count), "alltoall", count, i);
        }

        long[] sum = new long[count];
        long[] in = new long[count];
        Arrays.setAll(in, i -> value(rank, i));
        w.reduce(in, sum, count, Datatype.LONG, ReduceOp.SUM, n / 2);
        if (rank == n / 2) {
            for (int i = 0; i < count; i++) {
                expect(sum[i] == sumOfValues(n, i), "reduce", count, i);
            }
        }
        double[] d = new double[count];
        double[] dmax = new double[count];
        Arrays.setAll(d, i -> rank + i * 0.5);
        w.allreduce(d, dmax, ReduceOp.MAX);
        for (int i = 0; i < count; i++) {
            expect(dmax[i] == n - 1 + i * 0.5, "allreduce", count, i);
        }

        int[] counts = new int[n];
        Arrays.fill(counts, count);
        long[] block = new long[count];
        w.reduceScatter(send, block, counts, Datatype.LONG, ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            long want = 0;
            for (int r = 0; r < n; r++) {
                want += value(r * n + rank, i);
            }
            expect(block[i] == want, "reduceScatter", count, i);
        }

        long[] prefix = new long[count];
        w.scan(in, prefix, count, Datatype.LONG, ReduceOp.SUM);
        long[] before = new long[count];
        w.exscan(in, before, count, Datatype.LONG, ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            long want = 0;
            for (int r = 0; r < rank; r++) {
                want += value(r, i);
            }
            expect(prefix[i] == want + value(rank, i), "scan", count, i);
            expect(rank == 0 || before[i] == want, "exscan", count, i);
        }

        long[] token = {rank};
        long[] got = new long[1];
        io.tutti.Request sent = w.isend(token, (rank + 1) % n, 9);
        w.recv(got, (rank + n - 1) % n, 9);
        sent.waitFor();
        expect(got[0] == (rank + n - 1) % n, "sendrecv ring", count, 0);
    }

    private static long value(int block, int i) {
        return block * 1_000_003L + i;
    }

    private static long sumOfValues(int n, int i) {
        long s = 0;
        for (int r = 0; r < n; r++) {
            s += value(r, i);
        }
        return s;
    }

    private static void expect(boolean ok, String what, int count, int index) {
        if (!ok) {
            throw new AssertionError(what + " of " + count + " elements is wrong at index " + index);
        }
    }
}
