package io.tutti.p2p;

import io.tutti.transport.RemoteTransport;
import io.tutti.transport.shm.InboundRing;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The RMA records of windows across the network: sent into the outbox of a remote rank (or queued
 * behind its backlog, never lost) and handed on arrival to the window registered under their
 * (context, tag). Windows register before their creation's barrier, so no record comes before its
 * endpoint; one for a window that is gone is dropped. Owner thread (or whoever holds the engine).
 */
final class RmaPackets {
    private final Links links;
    private final Outbox outbox;
    /** Windows by (context, tag); few, so a list beats a map (no boxing). */
    private final List<Endpoint> endpoints = new ArrayList<>();
    /** The header of a record handed to the transport in two parts ({@link #direct}). */
    private final MemorySegment header = Arena.ofAuto().allocate(MessageHeaderDescriptor.LENGTH, 8);
    /** Whether records have been handed to windows since they last answered. */
    private boolean arrived;

    private record Endpoint(int context, int tag, RmaEndpoint target) {
    }

    RmaPackets(Links links, Outbox outbox) {
        this.links = links;
        this.outbox = outbox;
    }

    void register(int context, int tag, RmaEndpoint target) {
        for (Endpoint e : endpoints) {
            if (e.context() == context && e.tag() == tag) {
                throw new IllegalStateException("an RMA endpoint is registered already for context " + context
                        + ", tag " + tag);
            }
        }
        endpoints.add(new Endpoint(context, tag, target));
    }

    void unregister(int context, int tag) {
        endpoints.removeIf(e -> e.context() == context && e.tag() == tag);
    }

    /** An arrived RMA record: to its window, or counted as dropped. */
    void onRma(MemorySegment s, long at, int source, int context, int tag, int payload) {
        RmaEndpoint target = null;
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get(i);
            if (e.context() == context && e.tag() == tag) {
                target = e.target();
                break;
            }
        }
        arrived |= target != null;
        if (target == null || !target.onRma(source, MessageHeaderDescriptor.flags(s, at),
                MessageHeaderDescriptor.handle(s, at), MessageHeaderDescriptor.peerHandle(s, at),
                MessageHeaderDescriptor.address(s, at), MessageHeaderDescriptor.totalLength(s, at), s,
                at + MessageHeaderDescriptor.LENGTH, payload)) {
            links.drop();
        }
    }

    /** At the end of a pass's arrivals: every window that was handed records answers them ({@link RmaEndpoint#answer}). */
    void answer() {
        if (!arrived) {
            return;
        }
        arrived = false;
        for (int i = 0; i < endpoints.size(); i++) {
            endpoints.get(i).target().answer();
        }
    }

    /** The largest payload of one RMA record to {@code dest}: what one frame of the network carries. */
    int maxPayload(int dest) {
        InboundRing ring = links.rings[dest];
        int frame = links.transport == null ? ring.maxBodyLength() : links.transport.frameRecordLength();
        return Math.max(links.eagerTo[dest], Math.min(ring.maxBodyLength(), frame) - MessageHeaderDescriptor.LENGTH);
    }

    /** Writes an RMA record into {@code dest}'s outbox if nothing waits before it and it has room now. */
    boolean trySend(int dest, short op, int context, int tag, long handle, long peerHandle, long address, long total,
                    MemorySegment payload, long offset, int length) {
        return direct(dest, op, context, tag, handle, peerHandle, address, total, payload, offset, length)
                || outbox.clear(dest) && outbox.writeRecord(dest, MessageType.RMA, op, context, tag, handle,
                peerHandle, address, total, payload, offset, length);
    }

    /**
     * Sends an RMA record now or, copied, behind {@code dest}'s backlog later: the answers sent from
     * the arrival path, which may run inside the transport's delivery and so never calls the
     * transport itself (the outbox's records reach it on the next pump).
     */
    void send(int dest, short op, int context, int tag, long handle, long peerHandle, long address, long total,
              MemorySegment payload, long offset, int length) {
        outbox.record(dest, MessageType.RMA, op, context, tag, handle, peerHandle, address, total, payload, offset,
                length);
    }

    /**
     * A record to a remote rank whose outbox is empty goes to the transport at once, header and
     * payload in two parts: the payload is copied only into the transport's frame (which it keeps
     * for retransmission), not first into the outbox. False when that way is not open.
     */
    private boolean direct(int dest, short op, int context, int tag, long handle, long peerHandle, long address,
                           long total, MemorySegment payload, long offset, int length) {
        RemoteTransport transport = links.transport;
        if (!links.remote[dest] || !outbox.clear(dest) || links.rings[dest].hasRecord()
                || !transport.canSend(dest)) {
            return false;
        }
        MessageHeaderDescriptor.write(header, 0, MessageType.RMA, op, links.wireJobId, context, links.rank, dest, tag,
                length, handle, peerHandle, address, total);
        if (length == 0) {
            transport.send(dest, header, 0, MessageHeaderDescriptor.LENGTH);
        } else {
            transport.send(dest, header, 0, MessageHeaderDescriptor.LENGTH, payload, offset, length);
        }
        return true;
    }
}
