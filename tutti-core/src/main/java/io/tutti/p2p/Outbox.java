package io.tutti.p2p;

import static io.tutti.wire.MessageHeaderDescriptor.FLAG_HAS_ADDRESS;

import io.tutti.transport.shm.CompactRecordDescriptor;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Writes records into the rings of other ranks: eager messages, RTS and the control packets of the
 * protocols. A record that finds its ring full waits in a per-destination backlog, in order, and
 * everything later for that destination queues behind it, so that messages between a pair of ranks
 * keep MPI's order; {@link #drive()} retries the backlogs. Owner thread only.
 */
final class Outbox {
    private final Links links;
    /** Whether an RTS from an off-heap buffer to a rank of this node carries its address (single copy). */
    private final boolean singleCopy;
    /** Per destination: operations and control packets that found the ring full, in order. */
    private final ArrayDeque<Object>[] backlog;
    private int backlogged;
    private final ArrayDeque<Control> controlFree = new ArrayDeque<>();

    @SuppressWarnings("unchecked")
    Outbox(Links links, boolean singleCopy) {
        this.links = links;
        this.singleCopy = singleCopy;
        this.backlog = new ArrayDeque[links.size];
        for (int i = 0; i < links.size; i++) {
            backlog[i] = new ArrayDeque<>();
        }
    }

    /** Whether nothing waits for {@code dest}: a new record may go straight into its ring. */
    boolean clear(int dest) {
        return backlog[dest].isEmpty();
    }

    /** Whether any destination has a backlog. */
    boolean backlogged() {
        return backlogged > 0;
    }

    /** Slow path (close): whether a destination that {@code gone} does not name has a backlog. */
    boolean backlogged(java.util.function.IntPredicate gone) {
        for (int dest = 0; dest < backlog.length && backlogged > 0; dest++) {
            if (!backlog[dest].isEmpty() && !gone.test(dest)) {
                return true;
            }
        }
        return false;
    }

    /** Slow path: whether {@code op} (a send) still waits in its destination's backlog. */
    boolean queued(Operation op) {
        return op.peer >= 0 && op.peer < backlog.length && backlog[op.peer].contains(op);
    }

    /** Queues a send (eager or RTS) behind the records waiting for its destination. */
    void enqueue(int dest, Operation op) {
        add(dest, op);
    }

    private void add(int dest, Object item) {
        backlog[dest].add(item);
        backlogged++;
    }

    /** Writes an eager message into {@code dest}'s ring if it has room now. */
    boolean writeEager(int dest, int context, int tag, Object array, MemorySegment segment, long offset, int length) {
        InboundRing ring = links.ring(dest);
        if (!links.remote[dest]) {
            // a rank of this node: the compact record, one cache line for a short message
            long position = ring.tryClaim(CompactRecordDescriptor.EAGER_LENGTH + length,
                    InboundRingDescriptor.TYPE_EAGER);
            if (position < 0) {
                return false;
            }
            MemorySegment s = ring.via();
            long at = ring.bodyAt(position);
            CompactRecordDescriptor.write(s, at, context, links.rank, tag, length);
            Buffers.copyOut(array, segment, offset, s, at + CompactRecordDescriptor.EAGER_LENGTH, length);
            ring.commit(position);
            return true;
        }
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + length);
        if (position < 0) {
            return false;
        }
        MemorySegment s = ring.via();
        long at = ring.bodyAt(position);
        MessageHeaderDescriptor.write(s, at, MessageType.EAGER, (short) 0, links.wireJobId, context, links.rank, dest,
                tag, length, 0, 0, 0, length);
        Buffers.copyOut(array, segment, offset, s, at + MessageHeaderDescriptor.LENGTH, length);
        ring.commit(position);
        return true;
    }

    /** Writes the RTS of a rendezvous send if its ring has room; with its address for a single copy. */
    boolean writeRts(Operation op) {
        boolean address = singleCopy && !links.remote[op.peer] && op.isNative();
        return writeControl(op.peer, MessageType.RTS, address ? FLAG_HAS_ADDRESS : 0, op.context, op.tag, op.handle,
                0, address ? op.segment.address() + op.offset : 0, op.length);
    }

    /** Writes a header-only record if {@code dest}'s ring has room now. */
    boolean writeControl(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle,
                         long address, long total) {
        InboundRing ring = links.ring(dest);
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH);
        if (position < 0) {
            return false;
        }
        MessageHeaderDescriptor.write(ring.via(), ring.bodyAt(position), type, flags, links.wireJobId, context,
                links.rank, dest, tag, 0, handle, peerHandle, address, total);
        ring.commit(position);
        return true;
    }

    /** Writes a record of a header and {@code length} bytes of {@code payload} if {@code dest}'s ring has room now. */
    boolean writeRecord(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle,
                        long address, long total, MemorySegment payload, long offset, int length) {
        InboundRing ring = links.ring(dest);
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + length);
        if (position < 0) {
            return false;
        }
        MemorySegment s = ring.via();
        long at = ring.bodyAt(position);
        MessageHeaderDescriptor.write(s, at, type, flags, links.wireJobId, context, links.rank, dest, tag, length,
                handle, peerHandle, address, total);
        if (length > 0) {
            MemorySegment.copy(payload, offset, s, at + MessageHeaderDescriptor.LENGTH, length);
        }
        ring.commit(position);
        return true;
    }

    /**
     * Sends a record with a payload now or, copied whole into a new array (the slow path of a full
     * ring), behind the backlog later; it is never lost.
     */
    void record(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle, long address,
                long total, MemorySegment payload, long offset, int length) {
        if (backlog[dest].isEmpty() && writeRecord(dest, type, flags, context, tag, handle, peerHandle, address,
                total, payload, offset, length)) {
            return;
        }
        byte[] copy = new byte[MessageHeaderDescriptor.LENGTH + length];
        MemorySegment c = MemorySegment.ofArray(copy);
        MessageHeaderDescriptor.write(c, 0, type, flags, links.wireJobId, context, links.rank, dest, tag, length,
                handle, peerHandle, address, total);
        if (length > 0) {
            MemorySegment.copy(payload, offset, c, MessageHeaderDescriptor.LENGTH, length);
        }
        add(dest, copy);
    }

    /** Sends a control packet (CTS, FIN, CALL) now or, behind the backlog, later; it is never lost. */
    void control(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle, long address,
                 long total) {
        if (backlog[dest].isEmpty() && writeControl(dest, type, flags, context, tag, handle, peerHandle, address,
                total)) {
            return;
        }
        Control c = controlFree.isEmpty() ? new Control() : controlFree.poll();
        c.set(type, flags, context, tag, handle, peerHandle, address, total);
        add(dest, c);
    }

    /** Writes what the backlogs hold as far as the rings have room; returns the records written. */
    int drive() {
        int work = 0;
        for (int dest = 0; dest < links.size && backlogged > 0; dest++) {
            ArrayDeque<Object> q = backlog[dest];
            Object item;
            while ((item = q.peek()) != null) {
                boolean written;
                if (item instanceof Operation op) {
                    if (op.length <= links.eagerTo[dest] && !op.synchronous) {   // a synchronous one asks by RTS
                        written = writeEager(dest, op.context, op.tag, op.array, op.segment, op.offset,
                                (int) op.length);
                        if (written) {
                            op.complete(dest, op.tag, op.length);
                        }
                    } else {
                        written = writeRts(op);
                    }
                } else if (item instanceof byte[] whole) {
                    written = writeWhole(dest, whole);
                } else {
                    Control c = (Control) item;
                    written = writeControl(dest, c.type, c.flags, c.context, c.tag, c.handle, c.peerHandle, c.address,
                            c.total);
                    if (written) {
                        controlFree.add(c);
                    }
                }
                if (!written) {
                    break;
                }
                q.poll();
                backlogged--;
                work++;
            }
        }
        return work;
    }

    private boolean writeWhole(int dest, byte[] record) {
        InboundRing ring = links.ring(dest);
        long position = ring.tryClaim(record.length);
        if (position < 0) {
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(record), 0, ring.via(), ring.bodyAt(position), record.length);
        ring.commit(position);
        return true;
    }

    /** A control packet (CTS, FIN) that found its receiver's ring full. */
    private static final class Control {
        byte type;
        short flags;
        int context;
        int tag;
        long handle;
        long peerHandle;
        long address;
        long total;

        void set(byte type, short flags, int context, int tag, long handle, long peerHandle, long address, long total) {
            this.type = type;
            this.flags = flags;
            this.context = context;
            this.tag = tag;
            this.handle = handle;
            this.peerHandle = peerHandle;
            this.address = address;
            this.total = total;
        }
    }
}
