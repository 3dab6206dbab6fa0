package io.tutti.p2p;

import io.tutti.transport.Placement;
import io.tutti.transport.RemoteTransport;
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
 * endpoint; one for a window that is gone is dropped. A large put's payload may leave from the
 * origin's memory ({@link #trySendInPlace}) and land straight in the target's window ({@link #place}),
 * as a rendezvous's DATA does. Owner thread (or whoever holds the engine).
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
    /** Where the endpoint the last {@link #place} asked would put the payload (reused). */
    private final RmaEndpoint.Landing landing = new RmaEndpoint.Landing();

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
        deliver(s, at, source, endpoint(context, tag), s, payload);
    }

    /**
     * Whether the RMA record of {@code length} bytes from {@code source}, whose first
     * {@code available} bytes are at {@code s}/{@code at}, may be received with its payload straight
     * in its window's memory, and where: the window says ({@link RmaEndpoint#place}); the header's
     * fields are checked here first, as {@link Inbox#onRecord} would.
     */
    boolean place(int source, MemorySegment s, long at, int available, int length, Placement into) {
        if (available < MessageHeaderDescriptor.LENGTH || MessageHeaderDescriptor.type(s, at) != MessageType.RMA
                || MessageHeaderDescriptor.version(s, at) != MessageHeaderDescriptor.CURRENT_VERSION
                || MessageHeaderDescriptor.jobId(s, at) != links.wireJobId
                || MessageHeaderDescriptor.dest(s, at) != links.rank
                || MessageHeaderDescriptor.source(s, at) != source || !links.remote[source]) {
            return false;
        }
        int n = MessageHeaderDescriptor.payloadLength(s, at);
        RmaEndpoint target = endpoint(MessageHeaderDescriptor.context(s, at), MessageHeaderDescriptor.tag(s, at));
        if (n <= 0 || n != length - MessageHeaderDescriptor.LENGTH || target == null
                || !target.place(source, MessageHeaderDescriptor.flags(s, at), MessageHeaderDescriptor.handle(s, at),
                MessageHeaderDescriptor.peerHandle(s, at), MessageHeaderDescriptor.address(s, at),
                MessageHeaderDescriptor.totalLength(s, at), n, landing)) {
            return false;
        }
        into.set(MessageHeaderDescriptor.LENGTH, landing.address, landing.view);
        return true;
    }

    /** A record whose payload the transport received where {@link #place} said: to its window. */
    void placed(MemorySegment s, long at, int source) {
        deliver(s, at, source, endpoint(MessageHeaderDescriptor.context(s, at), MessageHeaderDescriptor.tag(s, at)),
                null, MessageHeaderDescriptor.payloadLength(s, at));
    }

    private void deliver(MemorySegment s, long at, int source, RmaEndpoint target, MemorySegment data, int payload) {
        arrived |= target != null;
        if (target == null || !target.onRma(source, MessageHeaderDescriptor.flags(s, at),
                MessageHeaderDescriptor.handle(s, at), MessageHeaderDescriptor.peerHandle(s, at),
                MessageHeaderDescriptor.address(s, at), MessageHeaderDescriptor.totalLength(s, at), data,
                at + MessageHeaderDescriptor.LENGTH, payload)) {
            links.drop();
        }
    }

    private RmaEndpoint endpoint(int context, int tag) {
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get(i);
            if (e.context() == context && e.tag() == tag) {
                return e.target();
            }
        }
        return null;
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
        // every ring and outbox has our ring's capacity: asking dest's would make its outbox
        int body = links.inbound.maxBodyLength();
        int frame = links.transport == null ? body : links.transport.frameRecordLength();
        return Math.max(links.eagerTo[dest], Math.min(body, frame) - MessageHeaderDescriptor.LENGTH);
    }

    /** Writes an RMA record into {@code dest}'s outbox if nothing waits before it and it has room now. */
    boolean trySend(int dest, short op, int context, int tag, long handle, long peerHandle, long address, long total,
                    MemorySegment payload, long offset, int length) {
        return direct(dest, op, context, tag, handle, peerHandle, address, total, payload, offset, length, false) >= 0
                || outbox.clear(dest) && outbox.writeRecord(dest, MessageType.RMA, op, context, tag, handle,
                peerHandle, address, total, payload, offset, length);
    }

    /**
     * As {@link #trySend}, but the transport may send the payload from where it is, also after
     * returning (and again to resend it): then the caller keeps it unchanged and valid until
     * {@link #released} for {@code dest} reaches the returned mark. -1: nothing sent (no room now);
     * 0: sent, the payload copied. When only the transport's window is full the payload waits where
     * it is, as a rendezvous's DATA does, instead of taking two copies through the outbox (6.8 % of
     * the origin's samples in a 1 MiB put profile over the rails: docs/perf/rma.md).
     */
    long trySendInPlace(int dest, short op, int context, int tag, long handle, long peerHandle, long address,
                        long total, MemorySegment payload, long offset, int length) {
        long mark = direct(dest, op, context, tag, handle, peerHandle, address, total, payload, offset, length, true);
        if (mark >= 0 || links.remote[dest] && outbox.clear(dest) && !links.hasRecord(dest)) {
            return mark;
        }
        return outbox.clear(dest) && outbox.writeRecord(dest, MessageType.RMA, op, context, tag, handle, peerHandle,
                address, total, payload, offset, length) ? 0 : -1;
    }

    /** How far the payloads sent in place to {@code dest} are released ({@link RemoteTransport#released}). */
    long released(int dest) {
        return links.transport == null ? Long.MAX_VALUE : links.transport.released(dest);
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
     * for retransmission), not first into the outbox, or, {@code inPlace}, not at all where the
     * transport sends from the caller's memory. Returns the transport's mark of a payload sent in
     * place (0: copied), or -1 when that way is not open.
     */
    private long direct(int dest, short op, int context, int tag, long handle, long peerHandle, long address,
                        long total, MemorySegment payload, long offset, int length, boolean inPlace) {
        RemoteTransport transport = links.transport;
        if (!links.remote[dest] || !outbox.clear(dest) || links.hasRecord(dest)
                || !transport.canSend(dest)) {
            return -1;
        }
        MessageHeaderDescriptor.write(header, 0, MessageType.RMA, op, links.wireJobId, context, links.rank, dest, tag,
                length, handle, peerHandle, address, total);
        if (length == 0) {
            transport.send(dest, header, 0, MessageHeaderDescriptor.LENGTH);
        } else if (inPlace) {
            return transport.sendInPlace(dest, header, 0, MessageHeaderDescriptor.LENGTH, payload, offset, length);
        } else {
            transport.send(dest, header, 0, MessageHeaderDescriptor.LENGTH, payload, offset, length);
        }
        return 0;
    }
}
