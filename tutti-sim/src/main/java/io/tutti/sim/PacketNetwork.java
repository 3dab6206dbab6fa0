package io.tutti.sim;

import java.util.Arrays;

/**
 * A packet network over a {@link Fabric}: a message is cut into packets of at most {@code mtu}
 * bytes, which travel store-and-forward along the fabric's deterministic route. The model's
 * costs, numbered as docs/sim/README.md numbers them:
 *
 * <ol>
 *   <li>Ranks are placed {@code ppn} to a node, node n on host n; ranks of one node share its
 *       NIC, and a message between them never leaves the node: the sending rank copies it in
 *       {@code s·shm_ns_per_byte} (one message at a time) and it arrives {@code shm_latency}
 *       after the copy.</li>
 *   <li>The sending NIC puts its packets on its host link one after another (a NIC has one port,
 *       with or without contention elsewhere).</li>
 *   <li>A packet of b bytes that reaches a link at t leaves its far end at {@code start +
 *       b·link_ns_per_byte + link_latency}, plus {@code switch_delay} when the far end is a
 *       switch; {@code start = t}, or with {@code contention} {@code max(t, when the link
 *       direction is free)}, the link then being busy for the b bytes.</li>
 *   <li>NIC latency: LogGP's L is the whole one-way time of an empty message between neighbours
 *       (hosts on one switch), of which the links and the switch take {@code 2·link_latency +
 *       switch_delay}; the rest, {@link #nicLatency}, is spent in the two NICs (firmware, host
 *       interface), once per message, after its last packet has reached the destination.</li>
 *   <li>The message has arrived when its last packet has reached the destination host and the
 *       NIC latency has passed.</li>
 * </ol>
 *
 * Messages from one rank to another arrive in the order they were sent when {@code contention}
 * is on (links are FIFO); with it off, a short message may overtake a long one on the same path,
 * as on an unordered network, and the rank model then matches in arrival order.
 *
 * <p>Per-packet state lives in pooled primitive arrays; a packet's route is recomputed hop by hop
 * from the fabric, never stored.
 */
public final class PacketNetwork implements Network {
    private final Fabric fabric;
    private final SimParams p;
    private final int ppn;
    private final long[] linkFree;
    private EventLoop engine;
    private int handler;

    // packets: node they are arriving at, message, payload bytes
    private int[] pktNode = new int[1024];
    private int[] pktMsg = new int[1024];
    private int[] pktBytes = new int[1024];
    private int pktUsed;
    private int pktFree = -1;

    // messages: destination host, packets still travelling, whom to tell
    private int[] msgDst = new int[256];
    private int[] msgLeft = new int[256];
    private int[] msgSink = new int[256];
    private long[] msgPayload = new long[256];
    private int msgUsed;
    private int msgFree = -1;

    private long packets;
    private long[] shmFree = new long[64];
    private final long nicLatency;

    /** A packet network of {@code fabric} with {@code ppn} ranks per node. */
    public PacketNetwork(Fabric fabric, SimParams params, int ppn) {
        if (ppn < 1) {
            throw new IllegalArgumentException("ppn must be at least 1");
        }
        this.fabric = fabric;
        this.p = params;
        this.ppn = ppn;
        this.linkFree = new long[fabric.links()];
        this.nicLatency = nicLatency(params);
    }

    /**
     * The part of L spent in the NICs rather than on the wire (cost 4): L less the empty message's
     * time over two links and one switch, never below 0.
     */
    public static long nicLatency(SimParams p) {
        return Math.max(0, p.L() - 2 * p.linkLatency() - p.switchDelay());
    }

    @Override
    public void attach(EventLoop e) {
        this.engine = e;
        this.handler = e.register(this::hop);
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
            engine.schedule(sinkHandler, start + copy + p.shmLatency(), sinkPayload);
            return;
        }
        int count = (int) Math.max(1, (bytes + p.mtu() - 1) / p.mtu());
        int m = newMessage(to, count, sinkHandler, sinkPayload);
        long left = bytes;
        int up = Fabric.up(from);
        for (int i = 0; i < count; i++) {
            int b = (int) Math.min(left, p.mtu());
            left -= b;
            // the NIC's own port serialises its packets whatever the contention setting
            long start = Math.max(t, linkFree[up]);
            long ser = SimParams.perByte(p.linkNsPerByte(), b);
            linkFree[up] = start + ser;
            int k = newPacket(fabric.to(up), m, b);
            engine.schedule(handler, start + ser + p.linkLatency() + p.switchDelay(), k);
            packets++;
        }
    }

    /** Packet k has reached node pktNode[k] at now. */
    private void hop(long now, long payload) {
        int k = (int) payload;
        int at = pktNode[k];
        int m = pktMsg[k];
        int dst = msgDst[m];
        if (at == dst) {
            pktNode[k] = pktFree;
            pktFree = k;
            if (--msgLeft[m] == 0) {
                int sink = msgSink[m];
                long sp = msgPayload[m];
                msgDst[m] = msgFree;
                msgFree = m;
                if (nicLatency == 0) {
                    engine.dispatch(sink, now, sp);
                } else {
                    engine.schedule(sink, now + nicLatency, sp);
                }
            }
            return;
        }
        int link = fabric.route(at, dst);
        long ser = SimParams.perByte(p.linkNsPerByte(), pktBytes[k]);
        long start = now;
        if (p.contention()) {
            start = Math.max(now, linkFree[link]);
            linkFree[link] = start + ser;
        }
        int next = fabric.to(link);
        pktNode[k] = next;
        engine.schedule(handler, start + ser + p.linkLatency() + (fabric.isSwitch(next) ? p.switchDelay() : 0), k);
    }

    private int newMessage(int dst, int count, int sink, long payload) {
        int m = msgFree;
        if (m >= 0) {
            msgFree = msgDst[m];
        } else {
            if (msgUsed == msgDst.length) {
                int c = msgUsed * 2;
                msgDst = Arrays.copyOf(msgDst, c);
                msgLeft = Arrays.copyOf(msgLeft, c);
                msgSink = Arrays.copyOf(msgSink, c);
                msgPayload = Arrays.copyOf(msgPayload, c);
            }
            m = msgUsed++;
        }
        msgDst[m] = dst;
        msgLeft[m] = count;
        msgSink[m] = sink;
        msgPayload[m] = payload;
        return m;
    }

    private int newPacket(int node, int msg, int bytes) {
        int k = pktFree;
        if (k >= 0) {
            pktFree = pktNode[k];
        } else {
            if (pktUsed == pktNode.length) {
                int c = pktUsed * 2;
                pktNode = Arrays.copyOf(pktNode, c);
                pktMsg = Arrays.copyOf(pktMsg, c);
                pktBytes = Arrays.copyOf(pktBytes, c);
            }
            k = pktUsed++;
        }
        pktNode[k] = node;
        pktMsg[k] = msg;
        pktBytes[k] = bytes;
        return k;
    }
}
