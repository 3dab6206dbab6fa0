package io.tutti.net;

import io.tutti.transport.Placement;
import java.net.InetSocketAddress;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How frames travel on the rails: the one part of the rails that differs between UDP
 * ({@link UdpWire}) and TCP ({@link TcpWire}). Everything else is the same over both: the
 * handshake ({@link Handshake}), sequence numbers shared by all rails, acknowledgements and
 * reassembly ({@link Reliability}), striping ({@link Striping}), heartbeats and failure
 * bookkeeping ({@link Liveness}), behind {@link RailsTransport}.
 *
 * <p>A frame is one {@link DatagramDescriptor} unit, header and payload. Not thread-safe: driven by
 * the thread that drives the transport.
 */
interface RailWire {
    /** The name that {@code TUTTI_NET} selects this wire by. */
    String name();

    /**
     * Whether the wire itself repairs loss and keeps order on each rail (TCP): the rails then send
     * no NAKs and retransmit only what a rail found down carried.
     */
    boolean repairsLoss();

    /** The local address of each rail, as the peers reach it. */
    List<InetSocketAddress> localAddresses();

    /** Starts reaching {@code peer}, whose rails are at {@code addr} (one per rail). */
    void connect(int peer, InetSocketAddress[] addr);

    /**
     * Sends the frame of {@code length} bytes at the start of {@code frame} (its position and limit
     * are the wire's to use) to {@code peer} on {@code rail}.
     *
     * @return false when it could not leave (no way to the peer on that rail yet, or the socket
     *         refused it); the frame is then as good as lost
     */
    boolean send(int peer, int rail, ByteBuffer frame, int length);

    /** Whether the wire sends a frame gathered from two parts ({@link #send(int, int, MemorySegment, int, long, int)}). */
    default boolean gathers() {
        return false;
    }

    /**
     * Sends the frame made of the {@code headLength} bytes at the start of {@code head} and the
     * {@code tailLength} bytes at native address {@code tail}, as {@link #send(int, int, ByteBuffer, int)}
     * does a whole one. Only where {@link #gathers()}.
     */
    default boolean send(int peer, int rail, MemorySegment head, int headLength, long tail, int tailLength) {
        throw new UnsupportedOperationException("this wire sends whole frames only");
    }

    /**
     * The size of the frames that {@link #sendBatch} takes on {@code rail} (every frame of a batch
     * but the last has exactly this size, the last at most), or 0 when the wire sends one frame per
     * call.
     */
    default int batchSegment(int rail) {
        return 0;
    }

    /**
     * Sends the frames in the first {@code length} bytes of {@code frames} (back to back, each of
     * {@link #batchSegment} bytes but the last; at most {@link UdpSegmentation#MAX_SEGMENTS} of them
     * and {@link UdpSegmentation#MAX_BYTES} in all) to {@code peer} on {@code rail}, in order, as
     * separate frames.
     *
     * @return false when they could not leave; they are then as good as lost
     */
    default boolean sendBatch(int peer, int rail, ByteBuffer frames, int length) {
        throw new UnsupportedOperationException("this wire sends one frame per call");
    }

    /**
     * Reads what has arrived on every rail and hands each frame to {@code into}; returns the frames
     * read. A wire may read less than has arrived (what is left waits for the next call, which the
     * caller makes at once when this one returned more than 0) unless {@code drain}, the keep-alive
     * agent's poll, which comes rarely and so takes all that waits, up to a fixed bound.
     */
    int receive(Receiver into, boolean drain);

    /**
     * A HELLO from {@code from} claims to come from {@code peer} on {@code rail}: HELLOs to that peer
     * and rail go back to it until one source has passed the challenge.
     */
    void claimed(int peer, int rail, Object from);

    /** {@code from} has answered the challenge: it is {@code peer}'s end of {@code rail}. */
    void authenticated(int peer, int rail, Object from);

    /** Sends what is still queued (bounded in time) and releases the sockets. */
    void close();

    /** What the wire reports to the rails. */
    interface Receiver {
        /**
         * A frame of {@code length} bytes at the start of {@code frame} arrived on {@code rail} from
         * {@code from} (an address, or a connection: compared with {@code equals}). Not yet checked.
         * {@code segment} is the same memory from the buffer's first byte, so that a payload can be
         * copied out without making a view per frame. Both are the wire's: valid until the call
         * returns.
         */
        void frame(int rail, Object from, ByteBuffer frame, MemorySegment segment, int length);

        /**
         * Whether the frame of {@code length} bytes from {@code from} on {@code rail}, whose first
         * {@code available} bytes the wire has copied to the start of {@code head} (still queued,
         * not yet checked), may be received in two parts: its first {@code into.header} bytes to
         * the wire's buffer, the rest where {@code into} says. If so, the wire then hands it to
         * {@link #placedFrame}. Wires that can receive so ask only about frames that come in
         * streams of large ones.
         */
        default boolean place(int rail, Object from, ByteBuffer head, MemorySegment segment, int available, int length,
                              Placement into) {
            return false;
        }

        /**
         * A frame of {@code length} bytes arrived on {@code rail} from {@code from} in two parts:
         * its first {@code placed.header} bytes at the start of {@code frame} (and {@code segment}),
         * the rest where the last {@link #place} put them. Not yet checked.
         */
        default void placedFrame(int rail, Object from, ByteBuffer frame, MemorySegment segment, int length,
                                 Placement placed) {
            throw new UnsupportedOperationException("this receiver places nothing");
        }

        /** {@code peer}'s end of {@code rail} is gone (end of stream, reset). */
        void lost(int peer, int rail, String why);

        /** A way to {@code peer} on {@code rail} has just opened: a HELLO can go now. */
        void opened(int peer, int rail);

        /** A received stream could not be framed (garbage on a connection): counted, the connection closed. */
        void garbled(DropReason why);
    }
}
