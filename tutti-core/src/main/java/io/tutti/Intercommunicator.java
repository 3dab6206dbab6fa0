package io.tutti;

/**
 * A communicator of two disjoint groups, each addressing the other (MPI's intercommunicator), made by
 * {@link Communicator#createIntercomm}. {@link #rank()} and {@link #size()} are this rank's in its
 * local group; the point-to-point calls name ranks of the remote group ({@link #remoteSize()}), and
 * receives report remote ranks as their sources.
 *
 * <p>The collectives barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v), reduce,
 * allreduce and reduceScatter(Block) have MPI's intercommunicator meaning: in a rooted one the root
 * passes {@link #ROOT}, the other ranks of its group {@link #PROC_NULL}, and the remote group the
 * root's rank there; counts and displacements name remote ranks (reduceScatter's, this group's);
 * data flows between the groups only (an allreduce gives each group the other's reduction). Each
 * has its blocking, nonblocking and persistent form (one schedule); IN_PLACE (MPI has none there),
 * scans, offloaded collectives, windows, split and the ULFM calls fail with
 * {@link TuttiException.Unsupported}. {@link #merge} makes an
 * intracommunicator of both groups; docs/guide/api.md says how each call runs.
 */
public abstract class Intercommunicator extends Communicator {
    /** The root of an intercommunicator's rooted collective passes this as the root. */
    public static final int ROOT = -3;
    /** The other ranks of the root's group pass this as the root: they take no part. */
    public static final int PROC_NULL = -2;

    /**
     * For the runtime.
     *
     * @param localGroup  local rank to world rank
     * @param remoteGroup remote rank to world rank: the ranks the calls address
     */
    protected Intercommunicator(int context, int[] localGroup, int[] remoteGroup, int worldRank, int worldSize) {
        super(context, localGroup, remoteGroup, worldRank, worldSize);
    }

    @Override
    public final boolean isInter() {
        return true;
    }

    /** Number of ranks in the remote group (MPI_COMM_REMOTE_SIZE). */
    public final int remoteSize() {
        return peerCount();
    }

    /** The world rank of rank {@code rank} of the remote group. */
    public final int remoteWorldRank(int rank) {
        checkRank(rank, "remote");
        return group()[rank];
    }

    /**
     * An intracommunicator of both groups (MPI_INTERCOMM_MERGE): the group whose ranks pass
     * {@code high} false comes first; when both pass the same, the group whose leader (rank 0) has
     * the lower world rank does. Every rank of one group must pass the same {@code high}, else
     * every rank of both fails with {@link TuttiException.InvalidArgument}. Collective over both groups.
     */
    public abstract Communicator merge(boolean high);

    /** A new intercommunicator of the same groups with a message space of its own. Collective over both groups. */
    @Override
    public abstract Intercommunicator dup();

    @Override
    final boolean isRoot(int root) {
        return root == ROOT;
    }

    @Override
    public String toString() {
        return "Intercommunicator[context=" + context() + ", rank=" + rank() + ", size=" + size() + ", remoteSize="
                + remoteSize() + "]";
    }
}
