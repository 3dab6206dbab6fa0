package io.tutti.sim;

import io.tutti.offload.Counter;
import io.tutti.offload.OffloadEngine;
import io.tutti.offload.OffloadProgram;
import io.tutti.offload.ReductionDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * NIC-offload mode: every rank runs its deferred-work program (the same {@link OffloadProgram}
 * objects the real offload engine runs, compiled by {@code OffloadPlans}) on a modelled NIC, with
 * no host CPU in the loop. Timing:
 * <ul>
 *   <li>the host hands every rank's program to its NIC in {@code nic_post} ns from t0 (noisy with
 *       {@code host_noise}, as every host CPU time, {@link SimParams#noisy}); nothing fires before,
 *       and a packet arriving earlier waits in the NIC;</li>
 *   <li>an entry fires when its counter reaches the threshold; the operation it triggers starts
 *       {@code nic_trigger} ns later, once the NIC's send side is free;</li>
 *   <li>a PUT, counter add or descriptor of s bytes keeps the NIC's send side busy g + (s−1)·G and
 *       is handed to the network when it starts (its first byte arrives after the network's
 *       latency);</li>
 *   <li>the receiving NIC takes the packet in: its receive side is busy {@code nic_process} ns plus
 *       {@code nic_alu_per_byte} per byte of a reduction descriptor; then the data lands and the
 *       counter is added to, and the entries that became ready fire;</li>
 *   <li>a rank is done {@code nic_complete} ns (noisy likewise) after its program's COMPLETE fires (the
 *       NIC writes the completion value to host memory and the host sees it); the completion time is
 *       the last rank's.</li>
 * </ul>
 * Local CNTR_ADD, COPY and REDUCE entries take no modelled time. The programs move real data,
 * so the results can be checked, and every rank's program is built up front: this mode is meant
 * for thousands of ranks, not millions.
 */
public final class NicModel implements RankModel {
    private final OffloadProgram[] programs;
    private final SimParams params;
    private final OffloadEngine[] engines;
    private final Arena arena = Arena.ofAuto();
    private final long[] sendFree;
    private final long[] receiveFree;
    private final long[] done;
    private final List<Packet> packets = new ArrayList<>();
    private final ArrayList<Integer> freePackets = new ArrayList<>();
    private EventLoop engine;
    private Network network;
    private int arrive;
    private int land;
    private int post;
    private int finished;
    private long messages;
    private long bytes;
    /** The virtual time the port's operations are issued at (the event being handled). */
    private long now;

    private static final byte PUT = 1;
    private static final byte ADD = 2;
    private static final byte DESCRIPTOR = 3;

    /** A packet in flight: what the receiving NIC does with it when it lands. */
    private static final class Packet {
        int id;
        byte kind;
        int from;
        int to;
        byte[] data = new byte[64];
        int length;
        byte rbuf;
        long roff;
        int counter;
        long value;
    }

    /**
     * @param programs every rank's program, rank order
     * @param memory   every rank's buffers by program buffer id (null entries get scratch memory)
     */
    public NicModel(OffloadProgram[] programs, MemorySegment[][] memory, SimParams params) {
        this.programs = programs;
        this.params = params;
        int n = programs.length;
        this.engines = new OffloadEngine[n];
        this.sendFree = new long[n];
        this.receiveFree = new long[n];
        this.done = new long[n];
        java.util.Arrays.fill(done, -1);
        for (int r = 0; r < n; r++) {
            OffloadProgram p = programs[r];
            Counter[] counters = new Counter[p.counters()];
            for (int c = 0; c < counters.length; c++) {
                counters[c] = new Counter();
            }
            MemorySegment[] m = new MemorySegment[OffloadProgram.BUFFERS];
            for (int b = 0; b < m.length; b++) {
                MemorySegment given = memory == null ? null : memory[r][b];
                m[b] = given != null ? given : arena.allocate(Math.max(1, p.bufferBytes(b)), 16);
            }
            final int rank = r;
            engines[r] = new OffloadEngine(p, counters, m, new Port(rank), null);
        }
    }

    /** Rank {@code r}'s buffer {@code id} (for checking results). */
    public MemorySegment memory(int r, int id) {
        return engines[r].memory(id);
    }

    @Override
    public void attach(EventLoop engine, Network network) {
        this.engine = engine;
        this.network = network;
        this.arrive = engine.register(this::arrived);
        this.land = engine.register(this::landed);
        this.post = engine.register(this::posted);
    }

    @Override
    public void start(long t0) {
        for (int r = 0; r < engines.length; r++) {
            long posted = t0 + params.noisy(params.nicPost(), r, 0, SimParams.NOISE_POST);
            // a packet reaching a NIC before its host has posted the program waits in the NIC
            receiveFree[r] = posted;
            engine.schedule(post, posted, r);
        }
    }

    /** Rank r's host has handed its program to the NIC: the entries with nothing to wait for fire. */
    private void posted(long t, long r) {
        now = t;
        engines[(int) r].start();
        check((int) r, t);
    }

    /** The network delivered a packet to the receiving NIC: it is taken in when the NIC is free. */
    private void arrived(long t, long id) {
        Packet p = packets.get((int) id);
        long cost = params.nicProcess() + (p.kind == DESCRIPTOR ? Math.round(params.nicAluPerByte() * p.length) : 0);
        long start = Math.max(t, receiveFree[p.to]);
        receiveFree[p.to] = start + cost;
        engine.schedule(land, start + cost, id);
    }

    /** The packet's data lands and its counter grows; what became ready fires. */
    private void landed(long t, long id) {
        Packet p = packets.get((int) id);
        OffloadEngine e = engines[p.to];
        MemorySegment data = MemorySegment.ofArray(p.data);
        switch (p.kind) {
            case PUT -> e.onPut(data, 0, p.length, p.rbuf, p.roff, p.counter, p.value);
            case ADD -> e.onRemoteAdd(p.counter, p.value);
            default -> e.onDescriptor(data, 0);
        }
        int to = p.to;
        // progress() may fire entries that take this packet for a new one
        freePackets.add((int) id);
        now = t;
        e.progress();
        check(to, t);
    }

    private void check(int r, long t) {
        if (done[r] < 0 && engines[r].completedRuns() > 0) {
            done[r] = t + params.noisy(params.nicComplete(), r, 0, SimParams.NOISE_COMPLETE);
            finished++;
        }
    }

    /** Where rank {@code rank}'s fired entries go: onto its NIC's send side and the network. */
    private final class Port implements OffloadEngine.Port {
        private final int rank;

        Port(int rank) {
            this.rank = rank;
        }

        @Override
        public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf, long roff,
                        int counter, long add, int arrival) {
            Packet p = packet(PUT, peer, (int) len);
            MemorySegment.copy(src, off, MemorySegment.ofArray(p.data), 0, len);
            p.rbuf = rbuf;
            p.roff = roff;
            p.counter = counter;
            p.value = add;
            send(p);
        }

        @Override
        public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
            Packet p = packet(ADD, peer, 0);
            p.counter = counter;
            p.value = value;
            send(p);
        }

        @Override
        public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
            Packet p = packet(DESCRIPTOR, peer, ReductionDescriptor.SIZE);
            MemorySegment.copy(d, at, MemorySegment.ofArray(p.data), 0, ReductionDescriptor.SIZE);
            send(p);
        }

        private Packet packet(byte kind, int peer, int length) {
            Packet p;
            int id;
            if (freePackets.isEmpty()) {
                p = new Packet();
                id = packets.size();
                p.id = id;
                packets.add(p);
            } else {
                id = freePackets.removeLast();
                p = packets.get(id);
            }
            if (p.data.length < length) {
                p.data = new byte[length];
            }
            p.kind = kind;
            p.from = rank;
            p.to = peer;
            p.length = length;
            return p;
        }

        private void send(Packet p) {
            int id = p.id;
            long s = Math.max(1, p.length);
            long start = Math.max(now + params.nicTrigger(), sendFree[rank]);
            sendFree[rank] = start + params.g() + (network.hostChargesBandwidth() ? Math.round((s - 1) * params.G())
                    : 0);
            messages++;
            bytes += p.length;
            network.carry(start, rank, p.to, s, arrive, id);
        }
    }

    @Override
    public double progress() {
        return engines.length == 0 ? 1 : finished / (double) engines.length;
    }

    @Override
    public SimResult finish(long events) {
        if (finished < engines.length) {
            StringBuilder stuck = new StringBuilder();
            for (int r = 0; r < engines.length && stuck.length() < 400; r++) {
                if (done[r] < 0) {
                    stuck.append(stuck.isEmpty() ? "" : ", ").append(r);
                }
            }
            throw new SimulationException("NIC-offload mode: " + (engines.length - finished)
                    + " ranks never completed their programs (ranks " + stuck + "): an entry waits for arrivals"
                    + " that never come");
        }
        long last = 0;
        for (long t : done) {
            last = Math.max(last, t);
        }
        return new SimResult(last, done.clone(), events, messages, bytes, messages);
    }

    @Override
    public String mode() {
        return "nic";
    }
}
