package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.DoubleInt;
import mpi.FloatInt;
import mpi.Intracomm;
import mpi.LongInt;
import mpi.MPI;
import mpi.MPIException;
import mpi.ShortInt;

/**
 * The blocking collectives in their array, buffer and in-place forms: barrier, bcast, gather(v),
 * scatter(v), allGather(v), allToAll(v/w), reduce, allReduce, reduceScatter(Block), scan, exScan;
 * with int[], double[], long[], boolean[], char[], slices, heap and direct buffers, MAXLOC and MINLOC on
 * every pair type, complex sums and products (vectors long enough to be split), zero counts; and their errors (root, operation, unsupported combinations).
 */
public final class MpiCollectives {
    private MpiCollectives() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Intracomm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int n = c.getSize();
        int root = n - 1;

        c.barrier();
        broadcasts(c, rank, root);
        gathers(c, rank, n, root);
        scatters(c, rank, n, root);
        allGathers(c, rank, n);
        allToAlls(c, rank, n);
        reductions(c, rank, n, root);
        scans(c, rank, n);
        reduceLocal(rank);
        errors(c, n);
        c.barrier();

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + n + ": collectives ok");
    }

    private static void broadcasts(Intracomm c, int rank, int root) throws MPIException {
        int[] ints = new int[6];
        double[] offset = new double[8];
        boolean[] flags = new boolean[3];
        char[] text = new char[5];
        DoubleBuffer direct = MPI.newDoubleBuffer(4);
        if (rank == root) {
            for (int i = 0; i < 6; i++) {
                ints[i] = 7 * i + 1;
            }
            for (int i = 0; i < 8; i++) {
                offset[i] = i + 0.5;
            }
            flags[1] = true;
            "hello".getChars(0, 5, text, 0);
            for (int i = 0; i < 4; i++) {
                direct.put(i, -i);
            }
        }
        c.bcast(ints, 6, MPI.INT, root);
        c.bcast(MPI.slice(offset, 3), 4, MPI.DOUBLE, root);
        c.bcast(flags, 3, MPI.BOOLEAN, root);
        c.bcast(text, 5, MPI.CHAR, root);
        direct.position(3);
        c.bcast(direct, 4, MPI.DOUBLE, root);
        c.bcast(new int[0], 0, MPI.INT, root);
        for (int i = 0; i < 6; i++) {
            equal(7 * i + 1, ints[i], "bcast int[" + i + "]");
        }
        for (int i = 0; i < 8; i++) {
            equal(rank == root || (i >= 3 && i < 7) ? i + 0.5 : 0.0, offset[i], "bcast of a slice [" + i + "]");
        }
        equal(true, flags[1], "bcast boolean");
        equal(false, flags[0], "bcast boolean 0");
        equal("hello", new String(text), "bcast char[]");
        equal(-3.0, direct.get(3), "bcast direct buffer");
        equal(3, direct.position(), "bcast leaves the position");
    }

    private static void gathers(Intracomm c, int rank, int n, int root) throws MPIException {
        // gather, the full form: two ints from each
        int[] mine = {rank, rank * rank};
        int[] all = rank == root ? new int[2 * n] : null;
        c.gather(mine, 2, MPI.INT, all, 2, MPI.INT, root);
        if (rank == root) {
            for (int r = 0; r < n; r++) {
                equal(r, all[2 * r], "gather [" + r + "]");
                equal(r * r, all[2 * r + 1], "gather square [" + r + "]");
            }
        }
        // gather in place: the root's block is already there; into a direct buffer at the root
        IntBuffer inPlace = MPI.newIntBuffer(rank == root ? n : 1);
        inPlace.put(rank == root ? rank : 0, rank + 100);
        c.gather(inPlace, 1, MPI.INT, root);
        if (rank == root) {
            for (int r = 0; r < n; r++) {
                equal(r + 100, inPlace.get(r), "gather in place [" + r + "]");
            }
        }
        // gatherv: rank r sends r + 1 longs, placed from displacement r * (r + 1) / 2 + r (a gap of one)
        int[] counts = new int[n];
        int[] displs = new int[n];
        int end = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = r + 1;
            displs[r] = end + 1;
            end = displs[r] + counts[r];
        }
        long[] part = new long[rank + 1];
        for (int i = 0; i <= rank; i++) {
            part[i] = rank * 1000L + i;
        }
        long[] whole = new long[end];
        c.gatherv(part, rank + 1, MPI.LONG, whole, counts, displs, MPI.LONG, root);
        if (rank == root) {
            checkv(whole, counts, displs, "gatherv");
        }
        // gatherv in place: the root's form and the others'
        long[] whole2 = new long[end];
        if (rank == root) {
            System.arraycopy(part, 0, whole2, displs[root], root + 1);
            c.gatherv(whole2, counts, displs, MPI.LONG, root);
            checkv(whole2, counts, displs, "gatherv in place");
        } else {
            c.gatherv(part, rank + 1, MPI.LONG, root);
        }
    }

    private static void checkv(long[] whole, int[] counts, int[] displs, String what) {
        for (int r = 0; r < counts.length; r++) {
            equal(0L, whole[displs[r] - 1], what + ": the gap before rank " + r);
            for (int i = 0; i < counts[r]; i++) {
                equal(r * 1000L + i, whole[displs[r] + i], what + " rank " + r + " [" + i + "]");
            }
        }
    }

    private static void scatters(Intracomm c, int rank, int n, int root) throws MPIException {
        double[] blocks = new double[3 * n];
        if (rank == root) {
            for (int i = 0; i < 3 * n; i++) {
                blocks[i] = i * 1.25;
            }
        }
        double[] got = new double[3];
        c.scatter(blocks, 3, MPI.DOUBLE, got, 3, MPI.DOUBLE, root);
        for (int i = 0; i < 3; i++) {
            equal((3 * rank + i) * 1.25, got[i], "scatter [" + i + "]");
        }
        // scatter in place: the root keeps its block where it is; the others receive into the buffer
        double[] buf = rank == root ? blocks.clone() : new double[3];
        c.scatter(buf, 3, MPI.DOUBLE, root);
        for (int i = 0; i < 3; i++) {
            equal((3 * rank + i) * 1.25, buf[rank == root ? 3 * rank + i : i], "scatter in place [" + i + "]");
        }
        // scatterv: rank r gets r + 1 ints from displacement 2r
        int[] counts = new int[n];
        int[] displs = new int[n];
        for (int r = 0; r < n; r++) {
            counts[r] = r + 1;
            displs[r] = 2 * r;
        }
        int[] src = new int[3 * n];
        for (int i = 0; i < src.length; i++) {
            src[i] = i * 3;
        }
        int[] mine = new int[rank + 1];
        c.scatterv(src, counts, displs, MPI.INT, mine, rank + 1, MPI.INT, root);
        for (int i = 0; i <= rank; i++) {
            equal((2 * rank + i) * 3, mine[i], "scatterv [" + i + "]");
        }
        int[] mine2 = new int[rank + 1];
        if (rank == root) {
            c.scatterv(src, counts, displs, MPI.INT, root);
        } else {
            c.scatterv(mine2, rank + 1, MPI.INT, root);
            for (int i = 0; i <= rank; i++) {
                equal((2 * rank + i) * 3, mine2[i], "scatterv in place [" + i + "]");
            }
        }
    }

    private static void allGathers(Intracomm c, int rank, int n) throws MPIException {
        float[] mine = {rank, -rank};
        float[] all = new float[2 * n];
        c.allGather(mine, 2, MPI.FLOAT, all, 2, MPI.FLOAT);
        for (int r = 0; r < n; r++) {
            equal((float) r, all[2 * r], "allGather [" + r + "]");
            equal((float) -r, all[2 * r + 1], "allGather [" + r + "]'");
        }
        int[] inPlace = new int[n + 2];
        IntBuffer slice = MPI.slice(inPlace, 2);
        slice.put(rank, rank * 5);
        c.allGather(slice, 1, MPI.INT);
        for (int r = 0; r < n; r++) {
            equal(r * 5, inPlace[2 + r], "allGather in place into a slice [" + r + "]");
        }
        int[] counts = new int[n];
        int[] displs = new int[n];
        int end = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = n - r;
            displs[r] = end;
            end += counts[r];
        }
        short[] part = new short[n - rank];
        for (int i = 0; i < part.length; i++) {
            part[i] = (short) (rank * 10 + i);
        }
        short[] whole = new short[end];
        c.allGatherv(part, part.length, MPI.SHORT, whole, counts, displs, MPI.SHORT);
        short[] whole2 = new short[end];
        System.arraycopy(part, 0, whole2, displs[rank], part.length);
        c.allGatherv(whole2, counts, displs, MPI.SHORT);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < counts[r]; i++) {
                equal((short) (r * 10 + i), whole[displs[r] + i], "allGatherv rank " + r + " [" + i + "]");
                equal((short) (r * 10 + i), whole2[displs[r] + i], "allGatherv in place rank " + r + " [" + i + "]");
            }
        }
    }

    private static void allToAlls(Intracomm c, int rank, int n) throws MPIException {
        int[] out = new int[2 * n];
        for (int r = 0; r < n; r++) {
            out[2 * r] = rank * 100 + r;
            out[2 * r + 1] = -(rank * 100 + r);
        }
        IntBuffer in = MPI.newIntBuffer(2 * n);
        c.allToAll(out, 2, MPI.INT, in, 2, MPI.INT);
        for (int s = 0; s < n; s++) {
            equal(s * 100 + rank, in.get(2 * s), "allToAll from " + s);
            equal(-(s * 100 + rank), in.get(2 * s + 1), "allToAll from " + s + "'");
        }
        // allToAllv: rank s sends (r + 1) doubles to rank r
        int[] sc = new int[n];
        int[] sd = new int[n];
        int[] rc = new int[n];
        int[] rd = new int[n];
        int sEnd = 0;
        int rEnd = 0;
        for (int r = 0; r < n; r++) {
            sc[r] = r + 1;
            sd[r] = sEnd;
            sEnd += sc[r];
            rc[r] = rank + 1;
            rd[r] = rEnd;
            rEnd += rc[r];
        }
        double[] send = new double[sEnd];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < sc[r]; i++) {
                send[sd[r] + i] = rank * 1000 + r * 10 + i;
            }
        }
        double[] recv = new double[rEnd];
        c.allToAllv(send, sc, sd, MPI.DOUBLE, recv, rc, rd, MPI.DOUBLE);
        for (int s = 0; s < n; s++) {
            for (int i = 0; i <= rank; i++) {
                equal((double) (s * 1000 + rank * 10 + i), recv[rd[s] + i], "allToAllv from " + s + " [" + i + "]");
            }
        }
        // allToAllw: one int to each rank, from and into byte buffers, displacements in bytes
        ByteBuffer wOut = MPI.newByteBuffer(4 * n);
        ByteBuffer wIn = MPI.newByteBuffer(4 * n);
        int[] ones = new int[n];
        int[] bytesAt = new int[n];
        mpi.Datatype[] types = new mpi.Datatype[n];
        for (int r = 0; r < n; r++) {
            wOut.putInt(4 * r, rank * 7 + r);
            ones[r] = 1;
            bytesAt[r] = 4 * r;
            types[r] = MPI.INT;
        }
        c.allToAllw(wOut, ones, bytesAt, types, wIn, ones, bytesAt, types);
        for (int s = 0; s < n; s++) {
            equal(s * 7 + rank, wIn.getInt(4 * s), "allToAllw from " + s);
        }
    }

    private static void reductions(Intracomm c, int rank, int n, int root) throws MPIException {
        int sum = n * (n - 1) / 2;
        int[] in = {rank, 1, -rank};
        int[] out = new int[3];
        c.reduce(in, out, 3, MPI.INT, MPI.SUM, root);
        if (rank == root) {
            equal(sum, out[0], "reduce SUM");
            equal(n, out[1], "reduce SUM of ones");
        }
        double[] mx = {rank * 1.5};
        c.reduce(mx, 1, MPI.DOUBLE, MPI.MAX, root);         // in place at the root
        if (rank == root) {
            equal((n - 1) * 1.5, mx[0], "reduce MAX in place");
        }
        // MAXLOC on (value, index) pairs of ints
        int[] pair = {(rank * 37) % n, rank};
        int[] best = new int[2];
        c.allReduce(pair, best, 1, MPI.INT2, MPI.MAXLOC);
        int bestValue = -1;
        int bestIndex = -1;
        for (int r = 0; r < n; r++) {
            if ((r * 37) % n > bestValue) {
                bestValue = (r * 37) % n;
                bestIndex = r;
            }
        }
        equal(bestValue, best[0], "MAXLOC value");
        equal(bestIndex, best[1], "MAXLOC index");
        // allReduce in place on a direct buffer, BXOR on longs, LAND/LOR on booleans, complex SUM
        DoubleBuffer db = MPI.newDoubleBuffer(2);
        db.put(0, rank).put(1, 1);
        c.allReduce(db, 2, MPI.DOUBLE, MPI.SUM);
        equal((double) sum, db.get(0), "allReduce in place, direct");
        equal((double) n, db.get(1), "allReduce in place, direct, ones");
        long[] bits = {1L << rank};
        long[] xor = new long[1];
        c.allReduce(bits, xor, 1, MPI.LONG, MPI.BXOR);
        equal((1L << n) - 1, xor[0], "allReduce BXOR");
        boolean[] flags = {true, rank == 0, rank % 2 == 0};
        c.allReduce(flags, 3, MPI.BOOLEAN, MPI.LAND);
        equal(true, flags[0], "LAND of trues");
        equal(n == 1, flags[1], "LAND with one true");
        boolean[] any = {rank == n - 1, false};
        boolean[] anyOut = new boolean[2];
        c.allReduce(any, anyOut, 2, MPI.BOOLEAN, MPI.LOR);
        equal(true, anyOut[0], "LOR with one true");
        equal(false, anyOut[1], "LOR of falses");
        double[] z = {rank, 2 * rank};
        double[] zs = new double[2];
        c.allReduce(z, zs, 1, MPI.DOUBLE_COMPLEX, MPI.SUM);
        equal((double) sum, zs[0], "complex SUM, real part");
        equal(2.0 * sum, zs[1], "complex SUM, imaginary part");
        // complex PROD: each rank's (1 + r, 1), multiplied as complex numbers (exact in doubles here)
        double[] w = {1 + rank, 1, 2, 0};
        double[] ws = new double[4];
        c.allReduce(w, ws, 2, MPI.DOUBLE_COMPLEX, MPI.PROD);
        double re = 1;
        double im = 0;
        for (int r = 0; r < n; r++) {
            double a = re * (1 + r) - im;
            im = re + im * (1 + r);
            re = a;
        }
        // == rather than equals: a product's zero part may come out as -0.0
        that(ws[0] == re && ws[1] == im && ws[2] == Math.pow(2, n) && ws[3] == 0,
                "complex PROD: expected " + re + " + " + im + "i, 2^n + 0i, got " + java.util.Arrays.toString(ws));
        float[] f = {0, 1};
        c.allReduce(f, 1, MPI.FLOAT_COMPLEX, MPI.PROD);
        float[][] powers = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        that(f[0] == powers[n % 4][0] && f[1] == powers[n % 4][1],
                "complex PROD in place, i to the power of the ranks: got " + java.util.Arrays.toString(f));
        // a vector long enough to be split (in halves at 2 ranks: between a number's parts if split
        // by doubles); every rank's odd numbers are i and its even ones 1, so the product is exact
        int numbers = 40_001;
        double[] many = new double[2 * numbers];
        for (int i = 0; i < numbers; i++) {
            many[2 * i] = i % 2 == 0 ? 1 : 0;
            many[2 * i + 1] = i % 2 == 0 ? 0 : 1;
        }
        double[] product = new double[2 * numbers];
        c.allReduce(many, product, numbers, MPI.DOUBLE_COMPLEX, MPI.PROD);
        for (int i = 0; i < numbers; i++) {
            double[] want = i % 2 == 0 ? new double[] {1, 0} : new double[] {powers[n % 4][0], powers[n % 4][1]};
            if (product[2 * i] != want[0] || product[2 * i + 1] != want[1]) {
                that(false, "complex PROD of " + numbers + " numbers, number " + i + ": expected " + want[0] + " + "
                        + want[1] + "i, got " + product[2 * i] + " + " + product[2 * i + 1] + "i");
            }
        }
        pairLocations(c, rank, n, root);
        c.allReduce(new int[0], new int[0], 0, MPI.INT, MPI.SUM);

        // reduceScatter: rank r gets r + 1 items of the sums
        int[] counts = new int[n];
        int total = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = r + 1;
            total += counts[r];
        }
        int[] all = new int[total];
        for (int i = 0; i < total; i++) {
            all[i] = i + rank;
        }
        int[] mine = new int[rank + 1];
        c.reduceScatter(all, mine, counts, MPI.INT, MPI.SUM);
        int first = rank * (rank + 1) / 2;
        for (int i = 0; i <= rank; i++) {
            equal(n * (first + i) + sum, mine[i], "reduceScatter [" + i + "]");
        }
        int[] inPlace = all.clone();
        c.reduceScatter(inPlace, counts, MPI.INT, MPI.SUM);
        for (int i = 0; i <= rank; i++) {
            equal(n * (first + i) + sum, inPlace[i], "reduceScatter in place [" + i + "]");
        }
        long[] blocks = new long[2 * n];
        for (int i = 0; i < 2 * n; i++) {
            blocks[i] = i;
        }
        long[] block = new long[2];
        c.reduceScatterBlock(blocks, block, 2, MPI.LONG, MPI.SUM);
        equal((long) n * 2 * rank, block[0], "reduceScatterBlock [0]");
        equal((long) n * (2 * rank + 1), block[1], "reduceScatterBlock [1]");
        c.reduceScatterBlock(blocks, 2, MPI.LONG, MPI.MAX);
        equal(2L * rank, blocks[0], "reduceScatterBlock in place [0]");
        equal(2L * rank + 1, blocks[1], "reduceScatterBlock in place [1]");
    }

    private static void scans(Intracomm c, int rank, int n) throws MPIException {
        int[] in = {rank + 1};
        int[] out = new int[1];
        c.scan(in, out, 1, MPI.INT, MPI.SUM);
        equal((rank + 1) * (rank + 2) / 2, out[0], "scan");
        double[] prod = {2};
        c.scan(prod, 1, MPI.DOUBLE, MPI.PROD);
        equal(Math.pow(2, rank + 1), prod[0], "scan in place");
        int[] ex = {-1};
        c.exScan(in, ex, 1, MPI.INT, MPI.SUM);
        if (rank > 0) {
            equal(rank * (rank + 1) / 2, ex[0], "exScan");
        }
        long[] exIn = {rank + 1L};
        c.exScan(exIn, 1, MPI.LONG, MPI.MAX);
        if (rank > 0) {
            equal((long) rank, exIn[0], "exScan in place");
        }
    }

    /** MPI_REDUCE_LOCAL: inOut = in op inOut, on arrays and direct buffers, nothing sent. */
    private static void reduceLocal(int rank) throws MPIException {
        int[] in = {rank, 5, -3};
        int[] inOut = {4, rank, 9};
        mpi.Comm.reduceLocal(in, inOut, 3, MPI.INT, MPI.SUM);
        equal(new int[] {rank + 4, rank + 5, 6}, inOut, "reduceLocal SUM");
        DoubleBuffer a = MPI.newDoubleBuffer(2).put(0, 1.5).put(1, -2);
        DoubleBuffer b = MPI.newDoubleBuffer(2).put(0, 2).put(1, 7);
        mpi.Comm.reduceLocal(a, b, 2, MPI.DOUBLE, MPI.MIN);
        that(b.get(0) == 1.5 && b.get(1) == -2, "reduceLocal MIN on direct buffers");
        long[] one = {3};
        long[] other = {4};
        mpi.Comm.reduceLocal(one, other, 1, MPI.LONG, MPI.PROD);
        equal(12L, other[0], "reduceLocal PROD");
        // MAXLOC on two DOUBLE_INTs: a larger value wins, an equal one keeps the smaller index
        ByteBuffer x = MPI.newByteBuffer(32);
        ByteBuffer y = MPI.newByteBuffer(32);
        putPair(MPI.DOUBLE_INT, x, 0, 2, 7);
        putPair(MPI.DOUBLE_INT, x, 1, 1, 3);
        putPair(MPI.DOUBLE_INT, y, 0, 1, 1);
        putPair(MPI.DOUBLE_INT, y, 1, 1, 5);
        mpi.Comm.reduceLocal(x, y, 2, MPI.DOUBLE_INT, MPI.MAXLOC);
        that(java.util.Arrays.equals(pair(MPI.DOUBLE_INT, y, 0), new long[] {2, 7})
                && java.util.Arrays.equals(pair(MPI.DOUBLE_INT, y, 1), new long[] {1, 3}),
                "reduceLocal MAXLOC on DOUBLE_INT");
    }

    /**
     * MAXLOC and MINLOC on SHORT_INT, LONG_INT, FLOAT_INT and DOUBLE_INT: values with ties between
     * ranks (the smaller index wins) and indexes past 2^16, in a direct buffer and in byte arrays,
     * vectors long enough to be split (mid-struct, if split by bytes).
     */
    private static void pairLocations(Intracomm c, int rank, int n, int root) throws MPIException {
        int items = 20_001;
        for (Datatype t : new Datatype[] {MPI.SHORT_INT, MPI.LONG_INT, MPI.FLOAT_INT, MPI.DOUBLE_INT}) {
            int extent = t.getExtent();
            ByteBuffer in = MPI.newByteBuffer(items * extent);
            for (int i = 0; i < items; i++) {
                putPair(t, in, i, pairValue(rank, i), (rank << 20) + i);
            }
            ByteBuffer max = MPI.newByteBuffer(items * extent);
            c.allReduce(in, max, items, t, MPI.MAXLOC);
            byte[] inBytes = new byte[items * extent];
            in.get(0, inBytes);
            byte[] min = new byte[items * extent];
            c.reduce(inBytes, min, items, t, MPI.MINLOC, root);
            ByteBuffer minView = ByteBuffer.wrap(min).order(java.nio.ByteOrder.nativeOrder());
            for (int i = 0; i < items; i++) {
                int hi = Integer.MIN_VALUE;
                int lo = Integer.MAX_VALUE;
                int hiRank = -1;
                int loRank = -1;
                for (int r = 0; r < n; r++) {
                    int v = pairValue(r, i);
                    if (v > hi) {
                        hi = v;
                        hiRank = r;
                    }
                    if (v < lo) {
                        lo = v;
                        loRank = r;
                    }
                }
                long[] got = pair(t, max, i);
                if (got[0] != hi || got[1] != (hiRank << 20) + i) {
                    that(false, "MAXLOC on " + t + ", item " + i + ": expected (" + hi + ", " + ((hiRank << 20) + i)
                            + "), got (" + got[0] + ", " + got[1] + ")");
                }
                if (rank == root) {
                    got = pair(t, minView, i);
                    if (got[0] != lo || got[1] != (loRank << 20) + i) {
                        that(false, "MINLOC on " + t + " to the root, item " + i + ": expected (" + lo + ", "
                                + ((loRank << 20) + i) + "), got (" + got[0] + ", " + got[1] + ")");
                    }
                }
            }
        }
    }

    /** Rank r's value at item i: from -2 to 2, so ranks tie. */
    private static int pairValue(int r, int i) {
        return (r * 7 + i) % 5 - 2;
    }

    /** Puts value {@code v} (scaled to use the type's range) and {@code index} at item {@code i}. */
    private static void putPair(Datatype t, ByteBuffer b, int i, int v, int index) throws MPIException {
        if (t == MPI.SHORT_INT) {
            ShortInt.Data d = MPI.shortInt.getData(b, i);
            d.putValue((short) v);
            d.putIndex(index);
        } else if (t == MPI.LONG_INT) {
            LongInt.Data d = MPI.longInt.getData(b, i);
            d.putValue((long) v << 40);
            d.putIndex(index);
        } else if (t == MPI.FLOAT_INT) {
            FloatInt.Data d = MPI.floatInt.getData(b, i);
            d.putValue(v * 0.5f);
            d.putIndex(index);
        } else {
            DoubleInt.Data d = MPI.doubleInt.getData(b, i);
            d.putValue(v * 0.25);
            d.putIndex(index);
        }
    }

    /** The (value, index) at item {@code i}, the value scaled back as {@link #putPair} scaled it. */
    private static long[] pair(Datatype t, ByteBuffer b, int i) throws MPIException {
        if (t == MPI.SHORT_INT) {
            ShortInt.Data d = MPI.shortInt.getData(b, i);
            return new long[] {d.getValue(), d.getIndex()};
        } else if (t == MPI.LONG_INT) {
            LongInt.Data d = MPI.longInt.getData(b, i);
            return new long[] {d.getValue() >> 40, d.getIndex()};
        } else if (t == MPI.FLOAT_INT) {
            FloatInt.Data d = MPI.floatInt.getData(b, i);
            return new long[] {(long) (d.getValue() * 2), d.getIndex()};
        }
        DoubleInt.Data d = MPI.doubleInt.getData(b, i);
        return new long[] {(long) (d.getValue() * 4), d.getIndex()};
    }

    private static void errors(Intracomm c, int n) throws MPIException {
        fails(MPI.ERR_ROOT, "bcast from root n", () -> c.bcast(new int[1], 1, MPI.INT, n));
        fails(MPI.ERR_OP, "allReduce with REPLACE", () -> c.allReduce(new int[1], new int[1], 1, MPI.INT, MPI.REPLACE));
        fails(MPI.ERR_OP, "MAXLOC on plain ints", () -> c.allReduce(new int[2], new int[2], 1, MPI.INT, MPI.MAXLOC));
        Datatype twoPairs = Datatype.createContiguous(2, MPI.DOUBLE_INT);
        twoPairs.commit();
        fails(MPI.ERR_UNSUPPORTED_OPERATION, "MINLOC on a derived type of DOUBLE_INT",
                () -> c.allReduce(MPI.newByteBuffer(32), MPI.newByteBuffer(32), 1, twoPairs, MPI.MINLOC));
        twoPairs.free();
        fails(MPI.ERR_OP, "MAX of complex numbers",
                () -> c.allReduce(new float[2], new float[2], 1, MPI.FLOAT_COMPLEX, MPI.MAX));
        fails(MPI.ERR_OP, "reduceLocal with REPLACE",
                () -> mpi.Comm.reduceLocal(new int[1], new int[1], 1, MPI.INT, MPI.REPLACE));
        fails(MPI.ERR_BUFFER, "reduceLocal past the arrays' end",
                () -> mpi.Comm.reduceLocal(new int[1], new int[1], 2, MPI.INT, MPI.SUM));
        fails(MPI.ERR_TYPE, "allGather of ints into doubles",
                () -> c.allGather(new int[1], 1, MPI.INT, new double[n], 1, MPI.DOUBLE));
        fails(MPI.ERR_BUFFER, "allGather into too small a buffer",
                () -> c.allGather(new int[1], 1, MPI.INT, new int[n - 1], 1, MPI.INT));
    }
}
