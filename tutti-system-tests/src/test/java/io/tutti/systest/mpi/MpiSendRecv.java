package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import mpi.Comm;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.ShortInt;
import mpi.Status;

/**
 * Blocking send and receive in pairs (rank 2k with 2k+1; both directions): every primitive array type,
 * slices with offsets, heap and direct buffers with their position ignored, the pair and complex
 * types, zero counts and null buffers, messages of 1 MiB, and the Status getters; then a ring with
 * ANY_SOURCE and ANY_TAG, and PROC_NULL.
 */
public final class MpiSendRecv {
    private static final int N = 37;
    private static final int BIG = 1 << 20;

    private MpiSendRecv() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int peer = rank ^ 1;
        if (peer < size) {
            // each pair runs everything twice, each rank sending once
            for (int round = 0; round < 2; round++) {
                boolean sends = (rank % 2 == 0) == (round == 0);
                int from = sends ? rank : peer;
                arrays(world, peer, sends, from);
                slices(world, peer, sends, from);
                heapBuffers(world, peer, sends, from);
                directBuffers(world, peer, sends, from);
                pairsAndComplex(world, peer, sends, from);
                empty(world, peer, sends);
                large(world, peer, sends, from);
            }
        }
        ring(world, rank, size);
        procNull(world);
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": send/recv ok");
    }

    private static int value(int from, int i) {
        return from * 1000 + i * 7 + 1;
    }

    /** Checks a status: source, tag, count in items and in basic elements. */
    private static void status(Status s, int source, int tag, mpi.Datatype type, int count, int elements, String what)
            throws MPIException {
        equal(source, s.getSource(), what + ": source");
        equal(tag, s.getTag(), what + ": tag");
        equal(count, s.getCount(type), what + ": count");
        equal(elements, s.getElements(type), what + ": elements");
        equal(MPI.SUCCESS, s.getError(), what + ": error");
        that(!s.isCancelled(), what + ": not cancelled");
    }

    private static void arrays(Comm c, int peer, boolean sends, int from) throws MPIException {
        byte[] b = new byte[N + 3];
        char[] ch = new char[N + 3];
        short[] sh = new short[N + 3];
        boolean[] bo = new boolean[N + 3];
        int[] in = new int[N + 3];
        long[] lo = new long[N + 3];
        float[] fl = new float[N + 3];
        double[] du = new double[N + 3];
        if (sends) {
            for (int i = 0; i < N + 3; i++) {
                int v = value(from, i);
                b[i] = (byte) v;
                ch[i] = (char) (v + 40000);
                sh[i] = (short) -v;
                bo[i] = v % 3 == 0;
                in[i] = v * 100003;
                lo[i] = v * 10_000_000_019L;
                fl[i] = v / 3f;
                du[i] = v / 7.0;
            }
            c.send(b, N, MPI.BYTE, peer, 1);
            c.send(ch, N, MPI.CHAR, peer, 2);
            c.send(sh, N, MPI.SHORT, peer, 3);
            c.send(bo, N, MPI.BOOLEAN, peer, 4);
            c.send(in, N, MPI.INT, peer, 5);
            c.send(lo, N, MPI.LONG, peer, 6);
            c.send(fl, N, MPI.FLOAT, peer, 7);
            c.send(du, N, MPI.DOUBLE, peer, 8);
        } else {
            status(c.recv(b, N + 3, MPI.BYTE, peer, 1), peer, 1, MPI.BYTE, N, N, "byte[]");
            status(c.recv(ch, N + 3, MPI.CHAR, peer, 2), peer, 2, MPI.CHAR, N, N, "char[]");
            status(c.recv(sh, N + 3, MPI.SHORT, peer, 3), peer, 3, MPI.SHORT, N, N, "short[]");
            status(c.recv(bo, N + 3, MPI.BOOLEAN, peer, 4), peer, 4, MPI.BOOLEAN, N, N, "boolean[]");
            Status s = c.recv(in, N + 3, MPI.INT, peer, 5);
            status(s, peer, 5, MPI.INT, N, N, "int[]");
            equal(N * 4, s.getCount(MPI.BYTE), "int[] message counted in bytes");
            equal(MPI.UNDEFINED, s.getCount(MPI.DOUBLE), "37 ints are not a whole number of doubles");
            status(c.recv(lo, N + 3, MPI.LONG, peer, 6), peer, 6, MPI.LONG, N, N, "long[]");
            status(c.recv(fl, N + 3, MPI.FLOAT, peer, 7), peer, 7, MPI.FLOAT, N, N, "float[]");
            status(c.recv(du, N + 3, MPI.DOUBLE, peer, 8), peer, 8, MPI.DOUBLE, N, N, "double[]");
            for (int i = 0; i < N + 3; i++) {
                int v = value(from, i);
                boolean sent = i < N;      // the last 3 were not sent: still zero
                equal(sent ? (byte) v : 0, b[i], "byte[" + i + "]");
                equal(sent ? (char) (v + 40000) : 0, ch[i], "char[" + i + "]");
                equal(sent ? (short) -v : 0, sh[i], "short[" + i + "]");
                equal(sent && v % 3 == 0, bo[i], "boolean[" + i + "]");
                equal(sent ? v * 100003 : 0, in[i], "int[" + i + "]");
                equal(sent ? v * 10_000_000_019L : 0, lo[i], "long[" + i + "]");
                equal(sent ? v / 3f : 0f, fl[i], "float[" + i + "]");
                equal(sent ? v / 7.0 : 0.0, du[i], "double[" + i + "]");
            }
        }
    }

    /** MPI.slice gives the offset of C's &buf[i], on both sides. */
    private static void slices(Comm c, int peer, boolean sends, int from) throws MPIException {
        int[] in = new int[30];
        double[] du = new double[30];
        short[] sh = new short[30];
        char[] ch = new char[30];
        if (sends) {
            for (int i = 0; i < 30; i++) {
                in[i] = value(from, i);
                du[i] = value(from, i) + 0.5;
                sh[i] = (short) (i * 3);
                ch[i] = (char) ('a' + i);
            }
            c.send(MPI.slice(in, 5), 10, MPI.INT, peer, 11);
            c.send(MPI.slice(du, 20), 10, MPI.DOUBLE, peer, 12);
            c.send(MPI.slice(sh, 3), 6, MPI.SHORT, peer, 13);
            c.send(MPI.slice(ch, 1), 4, MPI.CHAR, peer, 14);
        } else {
            status(c.recv(MPI.slice(in, 7), 23, MPI.INT, peer, 11), peer, 11, MPI.INT, 10, 10, "int slice");
            status(c.recv(MPI.slice(du, 0), 30, MPI.DOUBLE, peer, 12), peer, 12, MPI.DOUBLE, 10, 10, "double slice");
            c.recv(MPI.slice(sh, 10), 20, MPI.SHORT, peer, 13);
            c.recv(MPI.slice(ch, 2), 28, MPI.CHAR, peer, 14);
            for (int i = 0; i < 30; i++) {
                equal(i >= 7 && i < 17 ? value(from, i - 2) : 0, in[i], "int slice [" + i + "]");
                equal(i < 10 ? value(from, i + 20) + 0.5 : 0.0, du[i], "double slice [" + i + "]");
                equal(i >= 10 && i < 16 ? (short) ((i - 7) * 3) : 0, sh[i], "short slice [" + i + "]");
                equal(i >= 2 && i < 6 ? (char) ('a' + i - 1) : 0, ch[i], "char slice [" + i + "]");
            }
        }
    }

    /** Heap buffers: from their array offset, the position ignored and left as it was. */
    private static void heapBuffers(Comm c, int peer, boolean sends, int from) throws MPIException {
        IntBuffer ib = IntBuffer.allocate(20);
        ShortBuffer sb = ShortBuffer.allocate(20);
        ByteBuffer bb = ByteBuffer.allocate(20);
        if (sends) {
            for (int i = 0; i < 20; i++) {
                ib.put(i, value(from, i));
                sb.put(i, (short) value(from, i));
                bb.put(i, (byte) (i + from));
            }
            ib.position(15);
            c.send(ib, 12, MPI.INT, peer, 21);
            equal(15, ib.position(), "a send leaves the position");
            c.send(sb, 20, MPI.SHORT, peer, 22);
            c.send(bb, 20, MPI.BYTE, peer, 23);
        } else {
            ib.position(3).limit(4);
            status(c.recv(ib, 20, MPI.INT, peer, 21), peer, 21, MPI.INT, 12, 12, "IntBuffer");
            equal(3, ib.position(), "a receive leaves the position");
            equal(4, ib.limit(), "a receive leaves the limit");
            ib.clear();
            c.recv(sb, 20, MPI.SHORT, peer, 22);
            ByteBuffer wrapped = ByteBuffer.wrap(new byte[30], 4, 26).slice();   // array offset 4
            wrapped.position(9);
            status(c.recv(wrapped, 26, MPI.BYTE, peer, 23), peer, 23, MPI.BYTE, 20, 20, "wrapped ByteBuffer");
            for (int i = 0; i < 20; i++) {
                equal(i < 12 ? value(from, i) : 0, ib.get(i), "IntBuffer[" + i + "]");
                equal((short) value(from, i), sb.get(i), "ShortBuffer[" + i + "]");
                equal((byte) (i + from), wrapped.array()[4 + i], "ByteBuffer at array offset 4 [" + i + "]");
            }
        }
    }

    /** Direct buffers, from the library and from slices: from their first element, position ignored. */
    private static void directBuffers(Comm c, int peer, boolean sends, int from) throws MPIException {
        DoubleBuffer db = MPI.newDoubleBuffer(40);
        LongBuffer lb = MPI.newLongBuffer(10);
        FloatBuffer fb = MPI.newFloatBuffer(10);
        CharBuffer cb = MPI.newCharBuffer(10);
        ByteBuffer raw = MPI.newByteBuffer(8 * 10);
        if (sends) {
            for (int i = 0; i < 40; i++) {
                db.put(i, value(from, i) * 0.25);
            }
            for (int i = 0; i < 10; i++) {
                lb.put(i, -value(from, i));
                fb.put(i, value(from, i) * 2f);
                cb.put(i, (char) ('A' + i));
                raw.putInt(4 * i, value(from, i));   // ints in a byte buffer, platform order
            }
            db.position(30);
            c.send(db, 25, MPI.DOUBLE, peer, 31);
            equal(30, db.position(), "a send leaves a direct buffer's position");
            c.send(MPI.slice(db, 35), 5, MPI.DOUBLE, peer, 32);
            c.send(lb, 10, MPI.LONG, peer, 33);
            c.send(fb, 10, MPI.FLOAT, peer, 34);
            c.send(cb, 10, MPI.CHAR, peer, 35);
            c.send(raw, 10, MPI.INT, peer, 36);
        } else {
            db.position(10).limit(11);
            status(c.recv(db, 40, MPI.DOUBLE, peer, 31), peer, 31, MPI.DOUBLE, 25, 25, "DoubleBuffer");
            equal(10, db.position(), "a receive leaves a direct buffer's position");
            db.clear();
            status(c.recv(MPI.slice(db, 30), 10, MPI.DOUBLE, peer, 32), peer, 32, MPI.DOUBLE, 5, 5, "direct slice");
            c.recv(lb, 10, MPI.LONG, peer, 33);
            c.recv(fb, 10, MPI.FLOAT, peer, 34);
            c.recv(cb, 10, MPI.CHAR, peer, 35);
            int[] ints = new int[10];
            c.recv(ints, 10, MPI.INT, peer, 36);
            for (int i = 0; i < 40; i++) {
                double expected = i < 25 ? value(from, i) * 0.25 : i >= 30 && i < 35 ? value(from, i + 5) * 0.25 : 0;
                equal(expected, db.get(i), "DoubleBuffer[" + i + "]");
            }
            for (int i = 0; i < 10; i++) {
                equal(-value(from, i), lb.get(i), "LongBuffer[" + i + "]");
                equal(value(from, i) * 2f, fb.get(i), "FloatBuffer[" + i + "]");
                equal((char) ('A' + i), cb.get(i), "CharBuffer[" + i + "]");
                equal(value(from, i), ints[i], "ints from a byte buffer [" + i + "]");
            }
        }
    }

    /**
     * INT2 in an int[] and in a byte buffer, DOUBLE_INT in a byte buffer (C's layout), DOUBLE_COMPLEX,
     * and a vector of SHORT_INTs with indexes past 2^16.
     */
    private static void pairsAndComplex(Comm c, int peer, boolean sends, int from) throws MPIException {
        int[] pairs = new int[8];
        ByteBuffer di = MPI.newByteBuffer(16 * 3);
        double[] complex = new double[6];
        // every other SHORT_INT: packed as C packs the struct, its two bytes of padding left out
        Datatype everyOther = Datatype.createVector(3, 1, 2, MPI.SHORT_INT);
        everyOther.commit();
        ByteBuffer si = MPI.newByteBuffer(8 * 6);
        if (sends) {
            for (int i = 0; i < 8; i++) {
                pairs[i] = value(from, i);
            }
            for (int i = 0; i < 3; i++) {
                di.putDouble(16 * i, value(from, i) + 0.5);
                di.putInt(16 * i + 8, i);
                complex[2 * i] = i;
                complex[2 * i + 1] = -i;
            }
            c.send(pairs, 3, MPI.INT2, peer, 41);
            c.send(di, 3, MPI.DOUBLE_INT, peer, 42);
            c.send(complex, 3, MPI.DOUBLE_COMPLEX, peer, 43);
            for (int i = 0; i < 6; i++) {
                ShortInt.Data d = MPI.shortInt.getData(si, i);
                d.putValue((short) (i - 3));
                d.putIndex((1 << 20) + i);
            }
            c.send(si, 1, everyOther, peer, 44);
        } else {
            Status s = c.recv(pairs, 4, MPI.INT2, peer, 41);
            status(s, peer, 41, MPI.INT2, 3, 6, "INT2 pairs");
            equal(6, s.getCount(MPI.INT), "3 INT2 pairs are 6 ints");
            for (int i = 0; i < 8; i++) {
                equal(i < 6 ? value(from, i) : 0, pairs[i], "INT2 [" + i + "]");
            }
            status(c.recv(di, 3, MPI.DOUBLE_INT, peer, 42), peer, 42, MPI.DOUBLE_INT, 3, 6, "DOUBLE_INT");
            for (int i = 0; i < 3; i++) {
                equal(value(from, i) + 0.5, di.getDouble(16 * i), "DOUBLE_INT value " + i);
                equal(i, di.getInt(16 * i + 8), "DOUBLE_INT index " + i);
            }
            status(c.recv(complex, 3, MPI.DOUBLE_COMPLEX, peer, 43), peer, 43, MPI.DOUBLE_COMPLEX, 3, 6, "complex");
            for (int i = 0; i < 3; i++) {
                equal((double) i, complex[2 * i], "real " + i);
                equal((double) -i, complex[2 * i + 1], "imaginary " + i);
            }
            c.recv(si, 1, everyOther, peer, 44);
            for (int i = 0; i < 6; i++) {
                ShortInt.Data d = MPI.shortInt.getData(si, i);
                equal(i % 2 == 0 ? i - 3 : 0, d.getValue(), "SHORT_INT value " + i);
                equal(i % 2 == 0 ? (1 << 20) + i : 0, d.getIndex(), "SHORT_INT index " + i);
            }
        }
        everyOther.free();
    }

    /** Zero counts, with arrays, direct buffers and null buffers. */
    private static void empty(Comm c, int peer, boolean sends) throws MPIException {
        if (sends) {
            c.send(new int[0], 0, MPI.INT, peer, 51);
            c.send(new double[4], 0, MPI.DOUBLE, peer, 52);
            c.send(null, 0, MPI.BYTE, peer, 53);
            c.send(MPI.newIntBuffer(0), 0, MPI.INT, peer, 54);
        } else {
            status(c.recv(new int[0], 0, MPI.INT, peer, 51), peer, 51, MPI.INT, 0, 0, "empty int[]");
            double[] d = {1, 2, 3, 4};
            status(c.recv(d, 4, MPI.DOUBLE, peer, 52), peer, 52, MPI.DOUBLE, 0, 0, "nothing into a double[4]");
            equal(1.0, d[0], "an empty message leaves the buffer");
            status(c.recv(null, 0, MPI.BYTE, peer, 53), peer, 53, MPI.BYTE, 0, 0, "null buffer");
            status(c.recv(MPI.newIntBuffer(3), 3, MPI.INT, peer, 54), peer, 54, MPI.INT, 0, 0, "empty direct");
        }
    }

    /** 1 MiB messages (past any eager limit) from arrays, direct buffers, char[] and boolean[]. */
    private static void large(Comm c, int peer, boolean sends, int from) throws MPIException {
        int doubles = BIG / 8;
        double[] du = new double[doubles];
        ByteBuffer direct = MPI.newByteBuffer(BIG);
        char[] ch = new char[BIG / 2];
        boolean[] bo = new boolean[BIG / 4];
        if (sends) {
            for (int i = 0; i < doubles; i++) {
                du[i] = i + from;
            }
            for (int i = 0; i < BIG; i += 8) {
                direct.putLong(i, i * 31L + from);
            }
            for (int i = 0; i < ch.length; i++) {
                ch[i] = (char) (i * 3 + from);
            }
            for (int i = 0; i < bo.length; i++) {
                bo[i] = (i + from) % 5 == 0;
            }
            c.send(du, doubles, MPI.DOUBLE, peer, 61);
            c.send(direct, BIG, MPI.BYTE, peer, 62);
            c.send(ch, ch.length, MPI.CHAR, peer, 63);
            c.send(bo, bo.length, MPI.BOOLEAN, peer, 64);
        } else {
            status(c.recv(du, doubles, MPI.DOUBLE, peer, 61), peer, 61, MPI.DOUBLE, doubles, doubles, "1 MiB double[]");
            long[] longs = new long[BIG / 8 + 2];
            status(c.recv(MPI.slice(longs, 2), BIG / 8, MPI.LONG, peer, 62), peer, 62, MPI.LONG,
                    BIG / 8, BIG / 8, "1 MiB into a heap LongBuffer at offset 2");
            c.recv(ch, ch.length, MPI.CHAR, peer, 63);
            c.recv(bo, bo.length, MPI.BOOLEAN, peer, 64);
            for (int i = 0; i < doubles; i++) {
                if (du[i] != i + from) {
                    equal((double) (i + from), du[i], "1 MiB double[" + i + "]");
                }
            }
            for (int i = 0; i < ch.length; i++) {
                if (ch[i] != (char) (i * 3 + from)) {
                    equal((char) (i * 3 + from), ch[i], "1 MiB char[" + i + "]");
                }
            }
            for (int i = 0; i < bo.length; i++) {
                if (bo[i] != ((i + from) % 5 == 0)) {
                    equal((i + from) % 5 == 0, bo[i], "boolean[" + i + "]");
                }
            }
            for (int i = 0; i < BIG / 8; i++) {
                if (longs[i + 2] != i * 8 * 31L + from) {
                    equal(i * 8 * 31L + from, longs[i + 2], "1 MiB long[" + (i + 2) + "]");
                }
            }
        }
    }

    /** Every rank sends to the next; each receives from ANY_SOURCE with ANY_TAG and learns who sent. */
    private static void ring(Comm c, int rank, int size) throws MPIException {
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        int[] token = {rank * 11};
        int[] got = new int[2];
        if (rank % 2 == 0) {
            c.send(token, 1, MPI.INT, right, 100 + rank);
            Status s = c.recv(got, 2, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            status(s, left, 100 + left, MPI.INT, 1, 1, "ring, wildcards");
        } else {
            Status s = c.recv(got, 2, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            status(s, left, 100 + left, MPI.INT, 1, 1, "ring, wildcards");
            c.send(token, 1, MPI.INT, right, 100 + rank);
        }
        equal(left * 11, got[0], "ring token");
    }

    /** PROC_NULL: sends vanish, receives return at once with nothing, status of PROC_NULL. */
    private static void procNull(Comm c) throws MPIException {
        int[] buf = {42};
        c.send(buf, 1, MPI.INT, MPI.PROC_NULL, 1);
        c.bSend(buf, 1, MPI.INT, MPI.PROC_NULL, 1);     // no buffer attached: PROC_NULL needs none
        c.sSend(buf, 1, MPI.INT, MPI.PROC_NULL, 1);
        c.rSend(buf, 1, MPI.INT, MPI.PROC_NULL, 1);
        Status s = c.recv(buf, 1, MPI.INT, MPI.PROC_NULL, 5);
        equal(MPI.PROC_NULL, s.getSource(), "PROC_NULL status: source");
        equal(MPI.ANY_TAG, s.getTag(), "PROC_NULL status: tag");
        equal(0, s.getCount(MPI.INT), "PROC_NULL status: count");
        equal(42, buf[0], "a receive from PROC_NULL leaves the buffer");
    }
}
