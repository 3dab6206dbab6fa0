package io.tutti.p2p;

import io.tutti.TuttiException;
import io.tutti.metrics.Counters;
import io.tutti.transport.Fabric;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.shm.InboundRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What every part of the engine shares about the other ranks, fixed at start-up: the ring a
 * record for each rank goes into (its inbound ring when it shares this node's memory, else our
 * outbox to it, which the network path drains, made when first written), whether the network
 * reaches it, the largest message sent to it eagerly; the count of packets any part rejected, and
 * the rank's counters. Owner thread only.
 */
final class Links {
    final Fabric fabric;
    final int rank;
    final int size;
    final int wireJobId;
    /** This rank's inbound ring: local peers write into it, the network path deposits into it. */
    final InboundRing inbound;
    /**
     * Per rank: where a record for it is written; null until start-up has mapped it, and for a
     * remote rank until {@link #ring} first makes its outbox.
     */
    final InboundRing[] rings;
    /** Per rank: reached through the network transport. */
    final boolean[] remote;
    /** Per rank: our eager limit, capped by what its ring (and the network) can carry. */
    final int[] eagerTo;
    /** This rank's counters file, which every part counts into (one call per event). */
    final Counters counters;
    /** The network transport, or null when every peer shares memory with this rank. */
    RemoteTransport transport;
    /** Where outboxes are allocated, and their length. */
    private final Arena arena;
    private final long outboxLength;
    private long dropped;

    Links(Fabric fabric, InboundRing inbound, Counters counters, Arena arena, long outboxLength) {
        this.fabric = fabric;
        this.arena = arena;
        this.outboxLength = outboxLength;
        this.rank = fabric.rank();
        this.size = fabric.size();
        this.wireJobId = fabric.wireJobId();
        this.inbound = inbound;
        this.counters = counters;
        this.rings = new InboundRing[size];
        this.remote = new boolean[size];
        this.eagerTo = new int[size];
    }

    /** Maps a peer's shared-memory file that must exist by now (its owner has passed the start-up fence). */
    MemorySegment mapRequired(String name, Arena arena) {
        MemorySegment s = fabric.map(name, arena);
        if (s == null) {
            throw new TuttiException.Startup("shared-memory file " + name + " is missing in the job's directory"
                    + " although its owner has passed the start-up fence", null);
        }
        return s;
    }

    /**
     * The ring a record for {@code dest} is written into; for a remote rank, our outbox to it, made
     * on the first call: an outbox is a ring's length of zeroed memory, and at 32 ranks on four hosts
     * making all 24 at start-up took 12 % of the main threads' samples and 24 MiB per rank
     * (docs/perf/launch.md).
     */
    InboundRing ring(int dest) {
        InboundRing ring = rings[dest];
        return ring != null ? ring : outbox(dest);
    }

    /** Whether {@code dest}'s ring or outbox holds a record not yet taken; false for an outbox never made. */
    boolean hasRecord(int dest) {
        InboundRing ring = rings[dest];
        return ring != null && ring.hasRecord();
    }

    private InboundRing outbox(int dest) {
        if (!remote[dest]) {
            throw new IllegalStateException("rank " + dest + "'s ring is not mapped yet");
        }
        // private memory that the transport drains, written like the peer's ring
        InboundRing ring = new InboundRing(arena.allocate(outboxLength, 64));
        rings[dest] = ring;
        return ring;
    }

    /** Counts a packet rejected by a decoder or a protocol check. */
    void drop() {
        dropped++;
        counters.dropped();
    }

    long dropped() {
        return dropped;
    }

    /** How many ranks the network reaches. */
    int remotePeers() {
        int n = 0;
        for (boolean r : remote) {
            n += r ? 1 : 0;
        }
        return n;
    }
}
