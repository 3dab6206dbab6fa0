package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Datatype;
import mpi.Int2;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Request;
import mpi.Status;
import mpi.Struct;
import mpi.UserFunction;

/**
 * Derived datatypes: every constructor with its bounds, sends and receives of types with gaps on
 * arrays, heap and direct buffers, counts and elements, truncation, collectives with a resized
 * column type, pack/unpack, user operations (array and buffer forms, commutative or not), and the
 * errors (uncommitted, freed, predefined, nonblocking with gaps).
 */
public final class MpiDatatypes {
    private MpiDatatypes() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        c.setErrhandler(MPI.ERRORS_RETURN);
        int rank = c.getRank();
        int size = c.getSize();
        int peer = rank ^ 1;

        // a column of a 4x4 matrix of ints, row-major
        Datatype column = Datatype.createVector(4, 1, 4, MPI.INT);
        fails(MPI.ERR_TYPE, "an uncommitted type", () -> c.send(new int[16], 1, column, rank, 0));
        column.commit();
        equal(4, column.getSize(), "column size");
        equal(13, column.getExtent(), "column extent");
        equal(0, column.getLb(), "column lb");
        equal(13, column.getTrueExtent(), "column true extent");
        Datatype pairs = Datatype.createIndexed(new int[] {2, 1}, new int[] {0, 5}, MPI.INT);
        pairs.commit();
        equal(3, pairs.getSize(), "indexed size");
        equal(6, pairs.getExtent(), "indexed extent");
        Datatype three = Datatype.createContiguous(3, MPI.DOUBLE);
        three.commit();
        equal(3, three.getSize(), "contiguous size");
        equal(3, three.getExtent(), "contiguous extent");
        Datatype hv = Datatype.createHVector(2, 1, 24, MPI.DOUBLE);   // every third double
        hv.commit();
        equal(4, hv.getExtent(), "hvector extent in doubles");
        Datatype hi = Datatype.createHIndexed(new int[] {1, 1}, new int[] {8, 32}, MPI.DOUBLE);
        hi.commit();
        equal(1, hi.getLb(), "hindexed lb");
        equal(4, hi.getExtent(), "hindexed extent");
        Datatype intDouble = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8},
                new Datatype[] {MPI.INT, MPI.DOUBLE});
        intDouble.commit();
        equal(12, intDouble.getSize(), "struct size in bytes");
        equal(16, intDouble.getExtent(), "struct extent in bytes");
        Datatype doubleInt = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8},
                new Datatype[] {MPI.DOUBLE, MPI.INT});
        doubleInt.commit();
        equal(16, doubleInt.getExtent(), "extent rounded to the double's alignment");
        equal(12, doubleInt.getTrueExtent(), "true extent");

        if (peer < size) {
            int[] m = new int[16];
            for (int i = 0; i < 16; i++) {
                m[i] = 100 * rank + i;
            }
            int[] col = new int[4];
            // column 1 of my matrix to the peer, who takes it as 4 ints; and back into a column
            Status s = c.sendRecv(MPI.slice(m, 1), 1, column, peer, 1, col, 4, MPI.INT, peer, 1);
            equal(new int[] {100 * peer + 1, 100 * peer + 5, 100 * peer + 9, 100 * peer + 13}, col, "a column");
            equal(4, s.getCount(MPI.INT), "count of ints");
            int[] into = new int[16];
            s = c.sendRecv(col, 4, MPI.INT, peer, 2, MPI.slice(into, 2), 1, column, peer, 2);
            equal(1, s.getCount(column), "one column received");
            equal(4, s.getElements(column), "four elements");
            equal(100 * rank + 5, into[6], "the column's second int, back in column 2");
            equal(0, into[3], "the gap untouched");
            // a direct buffer and a heap buffer with a vector type
            IntBuffer direct = MPI.newIntBuffer(16);
            for (int i = 0; i < 16; i++) {
                direct.put(i, i);
            }
            IntBuffer heap = IntBuffer.allocate(16);
            c.sendRecv(direct, 1, column, peer, 3, heap, 1, column, peer, 3);
            equal(12, heap.get(12), "direct to heap, through a column");
            equal(0, heap.get(1), "heap gap");
            // indexed, hvector, hindexed
            int[] ix = new int[6];
            c.sendRecv(new int[] {1, 2, 3, 4, 5, 6}, 1, pairs, peer, 4, ix, 1, pairs, peer, 4);
            equal(new int[] {1, 2, 0, 0, 0, 6}, ix, "indexed");
            double[] d = {0, 1, 2, 3, 4, 5, 6, 7};
            double[] dOut = new double[8];
            c.sendRecv(d, 1, hv, peer, 5, dOut, 1, hv, peer, 5);
            equal(new double[] {0, 0, 0, 3, 0, 0, 0, 0}, dOut, "hvector");
            double[] hOut = new double[8];
            c.sendRecv(d, 1, hi, peer, 6, hOut, 2, MPI.DOUBLE, peer, 6);
            equal(new double[] {1, 4, 0, 0, 0, 0, 0, 0}, hOut, "hindexed");
            // contiguous: 2 items of 3 doubles, counted both ways
            double[] six = new double[6];
            s = c.sendRecv(new double[] {1, 2, 3, 4, 5, 6}, 2, three, peer, 7, six, 2, three, peer, 7);
            equal(2, s.getCount(three), "two items of three doubles");
            equal(6, s.getElements(three), "six doubles");
            equal(6.0, six[5], "last double");
            // struct in byte buffers, heap and direct
            ByteBuffer out = MPI.newByteBuffer(32);
            out.putInt(0, 7).putDouble(8, 1.5).putInt(16, 8).putDouble(24, 2.5);
            ByteBuffer back = ByteBuffer.allocate(32).order(java.nio.ByteOrder.nativeOrder());
            c.sendRecv(out, 2, intDouble, peer, 8, back, 2, intDouble, peer, 8);
            equal(8, back.getInt(16), "struct int");
            that(back.getDouble(24) == 2.5, "struct double");
            // zero items, and truncation
            c.sendRecv(null, 0, column, peer, 9, null, 0, column, peer, 9);
            if (rank % 2 == 0) {
                c.send(m, 2, pairs, peer, 10);
                c.send(new double[3], 1, three, peer, 11);
            } else {
                fails(MPI.ERR_TRUNCATE, "two indexed items into one", () -> c.recv(new int[6], 1, pairs, peer, 10));
                fails(MPI.ERR_TYPE, "doubles into ints", () -> c.recv(new int[6], 1, three, peer, 11));
                c.recv(new double[3], 1, three, peer, 11);
            }
            // nonblocking: a dense derived type, and one with gaps (packed by the call, unpacked by the wait)
            DoubleBuffer db = MPI.newDoubleBuffer(6);
            Request r = c.iRecv(db, 2, three, peer, 12);
            c.send(new double[] {6, 5, 4, 3, 2, 1}, 2, three, peer, 12);
            r.waitFor();
            that(db.get(0) == 6.0 && db.get(5) == 1.0, "nonblocking contiguous");
            IntBuffer halo = MPI.newIntBuffer(16);
            Request haloIn = c.iRecv(halo.slice(2, 14), 1, column, peer, 13);
            Request haloOut = c.iSend(direct.slice(1, 15), 1, column, peer, 13);
            Status[] both = Request.waitAllStatus(new Request[] {haloIn, haloOut});
            equal(new int[] {1, 5, 9, 13}, new int[] {halo.get(2), halo.get(6), halo.get(10), halo.get(14)},
                    "a column received by iRecv, sent by iSend");
            equal(0, halo.get(3) + halo.get(7) + halo.get(11), "the gaps between the column's ints untouched");
            equal(1, both[0].getCount(column), "one column received, nonblocking");
            equal(4, both[0].getElements(column), "its four ints");
            // tested to completion instead of waited for
            IntBuffer again = MPI.newIntBuffer(16);
            Request polled = c.iRecv(again, 1, column, peer, 14);
            c.send(new int[] {7, 8, 9, 10}, 4, MPI.INT, peer, 14);
            while (!polled.test()) {
                Thread.onSpinWait();
            }
            equal(new int[] {7, 8, 9, 10}, new int[] {again.get(0), again.get(4), again.get(8), again.get(12)},
                    "a column received by iRecv, tested");
            // persistent: each start sends the column as it is then, each completion unpacks
            IntBuffer sendCol = MPI.newIntBuffer(16);
            IntBuffer recvCol = MPI.newIntBuffer(16);
            mpi.Prequest ps = c.sendInit(sendCol, 1, column, peer, 15);
            mpi.Prequest pr = c.recvInit(recvCol, 1, column, peer, 15);
            for (int round = 1; round <= 3; round++) {
                for (int i = 0; i < 16; i++) {
                    sendCol.put(i, 1000 * round + i);
                }
                pr.start();
                ps.start();
                Request.waitAll(new Request[] {pr, ps});
                equal(new int[] {1000 * round, 1000 * round + 4, 1000 * round + 8, 1000 * round + 12},
                        new int[] {recvCol.get(0), recvCol.get(4), recvCol.get(8), recvCol.get(12)},
                        "a persistent column, start " + round);
                equal(0, recvCol.get(1), "a persistent column's gap");
            }
            ps.free();
            pr.free();
        }

        // allGather into a matrix's columns: rank r's two ints become column r of a 2 x size matrix
        Datatype col2 = Datatype.createVector(2, 1, size, MPI.INT);
        Datatype stepped = Datatype.createResized(col2, 0, 4);
        stepped.commit();
        equal(1, stepped.getExtent(), "resized extent");
        int[] grid = new int[2 * size];
        c.allGather(new int[] {rank, rank + 100}, 2, MPI.INT, grid, 1, stepped);
        for (int r = 0; r < size; r++) {
            equal(r, grid[r], "row 0 of the gathered grid");
            equal(r + 100, grid[size + r], "row 1 of the gathered grid");
        }
        // the same nonblocking: each request unpacks its receive buffer's packed copy when it completes
        IntBuffer gridNb = MPI.newIntBuffer(2 * size);
        IntBuffer mineNb = MPI.newIntBuffer(2);
        mineNb.put(0, rank).put(1, rank + 100);
        c.iAllGather(mineNb, 2, MPI.INT, gridNb, 1, stepped).waitFor();
        for (int r = 0; r < size; r++) {
            equal(r, gridNb.get(r), "row 0 of the grid gathered by iAllGather");
            equal(r + 100, gridNb.get(size + r), "row 1 of the grid gathered by iAllGather");
        }
        // a column broadcast from rank 0, and summed in place: the gaps stay as they were
        IntBuffer square = MPI.newIntBuffer(16);
        for (int i = 0; i < 16; i++) {
            square.put(i, rank == 0 ? i : -1);
        }
        Request bc = c.iBcast(square, 1, column, 0);
        bc.waitFor();
        equal(new int[] {0, 4, 8, 12}, new int[] {square.get(0), square.get(4), square.get(8), square.get(12)},
                "a column broadcast by iBcast");
        equal(rank == 0 ? 1 : -1, square.get(1), "the broadcast column's gap untouched");
        Request sum = c.iAllReduce(square, 1, column, MPI.SUM);
        while (!sum.test()) {
            Thread.onSpinWait();
        }
        equal(new int[] {0, 4 * size, 8 * size, 12 * size},
                new int[] {square.get(0), square.get(4), square.get(8), square.get(12)}, "a column summed by iAllReduce in place");
        equal(rank == 0 ? 1 : -1, square.get(1), "the summed column's gap untouched");
        IntBuffer colSum = MPI.newIntBuffer(16);
        c.iAllReduce(square, colSum, 1, column, MPI.MAX).waitFor();
        equal(12 * size, colSum.get(12), "a column's maximum by iAllReduce into another buffer");
        equal(0, colSum.get(13), "its gap untouched");
        // a neighbourhood gather on a ring, a column sent and each neighbour's received as a column
        mpi.CartComm ring = c.createCart(new int[] {size}, new boolean[] {true}, false);
        IntBuffer mineCol = MPI.newIntBuffer(16);
        for (int i = 0; i < 16; i++) {
            mineCol.put(i, 100 * rank + i);
        }
        IntBuffer fromNeighbours = MPI.newIntBuffer(32);
        ring.iNeighborAllGather(mineCol, 1, column, fromNeighbours, 1, column).waitFor();
        int left = (rank + size - 1) % size;
        int right = (rank + 1) % size;
        equal(new int[] {100 * left, 100 * left + 12, 100 * right, 100 * right + 12},
                new int[] {fromNeighbours.get(0), fromNeighbours.get(12), fromNeighbours.get(13), fromNeighbours.get(25)},
                "columns from both neighbours by iNeighborAllGather");
        equal(0, fromNeighbours.get(1) + fromNeighbours.get(14), "the neighbours' columns' gaps untouched");
        ring.free();
        // and back: scatter the columns
        int[] mine = new int[2];
        c.scatter(grid, 1, stepped, mine, 2, MPI.INT, 0);
        equal(new int[] {rank, rank + 100}, mine, "scatter of a column");
        // reductions on a contiguous type
        double[] sums = {rank, 1, 2};
        c.allReduce(sums, 1, three, MPI.SUM);
        equal((long) size * (size - 1) / 2, (long) sums[0], "allReduce of a contiguous type");

        // pack and unpack
        byte[] packed = new byte[c.packSize(3, MPI.INT) + c.packSize(1, three)];
        equal(12 + 24, packed.length, "packSize");
        int pos = c.pack(new int[] {rank, 2, 3}, 3, MPI.INT, packed, 0);
        pos = c.pack(new double[] {0.5, 1.5, 2.5}, 1, three, packed, pos);
        equal(packed.length, pos, "packed position");
        fails(MPI.ERR_TRUNCATE, "packing past the end", () -> c.pack(new int[] {1}, 1, MPI.INT, packed, packed.length));
        byte[] got = new byte[packed.length];
        int from = (rank + size - 1) % size;
        c.sendRecv(packed, packed.length, MPI.PACKED, (rank + 1) % size, 14, got, got.length, MPI.PACKED, from, 14);
        int[] ints = new int[3];
        int[] col = new int[16];
        pos = c.unpack(got, 0, ints, 3, MPI.INT);
        equal(from, ints[0], "unpacked int");
        double[] ds = new double[3];
        pos = c.unpack(got, pos, ds, 1, three);
        that(ds[2] == 2.5, "unpacked double");
        c.unpack(got, 0, col, 1, column);
        equal(new int[] {from, 2, 3}, new int[] {col[0], col[4], col[8]}, "unpacked into a column");

        // user operations
        Op absMax = new Op(new UserFunction() {
            @Override
            public void call(Object in, Object inOut, int count, Datatype type) {
                int[] a = (int[]) in;
                int[] b = (int[]) inOut;
                for (int i = 0; i < count; i++) {
                    b[i] = Math.max(Math.abs(a[i]), Math.abs(b[i]));
                }
            }
        }, true);
        int[] v = {-rank, rank};
        c.allReduce(v, 2, MPI.INT, absMax);
        equal(new int[] {size - 1, size - 1}, v, "a user operation on arrays");
        Op first = new Op(new UserFunction() {
            @Override
            public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) {
                for (int i = 0; i < count; i++) {
                    inOut.putDouble(8 * i, in.getDouble(8 * i));   // x ∘ y = x: associative, not commutative
                }
            }
        }, false);
        that(!first.isCommutative(), "not commutative");
        double[] fd = {rank + 0.5};
        c.allReduce(fd, 1, MPI.DOUBLE, first);
        that(fd[0] == 0.5, "a non-commutative operation keeps rank order: " + fd[0]);
        int[] scanned = {rank + 1};
        c.scan(scanned, 1, MPI.INT, absMax);
        equal(rank + 1, scanned[0], "scan with a user operation");
        // reduceLocal on a column type, and with a user operation (in is its left operand)
        int[] local = new int[16];
        for (int i = 0; i < 16; i++) {
            local[i] = i % 2 == 0 ? -i : i;
        }
        int[] localOut = new int[16];
        java.util.Arrays.fill(localOut, 3);
        mpi.Comm.reduceLocal(local, localOut, 1, column, MPI.MIN);
        equal(new int[] {0, 3, -8, 3, -12, 3}, new int[] {localOut[0], localOut[1], localOut[8], localOut[9],
                localOut[12], localOut[13]}, "reduceLocal MIN of a column, the gaps untouched");
        double[] leftOperand = {1.5};
        double[] rightOperand = {2.5};
        mpi.Comm.reduceLocal(leftOperand, rightOperand, 1, MPI.DOUBLE, first);
        that(rightOperand[0] == 1.5, "reduceLocal hands in as the left operand: " + rightOperand[0]);
        absMax.free();
        that(absMax.isNull(), "a freed operation");
        fails(MPI.ERR_OP, "a freed operation", () -> c.allReduce(new int[1], 1, MPI.INT, absMax));
        fails(MPI.ERR_OP, "freeing MPI.MAX", MPI.MAX::free);

        // Struct: the pair accessors with MAXLOC, and a struct of the program's own
        ByteBuffer pair = MPI.newByteBuffer(8);
        Int2.Data pd = MPI.int2.getData(pair);
        pd.putValue((rank * 5) % size);
        pd.putIndex(rank);
        c.allReduce(pair, 1, MPI.INT2, MPI.MAXLOC);
        int best = 0;
        for (int r = 0; r < size; r++) {
            best = Math.max(best, (r * 5) % size);
        }
        equal(best, pd.getValue(), "MAXLOC's value through MPI.int2");
        equal(best, (pd.getIndex() * 5) % size, "MAXLOC's index through MPI.int2");
        equal(16, MPI.doubleInt.getExtent(), "MPI.doubleInt's extent, as C's struct");
        Point point = new Point();
        byte[] points = new byte[2 * point.getExtent()];
        for (int i = 0; i < 2; i++) {
            Point.Data pt = point.getData(points, i);
            pt.putX(rank + i);
            pt.putY(rank * 0.5 + i);
        }
        int to = (rank + 1) % size;
        int fromRank = (rank + size - 1) % size;
        byte[] gotPoints = new byte[points.length];
        c.sendRecv(points, 2, point.getType(), to, 15, gotPoints, 2, point.getType(), fromRank, 15);
        Point.Data second = point.getData(gotPoints, 1);
        equal(fromRank + 1, second.getX(), "a struct's int");
        that(second.getY() == fromRank * 0.5 + 1, "a struct's double");

        // freeing types
        Datatype gone = column.dup();
        gone.free();
        that(gone.isNull(), "a freed type");
        fails(MPI.ERR_TYPE, "a freed type", () -> c.send(new int[16], 1, gone, rank, 0));
        fails(MPI.ERR_TYPE, "freeing MPI.INT", MPI.INT::free);
        fails(MPI.ERR_TYPE, "an int[] for a struct", () -> c.send(new int[8], 1, intDouble, rank, 0));
        fails(MPI.ERR_BUFFER, "a column past the array's end", () -> c.send(new int[12], 1, column, rank, 0));

        System.out.println("rank " + rank + ": datatypes ok");
        MPI.Finalize();
    }

    /** A struct of the program's own: an int, then a double. */
    static final class Point extends Struct {
        private final int x = addInt();
        private final int y = addDouble();

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            int getX() {
                return getInt(x);
            }

            double getY() {
                return getDouble(y);
            }

            void putX(int v) {
                putInt(x, v);
            }

            void putY(double v) {
                putDouble(y, v);
            }
        }
    }
}
