package io.tutti.sim;

import java.util.Arrays;

/**
 * Switch mode: an allreduce aggregated in the network, as [RoCE-INC] (§3.4–3.5) describes it, on a
 * two-level fabric of ToR switches under one spine. Every rank's data is real (longs, summed), so
 * results can be checked. The phases and their costs:
 *
 * <ol>
 *   <li><b>Leaders.</b> Node mode: a node's lowest rank leads its {@code ppn} ranks. Socket mode:
 *       the lowest rank of each CPU leads that CPU's {@code ppn / sockets} ranks (ranks are
 *       contiguous per CPU, the seed's constraint).</li>
 *   <li><b>Reduce to the leader</b>, a binomial tree over the leader's ranks in shared memory, with
 *       host mode's costs: a send takes the sender's CPU {@code o_s + (s−1)·O} from
 *       {@code max(ready, CPU free)} and arrives {@code o_s + s·shm_ns_per_byte + shm_latency} after
 *       that start; the receiver's CPU then spends {@code o_r + (s−1)·O + s·reduce_per_byte}.</li>
 *   <li><b>Up.</b> The leader's CPU spends {@code o_s} posting the message; its node's NIC then
 *       sends one packet per chunk of at most {@code inc_payload} bytes, each {@code g} after the
 *       last (one NIC per node, shared by a node's leaders). A packet of b payload bytes takes
 *       {@code (b + inc_header)·link_ns_per_byte} on a link (one packet at a time per link
 *       direction), {@code link_latency} on the wire and {@code switch_delay} in the switch it
 *       reaches.</li>
 *   <li><b>Aggregation.</b> A switch needs a free slot (of {@code switch_slots}) for a chunk it has
 *       not seen; packets of a chunk without one wait, first come first served, until a slot frees.
 *       Its ALU combines one packet at a time in {@code switch_alu}. When all its children (the
 *       leaders under a ToR; the ToRs under the spine) have contributed, a ToR forwards the partial
 *       result to the spine; the spine, or a ToR that is the only one, has the result.</li>
 *   <li><b>Down.</b> The result goes back down the same links (the spine to every ToR, a ToR to
 *       every leader under it); a switch frees the chunk's slot when it has sent the result down.
 *       When the last chunk has arrived the leader's CPU spends {@code o_r} taking it in.</li>
 *   <li><b>Broadcast from the leader</b>, a binomial tree over its ranks with the costs of step 2
 *       (a receive costs {@code o_r + (s−1)·O + s·copy_per_byte}).</li>
 * </ol>
 *
 * A rank is done when it holds the result; the completion time is the last rank's. Every rank
 * starts at t0.
 */
public final class SwitchModel implements RankModel {
    /** Who leads the intra-node phases. */
    public enum Leaders { NODE, SOCKET }

    private static final int LOCAL = 0;
    private static final int AT_SWITCH = 1;
    private static final int ALU_DONE = 2;
    private static final int AT_HOST = 3;
    private static final int AT_TOR = 4;
    private static final int TYPE_SHIFT = 56;

    private final SimParams p;
    private final int ranks;
    private final int group;
    private final int groups;
    private final int groupsPerNode;
    private final int nodes;
    private final int perTor;
    private final int tors;
    private final int elements;
    private final int extent;
    private final long bytes;
    private final int chunks;
    private final int perChunk;
    private final int bits;
    private final long[][] data;

    private EventLoop engine;
    private int handler;

    // per rank: CPU clock, finish time, the local tree's next step, arrivals by bit
    private long[] cpu;
    private long[] finish;
    private int[] nextBit;
    private boolean[] bcastPhase;
    private long[] arrived;
    // per node: NIC send and receive sides; links: host up/down per node, ToR up/down
    private long[] nicFree;
    private long[] hostUp;
    private long[] hostDown;
    private long[] torUp;
    private long[] torDown;
    // per switch (ToRs 0..tors-1, the spine tors): ALU, slots, counts, accumulators
    private long[] aluFree;
    private int[] freeSlots;
    private int[] slotOf;
    private int[] count;
    private long[][] acc;
    private int[][] slotData;
    private int[][] waiting;
    private int[] waitHead;
    private int[] waitTail;
    private final long[][] result;
    private int[] resultChunks;

    // packets: switch they are at, chunk, source (leader group, or ToR for the spine)
    private int[] pktSwitch = new int[256];
    private int[] pktChunk = new int[256];
    private int[] pktSource = new int[256];
    private int pktUsed;
    private int pktFree = -1;

    private int done;
    private long messages;
    private long sentBytes;

    /**
     * @param nodes   nodes, {@code ppn} ranks each
     * @param perTor  nodes under one ToR switch (a single ToR, no spine, when it holds them all)
     * @param leaders Node or Socket leaders
     * @param bytes   message bytes per rank
     * @param extent  bytes per element
     * @param data    every rank's input, {@code bytes / extent} elements, which the result replaces;
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
        long r = (long) nodes * ppn;
        if (r > 1 << 24) {
            throw new IllegalArgumentException("switch mode: at most 2^24 ranks, got " + r);
        }
        this.p = params;
        this.ranks = (int) r;
        this.nodes = nodes;
        this.groupsPerNode = sockets;
        this.group = ppn / sockets;
        this.groups = nodes * sockets;
        this.perTor = perTor;
        this.tors = (nodes + perTor - 1) / perTor;
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
        this.result = new long[chunks][];
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
        int switches = tors + 1;
        aluFree = new long[switches];
        freeSlots = new int[switches];
        Arrays.fill(freeSlots, p.switchSlots());
        slotOf = new int[switches * chunks];
        Arrays.fill(slotOf, -1);
        count = new int[switches * chunks];
        acc = new long[switches * p.switchSlots()][];
        slotData = new int[switches][];
        waiting = new int[switches][16];
        waitHead = new int[switches];
        waitTail = new int[switches];
        resultChunks = new int[groups];
    }

    @Override
    public void start(long t0) {
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
        long arrive = ts + p.os() + SimParams.perByte(p.shmNsPerByte(), bytes) + p.shmLatency();
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

    // ------------------------------------------------------------------ the switches

    private int torOf(int g) {
        return g / groupsPerNode / perTor;
    }

    private int leadersUnder(int tor) {
        return Math.min(perTor, nodes - tor * perTor) * groupsPerNode;
    }

    private int spine() {
        return tors;
    }

    private long wire(int chunk) {
        int payload = Math.min(perChunk, elements - chunk * perChunk) * extent;
        return SimParams.perByte(p.linkNsPerByte(), payload + p.incHeader());
    }

    /** Group g's leader holds the group's sum at t: post the message and send its chunks to the ToR. */
    private void leaderUp(int g, long t) {
        int leader = g * group;
        cpu[leader] = t + p.os();
        int node = g / groupsPerNode;
        int tor = torOf(g);
        for (int k = 0; k < chunks; k++) {
            long start = Math.max(t + p.os(), nicFree[node]);
            nicFree[node] = start + p.g();
            long w = wire(k);
            long link = Math.max(start, hostUp[node]);
            hostUp[node] = link + w;
            messages++;
            sentBytes += Math.min(perChunk, elements - k * perChunk) * (long) extent;
            engine.schedule(handler, link + w + p.linkLatency() + p.switchDelay(),
                    ((long) AT_SWITCH << TYPE_SHIFT) | packet(tor, k, g));
        }
    }

    /** Packet k reached its switch at t: into the ALU if its chunk has (or can get) a slot, else wait. */
    private void atSwitch(int k, long t) {
        int sw = pktSwitch[k];
        int c = pktChunk[k];
        if (slotOf[sw * chunks + c] < 0) {
            if (freeSlots[sw] == 0) {
                enqueue(sw, k);
                return;
            }
            claim(sw, c);
        }
        long start = Math.max(t, aluFree[sw]);
        aluFree[sw] = start + p.switchAlu();
        engine.schedule(handler, start + p.switchAlu(), ((long) ALU_DONE << TYPE_SHIFT) | k);
    }

    private void claim(int sw, int c) {
        freeSlots[sw]--;
        int[] used = slotData[sw];
        if (used == null) {
            used = slotData[sw] = new int[p.switchSlots()];
            Arrays.fill(used, -1);
        }
        for (int s = 0; s < used.length; s++) {
            if (used[s] < 0) {
                used[s] = c;
                slotOf[sw * chunks + c] = s;
                int a = sw * p.switchSlots() + s;
                if (acc[a] == null) {
                    acc[a] = new long[perChunk];
                }
                Arrays.fill(acc[a], 0);
                count[sw * chunks + c] = 0;
                return;
            }
        }
        throw new IllegalStateException("no free slot although one was counted");
    }

    /** The ALU has combined packet k into its slot at t. */
    private void aluDone(int k, long t) {
        int sw = pktSwitch[k];
        int c = pktChunk[k];
        int src = pktSource[k];
        freePacket(k);
        long[] a = acc[sw * p.switchSlots() + slotOf[sw * chunks + c]];
        int from = c * perChunk;
        int n = Math.min(perChunk, elements - from);
        if (data != null) {
            long[] in = sw == spine() ? partials[c][src] : data[src * group];
            int off = sw == spine() ? 0 : from;
            for (int e = 0; e < n; e++) {
                a[e] += in[off + e];
            }
        }
        int expected = sw == spine() ? tors : leadersUnder(sw);
        if (++count[sw * chunks + c] < expected) {
            return;
        }
        if (sw != spine() && tors > 1) {
            // the partial result goes up to the spine, which adds the ToRs' partials in turn
            long link = Math.max(t, torUp[sw]);
            long w = wire(c);
            torUp[sw] = link + w;
            messages++;
            if (partials == null) {
                partials = new long[chunks][tors][];
            }
            partials[c][sw] = Arrays.copyOf(a, n);
            engine.schedule(handler, link + w + p.linkLatency() + p.switchDelay(),
                    ((long) AT_SWITCH << TYPE_SHIFT) | packet(spine(), c, sw));
            return;
        }
        // the root switch has the result: down to every ToR (spine) or to every leader (single ToR)
        long[] r = Arrays.copyOf(a, n);
        result[c] = r;
        if (sw == spine()) {
            for (int tor = 0; tor < tors; tor++) {
                long link = Math.max(t, torDown[tor]);
                long w = wire(c);
                torDown[tor] = link + w;
                messages++;
                engine.schedule(handler, link + w + p.linkLatency() + p.switchDelay(),
                        ((long) AT_TOR << TYPE_SHIFT) | ((long) c << 32) | tor);
            }
        } else {
            downFromTor(sw, c, t);
        }
        release(sw, c, t);
    }

    // what each ToR sent the spine, per chunk: the packets' payloads
    private long[][][] partials;

    /** The result of chunk c leaves ToR tor for its leaders at t (the ToR's slot frees then). */
    private void downFromTor(int tor, int c, long t) {
        int first = tor * perTor;
        int last = Math.min(nodes, first + perTor);
        for (int node = first; node < last; node++) {
            for (int s = 0; s < groupsPerNode; s++) {
                long link = Math.max(t, hostDown[node]);
                long w = wire(c);
                hostDown[node] = link + w;
                messages++;
                engine.schedule(handler, link + w + p.linkLatency(),
                        ((long) AT_HOST << TYPE_SHIFT) | ((long) c << 32) | (node * groupsPerNode + s));
            }
        }
        if (tors > 1) {
            release(tor, c, t);
        }
    }

    /** Switch sw is done with chunk c at t: free its slot and let waiting packets in. */
    private void release(int sw, int c, long t) {
        int s = slotOf[sw * chunks + c];
        slotOf[sw * chunks + c] = -1;
        slotData[sw][s] = -1;
        freeSlots[sw]++;
        // the oldest waiting packet's chunk takes the slot; every waiting packet of that chunk goes in
        while (freeSlots[sw] > 0 && waitHead[sw] != waitTail[sw]) {
            int[] q = waiting[sw];
            int head = q[waitHead[sw] % q.length];
            int chunk = pktChunk[head];
            claim(sw, chunk);
            int size = waitTail[sw] - waitHead[sw];
            int[] keep = new int[q.length];
            int kept = 0;
            for (int j = 0; j < size; j++) {
                int k = q[(waitHead[sw] + j) % q.length];
                if (pktChunk[k] == chunk) {
                    long start = Math.max(t, aluFree[sw]);
                    aluFree[sw] = start + p.switchAlu();
                    engine.schedule(handler, start + p.switchAlu(), ((long) ALU_DONE << TYPE_SHIFT) | k);
                } else {
                    keep[kept++] = k;
                }
            }
            waiting[sw] = keep;
            waitHead[sw] = 0;
            waitTail[sw] = kept;
        }
    }

    private void enqueue(int sw, int k) {
        int[] q = waiting[sw];
        if (waitTail[sw] - waitHead[sw] == q.length) {
            int[] bigger = new int[q.length * 2];
            for (int j = 0; j < q.length; j++) {
                bigger[j] = q[(waitHead[sw] + j) % q.length];
            }
            waitTail[sw] -= waitHead[sw];
            waitHead[sw] = 0;
            waiting[sw] = q = bigger;
        }
        q[waitTail[sw]++ % q.length] = k;
    }

    /** Chunk c of the result reached group g's leader at t. */
    private void atHost(int g, int c, long t) {
        int leader = g * group;
        int from = c * perChunk;
        long[] r = result[c];
        if (data != null) {
            System.arraycopy(r, 0, data[leader], from, r.length);
        }
        if (++resultChunks[g] < chunks) {
            return;
        }
        long tr = Math.max(t, cpu[leader]);
        cpu[leader] = tr + p.or();
        for (int i = 0; i < group; i++) {
            bcastPhase[leader + i] = true;
        }
        fanOut(leader, bits);
    }

    // ------------------------------------------------------------------ events

    private void handle(long now, long d) {
        int type = (int) (d >>> TYPE_SHIFT);
        int low = (int) d;
        int high = (int) ((d >>> 32) & 0xFFFFFF);
        switch (type) {
            case LOCAL -> local(low, high, now);
            case AT_SWITCH -> atSwitch(low, now);
            case ALU_DONE -> aluDone(low, now);
            case AT_TOR -> downFromTor(low, high, now);
            default -> atHost(low, high, now);
        }
    }

    private int packet(int sw, int chunk, int source) {
        int k = pktFree;
        if (k >= 0) {
            pktFree = pktSwitch[k];
        } else {
            if (pktUsed == pktSwitch.length) {
                int c = pktUsed * 2;
                pktSwitch = Arrays.copyOf(pktSwitch, c);
                pktChunk = Arrays.copyOf(pktChunk, c);
                pktSource = Arrays.copyOf(pktSource, c);
            }
            k = pktUsed++;
        }
        pktSwitch[k] = sw;
        pktChunk[k] = chunk;
        pktSource[k] = source;
        return k;
    }

    private void freePacket(int k) {
        pktSwitch[k] = pktFree;
        pktFree = k;
    }

    /** Rank r's buffer: its input before the run, the allreduce's result after it (null when timing only). */
    public long[] data(int r) {
        return data == null ? null : data[r];
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
