package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;

import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * sendRecv and sendRecvReplace around a ring (periodic, and open with PROC_NULL at the ends), with
 * arrays, slices, heap and direct buffers, boolean[] and char[], and to self.
 */
public final class MpiSendRecvCombined {
    private MpiSendRecvCombined() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;

        // periodic shift: int[] to the right, into a direct buffer from the left
        int[] out = new int[10];
        for (int i = 0; i < 10; i++) {
            out[i] = rank * 100 + i;
        }
        IntBuffer in = MPI.newIntBuffer(12);
        Status s = c.sendRecv(out, 10, MPI.INT, right, 1, in, 12, MPI.INT, left, 1);
        equal(left, s.getSource(), "sendRecv source");
        equal(1, s.getTag(), "sendRecv tag");
        equal(10, s.getCount(MPI.INT), "sendRecv count");
        for (int i = 0; i < 10; i++) {
            equal(left * 100 + i, in.get(i), "sendRecv [" + i + "]");
        }

        // slices on both sides, wildcards on the receive
        double[] d = new double[20];
        for (int i = 0; i < 20; i++) {
            d[i] = rank + i / 10.0;
        }
        double[] got = new double[20];
        s = c.sendRecv(MPI.slice(d, 4), 6, MPI.DOUBLE, right, 2, MPI.slice(got, 10), 10, MPI.DOUBLE,
                MPI.ANY_SOURCE, MPI.ANY_TAG);
        equal(left, s.getSource(), "sendRecv with wildcards: source");
        equal(2, s.getTag(), "sendRecv with wildcards: tag");
        for (int i = 0; i < 20; i++) {
            equal(i >= 10 && i < 16 ? left + (i - 6) / 10.0 : 0.0, got[i], "sendRecv slices [" + i + "]");
        }

        // boolean[] and char[], which Tutti's typed calls do not take
        boolean[] flags = {rank % 2 == 0, true, false, rank % 3 == 0};
        boolean[] flagsIn = new boolean[4];
        c.sendRecv(flags, 4, MPI.BOOLEAN, right, 3, flagsIn, 4, MPI.BOOLEAN, left, 3);
        equal(left % 2 == 0, flagsIn[0], "boolean 0");
        equal(true, flagsIn[1], "boolean 1");
        equal(false, flagsIn[2], "boolean 2");
        equal(left % 3 == 0, flagsIn[3], "boolean 3");
        char[] text = ("rank" + (char) ('A' + rank)).toCharArray();
        char[] textIn = new char[8];
        s = c.sendRecv(text, 5, MPI.CHAR, right, 4, textIn, 8, MPI.CHAR, left, 4);
        equal("rank" + (char) ('A' + left), new String(textIn, 0, s.getCount(MPI.CHAR)), "char[] sendRecv");

        // open shift: rank 0 receives from PROC_NULL, the last rank sends to PROC_NULL
        int up = rank + 1 < size ? rank + 1 : MPI.PROC_NULL;
        int down = rank > 0 ? rank - 1 : MPI.PROC_NULL;
        long[] edge = {rank};
        long[] halo = {-7};
        s = c.sendRecv(edge, 1, MPI.LONG, up, 5, halo, 1, MPI.LONG, down, 5);
        if (down == MPI.PROC_NULL) {
            equal(MPI.PROC_NULL, s.getSource(), "from PROC_NULL: source");
            equal(MPI.ANY_TAG, s.getTag(), "from PROC_NULL: tag");
            equal(0, s.getCount(MPI.LONG), "from PROC_NULL: count");
            equal(-7L, halo[0], "from PROC_NULL: buffer untouched");
        } else {
            equal(down, s.getSource(), "open shift source");
            equal((long) down, halo[0], "open shift value");
        }

        // sendRecvReplace around the ring: an int[] slice, a direct buffer, boolean[]
        int[] block = new int[8];
        for (int i = 0; i < 8; i++) {
            block[i] = rank * 10 + i;
        }
        s = c.sendRecvReplace(MPI.slice(block, 2), 4, MPI.INT, right, 6, left, 6);
        equal(4, s.getCount(MPI.INT), "sendRecvReplace count");
        equal(left, s.getSource(), "sendRecvReplace source");
        for (int i = 0; i < 8; i++) {
            equal(i >= 2 && i < 6 ? left * 10 + i : rank * 10 + i, block[i], "sendRecvReplace [" + i + "]");
        }
        DoubleBuffer db = MPI.newDoubleBuffer(3);
        db.put(0, rank).put(1, rank * 2).put(2, rank * 3).position(2);
        c.sendRecvReplace(db, 3, MPI.DOUBLE, right, 7, MPI.ANY_SOURCE, 7);
        equal((double) left * 3, db.get(2), "sendRecvReplace on a direct buffer");
        boolean[] bits = {rank == 0, rank == 1};
        c.sendRecvReplace(bits, 2, MPI.BOOLEAN, right, 8, left, 8);
        equal(left == 0, bits[0], "sendRecvReplace boolean 0");
        equal(left == 1, bits[1], "sendRecvReplace boolean 1");
        // with PROC_NULL at the ends: the last rank only receives, rank 0 only sends
        int[] one = {rank};
        s = c.sendRecvReplace(one, 1, MPI.INT, up, 9, down, 9);
        equal(down == MPI.PROC_NULL ? rank : down, one[0], "open sendRecvReplace");

        // to self
        float[] mine = {rank + 0.5f};
        float[] back = new float[1];
        c.sendRecv(mine, 1, MPI.FLOAT, rank, 10, back, 1, MPI.FLOAT, rank, 10);
        equal(rank + 0.5f, back[0], "sendRecv to self");

        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": sendRecv ok");
    }
}
