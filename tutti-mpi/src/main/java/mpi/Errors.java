package mpi;

import io.tutti.TuttiException;

/**
 * Makes the {@link MPIException}s of this API (Tutti's exceptions mapped onto MPI's error classes)
 * and hands each to the error handler of the communicator, window or file of the call
 * ({@link MPI#raisedOn}): under {@link MPI#ERRORS_ARE_FATAL} the job ends there; under
 * {@link MPI#ERRORS_RETURN} the caller throws it.
 */
final class Errors {
    private Errors() {
    }

    /** An error of MPI class {@code clazz} (also its code). */
    static MPIException error(int clazz, String message) {
        return MPI.handle(new MPIException(clazz, clazz, message));
    }

    /** One of Tutti's exceptions, raised in {@code call}, as the MPI error class that fits it. */
    static MPIException of(TuttiException e, String call) {
        int clazz = switch (e) {
            case TuttiException.Truncation t -> MPI.ERR_TRUNCATE;
            case TuttiException.PeerFailed p -> MPI.ERR_PROC_ABORTED;
            case TuttiException.Synchronization s -> MPI.ERR_RMA_SYNC;
            case TuttiException.InvalidArgument a -> MPI.ERR_ARG;
            case TuttiException.Unsupported u -> MPI.ERR_UNSUPPORTED_OPERATION;
            default -> MPI.ERR_OTHER;
        };
        return MPI.handle(new MPIException(clazz, call + ": " + e.getMessage(), e));
    }
}
