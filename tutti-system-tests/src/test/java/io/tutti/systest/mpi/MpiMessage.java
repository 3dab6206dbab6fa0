package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.DoubleBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Message;
import mpi.Status;

/**
 * Matched probes in pairs: mProbe with wildcards then mRecv into a buffer sized from the status,
 * imProbe (null while nothing matches) then imRecv into a direct buffer, PROC_NULL, and the
 * message's null state before and after.
 */
public final class MpiMessage {
    private MpiMessage() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        Comm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        int peer = rank ^ 1;
        if (peer < size) {
            Message none = new Message();
            equal(null, none.imProbe(peer, 77, c), "imProbe of a tag nobody sends");
            that(none.isNull(), "a message is null while nothing was found");
            fails(MPI.ERR_REQUEST, "mRecv with no message held", () -> none.mRecv(new int[1], 1, MPI.INT));
            if (rank % 2 == 0) {
                c.send(new long[] {1, 2, 3}, 3, MPI.LONG, peer, 5);
                c.send(new double[] {0.5, 1.5}, 2, MPI.DOUBLE, peer, 6);
                receive(c, peer);
            } else {
                receive(c, peer);
                c.send(new long[] {1, 2, 3}, 3, MPI.LONG, peer, 5);
                c.send(new double[] {0.5, 1.5}, 2, MPI.DOUBLE, peer, 6);
            }
        }
        Message np = new Message();
        Status s = np.mProbe(MPI.PROC_NULL, 0, c);
        equal(MPI.PROC_NULL, s.getSource(), "mProbe of PROC_NULL");
        that(np.isNoProc(), "a message of PROC_NULL is 'no proc'");
        equal(MPI.PROC_NULL, np.mRecv(new int[1], 1, MPI.INT).getSource(), "mRecv of PROC_NULL");
        that(np.isNull(), "null after mRecv");
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": matched probe ok");
    }

    private static void receive(Comm c, int peer) throws MPIException {
        Message m = new Message();
        Status s = m.mProbe(MPI.ANY_SOURCE, MPI.ANY_TAG, c);
        that(!m.isNull() && !m.isNoProc(), "a message is held after mProbe");
        equal(peer, s.getSource(), "mProbe source");
        equal(5, s.getTag(), "mProbe tag: the first message sent");
        long[] longs = new long[s.getCount(MPI.LONG)];
        Status r = m.mRecv(longs, longs.length, MPI.LONG);
        that(m.isNull(), "null after mRecv");
        equal(3, r.getCount(MPI.LONG), "mRecv count");
        equal(3L, longs[2], "mRecv content");

        Message m2 = new Message();
        Status s2;
        while ((s2 = m2.imProbe(peer, MPI.ANY_TAG, c)) == null) {
            Thread.onSpinWait();
        }
        equal(6, s2.getTag(), "imProbe tag");
        DoubleBuffer d = MPI.newDoubleBuffer(s2.getCount(MPI.DOUBLE));
        Status r2 = m2.imRecv(d, d.capacity(), MPI.DOUBLE).waitStatus();
        equal(2, r2.getCount(MPI.DOUBLE), "imRecv count");
        equal(1.5, d.get(1), "imRecv content");
    }
}
