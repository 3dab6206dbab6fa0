package io.tutti.offload;

import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import io.tutti.p2p.OffloadEndpoint;
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

    private record Outbound(int dest, int buffer, long offset, byte[] data, int counter, long add, long epoch,
                            boolean put) {
    }

    /**
     * @param program this rank's program (communicator ranks)
     * @param send    the user's send buffer (null if the program has none)
     * @param recv    the user's receive buffer (null if the program has none)
     * @param context the communicator's collective context
     * @param tag     the same on every rank for this collective: tells its packets apart
     * @param group   communicator rank to world rank
     */
    public OffloadedCollective(Engine engine, OffloadProgram program, MemorySegment send, MemorySegment recv,
                               int context, int tag, int[] group) {
        this.engine = engine;
        this.context = context;
        this.tag = tag;
        this.group = group;
        MemorySegment[] memory = new MemorySegment[OffloadProgram.BUFFERS];
        memory[OffloadProgram.SEND_BUFFER] = send;
        memory[OffloadProgram.RECV_BUFFER] = recv;
        for (int id : new int[] {OffloadProgram.TEMP_BUFFER, OffloadProgram.ACC_BUFFER}) {
            long bytes = program.bufferBytes(id);
            memory[id] = bytes == 0 ? MemorySegment.NULL : arena.allocate(bytes, 16);
        }
        for (int id : new int[] {OffloadProgram.SEND_BUFFER, OffloadProgram.RECV_BUFFER}) {
            long need = program.bufferBytes(id);
            if (need > 0 && (memory[id] == null || memory[id].byteSize() < need)) {
                arena.close();
                throw new TuttiException.InvalidArgument(program.name() + " needs a buffer of " + need + " bytes"
                        + (memory[id] == null ? "" : ", got " + memory[id].byteSize()));
            }
        }
        Counter[] counters = new Counter[program.counters()];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new Counter();
        }
        this.nic = new OffloadEngine(program, counters, memory, this, null);
        engine.register(context, tag, this);
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
            return true;
        }
        return false;
    }

    private boolean land(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length,
                         int counter, long value, boolean put) {
        if (!put) {
            nic.onRemoteAdd(counter, value);
            return true;
        }
        if (buffer == DESCRIPTOR) {
            if (length != ReductionDescriptor.SIZE) {
                return false;
            }
            nic.onDescriptor(data, dataOffset);
            return true;
        }
        MemorySegment region = buffer >= 0 && buffer < OffloadProgram.BUFFERS ? nic.memory(buffer) : null;
        if (region == null || offset < 0 || offset > region.byteSize() - length) {
            return false;
        }
        nic.onPut(data, dataOffset, length, (byte) buffer, offset, counter, value);
        return true;
    }

    // ------------------------------------------------------------------ departures (OffloadEngine.Port)

    @Override
    public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf, long roff,
                    int counter, long add, int arrival) {
        int dest = group[peer];
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
        send(group[peer], 0, 0, MemorySegment.NULL, 0, 0, counter, value, epoch, false);
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
        outbound.add(new Outbound(dest, buffer, offset, copy, counter, add, epoch, put));
    }

    private void flush() {
        Outbound o;
        while ((o = outbound.peek()) != null) {
            boolean sent = o.put()
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
