package mpi;

/**
 * An intercommunicator (two groups, each addressing the other's ranks). Tutti has none: its
 * communicators are of one group, and making one of two groups joined by their leaders alone is
 * not in its API. So no {@code Intercomm} is ever made here: {@link Comm#createIntercomm} fails with
 * {@link MPI#ERR_UNSUPPORTED_OPERATION}, and {@link #getParent} returns null, there being no
 * spawned processes. The class is here so that programs that name it compile.
 */
public final class Intercomm extends Comm {
    private Intercomm() {
        super("MPI.COMM_NULL", "MPI_COMM_NULL");
    }

    /** The error of every intercommunicator call. */
    static MPIException unsupported(String call) {
        return Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": intercommunicators are not supported: Tutti's"
                + " communicators have one group (see docs/guide/mpi-api.md); use an intracommunicator over both"
                + " groups (Intracomm.split) instead");
    }

    /** Size of the remote group (MPI_COMM_REMOTE_SIZE): unsupported. */
    public int getRemoteSize() throws MPIException {
        throw unsupported("Intercomm.getRemoteSize");
    }

    /** The remote group (MPI_COMM_REMOTE_GROUP): unsupported. */
    public Group getRemoteGroup() throws MPIException {
        throw unsupported("Intercomm.getRemoteGroup");
    }

    /** The two groups as one intracommunicator (MPI_INTERCOMM_MERGE): unsupported. */
    public Intracomm merge(boolean high) throws MPIException {
        throw unsupported("Intercomm.merge");
    }

    /** The intercommunicator to the parent of a spawned job (MPI_COMM_GET_PARENT): null, as nothing is spawned. */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return null;
    }
}
