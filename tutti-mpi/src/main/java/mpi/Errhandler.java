package mpi;

/**
 * What happens when a call fails (MPI_Errhandler): the predefined {@link MPI#ERRORS_ARE_FATAL}
 * (every communicator's default: a one-line message naming the rank and the call on standard
 * error, then the job ends with a non-zero status), {@link MPI#ERRORS_ABORT} (the same), and
 * {@link MPI#ERRORS_RETURN} (the call throws an {@link MPIException} with MPI's error class and
 * code). Set with {@link Comm#setErrhandler}; user handlers are not in the bindings' API.
 */
public final class Errhandler {
    private final String name;
    final boolean fatal;

    Errhandler(String name, boolean fatal) {
        this.name = name;
        this.fatal = fatal;
    }

    @Override
    public String toString() {
        return name;
    }
}
