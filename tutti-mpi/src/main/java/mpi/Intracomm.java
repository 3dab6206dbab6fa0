package mpi;

import io.tutti.Communicator;
import java.nio.Buffer;

/**
 * A communicator of one group of ranks, as {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are:
 * the point-to-point calls and collectives of {@link Comm}, and the scans. Making communicators
 * (split, create, ...) and topologies are later steps (see {@code docs/guide/mpi-api.md}).
 */
public class Intracomm extends Comm {
    Intracomm(String name) {
        super(name);
    }

    /** Rank r gets the combination with {@code op} of ranks 0 to r's {@code sendbuf} (MPI_SCAN). */
    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(sendbuf, recvbuf, count, type, op, false, false, "scan");
    }

    /** Scan in place (MPI_IN_PLACE): {@code recvbuf} is each rank's input and result. */
    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(Communicator.IN_PLACE, recvbuf, count, type, op, false, false, "scan");
    }

    /** Starts a scan of direct buffers (MPI_ISCAN). */
    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return scan(sendbuf, recvbuf, count, type, op, false, true, "iScan");
    }

    /** Starts a scan in place (MPI_ISCAN). */
    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return scan(Communicator.IN_PLACE, buf, count, type, op, false, true, "iScan");
    }

    /**
     * Rank r gets the combination with {@code op} of ranks 0 to r - 1's {@code sendbuf} (MPI_EXSCAN);
     * rank 0's {@code recvbuf} is left as it was.
     */
    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        scan(sendbuf, recvbuf, count, type, op, true, false, "exScan");
    }

    /** Exclusive scan in place (MPI_IN_PLACE): {@code buf} is each rank's input and result. */
    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        scan(Communicator.IN_PLACE, buf, count, type, op, true, false, "exScan");
    }

    /** Starts an exclusive scan of direct buffers (MPI_IEXSCAN). */
    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return scan(sendbuf, recvbuf, count, type, op, true, true, "iExScan");
    }

    /** Starts an exclusive scan in place (MPI_IEXSCAN). */
    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return scan(Communicator.IN_PLACE, buf, count, type, op, true, true, "iExScan");
    }
}
