package io.tutti.sim;

import static io.tutti.wire.IncPacketDescriptor.*;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.coll.inc.InNetworkAggregation.Membership;
import io.tutti.sw.AggregationSwitch;
import io.tutti.sw.ControlPacket;
import io.tutti.sw.IncWindow;
import io.tutti.sw.SwitchConfig;
import io.tutti.wire.MessageType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Switch mode: an allreduce aggregated in the network as [RoCE-INC] (§3.4–3.5) describes it, on ToR
 * switches under one spine, each switch being the real {@link AggregationSwitch} (its slots, shadow
 * copies and duplicate handling) driven with simulated time. Leaders reduce their ranks' data in
 * shared memory with host mode's costs ({@code shm_cross} where a tree crosses the node's CPUs,
 * which Node leaders' trees do and Socket leaders' do not), join the group with real notify packets (before t0, at no
 * cost), send one packet per chunk within the group's window of slots and send a contribution again
 * when its result is {@code inc_rto} late, both decided by the client's own {@link IncWindow}; links
 * lose packets with probability {@code inc_loss}.
 * The model adds the costs the packet logic has not: the NIC's gap, link serialisation and latency,
 * the switch's port delay, and {@code switch_alu} per contribution (one at a time per switch).
 * Every rank's data is real (longs, summed, carried in the packets), so results can be checked.
 * The phases and their costs are in docs/sim/README.md ("Switch mode").
 */
public final class SwitchModel implements RankModel {
    /** Who leads the intra-node phases. */
    public enum Leaders { NODE, SOCKET }

    private static final int LOCAL = 0;
    private static final int ARRIVE = 1;
    private static final int ALU_DONE = 2;
    private static final int TIMER = 3;
    private static final int TYPE_SHIFT = 56;
    /** The job and group id the packets carry: one job, one group of all leaders. */
    private static final int JOB = 1;
    private static final int GROUP = 1;
    /** A leader without any result for this long gives up, as the client does ({@code tutti.inc.timeout.ms}). */
    private static final long TIMEOUT_NANOS = io.tutti.sw.IncConfig.TIMEOUT_DEFAULT * 1_000_000L;

    private final SimParams p;
    private final int ranks;
    private final int group;
    private final int groups;
    private final int groupsPerNode;
    private final int nodes;
    /** Ranks per node, for the CPU a rank sits on (shm_cross). */
    private final int ppn;
    private final int perTor;
    private final int tors;
    private final int elements;
    private final int extent;
    private final long bytes;
    private final int chunks;
    private final int perChunk;
    private final int bits;
    private final long[][] data;
    private final boolean socketMode;
    /** The element type the packets carry: LONG for checked data, else one of the extent (bytes when none). */
    private final Datatype wireType;
    /** Packets in flight per leader: the switches' slots per group. */
    private final int window;

    // entities: leaders 0..groups-1, then the ToRs, then the spine (with more than one ToR)
    private final InetSocketAddress[] address;
    private final Map<InetSocketAddress, Integer> entity = new HashMap<>();
    private final AggregationSwitch[] switches;
    private final long[] token;
    private final SplittableRandom random;

    private EventLoop engine;
    private int handler;
    private long now;
    /** The entity whose switch is processing a packet: the sender of what it outputs. */
    private int sending;
    /** Before t0 the group is set up through this queue, at no cost; null afterwards. */
    private ArrayDeque<Object[]> setup;

    // per rank: CPU clock, finish time, the local tree's next step, arrivals by bit
    private long[] cpu;
    private long[] finish;
    private int[] nextBit;
    private boolean[] bcastPhase;
    private long[] arrived;
    // per node: NIC send side, host links up and down; per ToR: its link to the spine, up and down
    private long[] nicFree;
    private long[] hostUp;
    private long[] hostDown;
    private long[] torUp;
    private long[] torDown;
    // per switch: when its ALU is free
    private long[] aluFree;
    /** Per leader, its sending window: the client's own ({@link IncWindow}), in simulated nanoseconds. */
    private IncWindow[] windows;

    // packets on the wire: a pool of buffers, each with its sender and receiver
    private ByteBuffer[] pool = new ByteBuffer[64];
    private int[] pktFrom = new int[64];
    private int[] pktTo = new int[64];
    private int pktUsed;
    private int pktFree = -1;
    /** What a switch receives: every packet is copied here, so the switch sees one buffer. */
    private final ByteBuffer rx = ByteBuffer.allocate(MAX_PACKET).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer tx = ByteBuffer.allocate(MAX_PACKET).order(ByteOrder.LITTLE_ENDIAN);

    private int done;
    private long messages;
    private long sentBytes;
    private long lost;
    private long retransmitted;

    /**
     * @param nodes   nodes, {@code ppn} ranks each
     * @param perTor  nodes under one ToR switch (a single ToR, no spine, when it holds them all)
     * @param leaders Node or Socket leaders
     * @param bytes   message bytes per rank
     * @param extent  bytes per element (8 with {@code data})
     * @param data    every rank's input, {@code bytes / extent} longs, which the result replaces;
     *                null for a run that only times
     */
    public SwitchModel(int nodes, int ppn, int perTor, Leaders leaders, long bytes, int extent, long[][] data,
                       SimParams params) {
        if (nodes < 1 || ppn < 1 || perTor < 1) {
            throw new IllegalArgumentException("switch mode needs nodes, ppn and hosts per ToR of at least 1");
        }
        int sockets = leaders == Leaders.SOCKET ? params.sockets() : 1;
        if (ppn % sockets != 0) {
            throw new IllegalArgumentException("Socket leaders need the same number of ranks on every CPU: ppn " + ppn
                    + " is not a multiple of sockets = " + sockets);
        }
        if (bytes < extent || bytes % extent != 0) {
            throw new IllegalArgumentException("switch mode reduces whole " + extent + "-byte elements; " + bytes
                    + " bytes is not a positive multiple");
        }
        if (params.incPayload() < extent) {
            throw new IllegalArgumentException("inc_payload " + params.incPayload() + " holds no " + extent
                    + "-byte element");
        }
        if (params.incPayload() > MAX_PAYLOAD) {
            throw new IllegalArgumentException("inc_payload " + params.incPayload() + ": the aggregation switch carries"
                    + " at most " + MAX_PAYLOAD + " B of data per packet ([RoCE-INC] table 2); set inc_payload to at"
                    + " most " + MAX_PAYLOAD);
        }
        if (params.switchSlots() > 1024) {
            throw new IllegalArgumentException("switch_slots " + params.switchSlots() + ": the aggregation switch has"
                    + " at most 1024 slots per group");
        }
        if (data != null && extent != Long.BYTES) {
            throw new IllegalArgumentException("checked data are longs: extent must be 8, got " + extent);
        }
        long r = (long) nodes * ppn;
        if (r > 1 << 24) {
            throw new IllegalArgumentException("switch mode: at most 2^24 ranks, got " + r);
        }
        this.p = params;
        this.ranks = (int) r;
        this.nodes = nodes;
        this.ppn = ppn;
        this.groupsPerNode = sockets;
        this.socketMode = leaders == Leaders.SOCKET;
        this.group = ppn / sockets;
        this.groups = nodes * sockets;
        this.perTor = Math.min(perTor, nodes);
        this.tors = (nodes + this.perTor - 1) / this.perTor;
        int children = this.perTor * sockets;
        if (children > SwitchConfig.MAX_CHILDREN || tors > SwitchConfig.MAX_CHILDREN) {
            throw new IllegalArgumentException("switch mode runs the real aggregation switch, whose groups have at most "
                    + SwitchConfig.MAX_CHILDREN + " children per switch: here " + children + " leaders under a ToR ("
                    + this.perTor + " nodes x " + sockets + ") and " + tors + " ToRs under the spine; use fewer hosts"
                    + " per ToR (--topology leafspine:hosts=H) or fewer nodes");
        }
        this.extent = extent;
        this.bytes = bytes;
        this.elements = (int) (bytes / extent);
        this.perChunk = params.incPayload() / extent;
        this.chunks = (elements + perChunk - 1) / perChunk;
        this.bits = 32 - Integer.numberOfLeadingZeros(Math.max(group - 1, 0));
        if (data != null && data.length != ranks) {
            throw new IllegalArgumentException("data for " + data.length + " ranks, expected " + ranks);
        }
        this.data = data;
        this.wireType = wireType(extent);
        this.window = params.switchSlots();
        this.random = new SplittableRandom(params.incSeed());
        int entities = groups + tors + (tors > 1 ? 1 : 0);
        this.address = new InetSocketAddress[entities];
        for (int e = 0; e < entities; e++) {
            address[e] = ipv4(e);
            entity.put(address[e], e);
        }
        this.token = new long[groups];
        for (int g = 0; g < groups; g++) {
            token[g] = (g + 1L) * 0x9E3779B97F4A7C15L;
        }
        this.switches = new AggregationSwitch[tors + (tors > 1 ? 1 : 0)];
        List<InetSocketAddress> up = tors > 1 ? List.of(address[spine()]) : List.of();
        Map<Integer, InetSocketAddress> spineIds = tors > 1 ? Map.of(spineId(), address[spine()]) : Map.of();
        AggregationSwitch.Output out = this::output;
        for (int t = 0; t < tors; t++) {
            switches[t] = new AggregationSwitch(config(SwitchConfig.Role.TOR, t + 1, groups + t, up), spineIds, out,
                    () -> now / 1_000_000);
        }
        if (tors > 1) {
            switches[tors] = new AggregationSwitch(config(SwitchConfig.Role.SPINE, spineId(), spine(), List.of()),
                    Map.of(), out, () -> now / 1_000_000);
        }
    }

    private SwitchConfig config(SwitchConfig.Role role, int id, int at, List<InetSocketAddress> uplinks) {
        return new SwitchConfig(role, id, List.of(address[at]), uplinks, SwitchConfig.CAPACITY_DEFAULT, window,
                p.incPayload(), SwitchConfig.allOps(), SwitchConfig.allTypes(), 0, 1,
                SwitchConfig.LEASE_DEFAULT_SECONDS * 1_000_000_000L);
    }

    private static Datatype wireType(int extent) {
        for (Datatype t : List.of(Datatype.LONG, Datatype.FLOAT, Datatype.SHORT, Datatype.BYTE)) {
            if (t.extent() == extent) {
                return t;
            }
        }
        return Datatype.BYTE;
    }

    /** Entity e's address: 10.0.x.y, the same port for all. */
    private static InetSocketAddress ipv4(int e) {
        byte[] a = {10, (byte) (e >>> 16), (byte) (e >>> 8), (byte) e};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(a), 7000);
        } catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public String mode() {
        return "switch";
    }

    @Override
    public void attach(EventLoop e, Network ignored) {
        this.engine = e;
        this.handler = e.register(this::handle);
        cpu = new long[ranks];
        finish = new long[ranks];
        Arrays.fill(finish, -1);
        nextBit = new int[ranks];
        bcastPhase = new boolean[ranks];
        arrived = new long[ranks * Math.max(bits, 1)];
        Arrays.fill(arrived, -1);
        nicFree = new long[nodes];
        hostUp = new long[nodes];
        hostDown = new long[nodes];
        torUp = new long[tors];
        torDown = new long[tors];
        aluFree = new long[switches.length];
        windows = new IncWindow[groups];
        for (int g = 0; g < groups; g++) {
            windows[g] = new IncWindow(window);
            windows[g].reset(0, chunks);
        }
        join();
    }

    @Override
    public void start(long t0) {
        now = t0;
        Arrays.fill(cpu, t0);
        for (int r = 0; r < ranks; r++) {
            advance(r, t0);
        }
    }

    // ------------------------------------------------------------------ intra-node trees

    private int local(int r) {
        return r % group;
    }

    /** Rank r's next reduce steps from t: receive (in bit order) what has arrived, then send up. */
    private void advance(int r, long t) {
        int i = local(r);
        long s = bytes;
        while (true) {
            int b = nextBit[r];
            int bit = 1 << b;
            if (bit >= group) {
                // the leader holds its group's sum: up into the network
                leaderUp(r / group, Math.max(t, cpu[r]));
                return;
            }
            if ((i & bit) != 0) {
                send(r, r - bit, b, t);
                return;
            }
            nextBit[r]++;
            if (i + bit >= group) {
                continue;
            }
            long at = arrived[r * bits + b];
            if (at < 0) {
                nextBit[r]--;
                return;
            }
            long tr = Math.max(at, cpu[r]);
            cpu[r] = tr + p.or() + SimParams.perByte(p.O(), s - 1) + SimParams.perByte(p.reducePerByte(), s);
            if (data != null) {
                long[] mine = data[r];
                long[] theirs = data[r + bit];
                for (int k = 0; k < elements; k++) {
                    mine[k] += theirs[k];
                }
            }
            t = cpu[r];
        }
    }

    /** A shared-memory message from rank src to dst for bit b, ready at t. */
    private void send(int src, int dst, int b, long t) {
        long ts = Math.max(t, cpu[src]);
        cpu[src] = ts + p.os() + SimParams.perByte(p.O(), bytes - 1);
        long arrive = ts + p.os() + SimParams.perByte(p.shmNsPerByte(), bytes) + p.shmLatency()
                + p.shmCrossing(src % ppn, dst % ppn, ppn);
        messages++;
        sentBytes += bytes;
        engine.schedule(handler, arrive, ((long) LOCAL << TYPE_SHIFT) | ((long) b << 32) | dst);
    }

    /** A shared-memory message for bit b reached rank r at t. */
    private void local(int r, int b, long t) {
        if (!bcastPhase[r]) {
            arrived[r * bits + b] = t;
            if (nextBit[r] == b) {
                advance(r, t);
            }
            return;
        }
        // broadcast: the parent's result has arrived
        long tr = Math.max(t, cpu[r]);
        cpu[r] = tr + p.or() + SimParams.perByte(p.O(), bytes - 1) + SimParams.perByte(p.copyPerByte(), bytes);
        if (data != null) {
            System.arraycopy(data[r - (1 << b)], 0, data[r], 0, elements);
        }
        fanOut(r, b);
    }

    /** Rank r holds the result (received for bit below): send it to its children, biggest subtree first. */
    private void fanOut(int r, int below) {
        int i = local(r);
        for (int b = below - 1; b >= 0; b--) {
            int bit = 1 << b;
            if (i + bit < group) {
                send(r, r + bit, b, cpu[r]);
            }
        }
        finish[r] = cpu[r];
        done++;
    }

    // ------------------------------------------------------------------ set-up

    private int spine() {
        return groups + tors;
    }

    private int spineId() {
        return tors + 1;
    }

    private int torOf(int g) {
        return g / groupsPerNode / perTor;
    }

    private int leadersUnder(int tor) {
        return Math.min(perTor, nodes - tor * perTor) * groupsPerNode;
    }

    /** Leader g's index among the leaders under its ToR. */
    private int child(int g) {
        return g - torOf(g) * perTor * groupsPerNode;
    }

    /**
     * Every leader notifies its ToR, as {@code IncClient.join} does, and the switches install the
     * group (a ToR passes the notify to the spine, whose reply comes back through it). Packets are
     * delivered in order at no cost; a refusal is a model error.
     */
    private void join() {
        setup = new ArrayDeque<>();
        for (int g = 0; g < groups; g++) {
            int t = torOf(g);
            Membership m = new Membership(GROUP, child(g), leadersUnder(t), groups, tors > 1 ? spineId() : 0, t, tors,
                    socketMode, perChunk * extent, window);
            ControlPacket.write(tx, NOTIFY, JOB, g * group, GROUP, token[g], m.child(), m, socketMode, groups);
            sending = g;
            output(tx, address[groups + t]);
        }
        int joined = 0;
        Object[] q;
        while ((q = setup.poll()) != null) {
            ByteBuffer b = (ByteBuffer) q[0];
            int from = (Integer) q[1];
            int to = (Integer) q[2];
            if (to >= groups) {
                sending = to;
                switches[to - groups].receive(b, address[from], 0);
            } else if (kind(b) == NOTIFY_REPLY) {
                if (ctrlShort(b, C_FAIL) != OK) {
                    throw new SimulationException("switch mode: the switches refused leader " + to + "'s notify (fail"
                            + " cause " + ctrlShort(b, C_FAIL) + ")");
                }
                joined++;
            }
        }
        setup = null;
        if (joined != groups) {
            throw new SimulationException("switch mode: " + joined + " of " + groups + " leaders joined the group");
        }
    }

    // ------------------------------------------------------------------ packets on the links

    /** What a switch sends: queued during set-up, else onto the link toward {@code to}. */
    private void output(ByteBuffer packet, InetSocketAddress to) {
        Integer dst = entity.get(to);
        if (dst == null) {
            throw new IllegalStateException("the switch sent to " + to + ", which the model does not know");
        }
        if (setup != null) {
            ByteBuffer copy = ByteBuffer.allocate(packet.limit()).order(ByteOrder.LITTLE_ENDIAN);
            copy.put(0, packet, 0, packet.limit());
            setup.add(new Object[] {copy, sending, dst});
            return;
        }
        transmit(sending, dst, packet, now);
    }

    /**
     * Puts {@code packet} on the link from entity {@code from} to {@code to} at t: a leader's NIC
     * sends a packet g after its last; a link direction carries one packet at a time, each for its
     * payload and {@code inc_header} at {@code link_ns_per_byte}, then {@code link_latency}, plus
     * {@code switch_delay} into a switch. The link loses it with probability {@code inc_loss}.
     */
    private void transmit(int from, int to, ByteBuffer packet, long t) {
        long w = SimParams.perByte(p.linkNsPerByte(), packet.limit() - HEADER_LENGTH + p.incHeader());
        long link;
        long arrive;
        if (from < groups) {
            int node = from / groupsPerNode;
            long start = Math.max(t, nicFree[node]);
            nicFree[node] = start + p.g();
            link = Math.max(start, hostUp[node]);
            hostUp[node] = link + w;
            arrive = link + w + p.linkLatency() + p.switchDelay();
        } else if (to < groups) {
            int node = to / groupsPerNode;
            link = Math.max(t, hostDown[node]);
            hostDown[node] = link + w;
            arrive = link + w + p.linkLatency();
        } else if (to == spine()) {
            int tor = from - groups;
            link = Math.max(t, torUp[tor]);
            torUp[tor] = link + w;
            arrive = link + w + p.linkLatency() + p.switchDelay();
        } else {
            int tor = to - groups;
            link = Math.max(t, torDown[tor]);
            torDown[tor] = link + w;
            arrive = link + w + p.linkLatency() + p.switchDelay();
        }
        messages++;
        if (p.incLoss() > 0 && random.nextDouble() < p.incLoss()) {
            lost++;
            return;
        }
        int k = packet(from, to, packet);
        engine.schedule(handler, arrive, ((long) ARRIVE << TYPE_SHIFT) | k);
    }

    /** Packet k reached its receiver at t: a contribution waits for the switch's ALU, the rest is taken in. */
    private void arrive(int k, long t) {
        int to = pktTo[k];
        if (to < groups) {
            atLeader(to, k, t);
            return;
        }
        ByteBuffer b = pool[k];
        if (type(b) == MessageType.INC_DATA && (flags(b) & FLAG_RESULT) == 0) {
            int sw = to - groups;
            long start = Math.max(t, aluFree[sw]);
            aluFree[sw] = start + p.switchAlu();
            engine.schedule(handler, start + p.switchAlu(), ((long) ALU_DONE << TYPE_SHIFT) | k);
            return;
        }
        toSwitch(k, t);
    }

    /** The switch takes packet k in at t; what it sends leaves at t. */
    private void toSwitch(int k, long t) {
        ByteBuffer b = pool[k];
        rx.clear();
        rx.put(0, b, 0, b.limit());
        rx.limit(b.limit());
        int from = pktFrom[k];
        sending = pktTo[k];
        freePacket(k);
        now = t;
        switches[sending - groups].receive(rx, address[from], t);
    }

    // ------------------------------------------------------------------ the leaders' transfers

    /** Group g's leader holds the group's sum at t: it posts the message and sends what the window allows. */
    private void leaderUp(int g, long t) {
        int leader = g * group;
        cpu[leader] = t + p.os();
        windows[g].progress(t + p.os());
        pump(g, t + p.os());
    }

    /** New chunks while the window lets them out (one transfer per leader: it counts from its own first missing chunk). */
    private void pump(int g, long t) {
        IncWindow w = windows[g];
        int low = w.base() + w.firstMissing();
        for (int c = w.nextNew(low); c >= 0; c = w.nextNew(low)) {
            sendChunk(g, c, false, t);
        }
    }

    private void sendChunk(int g, int c, boolean again, long t) {
        int from = c * perChunk;
        int n = Math.min(perChunk, elements - from);
        int payload = n * extent;
        writeHeader(tx, MessageType.INC_DATA, again ? FLAG_RETRANSMIT : (short) 0, JOB, g * group, GROUP, token[g],
                ReduceOp.SUM.ordinal(), wireType.ordinal(), payload / wireType.extent(), c, child(g), payload);
        if (data != null) {
            long[] mine = data[g * group];
            for (int e = 0; e < n; e++) {
                tx.putLong(HEADER_LENGTH + 8 * e, mine[from + e]);
            }
        }
        sentBytes += payload;
        if (again) {
            retransmitted++;
        }
        windows[g].sent(c, t, again);
        if (p.incLoss() > 0) {
            engine.schedule(handler, t + p.incRto(), ((long) TIMER << TYPE_SHIFT) | ((long) g << 32) | c);
        }
        transmit(g, groups + torOf(g), tx, t);
    }

    /**
     * Chunk c's timer of leader g fired at t: sent again if its result is still missing and this is
     * its last timer; after {@code tutti.inc.timeout.ms} without any result the run fails, as the
     * leaders' client does.
     */
    private void timer(int g, int c, long t) {
        IncWindow w = windows[g];
        if (!w.late(c, t, p.incRto())) {
            return;
        }
        if (w.stalled(t, TIMEOUT_NANOS)) {
            throw new SimulationException("switch mode: leader " + g + " got no result for " + TIMEOUT_NANOS / 1_000_000
                    + " ms of simulated time (chunk " + c + " sent again and again); the switches stopped answering it");
        }
        sendChunk(g, c, true, t);
    }

    /** A result reached group g's leader at t: taken in once, the window moves on, and the last one ends the phase. */
    private void atLeader(int g, int k, long t) {
        ByteBuffer b = pool[k];
        int c = req(b);
        IncWindow w = windows[g];
        if (type(b) != MessageType.INC_DATA || (flags(b) & FLAG_RESULT) == 0 || token(b) != token[g]
                || !w.outstanding(c)) {
            freePacket(k);
            return;
        }
        if (data != null) {
            long[] mine = data[g * group];
            int from = c * perChunk;
            int n = payloadLength(b) / Long.BYTES;
            for (int e = 0; e < n; e++) {
                mine[from + e] = b.getLong(HEADER_LENGTH + 8 * e);
            }
        }
        freePacket(k);
        w.accept(c, t);
        if (!w.complete()) {
            pump(g, t);
            return;
        }
        int leader = g * group;
        long tr = Math.max(t, cpu[leader]);
        cpu[leader] = tr + p.or();
        for (int i = 0; i < group; i++) {
            bcastPhase[leader + i] = true;
        }
        fanOut(leader, bits);
    }

    // ------------------------------------------------------------------ events

    private void handle(long t, long d) {
        int type = (int) (d >>> TYPE_SHIFT);
        int low = (int) d;
        int high = (int) ((d >>> 32) & 0xFFFFFF);
        now = t;
        switch (type) {
            case LOCAL -> local(low, high, t);
            case ARRIVE -> arrive(low, t);
            case ALU_DONE -> toSwitch(low, t);
            default -> timer(high, low, t);
        }
    }

    private int packet(int from, int to, ByteBuffer src) {
        int k = pktFree;
        if (k >= 0) {
            pktFree = pktFrom[k];
        } else {
            if (pktUsed == pool.length) {
                int c = pktUsed * 2;
                pool = Arrays.copyOf(pool, c);
                pktFrom = Arrays.copyOf(pktFrom, c);
                pktTo = Arrays.copyOf(pktTo, c);
            }
            k = pktUsed++;
            pool[k] = ByteBuffer.allocate(MAX_PACKET).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer b = pool[k];
        b.clear();
        b.put(0, src, 0, src.limit());
        b.limit(src.limit());
        pktFrom[k] = from;
        pktTo[k] = to;
        return k;
    }

    private void freePacket(int k) {
        pktFrom[k] = pktFree;
        pktFree = k;
    }

    /** Rank r's buffer: its input before the run, the allreduce's result after it (null when timing only). */
    public long[] data(int r) {
        return data == null ? null : data[r];
    }

    /** The switches, ToRs first, then the spine (when there is more than one ToR): their counters tell what they did. */
    public List<AggregationSwitch> switches() {
        return List.of(switches);
    }

    /** Packets the links lost. */
    public long lost() {
        return lost;
    }

    /** Contributions the leaders sent again after {@code inc_rto} without their result. */
    public long retransmitted() {
        return retransmitted;
    }

    @Override
    public double progress() {
        return ranks == 0 ? 1 : done / (double) ranks;
    }

    @Override
    public SimResult finish(long events) {
        if (done < ranks) {
            throw new SimulationException("switch mode: " + (ranks - done) + " of " + ranks + " ranks never got the"
                    + " result (an aggregation waits for a contribution that never comes)");
        }
        long last = 0;
        for (long f : finish) {
            last = Math.max(last, f);
        }
        return new SimResult(last, finish.clone(), events, messages, sentBytes, messages);
    }
}
