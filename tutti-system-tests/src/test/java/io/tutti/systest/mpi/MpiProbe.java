package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.that;

import java.nio.ByteBuffer;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * probe and iProbe: learning a message's source, tag and length before receiving it (with
 * wildcards), iProbe answering null while nothing matches, and PROC_NULL.
 */
public final class MpiProbe {
    private MpiProbe() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm c = MPI.COMM_WORLD;
        int rank = c.getRank();
        int size = c.getSize();
        int peer = rank ^ 1;
        if (peer < size) {
            int length = 5 + 3 * rank;     // each rank sends a length of its own
            int[] data = new int[length];
            for (int i = 0; i < length; i++) {
                data[i] = rank * 1000 + i;
            }
            equal(null, c.iProbe(peer, 999), "iProbe of a tag nobody sends");
            if (rank % 2 == 0) {
                c.send(data, length, MPI.INT, peer, 30 + rank);
                Status s = c.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
                receiveProbed(c, s, peer);
            } else {
                Status s = c.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
                receiveProbed(c, s, peer);
                c.send(data, length, MPI.INT, peer, 30 + rank);
            }

            // iProbe until the message is there, then receive it into a direct buffer of the size found
            if (rank % 2 == 0) {
                c.send(new byte[] {1, 2, 3, 4, 5, 6, 7}, 7, MPI.BYTE, peer, 40);
            } else {
                Status s;
                while ((s = c.iProbe(peer, MPI.ANY_TAG)) == null) {
                    Thread.onSpinWait();
                }
                equal(peer, s.getSource(), "iProbe source");
                equal(40, s.getTag(), "iProbe tag");
                int n = s.getCount(MPI.BYTE);
                equal(7, n, "iProbe count");
                equal(MPI.UNDEFINED, s.getCount(MPI.INT), "7 bytes are no whole number of ints");
                ByteBuffer buf = MPI.newByteBuffer(n);
                c.recv(buf, n, MPI.BYTE, peer, 40);
                equal(7, buf.get(6), "received after iProbe");
            }
        }
        Status s = c.probe(MPI.PROC_NULL, 3);
        equal(MPI.PROC_NULL, s.getSource(), "probe of PROC_NULL");
        s = c.iProbe(MPI.PROC_NULL, MPI.ANY_TAG);
        that(s != null && s.getSource() == MPI.PROC_NULL && s.getCount(MPI.INT) == 0, "iProbe of PROC_NULL");
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": probe ok");
    }

    private static void receiveProbed(Comm c, Status s, int peer) throws MPIException {
        equal(peer, s.getSource(), "probe source");
        equal(30 + peer, s.getTag(), "probe tag");
        int n = s.getCount(MPI.INT);
        equal(5 + 3 * peer, n, "probe count");
        int[] got = new int[n];
        Status r = c.recv(got, n, MPI.INT, s.getSource(), s.getTag());
        equal(n, r.getCount(MPI.INT), "received count");
        for (int i = 0; i < n; i++) {
            equal(peer * 1000 + i, got[i], "probed message [" + i + "]");
        }
    }
}
