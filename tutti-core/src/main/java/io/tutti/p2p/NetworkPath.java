package io.tutti.p2p;

import io.tutti.transport.Placement;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.shm.InboundRing;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;

/**
 * The way to and from the ranks that share no memory with this one ([BCL-3]: one poll point). The
 * engine writes records for such a rank into a private outbox shaped like a ring; {@link #pump()}
 * hands them to the transport and takes what arrived: DATA straight into its receive, anything else
 * into this rank's inbound ring, where local peers' records arrive too; a rendezvous's DATA and a
 * large put's RMA records may have their payload received straight in place. Owner thread only.
 */
final class NetworkPath {
    private final Links links;
    private final Inbox inbox;
    private final Rendezvous rendezvous;
    private final RmaPackets rma;
    private final RemoteTransport transport;
    private final InboundRing.RecordHandler forward = this::forward;
    /** The destination whose outbox {@link #forward} is draining. */
    private int forwardDest;
    private final RemoteTransport.Sink deposit = new RemoteTransport.Sink() {
        @Override
        public boolean accept(int source, MemorySegment record, long offset, int length) {
            return deposit(source, record, offset, length);
        }

        @Override
        public boolean place(int source, MemorySegment record, long offset, int available, int length,
                             Placement into) {
            return rendezvous.place(source, record, offset, available, length, into)
                    || rma.place(source, record, offset, available, length, into);
        }

        @Override
        public void placed(int source, MemorySegment record, long offset, int header) {
            if (MessageHeaderDescriptor.type(record, offset) == MessageType.RMA) {
                rma.placed(record, offset, source);
            } else if (!rendezvous.onData(source, MessageHeaderDescriptor.handle(record, offset),
                    MessageHeaderDescriptor.address(record, offset), null, 0,
                    MessageHeaderDescriptor.payloadLength(record, offset))) {
                links.drop();
            }
        }
    };

    NetworkPath(Links links, Inbox inbox, Rendezvous rendezvous, RmaPackets rma) {
        this.links = links;
        this.inbox = inbox;
        this.rendezvous = rendezvous;
        this.rma = rma;
        this.transport = links.transport;
    }

    /** Hands what the outboxes hold to the transport, and lets it do its I/O and deliver. */
    int pump() {
        int work = 0;
        for (int dest = 0; dest < links.size; dest++) {
            if (!links.remote[dest]) {
                continue;
            }
            InboundRing outbox = links.rings[dest];
            if (outbox == null) {
                // never written to
                continue;
            }
            forwardDest = dest;
            int n = 0;
            while (outbox.hasRecord() && transport.canSend(dest) && outbox.read(forward, 1) > 0) {
                n++;
            }
            if (n > 0) {
                outbox.release();
                work += n;
            }
        }
        return work + transport.poll(deposit);
    }

    private void forward(MemorySegment s, long at, int length) {
        transport.send(forwardDest, s, at, length);
    }

    /**
     * Takes a record that arrived from the network: a DATA record straight into its receive's
     * buffer, an RMA record straight to its window, any other into our inbound ring. A DATA record
     * names the receive it belongs to and follows the CTS that matched it, so it takes no part in
     * matching and may overtake records still in the ring; passing through the ring would cost two
     * more passes over its bytes. RMA records take no part in matching either, and all of one
     * source's take this way, so they keep their order.
     */
    private boolean deposit(int source, MemorySegment s, long at, int length) {
        byte type = length >= MessageHeaderDescriptor.LENGTH ? MessageHeaderDescriptor.type(s, at) : 0;
        if (type == MessageType.DATA || type == MessageType.RMA) {
            inbox.onRecord(s, at, length);
            return true;
        }
        InboundRing inbound = links.inbound;
        if (length > inbound.maxBodyLength()) {
            links.drop();
            return true;
        }
        long position = inbound.tryClaim(length);
        if (position < 0) {
            return false;
        }
        MemorySegment.copy(s, at, inbound.segment(), inbound.bodyOffset(position), length);
        inbound.commit(position);
        return true;
    }

    /** Whether everything sent to remote ranks has left the outboxes and been acknowledged. */
    boolean flushed(java.util.function.IntPredicate gone) {
        for (int r = 0; r < links.size; r++) {
            if (links.remote[r] && links.hasRecord(r) && !gone.test(r)) {
                return false;
            }
        }
        return transport.quiescent();
    }
}
