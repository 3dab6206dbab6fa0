package io.tutti.transport;

import java.nio.ByteBuffer;

/**
 * Where the payload of an arriving record goes when the transport receives it straight into its
 * destination ({@link RemoteTransport.Sink#place}) instead of into a buffer of its own: the
 * record's header still arrives in the transport's buffer, its payload in the receiver's memory.
 *
 * <p>One per transport, filled anew by each {@code place} call that says yes, and valid until the
 * next one. Plain fields, written and read by the thread that drives the transport.
 */
public final class Placement {
    /** Bytes at the start of the record (or, once the transport adds its own, of the frame) that precede the payload. */
    public int header;
    /** Native address of the payload's first byte. */
    public long address;
    /**
     * A direct buffer over the destination, positioned at the payload's first byte and limited to
     * its end, so that the transport can check what arrived (its CRC) without a view of its own.
     */
    public ByteBuffer view;

    /** Fills in where a payload goes. */
    public void set(int header, long address, ByteBuffer view) {
        this.header = header;
        this.address = address;
        this.view = view;
    }
}
