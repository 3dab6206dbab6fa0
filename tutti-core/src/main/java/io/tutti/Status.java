package io.tutti;

/**
 * What a completed receive (or a probe) found: source rank in the communicator, tag and length.
 * Mutable so that allocation-free loops can pass one in and have it filled.
 */
public final class Status {
    private int source = -1;
    private int tag = -1;
    private long bytes;
    private boolean cancelled;

    public Status() {
    }

    public Status(int source, int tag, long bytes) {
        set(source, tag, bytes);
    }

    /** Fills this status; used by the engine. */
    public void set(int source, int tag, long bytes) {
        set(source, tag, bytes, false);
    }

    /** Fills this status, of a receive that {@link Request#cancel()} took back when {@code cancelled}; used by the engine. */
    public void set(int source, int tag, long bytes, boolean cancelled) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.cancelled = cancelled;
    }

    /** Whether the receive was cancelled ({@link Request#cancel()}): then it received nothing. */
    public boolean cancelled() {
        return cancelled;
    }

    /** Rank of the sender in the communicator of the receive. */
    public int source() {
        return source;
    }

    public int tag() {
        return tag;
    }

    /** Length of the message in bytes. */
    public long bytes() {
        return bytes;
    }

    /** Number of whole elements of {@code type} in the message (pairs, for the pair types). */
    public int count(Datatype type) {
        return (int) (bytes / type.extent());
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes + (cancelled ? ", cancelled" : "") + "]";
    }
}
