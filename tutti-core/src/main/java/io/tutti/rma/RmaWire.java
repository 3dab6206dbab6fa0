package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;

/**
 * The RMA records of windows across the network ({@code MessageType.RMA}): which operation a
 * record carries (its header's flags) and how an accumulate names its chunk, type and operation
 * (its peer handle). The header's other fields:
 *
 * <pre>
 *  operation  handle           peer handle          address                total            payload
 *  PUT        -                -                    target byte offset     number           the data
 *  GET        reply id         -                    target byte offset     bytes            -
 *  REPLY      reply id         -                    offset in the result   -                the data
 *  ACC        -                bytes|type|op        target byte offset     number           origin data
 *  GET_ACC    reply id         bytes|type|op        target byte offset     offset in result origin data (none for NO_OP)
 *  CAS        reply id         type                 target byte offset     -                origin, compare
 *  ACK        -                -                    -                      applied up to    -
 *  LOCK       -                1 exclusive/0 shared -                      -                -
 *  GRANTED, POST, COMPLETE, UNLOCK (peer handle as LOCK): no fields
 * </pre>
 *
 * Why so: every operation that changes the target is answered once it has been applied, a fetching
 * one by its REPLY, a put or accumulate by the number its origin gave it (1, 2, ... per target): the
 * target answers the highest it has applied, once per progress pass, with one ACK that covers every
 * record before ({@link Answers}), so an origin's flush waits for its last number; one record never
 * exceeds a frame, so a large put is several records, each applied where it lands.
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

    private static final Datatype[] TYPES = Datatype.values();
    private static final AccumulateOp[] OPS = AccumulateOp.values();

    private RmaWire() {
    }

    /** The peer handle of an accumulate of {@code bytes} bytes of {@code type} with {@code op}. */
    static long accumulate(int bytes, Datatype type, AccumulateOp op) {
        return ((long) bytes << 32) | ((long) type.ordinal() << 8) | op.ordinal();
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
}
