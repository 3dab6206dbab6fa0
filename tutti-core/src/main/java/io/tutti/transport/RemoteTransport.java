package io.tutti.transport;

import java.lang.foreign.MemorySegment;

/**
 * The way to the ranks that share no memory with this one: the network rails. The engine writes
 * every message for such a rank into a private outbox ring, exactly as it writes into a local
 * rank's inbound ring, and hands the records to the transport; the transport delivers the records
 * that arrive to the engine's sink, which puts them into its own inbound ring (a DATA record of a
 * matched receive straight into the receive's buffer), so that the application polls one place.
 *
 * <p>A record is one wire message (a {@code MessageHeaderDescriptor} header and its payload). The
 * transport delivers every record exactly once and, per source, in the order it was sent.
 *
 * <p>Not thread-safe: driven by whoever drives the engine (the owner thread, or the progress agent
 * while it holds the engine).
 */
public interface RemoteTransport extends AutoCloseable {
    /**
     * Second step of start-up, after every rank has opened its transport (and so published its
     * addresses): reads the peers' addresses and prepares to reach them.
     */
    void connect() throws java.util.concurrent.TimeoutException;

    /** Largest record, header included, that {@link #send} takes. */
    int maxRecordLength();

    /**
     * Largest record that travels whole in one frame (a datagram, say): the receiving transport can
     * hand it on straight from the wire, with no reassembly. At most {@link #maxRecordLength()}.
     */
    default int frameRecordLength() {
        return maxRecordLength();
    }

    /** Whether {@link #send} to {@code dest} takes a record of up to {@link #maxRecordLength()} bytes now. */
    boolean canSend(int dest);

    /**
     * Sends one record to {@code dest}: copies it before returning, then delivers it reliably and in
     * order after the records sent to {@code dest} before it.
     */
    void send(int dest, MemorySegment record, long offset, int length);

    /**
     * Sends one record given in two parts, a header and a payload: as {@link #send} of the two one
     * after the other, and a transport that frames records itself joins them in its own copy. This
     * default joins them in a new array first.
     */
    default void send(int dest, MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                      long payloadOffset, int payloadLength) {
        MemorySegment record = MemorySegment.ofArray(new byte[headerLength + payloadLength]);
        MemorySegment.copy(header, headerOffset, record, 0, headerLength);
        MemorySegment.copy(payload, payloadOffset, record, headerLength, payloadLength);
        send(dest, record, 0, headerLength + payloadLength);
    }

    /**
     * Sends one record in two parts as {@link #send(int, MemorySegment, long, int, MemorySegment, long, int)}
     * does, but the transport may leave the payload where it is and read it from there, also after
     * returning (to send it, and again to resend it), until {@link #released} for {@code dest}
     * reaches the returned mark: the caller keeps the payload unchanged and valid until then. This
     * default copies it, and its mark, 0, is released at once.
     */
    default long sendInPlace(int dest, MemorySegment header, long headerOffset, int headerLength,
                             MemorySegment payload, long payloadOffset, int payloadLength) {
        send(dest, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
        return 0;
    }

    /**
     * How far the payloads sent in place to {@code dest} are released: the transport reads no
     * payload whose mark is at most this value again.
     */
    default long released(int dest) {
        return Long.MAX_VALUE;
    }

    /**
     * Does the transport's work — reads what arrived, acknowledges, retransmits — and offers the
     * records that are next in order to {@code sink}.
     *
     * @return a count of the work done; 0 when there was nothing to do
     */
    int poll(Sink sink);

    /** Whether every record sent so far has been delivered (acknowledged by its destination). */
    boolean quiescent();

    /** Why {@code peer} is known to have failed (it stopped answering, or closed its end), or null. */
    String failure(int peer);

    /**
     * Gives the transport where to publish its rails' counters (the rank's counters file); called
     * once, before {@link #connect()}. This default publishes nothing.
     */
    default void attach(RailCounters counters) {
    }

    /** Releases sockets and memory; records not yet delivered are lost. */
    @Override
    void close();

    /** Where arrived records go. */
    @FunctionalInterface
    interface Sink {
        /**
         * Takes one record from {@code source}; false when it cannot now (the inbound ring is full),
         * and the transport offers the same record again later.
         */
        boolean accept(int source, MemorySegment record, long offset, int length);

        /**
         * Whether the payload of the record of {@code length} bytes from {@code source}, whose first
         * {@code available} bytes are at {@code record}/{@code offset}, may be received straight into
         * its destination; if so, fills in {@code into} (its header length counted from the record's
         * start) and the transport then calls {@link #placed} once it has received and checked the
         * record. Without side effects: the transport may let the record go another way after all.
         *
         * <p>The sink offers only memory that nothing else reads or writes until the record is
         * placed (the next bytes a receive is waiting for), so that a record that arrives there and
         * then fails the transport's checks leaves nothing but bytes that will be written again.
         */
        default boolean place(int source, MemorySegment record, long offset, int available, int length,
                              Placement into) {
            return false;
        }

        /**
         * Takes the record whose header is the {@code header} bytes at {@code record}/{@code offset}
         * and whose payload the transport received where the last {@link #place} said.
         */
        default void placed(int source, MemorySegment record, long offset, int header) {
            throw new UnsupportedOperationException("this sink places nothing");
        }
    }
}
