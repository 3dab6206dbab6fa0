package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The packed copy of a derived type with gaps for a call whose operation outlives it (a
 * nonblocking or persistent one): Tutti moves the packed bytes, a send packs the program's items
 * into them when it starts, a receive unpacks them into the items when its request completes. One
 * per buffer, owned by the request (the call's {@link Region} is reused by the next call at once);
 * a nonblocking collective's send buffer's is held by Tutti's operation until it completes.
 */
final class Staging {
    /** The packed bytes, exactly the call's: what Tutti sends or receives into. */
    final MemorySegment packed;
    private final Datatype type;
    private final int count;
    private final MemorySegment user;
    private final long at;
    /** Whether the request's completion unpacks: a receive's, or a collective's receive buffer. */
    boolean receive;
    /** A receive's: whether this operation's bytes have been unpacked (a status query may come before the wait). */
    private boolean unpacked;
    /** A collective's: all of it is unpacked (its request's status counts no bytes received). */
    private boolean whole;

    Staging(int bytes, Datatype type, int count, MemorySegment user, long at, boolean receive) {
        this.packed = MemorySegment.ofArray(new byte[bytes]);
        this.type = type;
        this.count = count;
        this.user = user;
        this.at = at;
        this.receive = receive;
    }

    /** A start: a send's items as they are now packed, a receive's next completion to be unpacked. */
    void start() {
        if (receive) {
            unpacked = false;
        } else {
            type.pack(user, at, count, packed, 0);
        }
    }

    /**
     * For a nonblocking collective's receive buffer, packed when the call started (an in-place
     * call's data is its input too): its request's completion unpacks it. Returns this.
     */
    Staging unpackOnCompletion() {
        receive = true;
        whole = true;
        unpacked = false;
        return this;
    }

    /** A receive's completion: the {@code bytes} received unpacked into the program's items, once. */
    void received(long bytes) {
        if (receive && !unpacked) {
            type.unpack(packed, 0, whole ? packed.byteSize() : bytes, user, at);
            unpacked = true;
        }
    }
}
