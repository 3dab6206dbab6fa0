package mpi;

import io.tutti.ReduceOp;

/**
 * A reduction operation: the predefined ones are the constants of {@link MPI} ({@link MPI#SUM},
 * {@link MPI#MAXLOC}, ...), each standing for one of Tutti's {@link ReduceOp}s; {@link MPI#REPLACE}
 * and {@link MPI#NO_OP} are for one-sided accumulates, which have none. User operations
 * ({@code new Op(UserFunction, commute)}) are not there yet (see {@code docs/guide/mpi-api.md}).
 */
public final class Op implements Freeable {
    private final String name;
    /** Tutti's operation, or null for REPLACE and NO_OP. */
    final ReduceOp tutti;

    Op(String name, ReduceOp tutti) {
        this.name = name;
        this.tutti = tutti;
    }

    /** Whether the operation is commutative: true for every predefined operation. */
    public boolean isCommutative() {
        return true;
    }

    /**
     * Frees the operation (MPI_OP_FREE). The predefined operations cannot be freed: MPI refuses, and
     * so does this, with {@link MPI#ERR_OP}.
     */
    @Override
    public void free() throws MPIException {
        MPI.check();
        throw Errors.error(MPI.ERR_OP, "Op.free: " + name + " is a predefined operation and cannot be freed");
    }

    /** Whether this is the null operation: never, for the predefined ones. */
    public boolean isNull() {
        return false;
    }

    @Override
    public String toString() {
        return name;
    }
}
