package mpi;

/**
 * What a receive or a probe found: the source rank and the tag of the message, its length (as a
 * count of items of a type, {@link #getCount}, or of basic elements, {@link #getElements}), its
 * error and whether it was cancelled. Made by the calls that return one.
 */
public final class Status {
    private int source;
    private int tag;
    private int error;
    private boolean cancelled;
    private long bytes;
    private int index;

    /** Statuses are made by the calls of this API. */
    protected Status() {
    }

    /** Fills in what a receive or probe found: sender, tag and length in bytes. */
    final Status set(int source, int tag, long bytes) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.cancelled = false;
        return this;
    }

    /** Marks the status of a receive that {@link Request#cancel()} took back. */
    final Status cancelled() {
        this.cancelled = true;
        return this;
    }

    /** Sets the index of the request this status belongs to, in a call over several. */
    final void setIndex(int index) {
        this.index = index;
    }

    /** The length of the message in bytes. */
    final long bytes() {
        return bytes;
    }

    /** The status of a receive from {@link MPI#PROC_NULL}: no sender, any tag, nothing received. */
    final Status setProcNull() {
        return set(MPI.PROC_NULL, MPI.ANY_TAG, 0);
    }

    /**
     * Items of {@code datatype} received (MPI_GET_COUNT), or {@link MPI#UNDEFINED} if the message is
     * not a whole number of them.
     */
    public int getCount(Datatype datatype) throws MPIException {
        MPI.check();
        return datatype.count(bytes);
    }

    /**
     * Whether the operation was cancelled (MPI_TEST_CANCELLED): a receive that {@link Request#cancel()}
     * took back before any message matched it.
     */
    public boolean isCancelled() throws MPIException {
        MPI.check();
        return cancelled;
    }

    /**
     * Basic elements of {@code datatype} received (MPI_GET_ELEMENTS): two per pair or complex number,
     * so a part of one counts; {@link MPI#UNDEFINED} if not a whole number of them.
     */
    public int getElements(Datatype datatype) throws MPIException {
        MPI.check();
        return datatype.elements(bytes);
    }

    /** The rank that sent the message (MPI_SOURCE); {@link MPI#PROC_NULL} for a receive from it. */
    public int getSource() {
        return source;
    }

    /** The tag of the message (MPI_TAG); {@link MPI#ANY_TAG} for a receive from {@link MPI#PROC_NULL}. */
    public int getTag() {
        return tag;
    }

    /** The error of the operation (MPI_ERROR): {@link MPI#SUCCESS}, as failed calls throw instead. */
    public int getError() {
        return error;
    }

    /** The index of the request this status belongs to in a wait or test over several; 0 otherwise. */
    public int getIndex() {
        return index;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes + ", error=" + error + "]";
    }
}
