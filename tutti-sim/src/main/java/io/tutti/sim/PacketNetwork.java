package io.tutti.sim;

import io.tutti.rails.StripePolicy;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * A packet network over a {@link Fabric}: a message is cut into packets of at most {@code mtu}
 * bytes, which travel store-and-forward along the fabric's deterministic route. The model's
 * costs, numbered as docs/sim/README.md numbers them:
 *
 * <ol>
 *   <li>Ranks are placed {@code ppn} to a node, node n on host n, and contiguously over the node's
 *       {@code sockets} CPUs; a message between ranks of one node is copied in {@code
 *       s·shm_ns_per_byte} (one at a time) and arrives {@code shm_latency} after the copy, plus
 *       {@code shm_cross} when the two ranks are on different CPUs (the data and the flags cross
 *       the sockets' interconnect; [RoCE-INC] §3.5).</li>
 *   <li>Host interface: a message of at most {@code pio_max} bytes is written into the NIC by the
 *       CPU, {@code ⌈s/8⌉·pio_ns_per_word}; a larger one is fetched by DMA, packet by packet,
 *       from {@code dma_read_start} on, a message at a time (the NIC's DMA engine takes the
 *       host's messages in the order they were handed over), each packet holding the host's bus {@code
 *       b·dma_read_ns_per_byte}, and at the destination written to memory holding that bus {@code
 *       b·dma_write_ns_per_byte}, the arrival seen {@code dma_write_start} after the last. A host
 *       has one half-duplex bus, shared by all its NICs and by both directions.</li>
 *   <li>Rails: a host has {@code rails} NICs, NIC i on its own copy of the fabric; a message goes
 *       on the rails {@link StripePolicy} chooses from the host's bytes in flight per rail, as the
 *       network transport does. Each NIC puts its packets on its host link one after another.</li>
 *   <li>A packet of b bytes that reaches a link at t holds it {@code packet_gap +
 *       b·link_ns_per_byte} (the per-packet gap: framing, flow control, the NIC's turn-around) and
 *       leaves its far end that long after {@code start}, plus {@code link_latency}, plus {@code
 *       switch_delay} when the far end is a switch; {@code start = t}, or with {@code contention}
 *       (always on a NIC's own port) {@code max(t, when that link direction is free)}. The two
 *       directions of a cable are separate links (full duplex).</li>
 *   <li>NIC latency: L is the one-way time of an empty message between neighbours; two links and a
 *       switch take {@code 2·(link_latency + packet_gap) + switch_delay} of it, and the rest,
 *       {@link #nicLatency}, is the NICs' own, charged once per message when it has arrived.</li>
 * </ol>
 *
 * With {@code contention} off a short message may overtake a long one on the same path, and the
 * rank model then matches in arrival order. Per-packet state lives in pooled primitive arrays; a
 * packet's route is recomputed hop by hop, never stored.
 */
public final class PacketNetwork implements Network {
    private static final long FETCH = 1L << 40;
    private static final int IDLE = -1;
    private static final int EMPTY = -2;

    private final Fabric fabric;
    private final SimParams p;
    private final int ppn;
    private final int rails;
    private final int links;
    private final long[] linkFree;
    private final long nicLatency;
    /** Each host's bus: free from (cost 2). */
    private final long[] busFree;
    /** Bytes in flight per host and rail, the load the striping policy reads. */
    private final long[] railLoad;
    private final int[] turn;
    /** Per host, the DMA engine's queue of messages waiting to be fetched: head, tail (−1: idle, −2: busy, empty). */
    private final int[] dmaHead;
    private final int[] dmaTail;
    private final int[] allRails;
    private final int[] chosen;
    private int loadHost;
    private final IntToLongFunction load;
    private EventLoop engine;
    private int handler;

    // packets: node they are arriving at, message, payload bytes, rail
    private int[] pktNode = new int[1024];
    private int[] pktMsg = new int[1024];
    private int[] pktBytes = new int[1024];
    private int[] pktRail = new int[1024];
    private int pktUsed;
    private int pktFree = -1;

    // messages: destination and source host, packets still travelling, whom to tell; for a DMA
    // fetch, bytes not yet fetched and packets fetched; the rails (a bit mask, or the one rail)
    private int[] msgDst = new int[256];
    private int[] msgSrc = new int[256];
    private int[] msgLeft = new int[256];
    private int[] msgSink = new int[256];
    private long[] msgPayload = new long[256];
    private long[] msgUnfetched = new long[256];
    private int[] msgFetched = new int[256];
    private int[] msgRails = new int[256];
    private int[] msgStripe = new int[256];
    private boolean[] msgDma = new boolean[256];
    private long[] msgLast = new long[256];
    private long[] msgReady = new long[256];
    private int[] msgQueued = new int[256];
    private int msgUsed;
    private int msgFree = -1;

    private long packets;
    private long[] shmFree = new long[64];

    /** A packet network of {@code fabric} with {@code ppn} ranks per node. */
    public PacketNetwork(Fabric fabric, SimParams params, int ppn) {
        if (ppn < 1) {
            throw new IllegalArgumentException("ppn must be at least 1");
        }
        this.fabric = fabric;
        this.p = params;
        this.ppn = ppn;
        this.rails = params.rails();
        this.links = fabric.links();
        this.linkFree = new long[links * rails];
        this.nicLatency = nicLatency(params);
        this.busFree = new long[fabric.hosts()];
        this.railLoad = new long[fabric.hosts() * rails];
        this.turn = new int[fabric.hosts()];
        this.dmaHead = new int[fabric.hosts()];
        this.dmaTail = new int[fabric.hosts()];
        Arrays.fill(dmaHead, IDLE);
        this.allRails = new int[rails];
        for (int r = 0; r < rails; r++) {
            allRails[r] = r;
        }
        this.chosen = new int[rails];
        this.load = r -> railLoad[loadHost * this.rails + r];
    }

    /**
     * The part of L spent in the NICs rather than on the wire (cost 5): L less the empty message's
     * time over two links and one switch, never below 0.
     */
    public static long nicLatency(SimParams p) {
        return Math.max(0, p.L() - 2 * (p.linkLatency() + p.packetGap()) - p.switchDelay());
    }

    @Override
    public void attach(EventLoop e) {
        this.engine = e;
        this.handler = e.register(this::event);
    }

    @Override
    public boolean hostChargesBandwidth() {
        return false;
    }

    @Override
    public int nicOf(int rank) {
        return rank / ppn;
    }

    @Override
    public int nics(int ranks) {
        return (ranks + ppn - 1) / ppn;
    }

    @Override
    public String name() {
        return "packet";
    }

    /** Packets injected so far. */
    public long packets() {
        return packets;
    }

    @Override
    public void carry(long t, int src, int dst, long bytes, int sinkHandler, long sinkPayload) {
        int from = src / ppn;
        int to = dst / ppn;
        if (to >= fabric.hosts()) {
            throw new SimulationException("rank " + dst + " is on node " + to + " but " + fabric.name() + " has "
                    + fabric.hosts() + " hosts");
        }
        if (from == to) {
            // the sending rank copies one message at a time, so its messages arrive in order
            if (src >= shmFree.length) {
                shmFree = Arrays.copyOf(shmFree, Math.max(src + 1, shmFree.length * 2));
            }
            long start = Math.max(t, shmFree[src]);
            long copy = SimParams.perByte(p.shmNsPerByte(), bytes);
            shmFree[src] = start + copy;
            // cost 1: between two CPUs the message also crosses the sockets' interconnect
            long cross = p.shmCrossing(src - from * ppn, dst - to * ppn, ppn);
            engine.schedule(sinkHandler, start + copy + p.shmLatency() + cross, sinkPayload);
            return;
        }
        int count = (int) Math.max(1, (bytes + p.mtu() - 1) / p.mtu());
        int m = newMessage(from, to, count, sinkHandler, sinkPayload);
        chooseRails(m, from, bytes);
        // programmed I/O for what fits one packet; a larger pio_max than the mtu does not split it
        boolean pio = bytes <= Math.min(p.pioMax(), p.mtu());
        msgDma[m] = !pio;
        if (pio) {
            // cost 2: the CPU writes the words into the NIC, then the packet is there
            long ready = t + ((bytes + 7) / 8) * p.pioNsPerWord();
            inject(m, from, (int) bytes, 0, ready);
        } else if (p.dmaReadNsPerByte() == 0) {
            // a bus that is never a bottleneck: every packet is in the NIC once the DMA has started
            long ready = t + p.dmaReadStart();
            long left = bytes;
            for (int i = 0; i < count; i++) {
                int b = (int) Math.min(left, p.mtu());
                left -= b;
                inject(m, from, b, i, ready);
            }
        } else {
            msgUnfetched[m] = bytes;
            msgFetched[m] = 0;
            msgReady[m] = t + p.dmaReadStart();
            msgQueued[m] = EMPTY;
            if (dmaHead[from] == IDLE) {
                dmaHead[from] = EMPTY;
                engine.schedule(handler, msgReady[m], FETCH | m);
            } else if (dmaHead[from] == EMPTY) {
                dmaHead[from] = m;
                dmaTail[from] = m;
            } else {
                msgQueued[dmaTail[from]] = m;
                dmaTail[from] = m;
            }
        }
    }

    /** Cost 3: the rails of message m from host {@code host}, by the transport's policy: a bit mask and its count. */
    private void chooseRails(int m, int host, long bytes) {
        if (rails == 1) {
            msgStripe[m] = 1;
            msgRails[m] = 1;
            return;
        }
        loadHost = host;
        if (StripePolicy.stripes(bytes, p.stripeMin(), rails)) {
            int k = StripePolicy.stripeRails(allRails, rails, load, p.busyBytes(), chosen);
            int mask = 0;
            for (int i = 0; i < k; i++) {
                mask |= 1 << chosen[i];
            }
            msgStripe[m] = k;
            msgRails[m] = mask;
        } else {
            msgStripe[m] = 1;
            msgRails[m] = 1 << StripePolicy.wholeRail(allRails, rails, load, p.busyBytes(), turn[host]++);
        }
    }

    /** The rail of packet i of message m: the (i mod k)-th of its rails, in rail order as the policy lists them. */
    private int railOf(int m, int i) {
        int want = i % msgStripe[m];
        int mask = msgRails[m];
        for (int r = 0; ; r++) {
            if ((mask & (1 << r)) != 0 && want-- == 0) {
                return r;
            }
        }
    }

    /** Puts packet i (b bytes) of message m on its rail's host link once it is in the NIC at {@code ready}. */
    private void inject(int m, int host, int b, int i, long ready) {
        int rail = railOf(m, i);
        int up = rail * links + Fabric.up(host);
        // the NIC's own port serialises its packets whatever the contention setting
        long start = Math.max(ready, linkFree[up]);
        long ser = p.packetGap() + SimParams.perByte(p.linkNsPerByte(), b);
        linkFree[up] = start + ser;
        railLoad[host * rails + rail] += b;
        int k = newPacket(fabric.to(Fabric.up(host)), m, b, rail);
        engine.schedule(handler, start + ser + p.linkLatency() + p.switchDelay(), k);
        packets++;
    }

    private void event(long now, long payload) {
        if ((payload & FETCH) != 0) {
            fetch(now, (int) (payload & ~FETCH));
        } else {
            hop(now, (int) payload);
        }
    }

    /** Cost 2: the NIC fetches message m's next packet over its host's bus, then the one after. */
    private void fetch(long now, int m) {
        int host = msgSrc[m];
        int b = (int) Math.min(msgUnfetched[m], p.mtu());
        long start = Math.max(now, busFree[host]);
        long end = start + SimParams.perByte(p.dmaReadNsPerByte(), b);
        busFree[host] = end;
        msgUnfetched[m] -= b;
        inject(m, host, b, msgFetched[m]++, end);
        if (msgUnfetched[m] > 0) {
            engine.schedule(handler, end, FETCH | m);
        } else if (dmaHead[host] == EMPTY) {
            dmaHead[host] = IDLE;
        } else {
            // the next message handed to this NIC starts once this one is fetched
            int n = dmaHead[host];
            dmaHead[host] = n == dmaTail[host] ? EMPTY : msgQueued[n];
            engine.schedule(handler, Math.max(end, msgReady[n]), FETCH | n);
        }
    }

    /** Packet k has reached node pktNode[k] at now. */
    private void hop(long now, int k) {
        int at = pktNode[k];
        int m = pktMsg[k];
        int dst = msgDst[m];
        if (at == dst) {
            railLoad[msgSrc[m] * rails + pktRail[k]] -= pktBytes[k];
            long done = now;
            if (msgDma[m] && p.dmaWriteNsPerByte() > 0) {
                long start = Math.max(now, busFree[dst]);
                done = start + SimParams.perByte(p.dmaWriteNsPerByte(), pktBytes[k]);
                busFree[dst] = done;
            }
            msgLast[m] = Math.max(msgLast[m], done);
            pktNode[k] = pktFree;
            pktFree = k;
            if (--msgLeft[m] == 0) {
                int sink = msgSink[m];
                long sp = msgPayload[m];
                long arrived = msgLast[m] + nicLatency + (msgDma[m] ? p.dmaWriteStart() : 0);
                msgDst[m] = msgFree;
                msgFree = m;
                if (arrived == now) {
                    engine.dispatch(sink, now, sp);
                } else {
                    engine.schedule(sink, arrived, sp);
                }
            }
            return;
        }
        int link = fabric.route(at, dst);
        int plane = pktRail[k] * links + link;
        long ser = p.packetGap() + SimParams.perByte(p.linkNsPerByte(), pktBytes[k]);
        long start = now;
        if (p.contention()) {
            start = Math.max(now, linkFree[plane]);
            linkFree[plane] = start + ser;
        }
        int next = fabric.to(link);
        pktNode[k] = next;
        engine.schedule(handler, start + ser + p.linkLatency() + (fabric.isSwitch(next) ? p.switchDelay() : 0), k);
    }

    private int newMessage(int src, int dst, int count, int sink, long payload) {
        int m = msgFree;
        if (m >= 0) {
            msgFree = msgDst[m];
        } else {
            if (msgUsed == msgDst.length) {
                int c = msgUsed * 2;
                msgDst = Arrays.copyOf(msgDst, c);
                msgSrc = Arrays.copyOf(msgSrc, c);
                msgLeft = Arrays.copyOf(msgLeft, c);
                msgSink = Arrays.copyOf(msgSink, c);
                msgPayload = Arrays.copyOf(msgPayload, c);
                msgUnfetched = Arrays.copyOf(msgUnfetched, c);
                msgFetched = Arrays.copyOf(msgFetched, c);
                msgRails = Arrays.copyOf(msgRails, c);
                msgStripe = Arrays.copyOf(msgStripe, c);
                msgDma = Arrays.copyOf(msgDma, c);
                msgLast = Arrays.copyOf(msgLast, c);
                msgReady = Arrays.copyOf(msgReady, c);
                msgQueued = Arrays.copyOf(msgQueued, c);
            }
            m = msgUsed++;
        }
        msgDst[m] = dst;
        msgSrc[m] = src;
        msgLeft[m] = count;
        msgSink[m] = sink;
        msgPayload[m] = payload;
        msgLast[m] = 0;
        return m;
    }

    private int newPacket(int node, int msg, int bytes, int rail) {
        int k = pktFree;
        if (k >= 0) {
            pktFree = pktNode[k];
        } else {
            if (pktUsed == pktNode.length) {
                int c = pktUsed * 2;
                pktNode = Arrays.copyOf(pktNode, c);
                pktMsg = Arrays.copyOf(pktMsg, c);
                pktBytes = Arrays.copyOf(pktBytes, c);
                pktRail = Arrays.copyOf(pktRail, c);
            }
            k = pktUsed++;
        }
        pktNode[k] = node;
        pktMsg[k] = msg;
        pktBytes[k] = bytes;
        pktRail[k] = rail;
        return k;
    }
}
