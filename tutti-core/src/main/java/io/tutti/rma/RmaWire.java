package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.TuttiException;

/**
 * The RMA records of windows across the network ({@code MessageType.RMA}): which operation a
 * record carries (its header's flags) and how an accumulate names its chunk, type and operation
 * (its peer handle). The header's other fields:
 *
 * <pre>
 *  operation  handle           peer handle          address                total            payload
 *  PUT        -                the put's end        target byte offset     number           the data
 *  GET        reply id         -                    target byte offset     bytes            -
 *  REPLY      reply id         -                    offset in the result   -                the data
 *  ACC        -                bytes|type|op        target byte offset     number           origin data
 *  GET_ACC    reply id         bytes|type|op        target byte offset     offset in result origin data (none for NO_OP)
 *  CAS        reply id         type                 target byte offset     -                origin, compare
 *  BATCH      first reply id   replied entries      -                      number or 0      entries (RmaBatch)
 *  REPLIES    first reply id   -                    -                      replied entries  their data, in order
 *  ACK        -                -                    -                      applied up to    -
 *  REFUSED    reply id or 0    -                    1: a batch's get     number or 0      the cause (UTF-8 text)
 *  LOCK       -                1 exclusive/0 shared -                      -                -
 *  GRANTED, POST, COMPLETE, UNLOCK (peer handle as LOCK): no fields
 * </pre>
 *
 * Why so: every operation that changes the target is answered once it has been applied, a fetching
 * one by its REPLY, a put or accumulate by the number its origin gave it (1, 2, ... per target): the
 * target answers the highest it has applied, once per progress pass, with one ACK that covers every
 * record before ({@link Answers}), so an origin's flush waits for its last number; one record never
 * exceeds a frame, so a large put is several records, each applied where it lands and naming where
 * the put ends (the byte offset past it), so that the target may take the frames after the first
 * straight into its window. Small puts, accumulates, gets and fetching operations travel packed,
 * several to a BATCH record ({@link RmaBatch}), whose gets and fetching entries are answered together
 * by one REPLIES record (a batch of those only needs no number: 0). Reply ids
 * count 1, 2, ... per origin and target ({@link ReplyTable}). A record the target cannot apply (outside its window, a type or operation it
 * does not name) is answered by REFUSED with the cause, before the answer that covers its number,
 * so no origin waits for it in vain; a batch's refused get is left out of the REPLIES that follow.
 */
final class RmaWire {
    static final short PUT = 1;
    static final short GET = 2;
    static final short REPLY = 3;
    static final short ACC = 4;
    static final short GET_ACC = 5;
    static final short CAS = 6;
    static final short ACK = 7;
    static final short LOCK = 8;
    static final short GRANTED = 9;
    static final short UNLOCK = 10;
    static final short POST = 11;
    static final short COMPLETE = 12;
    static final short BATCH = 13;
    static final short REFUSED = 14;
    static final short REPLIES = 15;

    private static final Datatype[] TYPES = Datatype.values();
    private static final AccumulateOp[] OPS = AccumulateOp.values();

    private RmaWire() {
    }

    /** The peer handle of an accumulate of {@code bytes} bytes of {@code type} with {@code op}. */
    static long accumulate(int bytes, Datatype type, AccumulateOp op) {
        return ((long) bytes << 32) | ((long) type.ordinal() << 8) | op.ordinal();
    }

    /** The word of a batch entry ({@link RmaBatch}): its kind beside its bytes and an accumulate's fields. */
    static long entry(short kind, int bytes, Datatype type, AccumulateOp op) {
        return ((long) bytes << 32) | ((long) kind << 16) | (type == null ? 0 : (long) type.ordinal() << 8)
                | (op == null ? 0 : op.ordinal());
    }

    /** The kind of a batch entry's word. */
    static short kind(long word) {
        return (short) ((word >>> 16) & 0xFF);
    }

    /** Bytes of an accumulate's chunk. */
    static int bytes(long word) {
        return (int) (word >>> 32);
    }

    /** The datatype an accumulate or CAS names, or null when the word names none. */
    static Datatype type(long word) {
        int t = (int) (word >>> 8) & 0xFF;
        return t < TYPES.length ? TYPES[t] : null;
    }

    /** The operation an accumulate names, or null when the word names none. */
    static AccumulateOp op(long word) {
        int o = (int) word & 0xFF;
        return o < OPS.length ? OPS[o] : null;
    }

    /**
     * Why the target cannot apply a data record (or batch entry) of {@code op} with these header
     * fields and {@code length} payload bytes to its window's {@code extent}, or null when it
     * can: the cause, worded for the origin's error ({@code rank} is the target's rank in the window).
     */
    static String refusal(int op, long peerHandle, long address, long total, int length, Extent extent, int rank) {
        long bytes = switch (op) {
            case GET -> total;
            case ACC, GET_ACC -> bytes(peerHandle);
            case CAS -> length / 2;
            default -> length;
        };
        // the words only once there is a refusal: every applied record and batch entry comes here
        String why = why(op, peerHandle, length, bytes, address, extent, rank);
        return why == null ? null : name(op) + " of " + bytes + " bytes at " + extent.where(address) + why;
    }

    /** {@link #refusal}'s cause after the operation's description, or null when there is none. */
    private static String why(int op, long peerHandle, int length, long bytes, long address, Extent extent, int rank) {
        if (bytes < 0 || !extent.holds(address, bytes)) {
            return ", which lies outside " + extent.describe(rank);
        }
        if (op == ACC || op == GET_ACC || op == CAS) {
            Datatype type = type(peerHandle);
            AccumulateOp aop = op(peerHandle);
            if (type == null || aop == null) {
                return ", which names no known datatype or operation (0x" + Long.toHexString(peerHandle) + ")";
            }
            if (bytes % type.extent() != 0) {
                return ", which are not whole elements of " + type;
            }
            boolean data = op == CAS || aop != AccumulateOp.NO_OP || op == ACC;
            if (data && length != (op == CAS ? 2 * bytes : bytes)) {
                return ", which carries " + length + " bytes of data";
            }
            try {
                aop.check(type);
            } catch (TuttiException e) {
                return ": " + e.getMessage();
            }
        }
        return null;
    }

    /** The operation's name in an error. */
    static String name(int op) {
        return switch (op) {
            case PUT -> "a put";
            case GET -> "a get";
            case ACC -> "an accumulate";
            case GET_ACC -> "a getAccumulate";
            case CAS -> "a compareAndSwap";
            default -> "an operation of kind " + op;
        };
    }
}
