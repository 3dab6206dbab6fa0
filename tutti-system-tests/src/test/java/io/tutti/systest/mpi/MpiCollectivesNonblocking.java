package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * The nonblocking collectives on direct buffers, several in flight at once, completed with waitAll,
 * waitFor and test loops: iBarrier, iBcast, iGather(v), iScatter(v), iAllGather(v), iAllToAll(v/w),
 * iReduce, iAllReduce, iReduceScatter(Block), iScan, iExScan, with their in-place forms.
 */
public final class MpiCollectivesNonblocking {
    private MpiCollectivesNonblocking() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int n = c.getSize();
        int root = 0;
        int sum = n * (n - 1) / 2;

        // a first batch, all in flight together
        IntBuffer b = MPI.newIntBuffer(3);
        if (rank == root) {
            b.put(0, 11).put(1, 22).put(2, 33);
        }
        IntBuffer mine = MPI.newIntBuffer(1);
        mine.put(0, rank);
        IntBuffer gathered = MPI.newIntBuffer(n);
        DoubleBuffer red = MPI.newDoubleBuffer(2);
        red.put(0, rank).put(1, 2);
        DoubleBuffer redOut = MPI.newDoubleBuffer(2);
        LongBuffer all = MPI.newLongBuffer(n);
        all.put(rank, rank * 3L);
        IntBuffer scanIn = MPI.newIntBuffer(1);
        scanIn.put(0, rank + 1);
        IntBuffer scanOut = MPI.newIntBuffer(1);
        IntBuffer exOut = MPI.newIntBuffer(1);
        Request[] batch = {
            c.iBarrier(),
            c.iBcast(b, 3, MPI.INT, root),
            c.iGather(mine, 1, MPI.INT, gathered, 1, MPI.INT, root),
            c.iAllReduce(red, redOut, 2, MPI.DOUBLE, MPI.SUM),
            c.iAllGather(all, 1, MPI.LONG),
            c.iScan(scanIn, scanOut, 1, MPI.INT, MPI.SUM),
            c.iExScan(scanIn, exOut, 1, MPI.INT, MPI.SUM),
        };
        Request.waitAll(batch);
        equal(33, b.get(2), "iBcast");
        if (rank == root) {
            for (int r = 0; r < n; r++) {
                equal(r, gathered.get(r), "iGather [" + r + "]");
            }
        }
        equal((double) sum, redOut.get(0), "iAllReduce");
        equal(2.0 * n, redOut.get(1), "iAllReduce of twos");
        for (int r = 0; r < n; r++) {
            equal(r * 3L, all.get(r), "iAllGather in place [" + r + "]");
        }
        equal((rank + 1) * (rank + 2) / 2, scanOut.get(0), "iScan");
        if (rank > 0) {
            equal(rank * (rank + 1) / 2, exOut.get(0), "iExScan");
        }

        // in-place forms, one at a time, completed by test loops and waitFor
        IntBuffer g = MPI.newIntBuffer(n);
        g.put(rank == root ? root : 0, rank + 50);
        Request r = rank == root ? c.iGather(g, 1, MPI.INT, root) : c.iGather(MPI.slice(g, 0), 1, MPI.INT, root);
        while (!r.test()) {
            Thread.onSpinWait();
        }
        if (rank == root) {
            for (int i = 0; i < n; i++) {
                equal(i + 50, g.get(i), "iGather in place [" + i + "]");
            }
        }
        IntBuffer s = MPI.newIntBuffer(n);
        if (rank == root) {
            for (int i = 0; i < n; i++) {
                s.put(i, i * 9);
            }
        }
        c.iScatter(s, 1, MPI.INT, root).waitFor();
        equal(rank * 9, s.get(0), "iScatter in place");
        IntBuffer sOut = MPI.newIntBuffer(1);
        c.iScatter(s, 1, MPI.INT, sOut, 1, MPI.INT, root).waitFor();
        equal(rank * 9, sOut.get(0), "iScatter");
        DoubleBuffer inPlace = MPI.newDoubleBuffer(1);
        inPlace.put(0, rank);
        c.iAllReduce(inPlace, 1, MPI.DOUBLE, MPI.MAX).waitFor();
        equal(n - 1.0, inPlace.get(0), "iAllReduce in place");
        DoubleBuffer rIn = MPI.newDoubleBuffer(1);
        rIn.put(0, 1);
        DoubleBuffer rOut = MPI.newDoubleBuffer(1);
        c.iReduce(rIn, rOut, 1, MPI.DOUBLE, MPI.SUM, root).waitFor();
        if (rank == root) {
            equal((double) n, rOut.get(0), "iReduce");
        }
        c.iReduce(rIn, 1, MPI.DOUBLE, MPI.SUM, root).waitFor();
        if (rank == root) {
            equal((double) n, rIn.get(0), "iReduce in place");
        }
        IntBuffer sc = MPI.newIntBuffer(1);
        sc.put(0, 2);
        c.iScan(sc, 1, MPI.INT, MPI.PROD).waitFor();
        equal(1 << (rank + 1), sc.get(0), "iScan in place");
        IntBuffer ex = MPI.newIntBuffer(1);
        ex.put(0, rank + 1);
        c.iExScan(ex, 1, MPI.INT, MPI.MAX).waitFor();
        if (rank > 0) {
            equal(rank, ex.get(0), "iExScan in place");
        }

        // the v-forms and the reduce-scatters
        int[] counts = new int[n];
        int[] displs = new int[n];
        int end = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = i + 1;
            displs[i] = end;
            end += counts[i];
        }
        IntBuffer part = MPI.newIntBuffer(rank + 1);
        for (int i = 0; i <= rank; i++) {
            part.put(i, rank * 100 + i);
        }
        IntBuffer whole = MPI.newIntBuffer(end);
        IntBuffer whole2 = MPI.newIntBuffer(end);
        IntBuffer whole3 = MPI.newIntBuffer(end);
        for (int i = 0; i <= rank; i++) {
            whole3.put(displs[rank] + i, rank * 100 + i);
        }
        Request gv = c.iGatherv(part, rank + 1, MPI.INT, whole, counts, displs, MPI.INT, root);
        Request agv = c.iAllGatherv(part, rank + 1, MPI.INT, whole2, counts, displs, MPI.INT);
        Request agv2 = c.iAllGatherv(whole3, counts, displs, MPI.INT);
        Request.waitAll(new Request[] {gv, agv, agv2});
        for (int q = 0; q < n; q++) {
            for (int i = 0; i <= q; i++) {
                if (rank == root) {
                    equal(q * 100 + i, whole.get(displs[q] + i), "iGatherv " + q + " [" + i + "]");
                }
                equal(q * 100 + i, whole2.get(displs[q] + i), "iAllGatherv " + q + " [" + i + "]");
                equal(q * 100 + i, whole3.get(displs[q] + i), "iAllGatherv in place " + q + " [" + i + "]");
            }
        }
        IntBuffer gvInPlace = MPI.newIntBuffer(end);
        if (rank == root) {
            gvInPlace.put(displs[root], 7);
            c.iGatherv(gvInPlace, counts, displs, MPI.INT, root).waitFor();
            equal(7, gvInPlace.get(displs[root]), "iGatherv in place keeps the root's block");
            equal((n - 1) * 100, gvInPlace.get(displs[n - 1]), "iGatherv in place, last rank");
        } else {
            c.iGatherv(part, rank + 1, MPI.INT, root).waitFor();
        }
        IntBuffer src = MPI.newIntBuffer(end);
        for (int i = 0; i < end; i++) {
            src.put(i, i);
        }
        IntBuffer got = MPI.newIntBuffer(rank + 1);
        c.iScatterv(src, counts, displs, MPI.INT, got, rank + 1, MPI.INT, root).waitFor();
        equal(displs[rank] + rank, got.get(rank), "iScatterv");
        IntBuffer got2 = MPI.newIntBuffer(rank + 1);
        if (rank == root) {
            c.iScatterv(src, counts, displs, MPI.INT, root).waitFor();
        } else {
            c.iScatterv(got2, rank + 1, MPI.INT, root).waitFor();
            equal(displs[rank], got2.get(0), "iScatterv in place");
        }
        IntBuffer rsIn = MPI.newIntBuffer(end);
        for (int i = 0; i < end; i++) {
            rsIn.put(i, 1);
        }
        IntBuffer rsOut = MPI.newIntBuffer(rank + 1);
        c.iReduceScatter(rsIn, rsOut, counts, MPI.INT, MPI.SUM).waitFor();
        equal(n, rsOut.get(rank), "iReduceScatter");
        c.iReduceScatter(rsIn, counts, MPI.INT, MPI.SUM).waitFor();
        equal(n, rsIn.get(0), "iReduceScatter in place");
        IntBuffer blk = MPI.newIntBuffer(2 * n);
        for (int i = 0; i < 2 * n; i++) {
            blk.put(i, i);
        }
        IntBuffer blkOut = MPI.newIntBuffer(2);
        c.iReduceScatterBlock(blk, blkOut, 2, MPI.INT, MPI.SUM).waitFor();
        equal(n * (2 * rank + 1), blkOut.get(1), "iReduceScatterBlock");
        c.iReduceScatterBlock(blk, 2, MPI.INT, MPI.MIN).waitFor();
        equal(2 * rank, blk.get(0), "iReduceScatterBlock in place");

        // all-to-alls
        IntBuffer aOut = MPI.newIntBuffer(n);
        IntBuffer aIn = MPI.newIntBuffer(n);
        for (int i = 0; i < n; i++) {
            aOut.put(i, rank * 10 + i);
        }
        int[] ones = new int[n];
        int[] at = new int[n];
        int[] atBytes = new int[n];
        mpi.Datatype[] types = new mpi.Datatype[n];
        for (int i = 0; i < n; i++) {
            ones[i] = 1;
            at[i] = i;
            atBytes[i] = 4 * i;
            types[i] = MPI.INT;
        }
        IntBuffer vIn = MPI.newIntBuffer(n);
        ByteBuffer wIn = MPI.newByteBuffer(4 * n);
        Request[] a2a = {
            c.iAllToAll(aOut, 1, MPI.INT, aIn, 1, MPI.INT),
            c.iAllToAllv(aOut, ones, at, MPI.INT, vIn, ones, at, MPI.INT),
            c.iAllToAllw(aOut, ones, atBytes, types, wIn, ones, atBytes, types),
        };
        Request.waitAll(a2a);
        for (int q = 0; q < n; q++) {
            equal(q * 10 + rank, aIn.get(q), "iAllToAll from " + q);
            equal(q * 10 + rank, vIn.get(q), "iAllToAllv from " + q);
            equal(q * 10 + rank, wIn.order(java.nio.ByteOrder.nativeOrder()).getInt(4 * q), "iAllToAllw from " + q);
        }

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + n + ": nonblocking collectives ok");
    }
}
