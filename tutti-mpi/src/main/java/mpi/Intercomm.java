package mpi;

import io.tutti.Intercommunicator;
import io.tutti.TuttiException;

/**
 * An intercommunicator: two disjoint groups, each addressing the other's ranks, over one of Tutti's
 * {@link Intercommunicator}s, made by {@link Comm#createIntercomm}. {@link #getRank} and
 * {@link #getSize} are of the local group, {@link #getRemoteSize} and {@link #getRemoteGroup} of the
 * other; point-to-point calls name remote ranks. The collectives barrier, bcast, gather(v),
 * scatter(v), allGather(v), allToAll(v/w), reduce, allReduce and reduceScatter(Block), blocking and
 * nonblocking, have MPI's intercommunicator meaning (a rooted call's root passes {@link MPI#ROOT},
 * the rest of its group {@link MPI#PROC_NULL}; counts name remote ranks, reduceScatter's this
 * group's); the in-place forms fail with {@link MPI#ERR_UNSUPPORTED_OPERATION}. {@link #getParent}
 * gives a spawned process its parents ({@link Intracomm#spawn}).
 */
public final class Intercomm extends Comm {
    /** The remote group's world ranks, made on first use. */
    private int[] remoteMembers;

    /** An intercommunicator over {@code c}, made from {@code parent}. */
    Intercomm(Intercommunicator c, Comm parent) {
        super(c, parent);
    }

    private Intercommunicator inter() throws MPIException {
        return (Intercommunicator) live();
    }

    /** Size of the remote group (MPI_COMM_REMOTE_SIZE). */
    public int getRemoteSize() throws MPIException {
        return inter().remoteSize();
    }

    /** The remote group, in its rank order (MPI_COMM_REMOTE_GROUP). */
    public Group getRemoteGroup() throws MPIException {
        return new Group(remoteMembers());
    }

    /** The remote group's world ranks, in its order. */
    final int[] remoteMembers() throws MPIException {
        Intercommunicator c = inter();
        if (remoteMembers == null) {
            int[] m = new int[c.remoteSize()];
            for (int i = 0; i < m.length; i++) {
                m[i] = c.remoteWorldRank(i);
            }
            remoteMembers = m;
        }
        return remoteMembers;
    }

    /**
     * The two groups as one intracommunicator (MPI_INTERCOMM_MERGE): the group whose ranks pass
     * {@code high} false first; when both pass the same, the group whose leader has the lower rank in
     * {@link MPI#COMM_WORLD}. Collective over both groups.
     */
    public Intracomm merge(boolean high) throws MPIException {
        Intercommunicator c = inter();
        try {
            return new Intracomm(c.merge(high), this);
        } catch (TuttiException e) {
            throw Errors.of(e, "Intercomm.merge");
        }
    }

    /** A new intercommunicator of the same groups with a message space of its own (MPI_COMM_DUP). */
    @Override
    public Intercomm dup() throws MPIException {
        Intercommunicator c = inter();
        try {
            return new Intercomm(c.dup(), this).copyAttributes(this);
        } catch (TuttiException e) {
            throw Errors.of(e, "dup");
        }
    }

    @Override
    public Intercomm iDup() throws MPIException {
        return dup();
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    @Override
    public Intercomm clone() {
        return (Intercomm) super.clone();
    }

    /**
     * In a process started by {@link Intracomm#spawn}: the intercommunicator to the ranks that spawned
     * it, the same object at every call; null in any other process (MPI_COMM_GET_PARENT).
     */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return MPI.parent();
    }
}
