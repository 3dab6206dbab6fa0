package mpi;

/** The two ranks of a {@link CartComm#shift}: the one to receive from and the one to send to. */
public final class ShiftParms {
    private final int source;
    private final int dest;

    ShiftParms(int source, int dest) {
        this.source = source;
        this.dest = dest;
    }

    /** The rank to receive from, or {@link MPI#PROC_NULL} past a non-periodic edge. */
    public int getRankSource() {
        return source;
    }

    /** The rank to send to, or {@link MPI#PROC_NULL} past a non-periodic edge. */
    public int getRankDest() {
        return dest;
    }
}
