package mpi;

import io.tutti.TuttiException;

/**
 * A persistent request (from {@code sendInit}, {@code recvInit}, ...): {@link #start()} runs its
 * operation, a wait or test completes it, and it can be started again, as often as needed, until
 * {@link #free()}. Over Tutti's persistent requests, which repeat an exchange without allocating.
 */
public final class Prequest extends Request {
    /** For a buffered send: what each start sends through the attached buffer; null otherwise. */
    private final BufferedStart buffered;

    /** What a persistent buffered send does at each start. */
    interface BufferedStart {
        void start() throws MPIException;
    }

    Prequest(io.tutti.Request tutti) {
        super(tutti);
        this.active = false;
        this.buffered = null;
    }

    Prequest(BufferedStart buffered) {
        this.buffered = buffered;
    }

    @Override
    boolean persistent() {
        return !freed;
    }

    private boolean freed;

    /** Starts the operation (MPI_START); a request still active fails with {@link MPI#ERR_REQUEST}. */
    public void start() throws MPIException {
        MPI.check();
        if (freed) {
            throw Errors.error(MPI.ERR_REQUEST, "Prequest.start: the request has been freed");
        }
        if (active) {
            throw Errors.error(MPI.ERR_REQUEST, "Prequest.start: the request is still active: wait for it or test"
                    + " it to completion before starting it again");
        }
        if (buffered != null) {
            buffered.start();          // complete once the message is in the attached buffer
        } else if (tutti != null) {
            if (staging != null) {
                staging.start();        // a send's items as they are at this start
            }
            try {
                tutti.start();
            } catch (TuttiException e) {
                throw Errors.of(e, "Prequest.start");
            }
        }
        active = true;
    }

    /** Starts every request of the array (MPI_STARTALL). */
    public static void startAll(Prequest[] requests) throws MPIException {
        for (Prequest r : requests) {
            r.start();
        }
    }

    /** Frees the request (MPI_REQUEST_FREE); it must not be active. */
    @Override
    public void free() throws MPIException {
        if (freed) {
            return;
        }
        MPI.check();
        try {
            if (tutti != null) {
                tutti.free();
            }
        } catch (TuttiException e) {
            throw Errors.of(e, "Prequest.free");
        }
        freed = true;
        active = false;
        tutti = null;
        staging = null;
    }
}
