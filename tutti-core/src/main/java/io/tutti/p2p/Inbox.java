package io.tutti.p2p;

import static io.tutti.wire.MessageHeaderDescriptor.CURRENT_VERSION;

import io.tutti.transport.shm.CompactRecordDescriptor;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;
import java.util.function.IntConsumer;

/**
 * The receive side of the engine: reads this rank's inbound ring, where local peers write and the
 * network path deposits, checks every record ([BCL-3]: strict validation; a bad one is counted and
 * dropped, never thrown) and hands it to its protocol: eager messages to matching, RTS, CTS, DATA
 * and FIN to the rendezvous, PUT and counter adds to the offload endpoints, RMA records to their
 * windows, CALL announcements to the call board. Owner thread only.
 */
final class Inbox {
    private static final int READ_BATCH = 64;

    private final Links links;
    private final Matching matching;
    private final Rendezvous rendezvous;
    private final OffloadPackets offload;
    private final CallBoard calls;
    private final RmaPackets rma;
    /** Told the context of each REVOKE record. */
    private final IntConsumer revoke;
    private final InboundRing.RecordHandler handler = new InboundRing.RecordHandler() {
        @Override
        public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
            Inbox.this.onRecord(segment, bodyOffset, bodyLength);
        }

        @Override
        public void onCompact(int type, MemorySegment segment, long bodyOffset, int bodyLength) {
            Inbox.this.onCompact(type, segment, bodyOffset, bodyLength);
        }
    };

    Inbox(Links links, Matching matching, Rendezvous rendezvous, OffloadPackets offload, CallBoard calls,
          RmaPackets rma, IntConsumer revoke) {
        this.links = links;
        this.matching = matching;
        this.rendezvous = rendezvous;
        this.offload = offload;
        this.calls = calls;
        this.rma = rma;
        this.revoke = revoke;
    }

    /** Handles what has arrived, a batch at most; returns the records handled. */
    int read() {
        InboundRing inbound = links.inbound;
        int work = inbound.read(handler, READ_BATCH);
        if (work == 0) {
            // nothing arrived: a good moment to hand consumed ring space back to the producers
            inbound.release();
        }
        return work;
    }

    /** A compact record from a rank of this node ({@link CompactRecordDescriptor}). */
    private void onCompact(int type, MemorySegment s, long at, int length) {
        int header = type == InboundRingDescriptor.TYPE_EAGER ? CompactRecordDescriptor.EAGER_LENGTH
                : CompactRecordDescriptor.OFFLOAD_LENGTH;
        int source = length < header ? -1 : CompactRecordDescriptor.source(s, at);
        int payload = length < header ? -1 : CompactRecordDescriptor.payloadLength(s, at);
        if (source < 0 || source >= links.size || links.remote[source] || payload < 0 || payload > length - header) {
            links.drop();
            return;
        }
        int context = CompactRecordDescriptor.context(s, at);
        int tag = CompactRecordDescriptor.tag(s, at);
        if (type == InboundRingDescriptor.TYPE_EAGER) {
            onEager(context, source, tag, s, at + header, payload);
            return;
        }
        byte kind = CompactRecordDescriptor.kind(s, at);
        if (kind != MessageType.PUT && kind != MessageType.CNTR_ADD) {
            links.drop();
            return;
        }
        offload.onOffload(kind, context, tag, source, CompactRecordDescriptor.buffer(s, at),
                CompactRecordDescriptor.counter(s, at), CompactRecordDescriptor.value(s, at),
                CompactRecordDescriptor.offset(s, at), CompactRecordDescriptor.epoch(s, at), s, at + header, payload);
    }

    /** An eager message, whichever record carried it: to its posted receive, or kept as unexpected. */
    private void onEager(int context, int source, int tag, MemorySegment s, long data, int payload) {
        links.counters.received(source, payload);
        Operation op = matching.matchPosted(context, source, tag);
        if (op != null) {
            op.deliver(source, tag, s, data, payload);
        } else {
            matching.keepEager(context, source, tag, s, data, payload);
        }
    }

    /** A record with the full message header, from the ring or straight from the network (DATA). */
    void onRecord(MemorySegment s, long at, int length) {
        if (length < MessageHeaderDescriptor.LENGTH || MessageHeaderDescriptor.version(s, at) != CURRENT_VERSION
                || MessageHeaderDescriptor.jobId(s, at) != links.wireJobId
                || MessageHeaderDescriptor.dest(s, at) != links.rank) {
            links.drop();
            return;
        }
        byte type = MessageHeaderDescriptor.type(s, at);
        int source = MessageHeaderDescriptor.source(s, at);
        int payload = MessageHeaderDescriptor.payloadLength(s, at);
        if (source < 0 || source >= links.size || payload < 0 || payload > length - MessageHeaderDescriptor.LENGTH
                || type < MessageType.EAGER || type > MessageType.MAX) {
            links.drop();
            return;
        }
        int context = MessageHeaderDescriptor.context(s, at);
        int tag = MessageHeaderDescriptor.tag(s, at);
        long handle = MessageHeaderDescriptor.handle(s, at);
        boolean ok = true;
        switch (type) {
            case MessageType.EAGER -> onEager(context, source, tag, s, at + MessageHeaderDescriptor.LENGTH, payload);
            case MessageType.RTS -> {
                long total = MessageHeaderDescriptor.totalLength(s, at);
                if (total < 0) {    // 0: a synchronous send of no bytes (Engine.issend)
                    ok = false;
                    break;
                }
                short flags = MessageHeaderDescriptor.flags(s, at);
                long address = MessageHeaderDescriptor.address(s, at);
                links.counters.received(source, total);
                links.counters.largeMessage(source, tag, total, false);
                Operation op = matching.matchPosted(context, source, tag);
                if (op != null) {
                    rendezvous.startRecv(op, source, tag, handle, flags, address, total);
                } else {
                    matching.keepRts(context, source, tag, flags, handle, address, total);
                }
            }
            case MessageType.PUT, MessageType.CNTR_ADD -> offload.onOffload(type, context, tag, source,
                    MessageHeaderDescriptor.flags(s, at), handle, MessageHeaderDescriptor.peerHandle(s, at),
                    MessageHeaderDescriptor.address(s, at), MessageHeaderDescriptor.totalLength(s, at), s,
                    at + MessageHeaderDescriptor.LENGTH, payload);
            case MessageType.CTS -> ok = rendezvous.onCts(source, MessageHeaderDescriptor.flags(s, at), handle,
                    MessageHeaderDescriptor.peerHandle(s, at), MessageHeaderDescriptor.address(s, at));
            case MessageType.DATA -> ok = rendezvous.onData(source, handle, MessageHeaderDescriptor.address(s, at), s,
                    at + MessageHeaderDescriptor.LENGTH, payload);
            case MessageType.CALL -> calls.onCall(source, context, tag, handle,
                    MessageHeaderDescriptor.peerHandle(s, at), MessageHeaderDescriptor.address(s, at));
            case MessageType.FIN -> ok = rendezvous.onFin(source, tag, handle);
            case MessageType.REVOKE -> {
                if (Revocations.valid(context)) {
                    revoke.accept(context);
                } else {
                    ok = false;
                }
            }
            case MessageType.RMA -> rma.onRma(s, at, source, context, tag, payload);
            default -> ok = false;
        }
        if (!ok) {
            links.drop();
        }
    }
}
