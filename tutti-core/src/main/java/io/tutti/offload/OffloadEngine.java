package io.tutti.offload;

import io.tutti.metrics.Counters;
import io.tutti.reduce.OffloadAlu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Runs one rank's {@link OffloadProgram}: the software NIC. {@link #progress()} fires every entry
 * whose counter has reached its threshold, in threshold order (equal thresholds in posting order),
 * and hands what leaves the rank to a {@link Port}. The arrival side ({@link #onPut},
 * {@link #onRemoteAdd}, {@link #onDescriptor}) is what the transport calls when a packet of this
 * program lands.
 *
 * <p>Threads: {@link #start()} and {@link #progress()} run on one thread (the progress agent). The
 * arrival methods run on one arrival thread, which may be another one: they write data, then add
 * to a {@link Counter} (a volatile read-modify-write), and {@link #progress()} reads the counter
 * with acquire semantics before touching that data. {@link #completedRuns()} may be read from any
 * thread (acquire). Packets of the next run that land before this rank's {@link #start()} must be
 * held back by the caller and delivered after it (their epoch, {@link #epoch()} + 1, tells them
 * apart); a peer is never more than one run ahead for the patterns the compiler emits, except for a
 * persistent reduce (see the report of {@code OffloadHarness}).
 *
 * <p>An engine may keep two sets of counters and buffers and use set {@code epoch & 1} for each run
 * (the sets of a node's offload area, see {@code OffloadAreaDescriptor}): then a peer that writes
 * straight into this rank's counters and temporary buffer for the next run lands in the other set,
 * and nothing needs to be held back. The arrival methods then use the set of the current run, so
 * they must run on the progress thread or under a lock shared with it.
 *
 * <p>Firing allocates nothing: descriptors are encoded into one scratch segment the port must
 * consume before it returns.
 */
public final class OffloadEngine {
    /** Where fired entries go: the transport, the in-process harness or the simulator. */
    public interface Port {
        /**
         * A PUT: {@code len} bytes of {@code src} at {@code off} to {@code peer}'s buffer
         * {@code rbuf} at {@code roff}; on landing, after the data, counter {@code counter} of the
         * peer gains {@code add} (nothing if 0). {@code arrival} is checking metadata.
         */
        void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf, long roff,
                 int counter, long add, int arrival);

        /** A REMOTE_CNTR_ADD packet: counter {@code counter} of {@code peer} gains {@code value}. */
        void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival);

        /** A reduction or broadcast descriptor ({@link ReductionDescriptor#SIZE} bytes at {@code at}). */
        void descriptor(int from, int peer, MemorySegment d, long at, int arrival);
    }

    /** Told of every fired entry, before it runs (checkers and the simulator's timing). */
    public interface Tracer {
        void fired(OffloadEngine engine, int entry, long level);
    }

    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(OffloadEngine.class, "completed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final OffloadProgram p;
    /** Per set: the counters and the buffers; run {@code e} uses set {@code e % sets}. */
    private final Counter[][] counterSets;
    private final MemorySegment[][] memorySets;
    /** The current run's set. */
    private Counter[] counters;
    private MemorySegment[] memory;
    private final Port port;
    private final Tracer tracer;
    private final int[] cursor;
    private final int[] rcnt;
    private final MemorySegment scratch = Arena.ofAuto().allocate(ReductionDescriptor.SIZE, 8);
    /** Where fired entries are counted by operation ({@link #countInto}); null: nowhere. */
    private Counters metrics;
    private int epoch;
    private boolean running;
    private long rejected;
    @SuppressWarnings("unused") // through COMPLETED
    private volatile long completed;

    /**
     * @param memory the program's buffers by id ({@link OffloadProgram#SEND_BUFFER} ...), each at
     *               least {@link OffloadProgram#bufferBytes} long (null where the program uses none)
     * @param tracer null in production
     */
    public OffloadEngine(OffloadProgram program, Counter[] counters, MemorySegment[] memory, Port port, Tracer tracer) {
        this(program, new Counter[][] {counters}, new MemorySegment[][] {memory}, port, tracer);
    }

    /**
     * An engine with one or two sets of counters and buffers, each as in the other constructor; run
     * {@code e} uses set {@code e % sets}.
     */
    public OffloadEngine(OffloadProgram program, Counter[][] counterSets, MemorySegment[][] memorySets, Port port,
                         Tracer tracer) {
        if (counterSets.length < 1 || counterSets.length > 2 || memorySets.length != counterSets.length) {
            throw new IllegalArgumentException("need one or two sets of counters and as many of buffers, got "
                    + counterSets.length + " and " + memorySets.length);
        }
        for (int k = 0; k < counterSets.length; k++) {
            Counter[] counters = counterSets[k];
            MemorySegment[] memory = memorySets[k];
            if (counters.length < program.counters) {
                throw new IllegalArgumentException("program uses " + program.counters + " counters, got "
                        + counters.length);
            }
            for (int i = 0; i < OffloadProgram.BUFFERS; i++) {
                long need = program.bufferBytes[i];
                if (need > 0 && (i >= memory.length || memory[i] == null || memory[i].byteSize() < need)) {
                    throw new IllegalArgumentException("buffer " + i + " must hold " + need + " bytes");
                }
            }
        }
        this.p = program;
        this.counterSets = counterSets;
        this.memorySets = memorySets;
        // before the first start, arrivals of run 1 are held by the caller; the set of run 1 is the right one
        this.counters = counterSets[1 % counterSets.length];
        this.memory = memorySets[1 % memorySets.length];
        this.port = port;
        this.tracer = tracer;
        this.cursor = new int[program.counters];
        long acc = program.bufferBytes[OffloadProgram.ACC_BUFFER];
        this.rcnt = new int[(int) ((acc + ReductionDescriptor.PAYLOAD - 1) / ReductionDescriptor.PAYLOAD)];
    }

    public OffloadProgram program() {
        return p;
    }

    /**
     * Counts every fired entry by operation into the rank's counters ({@link Counters#offloadFired}):
     * only for an engine whose progress runs under the rank's engine, the counters' one writer.
     */
    public void countInto(Counters counters) {
        this.metrics = counters;
    }

    /** Counter {@code i} of the current run's set (the arrival path adds to it). */
    public Counter counter(int i) {
        return counters[i];
    }

    /** Buffer {@code id} of the current run's set. */
    public MemorySegment memory(int id) {
        return memory[id];
    }

    /** Runs started so far; packets carry it. Progress thread only. */
    public int epoch() {
        return epoch;
    }

    /** Runs completed so far (acquire); a run is complete when its COMPLETE entry fired. */
    public long completedRuns() {
        return (long) COMPLETED.getAcquire(this);
    }

    /** Whether the current run has completed (progress thread). */
    public boolean idle() {
        return !running;
    }

    /** The next entry of counter {@code c} that has not fired (progress thread; for reports of a stuck run). */
    public int cursor(int c) {
        return cursor[c];
    }

    /**
     * Descriptors dropped because their operation, type, part or counter did not fit the program
     * (arrival thread's count; read it there or after the run).
     */
    public long rejected() {
        return rejected;
    }

    /**
     * Arms the program for the next run and fires what is ready at once. The previous run must have
     * completed, and the counters must be back at the level the wrap left (0 plus whatever packets of
     * this run the caller already delivered). Progress thread; resets the Rcnt registers with plain
     * writes, which is safe because no packet of this run is delivered before this call returns.
     */
    public int start() {
        if (running) {
            throw new IllegalStateException("rank " + p.rank + ": start before the previous run completed");
        }
        running = true;
        epoch++;
        counters = counterSets[epoch % counterSets.length];
        memory = memorySets[epoch % memorySets.length];
        for (int c = 0; c < cursor.length; c++) {
            cursor[c] = p.counterStart[c];
        }
        java.util.Arrays.fill(rcnt, 0);
        return progress();
    }

    /**
     * Read-only: whether {@link #progress()} would fire an entry now (a waiting rank asks it before it
     * sleeps). Progress thread; acquire loads of the counters.
     */
    public boolean ready() {
        if (!running) {
            return false;
        }
        for (int c = 0; c < cursor.length; c++) {
            int i = cursor[c];
            if (i < p.counterStart[c + 1] && counters[c].level() >= p.threshold[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Fires every entry whose threshold its counter has reached; returns how many fired. Progress
     * thread; each counter is read with acquire semantics, so the data of every arrival counted in
     * the level is visible to the entries that fire on it.
     */
    public int progress() {
        if (!running) {
            return 0;
        }
        int fired = 0;
        for (int c = 0; c < cursor.length; c++) {
            int end = p.counterStart[c + 1];
            Counter ct = counters[c];
            while (cursor[c] < end) {
                long level = ct.level();
                int i = cursor[c];
                if (level < p.threshold[i]) {
                    break;
                }
                cursor[c] = i + 1;
                if (tracer != null) {
                    tracer.fired(this, i, level);
                }
                if (metrics != null) {
                    metrics.offloadFired(p.op[i]);
                }
                fire(i);
                fired++;
            }
        }
        return fired;
    }

    private void fire(int i) {
        OffloadProgram q = p;
        switch (q.op[i]) {
            case OffloadProgram.PUT -> port.put(q.rank, q.peer[i], epoch, memory[q.buffer[i]], q.offset[i], q.length[i],
                    q.remoteBuffer[i], q.remoteOffset[i], q.targetCounter[i], q.value[i], q.arrival[i]);
            case OffloadProgram.CNTR_ADD -> counters[q.targetCounter[i]].add(q.value[i]);
            case OffloadProgram.REMOTE_CNTR_ADD -> port.remoteAdd(q.rank, q.peer[i], epoch, q.targetCounter[i],
                    q.value[i], q.arrival[i]);
            case OffloadProgram.NIC_REDUCE -> nicReduce(i);
            case OffloadProgram.TRIGGERED_BCAST -> descriptors(i, false, memory[q.buffer[i]], q.offset[i]);
            case OffloadProgram.COPY -> MemorySegment.copy(memory[q.srcBuffer[i]], q.srcOffset[i], memory[q.buffer[i]],
                    q.offset[i], q.length[i]);
            case OffloadProgram.REDUCE -> OffloadAlu.apply(q.aluOp, q.aluType, memory[q.buffer[i]], q.offset[i],
                    memory[q.srcBuffer[i]], q.srcOffset[i], q.length[i]);
            case OffloadProgram.COMPLETE -> {
                running = false;
                COMPLETED.setRelease(this, (long) COMPLETED.get(this) + 1);
            }
            default -> throw new IllegalStateException("unknown operation " + q.op[i]);
        }
    }

    // own data into the accumulator: copied where no input arrived (a leaf), else combined
    private void nicReduce(int i) {
        OffloadProgram q = p;
        MemorySegment acc = memory[OffloadProgram.ACC_BUFFER];
        MemorySegment own = memory[q.buffer[i]];
        long len = q.length[i];
        for (long at = 0; at < len; at += ReductionDescriptor.PAYLOAD) {
            int part = (int) (at / ReductionDescriptor.PAYLOAD);
            long n = Math.min(ReductionDescriptor.PAYLOAD, len - at);
            if (rcnt[part] == 0) {
                MemorySegment.copy(own, q.offset[i] + at, acc, q.srcOffset[i] + at, n);
            } else {
                OffloadAlu.apply(q.aluOp, q.aluType, acc, q.srcOffset[i] + at, own, q.offset[i] + at, n);
            }
            rcnt[part]++;
        }
        if (q.peer[i] >= 0) {
            descriptors(i, true, acc, q.srcOffset[i]);
        }
    }

    private void descriptors(int i, boolean reduce, MemorySegment src, long off) {
        OffloadProgram q = p;
        long len = q.length[i];
        int parts = ReductionDescriptor.parts(len);
        for (int part = 0; part < parts; part++) {
            long at = (long) part * ReductionDescriptor.PAYLOAD;
            int n = (int) Math.min(ReductionDescriptor.PAYLOAD, len - at);
            ReductionDescriptor.encode(scratch, 0, reduce, epoch, q.aluOp, q.aluType, q.branch[i], q.rank, part, n,
                    q.targetCounter[i], (int) Math.min(q.threshold[i], ReductionDescriptor.MAX_CPCNT), src, off + at);
            port.descriptor(q.rank, q.peer[i], scratch, 0, q.arrival[i] < 0 ? -1 : q.arrival[i] + part);
        }
    }

    // ---------------------------------------------------------------- arrival path

    /**
     * A PUT landed: copies its data into buffer {@code rbuf} at {@code roff}, then adds {@code add}
     * to counter {@code counter} (volatile: the data is visible to whoever sees the new level).
     * Arrival thread.
     */
    public void onPut(MemorySegment data, long off, long len, byte rbuf, long roff, int counter, long add) {
        if (len > 0) {
            MemorySegment.copy(data, off, memory[rbuf], roff, len);
        }
        if (add != 0) {
            counters[counter].add(add);
        }
    }

    /** A REMOTE_CNTR_ADD landed. Arrival thread; a volatile add. */
    public void onRemoteAdd(int counter, long value) {
        counters[counter].add(value);
    }

    /**
     * A descriptor landed: a reduction descriptor is accumulated into the accumulator at its part
     * (the first input of a run is stored, later ones combined, as [NIC-reduce]'s Rcnt register); a
     * broadcast descriptor is written to the receive buffer at its part. Then the counter gains 1
     * if its CP flag is set. A descriptor whose Rtype or Type differs from the program's is counted
     * in {@link #rejected()} and dropped. Arrival thread: the accumulator and Rcnt writes are plain
     * and are published by the counter's volatile add that follows them.
     */
    public void onDescriptor(MemorySegment d, long at) {
        if (ReductionDescriptor.counter(d, at) >= counters.length) {
            rejected++;
            return;
        }
        int part = ReductionDescriptor.part(d, at);
        int n = ReductionDescriptor.count(d, at);
        long dst = (long) part * ReductionDescriptor.PAYLOAD;
        if (ReductionDescriptor.reduce(d, at)) {
            if (p.aluOp == null || ReductionDescriptor.rtype(d, at) != p.aluOp.ordinal()
                    || ReductionDescriptor.type(d, at) != p.aluType.ordinal() || part >= rcnt.length) {
                rejected++;
                return;
            }
            MemorySegment acc = memory[OffloadProgram.ACC_BUFFER];
            if (rcnt[part]++ == 0) {
                MemorySegment.copy(d, at + ReductionDescriptor.DATA_OFFSET, acc, dst, n);
            } else {
                OffloadAlu.apply(p.aluOp, p.aluType, acc, dst, d, at + ReductionDescriptor.DATA_OFFSET, n);
            }
        } else {
            MemorySegment recv = memory[OffloadProgram.RECV_BUFFER];
            if (recv == null || dst + n > recv.byteSize()) {
                rejected++;
                return;
            }
            MemorySegment.copy(d, at + ReductionDescriptor.DATA_OFFSET, recv, dst, n);
        }
        if (ReductionDescriptor.cp(d, at)) {
            counters[ReductionDescriptor.counter(d, at)].add(1);
        }
    }
}
