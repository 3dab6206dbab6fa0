package io.tutti.p2p;

import io.tutti.transport.shm.CompactRecordDescriptor;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The packets of offloaded collectives ([water-tank]): PUT (data into a buffer of the receiving
 * side, then a counter add) and remote counter adds, sent into the peers' rings and handed on
 * arrival to the endpoint registered under their (context, tag). Packets that come before their
 * endpoint is registered wait; packets for an endpoint that is gone are dropped. Owner thread only.
 */
final class OffloadPackets {
    private final Links links;
    private final Outbox outbox;
    /** Offloaded collectives' endpoints by (context, tag); few, so a list beats a map (no boxing). */
    private final List<Endpoint> endpoints = new ArrayList<>();
    /** PUT and CNTR_ADD packets that came before their endpoint was registered, in arrival order. */
    private final List<byte[]> early = new ArrayList<>();
    /**
     * Endpoints that were registered and are gone: a late packet for one is dropped, not kept for
     * a registration that will never come (8 bytes per freed collective).
     */
    private final HashSet<Long> retired = new HashSet<>();

    private record Endpoint(int context, int tag, OffloadEndpoint target) {
    }

    OffloadPackets(Links links, Outbox outbox) {
        this.links = links;
        this.outbox = outbox;
    }

    /** Registers an endpoint; returns the packets that arrived for anyone before it, for redelivery. */
    List<byte[]> register(int context, int tag, OffloadEndpoint target) {
        for (Endpoint e : endpoints) {
            if (e.context() == context && e.tag() == tag) {
                throw new IllegalStateException("an offload endpoint is registered already for context " + context
                        + ", tag " + tag);
            }
        }
        endpoints.add(new Endpoint(context, tag, target));
        List<byte[]> waiting = new ArrayList<>(early);
        early.clear();
        return waiting;
    }

    /** Removes an endpoint; packets for it that arrive later are counted and dropped. */
    void unregister(int context, int tag) {
        if (endpoints.removeIf(e -> e.context() == context && e.tag() == tag)) {
            retired.add(key(context, tag));
        }
    }

    private static long key(int context, int tag) {
        return ((long) context << 32) | (tag & 0xFFFFFFFFL);
    }

    private OffloadEndpoint endpoint(int context, int tag) {
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get(i);
            if (e.context() == context && e.tag() == tag) {
                return e.target();
            }
        }
        return null;
    }

    /**
     * A PUT or counter add, whichever record carried it; {@code data} is its payload. Header use:
     * flags = buffer, handle = counter, peer handle = value added, address = where the data goes,
     * total length = the sender's run (epoch).
     */
    void onOffload(byte type, int context, int tag, int source, int buffer, long counter, long value, long offset,
                   long epoch, MemorySegment s, long data, int payload) {
        OffloadEndpoint ep = endpoint(context, tag);
        if (ep == null) {
            if (!retired.isEmpty() && retired.contains(key(context, tag))) {
                links.drop();
                return;
            }
            // kept as a whole wire message until its endpoint registers (slow path)
            byte[] copy = new byte[MessageHeaderDescriptor.LENGTH + payload];
            MemorySegment c = MemorySegment.ofArray(copy);
            MessageHeaderDescriptor.write(c, 0, type, (short) buffer, links.wireJobId, context, source, links.rank, tag,
                    payload, counter, value, offset, epoch);
            MemorySegment.copy(s, data, c, MessageHeaderDescriptor.LENGTH, payload);
            early.add(copy);
            return;
        }
        if (counter < 0 || counter > Integer.MAX_VALUE) {
            links.drop();
            return;
        }
        boolean ok = type == MessageType.PUT
                ? ep.onPut(source, buffer, offset, s, data, payload, (int) counter, value, epoch)
                : ep.onAdd(source, (int) counter, value, epoch);
        if (!ok) {
            links.drop();
        }
    }

    /** The largest PUT payload to {@code dest} that goes in one packet. */
    int maxPut(int dest) {
        return links.eagerTo[dest];
    }

    /** See {@link Engine#tryPut}. */
    boolean tryPut(int dest, int context, int tag, int buffer, long offset, MemorySegment src, long srcOffset,
                   int length, int counter, long add, long epoch) {
        if (length > links.eagerTo[dest]) {
            throw new IllegalArgumentException("a PUT of " + length + " bytes exceeds " + links.eagerTo[dest]
                    + " to rank " + dest + ": split it");
        }
        if (!outbox.clear(dest)) {
            return false;
        }
        if (compact(dest, buffer, counter, epoch)) {
            return writeCompact(dest, MessageType.PUT, context, tag, buffer, offset, src, srcOffset, length, counter,
                    add, (int) epoch);
        }
        InboundRing ring = links.ring(dest);
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + length);
        if (position < 0) {
            return false;
        }
        long at = ring.bodyOffset(position);
        MessageHeaderDescriptor.write(ring.segment(), at, MessageType.PUT, (short) buffer, links.wireJobId, context,
                links.rank, dest, tag, length, counter, add, offset, epoch);
        if (length > 0) {
            MemorySegment.copy(src, srcOffset, ring.segment(), at + MessageHeaderDescriptor.LENGTH, length);
        }
        ring.commit(position);
        return true;
    }

    /** See {@link Engine#tryRemoteAdd}. */
    boolean tryRemoteAdd(int dest, int context, int tag, int counter, long value, long epoch) {
        if (!outbox.clear(dest)) {
            return false;
        }
        if (compact(dest, 0, counter, epoch)) {
            return writeCompact(dest, MessageType.CNTR_ADD, context, tag, 0, 0, MemorySegment.NULL, 0, 0, counter,
                    value, (int) epoch);
        }
        return outbox.writeControl(dest, MessageType.CNTR_ADD, (short) 0, context, tag, counter, value, 0, epoch);
    }

    /** Whether an offload packet to {@code dest} fits a compact record: a rank of this node, and small fields. */
    private boolean compact(int dest, int buffer, int counter, long epoch) {
        return !links.remote[dest] && buffer >= 0 && buffer <= 0xFF && counter >= 0
                && counter <= CompactRecordDescriptor.MAX_COUNTER && epoch == (int) epoch;
    }

    private boolean writeCompact(int dest, byte kind, int context, int tag, int buffer, long offset, MemorySegment src,
                                 long srcOffset, int length, int counter, long value, int epoch) {
        InboundRing ring = links.ring(dest);
        long position = ring.tryClaim(CompactRecordDescriptor.OFFLOAD_LENGTH + length,
                InboundRingDescriptor.TYPE_OFFLOAD);
        if (position < 0) {
            return false;
        }
        MemorySegment s = ring.segment();
        long at = ring.bodyOffset(position);
        CompactRecordDescriptor.write(s, at, context, links.rank, tag, length);
        CompactRecordDescriptor.writeOffload(s, at, kind, buffer, counter, epoch, value, offset);
        if (length > 0) {
            MemorySegment.copy(src, srcOffset, s, at + CompactRecordDescriptor.OFFLOAD_LENGTH, length);
        }
        ring.commit(position);
        return true;
    }
}
