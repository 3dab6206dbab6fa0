package mpi;

import java.nio.Buffer;

/**
 * A message found by a matched probe ({@link #mProbe}, {@link #imProbe}) and received with
 * {@link #mRecv} or {@link #imRecv}.
 *
 * <p>Tutti has no matched probe (one that takes the message out of matching), so this one is a
 * probe that remembers the message's source and tag, and a receive with exactly those: Tutti
 * matches the messages of one source and tag in the order they were sent, so it is the probed
 * message that is received, unless the program posts another receive that matches it between the
 * probe and {@link #mRecv} (which MPI's matched probe would prevent), or probes the same message
 * again before receiving it (MPI would find the next one).
 */
public final class Message {
    private static final int NULL = 0;
    private static final int NO_PROC = 1;
    private static final int MATCHED = 2;

    private int state = NULL;
    private Comm comm;
    private int source;
    private int tag;

    /** A null message, for {@link #mProbe} or {@link #imProbe} to fill. */
    public Message() {
    }

    /** Whether no message is held (MPI_MESSAGE_NULL): before a probe, and after the message was received. */
    public boolean isNull() {
        return state == NULL;
    }

    /** Whether the probe was of {@link MPI#PROC_NULL} (MPI_MESSAGE_NO_PROC). */
    public boolean isNoProc() {
        return state == NO_PROC;
    }

    /**
     * Waits for a message from {@code source} with {@code tag} (wildcards allowed) on {@code comm},
     * holds it for {@link #mRecv} and returns its status (MPI_MPROBE).
     */
    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        Status s = comm.probe(source, tag);
        hold(s, comm);
        return s;
    }

    /**
     * Holds a message from {@code source} with {@code tag} on {@code comm} if there is one and returns
     * its status, else returns null (MPI_IMPROBE).
     */
    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        Status s = comm.iProbe(source, tag);
        if (s != null) {
            hold(s, comm);
        }
        return s;
    }

    private void hold(Status s, Comm c) {
        this.comm = c;
        if (s.getSource() == MPI.PROC_NULL) {
            state = NO_PROC;
        } else {
            state = MATCHED;
            source = s.getSource();
            tag = s.getTag();
        }
    }

    /**
     * Receives the held message into {@code buf} (MPI_MRECV); the message is then null. A longer
     * message than {@code count} items fails with {@link MPI#ERR_TRUNCATE}.
     */
    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        Comm c = take("mRecv");
        if (c == null) {
            return new Status().setProcNull();
        }
        return c.recv(buf, count, type, source, tag);
    }

    /** Starts receiving the held message into a direct buffer (MPI_IMRECV); the message is then null. */
    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        Comm c = take("imRecv");
        if (c == null) {
            return Request.done(new Status().setProcNull());
        }
        return c.iRecv(buf, count, type, source, tag);
    }

    /** The communicator of the held message (null for PROC_NULL's), which becomes null. */
    private Comm take(String call) throws MPIException {
        int was = state;
        state = NULL;
        if (was == NULL) {
            throw Errors.error(MPI.ERR_REQUEST, "Message." + call + ": no message is held: probe one first with"
                    + " mProbe or imProbe");
        }
        return was == NO_PROC ? null : comm;
    }
}
