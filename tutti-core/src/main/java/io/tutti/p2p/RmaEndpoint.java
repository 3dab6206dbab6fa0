package io.tutti.p2p;

import java.lang.foreign.MemorySegment;

/**
 * What RMA records addressed to one window on this rank do: the window's side of one-sided
 * operations across the network. Registered with {@link Engine#registerRma}; the engine calls it
 * from its arrival path, on whichever thread drives progress (the owner or the progress agent),
 * never from two threads at once. The data segment is valid only during the call.
 */
public interface RmaEndpoint {
    /**
     * One RMA record from {@code source} (a world rank): {@code op} names the operation, the other
     * fields are its header's ({@code handle}, {@code peerHandle}, {@code address}, {@code total})
     * and {@code length} payload bytes at {@code dataOffset} of {@code data}.
     *
     * @return false if the record makes no sense here (it is then counted as dropped)
     */
    boolean onRma(int source, int op, long handle, long peerHandle, long address, long total, MemorySegment data,
                  long dataOffset, int length);

    /**
     * Called after the records one progress pass handed to windows: sends the answers they are owed
     * that were held back to go as one (a cumulative ACK per origin). Same thread rules as
     * {@link #onRma}.
     */
    default void answer() {
    }
}
