package io.tutti.offload;

import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.metrics.Counters;
import io.tutti.p2p.Engine;
import io.tutti.p2p.OffloadEndpoint;
import io.tutti.os.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * A persistent collective offloaded to the software NIC: one rank's {@link OffloadProgram}, built at
 * init and kept across starts, run by an {@link OffloadEngine} whose PUTs, counter adds and
 * descriptors travel as the engine's PUT and CNTR_ADD packets to the peers' endpoints.
 *
 * <p>The program's counters wrap back to zero at completion, so every start finds them where the
 * program expects. A peer may start its next run before this rank has seen the end of the current
 * one: its packets carry their run number (epoch) and wait here until this rank starts that run.
 * A triggered operation that finds the destination's ring full waits in an outbound queue and is
 * sent, in order, as soon as there is room: nothing is dropped.
 *
 * <p>Between ranks of one node, a collective whose runs go in lockstep (every rank's run needs every
 * rank's contribution to it) needs no packets for its counters: each rank's counters and temporary
 * buffer live in its offload area in the node's shared memory ({@link OffloadAreaDescriptor}), a
 * REMOTE_CNTR_ADD to a peer of the node is an atomic add into the peer's counter, and a PUT into the
 * peer's temporary buffer is a copy followed by that add. The area keeps one set per run parity, so
 * a peer a run ahead writes into the other set and nothing waits. PUTs into the user's buffers,
 * descriptors and everything to other nodes still travel as packets.
 *
 * <p>Threads: everything runs under the engine's lock, on the owner thread or the progress agent.
 */
public final class OffloadedCollective implements Request, Engine.Task, OffloadEndpoint, OffloadEngine.Port {
    /** PUT buffer id that carries a reduction or broadcast descriptor instead of data. */
    static final int DESCRIPTOR = 255;

    private final Engine engine;
    private final int context;
    private final int tag;
    private final int[] group;
    private final OffloadEngine nic;
    private final Arena arena = Arena.ofShared();
    /** Packets that came for a run this rank has not started yet. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** Spent entries of {@link #held}, reused: a peer one run ahead is the common case, not an exception. */
    private final ArrayDeque<Held> heldFree = new ArrayDeque<>();
    /** Fired operations the destination had no room for yet, in firing order. */
    private final ArrayDeque<Outbound> outbound = new ArrayDeque<>();
    /** This rank's offload area, or null when no operation goes through shared memory. */
    private final OffloadArea area;
    /** By communicator rank: the peers' offload areas, mapped on first use (null without {@link #area}). */
    private final Peer[] peers;
    /**
     * By communicator rank: whether this rank writes into the peer's area. Not when some operation to
     * the peer must travel as a packet (a PUT into its user buffers, a descriptor): a later counter
     * add may count that packet's data as landed, so it must not overtake it, and the peer's ring
     * keeps the order only among packets.
     */
    private final boolean[] direct;
    /** Whether ranks note their processor in their areas: only worth it when ranks outnumber cores. */
    private final boolean trackCpus;
    /** The processor this rank started the current run on, or -1. */
    private int cpu = -1;
    /** The engine's completed-run count at which the current start is done. */
    private long target;
    private boolean started;
    private boolean freed;
    private TuttiException failure;
    /** Made once: a method reference per start would be an allocation per start. */
    private final Runnable armer = this::arm;

    /** A packet kept for a later run; mutable and pooled. */
    private static final class Held {
        int source;
        int buffer;
        long offset;
        byte[] data = new byte[64];
        MemorySegment segment = MemorySegment.ofArray(data);
        int length;
        int counter;
        long value;
        long epoch;
        boolean put;
    }

    /** Fired but not sent yet; {@code peer} (a communicator rank) is set, not -1, for a write into its area. */
    private record Outbound(int dest, int buffer, long offset, byte[] data, int counter, long add, long epoch,
                            boolean put, int peer) {
    }

    /** A peer's offload area, with its counters per parity. */
    private record Peer(OffloadArea area, Counter[][] counters) {
    }

    /**
     * @param program this rank's program (communicator ranks)
     * @param send    the user's send buffer (null if the program has none)
     * @param recv    the user's receive buffer (null if the program has none)
     * @param context the communicator's collective context
     * @param tag     the same on every rank for this collective: tells its packets apart
     * @param group   communicator rank to world rank
     * @param lockstep whether every rank's run needs every rank's contribution to that run (barrier,
     *                allgather, allreduce; not bcast or reduce, whose senders may run ahead): only then
     *                do the ranks of a node write into each other's offload areas
     */
    public OffloadedCollective(Engine engine, OffloadProgram program, MemorySegment send, MemorySegment recv,
                               int context, int tag, int[] group, boolean lockstep) {
        this.engine = engine;
        this.context = context;
        this.tag = tag;
        this.group = group;
        for (int id : new int[] {OffloadProgram.SEND_BUFFER, OffloadProgram.RECV_BUFFER}) {
            MemorySegment given = id == OffloadProgram.SEND_BUFFER ? send : recv;
            long need = program.bufferBytes(id);
            if (need > 0 && (given == null || given.byteSize() < need)) {
                arena.close();
                throw new TuttiException.InvalidArgument(program.name() + " needs a buffer of " + need + " bytes"
                        + (given == null ? "" : ", got " + given.byteSize()));
            }
        }
        long temp = program.bufferBytes(OffloadProgram.TEMP_BUFFER);
        long acc = program.bufferBytes(OffloadProgram.ACC_BUFFER);
        MemorySegment accBuffer = acc == 0 ? MemorySegment.NULL : arena.allocate(acc, 16);
        int me = group[program.rank()];
        boolean shared = false;
        for (int r = 0; lockstep && r < group.length && !shared; r++) {
            shared = group[r] != me && engine.sharesMemoryWith(group[r]);
        }
        int sets = shared ? 2 : 1;
        Counter[][] counters = new Counter[sets][program.counters()];
        MemorySegment[][] memory = new MemorySegment[sets][OffloadProgram.BUFFERS];
        if (shared) {
            int c = program.counters();
            MemorySegment s = engine.createShared(OffloadAreaDescriptor.fileName(context, tag, me),
                    OffloadAreaDescriptor.fileLength(c, temp), seg -> OffloadArea.format(seg, c, temp), arena);
            this.area = new OffloadArea(s);
            this.peers = new Peer[group.length];
            this.direct = directPeers(engine, program, group);
            counters = countersOf(area);
        } else {
            this.area = null;
            this.peers = null;
            this.direct = null;
            for (int i = 0; i < program.counters(); i++) {
                counters[0][i] = new Counter();
            }
        }
        for (int k = 0; k < sets; k++) {
            memory[k][OffloadProgram.SEND_BUFFER] = send;
            memory[k][OffloadProgram.RECV_BUFFER] = recv;
            memory[k][OffloadProgram.TEMP_BUFFER] = temp == 0 ? MemorySegment.NULL
                    : shared ? area.temp(k) : arena.allocate(temp, 16);
            memory[k][OffloadProgram.ACC_BUFFER] = accBuffer;
        }
        this.trackCpus = shared && engine.localSize() > Runtime.getRuntime().availableProcessors();
        this.nic = new OffloadEngine(program, counters, memory, this, null);
        nic.countInto(engine.counters());
        engine.register(context, tag, this);
        engine.counters().offload(Counters.OFFLOAD_COLLECTIVES);
    }

    /**
     * By communicator rank: the peers of the node this rank's program sends to, none of whose
     * operations must travel as a packet (see {@link #direct}).
     */
    private static boolean[] directPeers(Engine engine, OffloadProgram program, int[] group) {
        boolean[] sends = new boolean[group.length];
        boolean[] packets = new boolean[group.length];
        for (int i = 0; i < program.entries(); i++) {
            DeferredWork w = program.entry(i);
            if (w.peer() < 0 || w.op() == OffloadProgram.COMPLETE || w.op() == OffloadProgram.CNTR_ADD) {
                continue;
            }
            sends[w.peer()] = true;
            packets[w.peer()] |= w.op() == OffloadProgram.NIC_REDUCE || w.op() == OffloadProgram.TRIGGERED_BCAST
                    || w.op() == OffloadProgram.PUT && w.length() > 0
                    && program.remoteBuffer(i) != OffloadProgram.TEMP_BUFFER;
        }
        int me = group[program.rank()];
        boolean[] direct = new boolean[group.length];
        for (int r = 0; r < group.length; r++) {
            direct[r] = sends[r] && !packets[r] && group[r] != me && engine.sharesMemoryWith(group[r]);
        }
        return direct;
    }

    /** The counters of an offload area, per parity. */
    private static Counter[][] countersOf(OffloadArea a) {
        Counter[][] c = new Counter[2][a.counters()];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < c[k].length; i++) {
                c[k][i] = new Counter(a.segment(), a.counterOffset(k, i));
            }
        }
        return c;
    }

    /** Whether this rank writes its operations to communicator rank {@code peer} into the peer's area (for tests). */
    boolean writesInto(int peer) {
        return direct != null && direct[peer];
    }

    /** Whether this rank's counters live in the node's shared memory, where its peers of the node add to them. */
    public boolean shared() {
        return area != null;
    }

    /** The program this request runs, for reports. */
    public OffloadProgram program() {
        return nic.program();
    }

    // ------------------------------------------------------------------ Request

    @Override
    public void start() {
        if (freed) {
            throw new TuttiException.NotActive("this offloaded collective has been freed");
        }
        if (started) {
            throw new TuttiException.InvalidArgument("this offloaded collective is still running: wait for it"
                    + " before starting it again");
        }
        started = true;
        target = nic.completedRuns() + 1;
        engine.track(this);
        engine.locked(armer);
    }

    private void arm() {
        if (trackCpus) {
            cpu = io.tutti.os.CpuTopology.runningCpu();
            area.cpu(cpu);
        }
        engine.counters().offload(Counters.OFFLOAD_RUNS);
        nic.start();
        landHeld();
        nic.progress();
    }

    /** Lands the held packets of the current run (they came early, or on a thread that may not touch the buffers). */
    private void landHeld() {
        for (int k = held.size(); k > 0; k--) {
            Held h = held.poll();
            if (h.epoch == nic.epoch()) {
                land(h.source, h.buffer, h.offset, h.segment, 0, h.length, h.counter, h.value, h.put);
                heldFree.add(h);
            } else {
                held.add(h);
            }
        }
    }

    @Override
    public Status waitFor() {
        waitFor(null);
        return new Status();
    }

    @Override
    public void waitFor(Status into) {
        if (freed) {
            throw new TuttiException.NotActive("this offloaded collective has been freed");
        }
        if (!started) {
            return;
        }
        engine.await(this);
        finished();
    }

    @Override
    public boolean test() {
        if (freed) {
            throw new TuttiException.NotActive("this offloaded collective has been freed");
        }
        if (!started) {
            return true;
        }
        boolean done = engine.test(this);
        if (done) {
            finished();
        }
        return done;
    }

    private void finished() {
        started = false;
        engine.untrack(this);
    }

    @Override
    public boolean isActive() {
        return started && !freed;
    }

    @Override
    public boolean isDone() {
        return !started || nic.completedRuns() >= target;
    }

    @Override
    public Status status() {
        return new Status();
    }

    @Override
    public void free() {
        if (freed) {
            return;
        }
        if (started && nic.completedRuns() < target) {
            throw new TuttiException.InvalidArgument("this offloaded collective is still running: wait for it"
                    + " before freeing it");
        }
        freed = true;
        engine.unregister(context, tag);
        if (area != null) {
            // every peer that writes here has mapped it: this rank's runs needed their writes
            engine.removeShared(OffloadAreaDescriptor.fileName(context, tag, group[nic.program().rank()]));
        }
        arena.close();
    }

    // ------------------------------------------------------------------ Engine.Task

    @Override
    public boolean poll() {
        if (failure != null) {
            TuttiException e = failure;
            failure = null;
            throw e;
        }
        if (!held.isEmpty() && !nic.idle() && ownerMemoryAccessible()) {
            landHeld();
        }
        flush();
        nic.progress();
        flush();
        // idempotent: the agent and the owner may both see the end of a run
        return !started || (nic.completedRuns() >= target && outbound.isEmpty());
    }

    @Override
    public void fail(TuttiException error) {
        failure = error;
    }

    @Override
    public boolean ready() {
        return started && nic.ready();
    }

    /**
     * With counters that the node's peers fill directly, the wait is like a slot exchange's: spinning
     * pays only while every peer still to be heard from last started its run on another processor
     * than this rank (then they are not queued behind it for this core). Which peers those are, the
     * missing buckets of the 2^n scheme's one counter tell; with any other scheme, do not spin.
     */
    @Override
    public boolean spinPays() {
        if (area == null) {
            return true;
        }
        OffloadProgram p = nic.program();
        if (cpu < 0 || nic.idle() || p.counters() != 1 || !"2^n".equals(p.scheme())) {
            return false;
        }
        long level = nic.counter(0).level();
        int arrivals = p.arrivals();
        for (int k = 0; k < arrivals; k++) {
            if ((level >>> (arrivals - 1 - k) & 1) != 0) {
                continue;
            }
            int from = p.arrivalPeer(k);
            Peer q = from < 0 ? null : peers[from];
            int there = q == null ? -1 : q.area().cpu();
            if (there < 0 || there == cpu) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean accessibleBy(Thread agent) {
        return accessible(agent);
    }

    /** Called on every arrival: allocation-free (an iterator over {@link #held} was 32 B per packet). */
    private boolean holding(long epoch) {
        boolean found = false;
        // one full rotation keeps the order
        for (int k = held.size(); k > 0; k--) {
            Held h = held.poll();
            found |= h.epoch == epoch;
            held.add(h);
        }
        return found;
    }

    private boolean ownerMemoryAccessible() {
        return accessible(Thread.currentThread());
    }

    private boolean accessible(Thread t) {
        MemorySegment send = nic.memory(OffloadProgram.SEND_BUFFER);
        MemorySegment recv = nic.memory(OffloadProgram.RECV_BUFFER);
        return (send == null || send.isAccessibleBy(t)) && (recv == null || recv.isAccessibleBy(t));
    }

    // ------------------------------------------------------------------ arrivals (OffloadEndpoint)

    @Override
    public boolean onPut(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length,
                         int counter, long add, long epoch) {
        return arrive(source, buffer, offset, data, dataOffset, length, counter, add, epoch, true);
    }

    @Override
    public boolean onAdd(int source, int counter, long value, long epoch) {
        return arrive(source, 0, 0, MemorySegment.NULL, 0, 0, counter, value, epoch, false);
    }

    private boolean arrive(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length,
                           int counter, long value, long epoch, boolean put) {
        if (freed || counter < 0 || counter >= nic.program().counters()) {
            return false;
        }
        long now = nic.epoch();
        // an arrival on a thread that may not touch the user's buffers (the progress agent, with
        // buffers confined to their owner) waits for the owner, who lands it in poll()
        // and once one packet of this run waits, the later ones wait behind it: a counter add must
        // never overtake the data it counts
        boolean landable = (!put || ownerMemoryAccessible()) && !holding(now);
        if (epoch == now && !nic.idle() && landable) {
            return land(source, buffer, offset, data, dataOffset, length, counter, value, put);
        }
        if (epoch == now + 1 || (epoch == now && !nic.idle())) {
            // a peer is a run ahead of this rank: keep the packet for the start of that run
            Held h = heldFree.isEmpty() ? new Held() : heldFree.poll();
            if (h.data.length < length) {
                h.data = new byte[length];
                h.segment = MemorySegment.ofArray(h.data);
            }
            MemorySegment.copy(data, dataOffset, h.segment, 0, length);
            h.source = source;
            h.buffer = buffer;
            h.offset = offset;
            h.length = length;
            h.counter = counter;
            h.value = value;
            h.epoch = epoch;
            h.put = put;
            held.add(h);
            engine.counters().offload(Counters.OFFLOAD_HELD);
            return true;
        }
        return false;
    }

    private boolean land(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length,
                         int counter, long value, boolean put) {
        if (!put) {
            nic.onRemoteAdd(counter, value);
            engine.counters().offload(Counters.OFFLOAD_LANDED_ADDS);
            return true;
        }
        if (buffer == DESCRIPTOR) {
            if (length != ReductionDescriptor.SIZE) {
                return false;
            }
            nic.onDescriptor(data, dataOffset);
            engine.counters().offload(Counters.OFFLOAD_LANDED_DESCRIPTORS);
            return true;
        }
        MemorySegment region = buffer >= 0 && buffer < OffloadProgram.BUFFERS ? nic.memory(buffer) : null;
        if (region == null || offset < 0 || offset > region.byteSize() - length) {
            return false;
        }
        nic.onPut(data, dataOffset, length, (byte) buffer, offset, counter, value);
        engine.counters().offload(Counters.OFFLOAD_LANDED_PUTS);
        return true;
    }

    // ------------------------------------------------------------------ departures (OffloadEngine.Port)

    @Override
    public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf, long roff,
                    int counter, long add, int arrival) {
        int dest = group[peer];
        if (direct != null && direct[peer]) {
            write(peer, src, off, (int) len, roff, counter, add, epoch);
            return;
        }
        int max = engine.maxPut(dest);
        // longer than one packet: the counter add rides on the last piece, which arrives last
        long at = 0;
        do {
            int n = (int) Math.min(max, len - at);
            boolean last = at + n == len;
            send(dest, rbuf, roff + at, src, off + at, n, counter, last ? add : 0, epoch, true);
            at += n;
        } while (at < len);
    }

    @Override
    public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
        if (direct != null && direct[peer]) {
            write(peer, MemorySegment.NULL, 0, 0, 0, counter, value, epoch);
            return;
        }
        send(group[peer], 0, 0, MemorySegment.NULL, 0, 0, counter, value, epoch, false);
    }

    /** Into {@code peer}'s area now, or, while it has not mapped it or older operations wait, in order later. */
    private void write(int peer, MemorySegment src, long off, int len, long roff, int counter, long add, long epoch) {
        if (outbound.isEmpty() && tryWrite(peer, src, off, len, roff, counter, add, epoch)) {
            return;
        }
        byte[] copy = new byte[len];
        MemorySegment.copy(src, off, MemorySegment.ofArray(copy), 0, len);
        outbound.add(new Outbound(group[peer], OffloadProgram.TEMP_BUFFER, roff, copy, counter, add, epoch, true,
                peer));
        engine.counters().offload(Counters.OFFLOAD_QUEUED);
    }

    /**
     * Copies {@code len} bytes into parity {@code epoch & 1} of {@code peer}'s temporary buffer at
     * {@code roff}, then adds {@code add} to its counter (volatile: the data is visible to whoever sees
     * the level) and wakes the peer. False while the peer has not created its area.
     */
    private boolean tryWrite(int peer, MemorySegment src, long off, int len, long roff, int counter, long add,
                             long epoch) {
        Peer p = peers[peer];
        if (p == null) {
            MemorySegment s = engine.mapShared(OffloadAreaDescriptor.fileName(context, tag, group[peer]), arena);
            if (s == null) {
                return false;
            }
            OffloadArea a = new OffloadArea(s);
            p = new Peer(a, countersOf(a));
            peers[peer] = p;
        }
        OffloadArea a = p.area();
        if (counter < 0 || counter >= a.counters() || roff < 0 || roff > a.tempBytes() - len) {
            throw new TuttiException.InvalidArgument("rank " + peer + "'s offloaded " + nic.program().name()
                    + " has " + a.counters() + " counters and " + a.tempBytes() + " bytes of temp, where this rank's"
                    + " program writes counter " + counter + " and bytes " + roff + ".." + (roff + len) + ": every"
                    + " rank must make the same offloaded init with matching counts and datatype");
        }
        int parity = (int) (epoch & 1);
        if (len > 0) {
            Memory.copy(src, off, a.via(), a.tempAt(parity) + roff, len);
        }
        if (add != 0) {
            p.counters()[parity][counter].add(add);
        }
        engine.wakeLocal(group[peer]);
        return true;
    }

    @Override
    public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
        // the counter the descriptor adds to is inside it (CP flag)
        send(group[peer], DESCRIPTOR, 0, d, at, ReductionDescriptor.SIZE, 0, 0, nic.epoch(), true);
    }

    private void send(int dest, int buffer, long offset, MemorySegment src, long srcOffset, int length, int counter,
                      long add, long epoch, boolean put) {
        if (outbound.isEmpty() && (put
                ? engine.tryPut(dest, context, tag, buffer, offset, src, srcOffset, length, counter, add, epoch)
                : engine.tryRemoteAdd(dest, context, tag, counter, add, epoch))) {
            return;
        }
        byte[] copy = new byte[length];
        MemorySegment.copy(src, srcOffset, MemorySegment.ofArray(copy), 0, length);
        outbound.add(new Outbound(dest, buffer, offset, copy, counter, add, epoch, put, -1));
        engine.counters().offload(Counters.OFFLOAD_QUEUED);
    }

    private void flush() {
        Outbound o;
        while ((o = outbound.peek()) != null) {
            boolean sent = o.peer() >= 0
                    ? tryWrite(o.peer(), MemorySegment.ofArray(o.data()), 0, o.data().length, o.offset(), o.counter(),
                            o.add(), o.epoch())
                    : o.put()
                    ? engine.tryPut(o.dest(), context, tag, o.buffer(), o.offset(), MemorySegment.ofArray(o.data()), 0,
                            o.data().length, o.counter(), o.add(), o.epoch())
                    : engine.tryRemoteAdd(o.dest(), context, tag, o.counter(), o.add(), o.epoch());
            if (!sent) {
                return;
            }
            outbound.poll();
        }
    }
}
