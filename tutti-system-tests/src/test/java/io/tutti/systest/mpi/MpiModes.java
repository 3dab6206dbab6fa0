package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The send modes in pairs: buffered sends (returning before the receive is posted, the data copied,
 * the attached buffer's room enforced, detach and Finalize waiting for them), synchronous and ready
 * sends.
 */
public final class MpiModes {
    private static final int BIG = 1 << 20;

    private MpiModes() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int peer = rank ^ 1;
        if (peer < size) {
            buffered(world, rank, peer);
            synchronousAndReady(world, rank, peer);
            unfinished(world, rank, peer);
        }
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": send modes ok");
    }

    private static void buffered(Comm c, int rank, int peer) throws MPIException {
        int longs = BIG / 8;
        if (rank % 2 == 0) {
            // a buffer too small for one message
            MPI.attachBuffer(new byte[100]);
            fails(MPI.ERR_BUFFER, "bSend of 4 + 128 bytes into 100", () -> c.bSend(new int[1], 1, MPI.INT, peer, 1));
            MPI.detachBuffer();
            fails(MPI.ERR_BUFFER, "bSend with no buffer attached", () -> c.bSend(new int[1], 1, MPI.INT, peer, 1));

            // room for two messages of 1 MiB; they go out before the peer receives (it waits for "go")
            byte[] attached = new byte[2 * (BIG + MPI.BSEND_OVERHEAD)];
            MPI.attachBuffer(attached);
            long[] data = new long[longs];
            for (int i = 0; i < longs; i++) {
                data[i] = i;
            }
            c.bSend(data, longs, MPI.LONG, peer, 2);
            for (int i = 0; i < longs; i++) {
                data[i] = -i;             // the first message was copied: this does not change it
            }
            c.bSend(MPI.slice(data, 0), longs, MPI.LONG, peer, 3);
            fails(MPI.ERR_BUFFER, "a third bSend while two fill the buffer",
                    () -> c.bSend(new int[1], 1, MPI.INT, peer, 4));
            c.send(new int[] {1}, 1, MPI.INT, peer, 9);           // go
            equal(attached.length, MPI.detachBuffer().length, "detach returns the buffer after the sends");
        } else {
            int[] go = new int[1];
            c.recv(go, 1, MPI.INT, peer, 9);
            long[] got = new long[longs];
            c.recv(got, longs, MPI.LONG, peer, 2);
            for (int i = 0; i < longs; i++) {
                if (got[i] != i) {
                    equal(i, got[i], "first buffered message [" + i + "]");
                }
            }
            c.recv(got, longs, MPI.LONG, peer, 3);
            for (int i = 0; i < longs; i++) {
                if (got[i] != -i) {
                    equal(-i, got[i], "second buffered message [" + i + "]");
                }
            }
        }
    }

    private static void synchronousAndReady(Comm c, int rank, int peer) throws MPIException {
        double[] d = new double[5];
        if (rank % 2 == 0) {
            for (int i = 0; i < 5; i++) {
                d[i] = i * 1.5;
            }
            c.sSend(d, 5, MPI.DOUBLE, peer, 11);
            c.recv(new int[1], 1, MPI.INT, peer, 12);              // the peer's receive for the ready send is posted
            c.rSend(d, 5, MPI.DOUBLE, peer, 13);
        } else {
            c.recv(d, 5, MPI.DOUBLE, peer, 11);
            equal(6.0, d[4], "synchronous send");
            c.send(new int[1], 1, MPI.INT, peer, 12);
            c.recv(d, 5, MPI.DOUBLE, peer, 13);
            equal(3.0, d[2], "ready send");
        }
        // a synchronous send stays incomplete until its receive is posted, which the peer does only
        // after the "go" that the sender sends once it has seen that; nonblocking, then persistent
        java.nio.IntBuffer two = MPI.newIntBuffer(2);
        mpi.Prequest persistent = rank % 2 == 0 ? c.sSendInit(two, 2, MPI.INT, peer, 16) : null;
        for (int round = 0; round < 2; round++) {
            if (rank % 2 == 0) {
                two.put(0, 7 + round).put(1, 8 + round);
                mpi.Request r;
                if (round == 0) {
                    r = c.isSend(two, 2, MPI.INT, peer, 16);
                } else {
                    persistent.start();
                    r = persistent;
                }
                for (int i = 0; i < 50; i++) {
                    Check.that(!r.test(), "a synchronous send complete before its receive was posted (round "
                            + round + ", test " + i + ")");
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                c.send(new int[1], 1, MPI.INT, peer, 17);
                r.waitFor();
            } else {
                c.recv(new int[1], 1, MPI.INT, peer, 17);
                int[] got = new int[2];
                c.recv(got, 2, MPI.INT, peer, 16);
                equal(new int[] {7 + round, 8 + round}, got, "a synchronous send's data, round " + round);
            }
        }
        if (persistent != null) {
            persistent.free();
        }
    }

    /** A buffered send still in flight at Finalize: Finalize delivers it. */
    private static void unfinished(Comm c, int rank, int peer) throws MPIException {
        if (rank % 2 == 0) {
            MPI.attachBuffer(new byte[BIG + 2 * MPI.BSEND_OVERHEAD]);
            c.bSend(new byte[BIG], BIG, MPI.BYTE, peer, 21);
        } else {
            byte[] got = new byte[BIG];
            equal(BIG, c.recv(got, BIG, MPI.BYTE, peer, 21).getCount(MPI.BYTE), "buffered send delivered at Finalize");
        }
    }
}
