package io.tutti.p2p;

import static io.tutti.wire.MessageHeaderDescriptor.FLAG_HAS_ADDRESS;
import static io.tutti.wire.MessageHeaderDescriptor.FLAG_PACKETS;
import static io.tutti.wire.MessageHeaderDescriptor.FLAG_PIPELINE;
import static io.tutti.wire.MessageHeaderDescriptor.FLAG_SENDER_WRITES;
import static io.tutti.wire.MessageHeaderDescriptor.FLAG_TRUNCATED;
import static io.tutti.wire.MessageHeaderDescriptor.CURRENT_VERSION;

import io.tutti.TuttiException;
import io.tutti.os.SingleCopy;
import io.tutti.transport.Placement;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.shm.ExchangeRing;
import io.tutti.transport.shm.ExchangeRingDescriptor;
import io.tutti.transport.shm.InboundRing;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The rendezvous protocol of messages longer than the eager limit: RTS, then the receiver's CTS,
 * then the data, then FIN. The data goes one of four ways: copied once from the sender's off-heap
 * buffer by the receiver (RTS with an address), written once into the receiver's off-heap buffer by
 * the sender (CTS with an address), pipelined in chunks through the pair's exchange ring (both sides
 * copy at once), or, to a rank across the network, as DATA records straight from and into the user
 * buffers where the transport can. Owner thread only.
 */
final class Rendezvous {
    private final Links links;
    private final Outbox outbox;
    private final RequestTable table;
    private final Arena arena;
    private final int exchangeSlots;
    private final int exchangeChunk;
    private final SingleCopy singleCopy;
    private final ExchangeRing[] outExchange;
    private final ExchangeRing[] inExchange;
    /** Per destination: pipelined sends in CTS order. */
    private final ArrayDeque<Operation>[] pipelineOut;
    /**
     * Per remote destination: pipelined sends whose data has all gone but that the transport still
     * reads (sent in place, not yet acknowledged); counted in {@link #pipelineOutCount}.
     */
    private final ArrayDeque<Operation>[] releasing;
    private int pipelineOutCount;
    /** Per source: receives whose data comes through its exchange ring. */
    private final int[] pipelineIn;
    private int pipelineInCount;
    /** The header of a DATA record sent straight from a user's buffer ({@link #writeDataPackets}). */
    private final MemorySegment dataHeader;

    /** @param singleCopy the kernel's cross-process copy, or null when large messages take two copies */
    @SuppressWarnings("unchecked")
    Rendezvous(Links links, Outbox outbox, RequestTable table, Arena arena, P2pConfig config, SingleCopy singleCopy) {
        this.links = links;
        this.outbox = outbox;
        this.table = table;
        this.arena = arena;
        this.exchangeSlots = config.exchangeSlots();
        this.exchangeChunk = config.exchangeChunk();
        this.singleCopy = singleCopy;
        int size = links.size;
        this.outExchange = new ExchangeRing[size];
        this.inExchange = new ExchangeRing[size];
        this.pipelineOut = new ArrayDeque[size];
        this.releasing = new ArrayDeque[size];
        this.pipelineIn = new int[size];
        for (int i = 0; i < size; i++) {
            pipelineOut[i] = new ArrayDeque<>();
            releasing[i] = new ArrayDeque<>();
        }
        this.dataHeader = arena.allocate(MessageHeaderDescriptor.LENGTH, 8);
    }

    /** Whether sends still have data to move or the transport still reads their buffers. */
    boolean sending() {
        return pipelineOutCount > 0;
    }

    /** Slow path (close): whether a large send to a destination {@code gone} does not name is still moving. */
    boolean sending(java.util.function.IntPredicate gone) {
        for (int dest = 0; dest < pipelineOut.length && pipelineOutCount > 0; dest++) {
            if (!pipelineOut[dest].isEmpty() && !gone.test(dest)) {
                return true;
            }
        }
        return false;
    }

    /** Starts a send longer than the eager limit: an RTS now, or behind the destination's backlog. */
    void startSend(Operation op) {
        int dest = op.peer;
        if (outExchange[dest] == null && !links.remote[dest]) {
            outExchange[dest] = createExchange(dest);
        }
        op.handle = table.register(op);
        if (outbox.clear(dest) && outbox.writeRts(op)) {
            return;
        }
        outbox.enqueue(dest, op);
    }

    private ExchangeRing createExchange(int dest) {
        MemorySegment s = links.fabric.create(ExchangeRingDescriptor.fileName(links.rank, dest),
                ExchangeRingDescriptor.fileLength(exchangeSlots, exchangeChunk), arena);
        ExchangeRing.format(s, exchangeSlots, exchangeChunk);
        return new ExchangeRing(s);
    }

    /** A receive matched with an RTS: answers it with the CTS of the way the data will take. */
    void startRecv(Operation op, int source, int tag, long senderHandle, short flags, long address, long total) {
        op.statusSource = source;
        op.statusTag = tag;
        op.statusBytes = total;
        if (total > op.length) {
            outbox.control(source, MessageType.CTS, FLAG_TRUNCATED, op.context, tag, senderHandle, 0, 0, total);
            op.truncated(source, tag, total);
            return;
        }
        op.total = total;
        if (total == 0) {
            // nothing to move (a synchronous send of 0 bytes): the CTS alone completes the send, as
            // a truncated one's does, and no pipeline or copy is set up for no bytes
            outbox.control(source, MessageType.CTS, FLAG_TRUNCATED, op.context, tag, senderHandle, 0, 0, 0);
            op.complete(source, tag, 0);
            return;
        }
        if (links.remote[source]) {
            op.handle = table.register(op);
            op.transferred = 0;
            outbox.control(source, MessageType.CTS, FLAG_PACKETS, op.context, tag, senderHandle, op.handle, 0, total);
            return;
        }
        if ((flags & FLAG_HAS_ADDRESS) != 0 && singleCopy != null) {
            int errno = singleCopy.read(links.fabric.pid(source), address, op.base(), op.offset, total);
            if (errno != 0) {
                throw singleCopyFailed(errno, source);
            }
            outbox.control(source, MessageType.FIN, (short) 0, op.context, tag, senderHandle, 0, 0, total);
            op.complete(source, tag, total);
            return;
        }
        op.handle = table.register(op);
        if (singleCopy != null && op.isNative()) {
            outbox.control(source, MessageType.CTS, FLAG_SENDER_WRITES, op.context, tag, senderHandle, op.handle,
                    op.segment.address() + op.offset, total);
            return;
        }
        if (inExchange[source] == null) {
            inExchange[source] = new ExchangeRing(links.mapRequired(ExchangeRingDescriptor.fileName(source, links.rank),
                    arena));
        }
        if (pipelineIn[source]++ == 0) {
            pipelineInCount++;
        }
        outbox.control(source, MessageType.CTS, FLAG_PIPELINE, op.context, tag, senderHandle, op.handle, 0, total);
    }

    private TuttiException singleCopyFailed(int errno, int peer) {
        return new TuttiException("single copy with rank " + peer + " (pid " + links.fabric.pid(peer)
                + ") failed with errno " + errno + " (the kernel refused access to the peer's memory); set"
                + " TUTTI_SHM_SINGLE_COPY=false to use the two-copy path");
    }

    /** The receiver's answer to an RTS; false when it names no send of ours to {@code source}. */
    boolean onCts(int source, short flags, long handle, long receiverHandle, long address) {
        Operation op = table.lookup(handle);
        if (op == null || op.kind != Operation.SEND || op.peer != source) {
            return false;
        }
        if ((flags & FLAG_TRUNCATED) != 0) {
            table.release(handle);
            op.complete(op.peer, op.tag, op.length);
        } else if ((flags & FLAG_SENDER_WRITES) != 0) {
            int errno = singleCopy.write(links.fabric.pid(source), address, op.base(), op.offset, op.length);
            if (errno != 0) {
                throw singleCopyFailed(errno, source);
            }
            outbox.control(source, MessageType.FIN, (short) 0, op.context, op.tag, receiverHandle, 0, 0, op.length);
            table.release(handle);
            op.complete(op.peer, op.tag, op.length);
        } else {
            table.release(handle);
            op.peerHandle = receiverHandle;
            op.transferred = 0;
            pipelineOut[source].add(op);
            pipelineOutCount++;
        }
        return true;
    }

    /** The end of a single copy; false when it names no operation of ours. */
    boolean onFin(int source, int tag, long handle) {
        Operation op = table.lookup(handle);
        if (op == null) {
            return false;
        }
        table.release(op.handle);
        op.complete(op.kind == Operation.SEND ? op.peer : source, op.kind == Operation.SEND ? op.tag : tag,
                op.kind == Operation.SEND ? op.length : op.total);
        return true;
    }

    /**
     * A fragment of a large message from a remote rank (the network path of the rendezvous); none
     * to copy ({@code s} null) when the transport received it in place. False when it fits no receive.
     */
    boolean onData(int source, long handle, long at, MemorySegment s, long from, int n) {
        Operation op = table.lookup(handle);
        if (op == null || op.kind != Operation.RECV || op.statusSource != source || at < 0 || n <= 0
                || at + n > op.total || !links.remote[source]) {
            return false;
        }
        if (s != null) {
            Buffers.copyIn(s, from, op.array, op.segment, op.offset + at, n);
        }
        op.transferred += n;
        if (op.transferred == op.total) {
            table.release(op.handle);
            op.complete(op.statusSource, op.statusTag, op.total);
        }
        return true;
    }

    /**
     * Whether the DATA record of {@code length} bytes from {@code source}, whose header is at
     * {@code s}/{@code at}, may be received straight into its receive's buffer, and where: only the
     * next bytes the receive waits for (DATA of a receive arrive in order), so memory that no one
     * reads before they are there, and only off-heap memory, the kernel's to write into. A receive
     * makes its buffer view on its first placed record (one object per receive, not per record).
     */
    boolean place(int source, MemorySegment s, long at, int available, int length, Placement into) {
        if (available < MessageHeaderDescriptor.LENGTH || MessageHeaderDescriptor.type(s, at) != MessageType.DATA
                || MessageHeaderDescriptor.version(s, at) != CURRENT_VERSION
                || MessageHeaderDescriptor.jobId(s, at) != links.wireJobId
                || MessageHeaderDescriptor.dest(s, at) != links.rank
                || MessageHeaderDescriptor.source(s, at) != source) {
            return false;
        }
        int n = MessageHeaderDescriptor.payloadLength(s, at);
        long from = MessageHeaderDescriptor.address(s, at);
        Operation op = table.lookup(MessageHeaderDescriptor.handle(s, at));
        if (n <= 0 || n != length - MessageHeaderDescriptor.LENGTH || op == null || op.kind != Operation.RECV
                || op.statusSource != source || !links.remote[source] || op.array != null || from != op.transferred
                || from + n > op.total || op.length > Integer.MAX_VALUE || !op.segment.isNative()) {
            return false;
        }
        if (op.view == null) {
            // the posted buffer, which a persistent receive keeps from one start to the next
            op.view = op.segment.asSlice(op.offset, op.length).asByteBuffer();
        }
        op.view.limit((int) (from + n)).position((int) from);
        into.set(MessageHeaderDescriptor.LENGTH, op.segment.address() + op.offset + from, op.view);
        return true;
    }

    /** Moves the data of pipelined sends as far as rings and the transport take it. */
    int drivePipelineOut() {
        int work = 0;
        for (int dest = 0; dest < links.size; dest++) {
            ArrayDeque<Operation> q = pipelineOut[dest];
            if (links.remote[dest]) {
                work += release(dest);
            }
            Operation op = q.peek();
            if (op == null) {
                continue;
            }
            if (links.remote[dest]) {
                work += writeDataPackets(dest, q);
                continue;
            }
            ExchangeRing ring = outExchange[dest];
            int chunk = ring.chunk();
            long slot;
            while ((slot = ring.tryAcquireSlot()) >= 0) {
                long n = Math.min(chunk, op.length - op.transferred);
                Buffers.copyOut(op.array, op.segment, op.offset + op.transferred, ring.segment(),
                        ExchangeRing.dataOffset(slot), n);
                ring.publish(slot, op.peerHandle, op.transferred, (int) n);
                work++;
                op = sent(q, op, n);
                if (op == null) {
                    break;
                }
            }
        }
        return work;
    }

    /**
     * Sends the data of a remote rank's rendezvous as DATA packets through the outbox, as far as it
     * has room.
     */
    private int writeDataPackets(int dest, ArrayDeque<Operation> q) {
        int work = 0;
        InboundRing ring = links.ring(dest);
        RemoteTransport transport = links.transport;
        // as large as one frame carries, when that is more than the eager limit: fewer frames and
        // system calls per byte, each still handed on without reassembly (the receiver takes DATA
        // straight into the posted buffer, so its ring does not bound them)
        int chunk = Math.max(links.eagerTo[dest],
                Math.min(ring.maxBodyLength(), transport.frameRecordLength()) - MessageHeaderDescriptor.LENGTH);
        Operation op = q.peek();
        while (op != null) {
            int n = (int) Math.min(chunk, op.length - op.transferred);
            long from = op.offset + op.transferred;
            if (op.array == null && !ring.hasRecord()) {
                // nothing waits in the outbox before it: straight from the user's memory to the
                // transport, which sends it from there if it can (the send then completes once
                // the transport releases it), without the pass through the outbox; when the
                // transport's window is full the data waits where it is, not in the outbox
                if (!transport.canSend(dest)) {
                    break;
                }
                writeDataHeader(dataHeader, 0, op, dest, n);
                long mark = transport.sendInPlace(dest, dataHeader, 0, MessageHeaderDescriptor.LENGTH, op.segment,
                        from, n);
                op.mark = Math.max(op.mark, mark);
            } else {
                long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + n);
                if (position < 0) {
                    break;
                }
                long at = ring.bodyOffset(position);
                writeDataHeader(ring.segment(), at, op, dest, n);
                Buffers.copyOut(op.array, op.segment, from, ring.segment(), at + MessageHeaderDescriptor.LENGTH, n);
                ring.commit(position);
            }
            work++;
            op = sent(q, op, n);
        }
        return work;
    }

    /** The header of the DATA record that carries the next {@code n} bytes of {@code op} to {@code dest}. */
    private void writeDataHeader(MemorySegment s, long at, Operation op, int dest, int n) {
        MessageHeaderDescriptor.write(s, at, MessageType.DATA, (short) 0, links.wireJobId, op.context, links.rank, dest,
                op.tag, n, op.peerHandle, 0, op.transferred, op.length);
    }

    /** Counts {@code n} more bytes of the pipelined send at the head of {@code q}; returns the head then. */
    private Operation sent(ArrayDeque<Operation> q, Operation op, long n) {
        op.transferred += n;
        if (op.transferred < op.length) {
            return op;
        }
        q.poll();
        if (op.mark > 0 && op.mark > links.transport.released(op.peer)) {
            // the transport still reads the user's memory: done when it lets go
            releasing[op.peer].add(op);
        } else {
            pipelineOutCount--;
            op.complete(op.peer, op.tag, op.length);
        }
        return q.peek();
    }

    /** Completes the sends to {@code dest} whose data the transport has released, in order. */
    private int release(int dest) {
        ArrayDeque<Operation> q = releasing[dest];
        if (q.isEmpty()) {
            return 0;
        }
        long released = links.transport.released(dest);
        int work = 0;
        for (Operation op = q.peek(); op != null && op.mark <= released; op = q.peek()) {
            q.poll();
            pipelineOutCount--;
            op.complete(op.peer, op.tag, op.length);
            work++;
        }
        return work;
    }

    /** Whether any receive waits for data through an exchange ring. */
    boolean receiving() {
        return pipelineInCount > 0;
    }

    /** Takes what the exchange rings hold into the receives they belong to. */
    int drivePipelineIn() {
        int work = 0;
        for (int source = 0; source < links.size; source++) {
            if (pipelineIn[source] == 0) {
                continue;
            }
            ExchangeRing ring = inExchange[source];
            long slot;
            while ((slot = ring.peekSlot()) >= 0) {
                Operation op = table.lookup(ring.slotHandle(slot));
                long at = ring.slotOffset(slot);
                int n = ring.slotDataLength(slot);
                if (op == null || op.kind != Operation.RECV || at < 0 || n < 0 || at + n > op.total) {
                    ring.release();
                    links.drop();
                    continue;
                }
                Buffers.copyIn(ring.segment(), ExchangeRing.dataOffset(slot), op.array, op.segment, op.offset + at, n);
                ring.release();
                op.transferred += n;
                work++;
                if (op.transferred == op.total) {
                    table.release(op.handle);
                    op.complete(op.statusSource, op.statusTag, op.total);
                    if (--pipelineIn[source] == 0) {
                        pipelineInCount--;
                        break;
                    }
                }
            }
        }
        return work;
    }
}
