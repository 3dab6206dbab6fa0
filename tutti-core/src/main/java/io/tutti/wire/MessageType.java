package io.tutti.wire;

/**
 * The packet types of the wire format. The first five carry point-to-point traffic; the others are
 * reserved for the network rails, the offload engine and in-network computing, or carry the
 * one-sided operations across hosts ({@link #RMA}; GET and GET_REPLY stay reserved).
 */
public final class MessageType {
    /** Small message, payload inline; matched at the receiver or queued as unexpected. */
    public static final byte EAGER = 1;
    /** Request to send a large message; carries its length and, for a single copy, the buffer address. */
    public static final byte RTS = 2;
    /** Clear to send: the receiver matched an RTS and says how the data is to move. */
    public static final byte CTS = 3;
    /** A fragment of a large message. */
    public static final byte DATA = 4;
    /** The data of a single-copy transfer is in place; completes the request named by the handle. */
    public static final byte FIN = 5;
    public static final byte PUT = 6;
    public static final byte GET = 7;
    public static final byte GET_REPLY = 8;
    public static final byte ACK = 9;
    public static final byte NAK = 10;
    public static final byte CNTR_ADD = 11;
    public static final byte NIC_REDUCE = 12;
    public static final byte INC_CTRL = 13;
    public static final byte INC_DATA = 14;
    public static final byte HEARTBEAT = 15;
    public static final byte HELLO = 16;
    /**
     * Which collective call the source waits in (context, sequence in the tag, the call's signature
     * in handle, peer handle and address): lets a stalled peer see that the ranks disagree on the call.
     */
    public static final byte CALL = 17;
    /**
     * The source has revoked the communicator of this context (and its collectives' context): every
     * rank that receives it fails its operations there and tells the other members once.
     */
    public static final byte REVOKE = 18;
    /**
     * A one-sided operation on a window of a rank across the network, or its answer: what it is
     * (put, get, accumulate, lock, ...) is in flags ({@code io.tutti.rma.RmaWire}), the window in
     * context and tag. Handled where it arrives, so the target's application need not call Tutti.
     */
    public static final byte RMA = 19;
    /** Highest type number a decoder accepts. */
    public static final byte MAX = RMA;

    private MessageType() {
    }

    /** Human-readable name for logs and error messages. */
    public static String name(byte type) {
        return switch (type) {
            case EAGER -> "EAGER";
            case RTS -> "RTS";
            case CTS -> "CTS";
            case DATA -> "DATA";
            case FIN -> "FIN";
            case PUT -> "PUT";
            case GET -> "GET";
            case GET_REPLY -> "GET_REPLY";
            case ACK -> "ACK";
            case NAK -> "NAK";
            case CNTR_ADD -> "CNTR_ADD";
            case NIC_REDUCE -> "NIC_REDUCE";
            case INC_CTRL -> "INC_CTRL";
            case INC_DATA -> "INC_DATA";
            case HEARTBEAT -> "HEARTBEAT";
            case HELLO -> "HELLO";
            case CALL -> "CALL";
            case REVOKE -> "REVOKE";
            case RMA -> "RMA";
            default -> "UNKNOWN(" + type + ")";
        };
    }
}
