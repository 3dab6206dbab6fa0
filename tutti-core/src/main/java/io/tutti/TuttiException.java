package io.tutti;

/**
 * Base of every error Tutti reports. Messages say what went wrong and what to do about it.
 * Unchecked, like MPI's default error handler: a failed communication is rarely recoverable locally.
 */
public class TuttiException extends RuntimeException {
    public TuttiException(String message) {
        super(message);
    }

    public TuttiException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A bad argument: rank, tag, count, buffer or option out of range. */
    public static class InvalidArgument extends TuttiException {
        public InvalidArgument(String message) {
            super(message);
        }
    }

    /**
     * A call this kind of communicator does not have (MPI_ERR_UNSUPPORTED_OPERATION): a scan, a
     * window or a split on an {@link Intercommunicator}, say. The message names the way round.
     */
    public static class Unsupported extends TuttiException {
        public Unsupported(String message) {
            super(message);
        }
    }

    /** A message was longer than the buffer posted to receive it (MPI_ERR_TRUNCATE). */
    public static class Truncation extends TuttiException {
        public Truncation(String message) {
            super(message);
        }
    }

    /** A peer this operation needs has exited, was killed, or the job is being torn down. */
    public static class PeerFailed extends TuttiException {
        public PeerFailed(String message) {
            super(message);
        }
    }

    /**
     * The communicator was revoked ({@code Communicator.revoke()}) by this rank or another: every
     * pending and later operation on it fails with this error (ULFM's MPIX_ERR_REVOKED), except
     * {@code agree} and {@code shrink}, which are how the survivors go on.
     */
    public static class Revoked extends TuttiException {
        public Revoked(String message) {
            super(message);
        }
    }

    /**
     * A one-sided call outside the synchronisation it needs (MPI_ERR_RMA_SYNC): an operation on a
     * window outside an access epoch to its target, or epochs opened and closed out of order.
     */
    public static class Synchronization extends TuttiException {
        public Synchronization(String message) {
            super(message);
        }
    }

    /** A call after {@link Tutti#close()} or before {@link Tutti#init}. */
    public static class NotActive extends TuttiException {
        public NotActive(String message) {
            super(message);
        }
    }

    /** Start-up failed: the launch environment, the rendezvous or shared memory could not be set up. */
    public static class Startup extends TuttiException {
        public Startup(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
