package io.tutti.p2p;

import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Matching of messages to receives by (context, source, tag), with MPI's non-overtaking order: the
 * posted receives in posting order, and the messages that arrived before their receive
 * (unexpected: an eager payload kept in a pooled buffer, or an RTS) in arrival order. Both lists
 * are intrusive and their nodes reused, so steady traffic allocates nothing. Owner thread only.
 */
final class Matching {
    /** Wildcard source and tag. */
    static final int ANY = Engine.ANY;

    private Operation postedHead;
    private Operation postedTail;
    private Unexpected unexpectedHead;
    private Unexpected unexpectedTail;
    private Unexpected unexpectedFree;
    /** Buffers of unexpected eager payloads by power-of-two size class. */
    private final ArrayDeque<MemorySegment>[] pool;

    /** @param maxPayload the longest eager payload that can arrive (what the inbound ring holds) */
    @SuppressWarnings("unchecked")
    Matching(int maxPayload) {
        int classes = poolClass(maxPayload) + 1;
        this.pool = new ArrayDeque[classes];
        for (int i = 0; i < classes; i++) {
            pool[i] = new ArrayDeque<>();
        }
    }

    /** Appends a receive that found no unexpected message. */
    void post(Operation op) {
        if (postedTail == null) {
            postedHead = op;
        } else {
            postedTail.next = op;
            op.prev = postedTail;
        }
        postedTail = op;
    }

    /** Removes and returns the oldest posted receive that matches, or null. */
    Operation matchPosted(int context, int source, int tag) {
        for (Operation op = postedHead; op != null; op = op.next) {
            if (op.context == context && (op.peer == ANY || op.peer == source) && (op.tag == ANY || op.tag == tag)) {
                unlink(op);
                return op;
            }
        }
        return null;
    }

    /** Takes {@code op} out of the posted receives (a cancelled receive); false when it is not posted. */
    boolean remove(Operation op) {
        for (Operation o = postedHead; o != null; o = o.next) {
            if (o == op) {
                unlink(op);
                return true;
            }
        }
        return false;
    }

    private void unlink(Operation op) {
        Operation p = op.prev;
        Operation n = op.next;
        if (p == null) {
            postedHead = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            postedTail = p;
        } else {
            n.prev = p;
        }
        op.next = null;
        op.prev = null;
    }

    /** The oldest unexpected message that matches, removed when {@code remove}; null if none. */
    Unexpected findUnexpected(int context, int source, int tag, boolean remove) {
        Unexpected prev = null;
        for (Unexpected u = unexpectedHead; u != null; prev = u, u = u.next) {
            if (u.context == context && (source == ANY || u.source == source) && (tag == ANY || u.tag == tag)) {
                if (remove) {
                    if (prev == null) {
                        unexpectedHead = u.next;
                    } else {
                        prev.next = u.next;
                    }
                    if (unexpectedTail == u) {
                        unexpectedTail = prev;
                    }
                    u.next = null;
                }
                return u;
            }
        }
        return null;
    }

    /** Keeps an eager message no receive waits for: its payload is copied into a pooled buffer. */
    void keepEager(int context, int source, int tag, MemorySegment s, long data, int payload) {
        Unexpected u = newUnexpected();
        u.set(MessageType.EAGER, context, source, tag, (short) 0, 0, 0, payload);
        u.data = pooledBuffer(payload);
        u.dataLength = payload;
        MemorySegment.copy(s, data, u.data, 0, payload);
        append(u);
    }

    /** Keeps an RTS no receive waits for. */
    void keepRts(int context, int source, int tag, short flags, long handle, long address, long total) {
        Unexpected u = newUnexpected();
        u.set(MessageType.RTS, context, source, tag, flags, handle, address, total);
        append(u);
    }

    /** Returns an unexpected message's node and buffer for reuse, once its data is taken. */
    void free(Unexpected u) {
        if (u.data != null) {
            pool[poolClass(u.data.byteSize())].add(u.data);
            u.data = null;
        }
        u.next = unexpectedFree;
        unexpectedFree = u;
    }

    /** Visits every unexpected message of {@code context}, in arrival order (slow path, for diagnosis). */
    void forEachUnexpected(int context, Engine.UnexpectedVisitor visitor) {
        for (Unexpected u = unexpectedHead; u != null; u = u.next) {
            if (u.context == context) {
                visitor.visit(u.source, u.tag, u.bytes());
            }
        }
    }

    private Unexpected newUnexpected() {
        Unexpected u = unexpectedFree;
        if (u != null) {
            unexpectedFree = u.next;
            u.next = null;
            return u;
        }
        return new Unexpected();
    }

    private void append(Unexpected u) {
        if (unexpectedTail == null) {
            unexpectedHead = u;
        } else {
            unexpectedTail.next = u;
        }
        unexpectedTail = u;
    }

    private static int poolClass(long capacity) {
        return 64 - Long.numberOfLeadingZeros(Math.max(64, capacity) - 1);
    }

    private MemorySegment pooledBuffer(int length) {
        int cls = poolClass(length);
        MemorySegment s = pool[cls].poll();
        return s != null ? s : MemorySegment.ofArray(new byte[1 << cls]);
    }

    /** A message that arrived before its receive was posted: an eager payload copy, or an RTS. */
    static final class Unexpected {
        byte type;
        int context;
        int source;
        int tag;
        short flags;
        long handle;
        long address;
        long total;
        MemorySegment data;
        int dataLength;
        Unexpected next;

        void set(byte type, int context, int source, int tag, short flags, long handle, long address, long total) {
            this.type = type;
            this.context = context;
            this.source = source;
            this.tag = tag;
            this.flags = flags;
            this.handle = handle;
            this.address = address;
            this.total = total;
        }

        /** The whole message's length. */
        long bytes() {
            return type == MessageType.EAGER ? dataLength : total;
        }
    }
}
