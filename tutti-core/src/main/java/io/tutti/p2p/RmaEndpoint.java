package io.tutti.p2p;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

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
     * and {@code length} payload bytes at {@code dataOffset} of {@code data}; {@code data} null when
     * the transport received the payload straight where the last {@link #place} said.
     *
     * @return false if the record makes no sense here (it is then counted as dropped)
     */
    boolean onRma(int source, int op, long handle, long peerHandle, long address, long total, MemorySegment data,
                  long dataOffset, int length);

    /**
     * Whether the payload of the record with these header fields may be received straight into its
     * destination, and if so where ({@code into}); the record then comes to {@link #onRma} with no
     * data, unless the transport lets it go the ordinary way after all. Only memory that nothing
     * reads or writes before the record is applied (the next bytes of an operation in progress),
     * so that a record that then fails the transport's checks leaves bytes that will be written again.
     */
    default boolean place(int source, int op, long handle, long peerHandle, long address, long total, int length,
                          Landing into) {
        return false;
    }

    /**
     * Called after the records one progress pass handed to windows: sends the answers they are owed
     * that were held back to go as one (a cumulative ACK per origin). Same thread rules as
     * {@link #onRma}.
     */
    default void answer() {
    }

    /** Where {@link #place} puts a payload: its native address and a direct view positioned over it. Reused. */
    final class Landing {
        long address;
        ByteBuffer view;

        /** The payload goes at {@code address}; {@code view} is positioned at its first byte and limited to its end. */
        public void set(long address, ByteBuffer view) {
            this.address = address;
            this.view = view;
        }
    }
}
