package io.tutti.offload;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Runs N ranks' {@link OffloadProgram}s in one thread, with a network whose delivery order is drawn
 * from a seed, and fails on anything the real engine could trip over:
 *
 * <ul>
 *   <li>an entry that fires early: before the arrivals it {@linkplain OffloadProgram#need needs}
 *       have landed (the thresholds are meant to guarantee it; this checks that they do, against
 *       arrival numbers the compiler derived from the schedule's dependencies, not from the
 *       thresholds);</li>
 *   <li>an entry that never fires: the network is empty and some rank has not completed;</li>
 *   <li>a packet that lands twice, out of range, or for a run its target already completed or is
 *       two runs behind.</li>
 * </ul>
 *
 * The network delivers packets between one pair of ranks in order (as the transport's links do:
 * [water-tank]'s RTE relies on landing after its DAT, and a single-source rank counts its parent's
 * segments), and packets of different pairs in any order. Ranks start at random moments; with
 * several runs, each rank starts its next run at a random moment after completing one, and a packet
 * of a run its target has not started yet is held back until it does (as the runtime must, by the
 * packet's epoch).
 *
 * <p>Not thread-safe; reusable across {@link #run} calls. Packets are pooled, so a long run of
 * back-to-back starts allocates only while the pool grows.
 */
public final class OffloadHarness {
    /** Why a run failed. */
    public static final class Failure extends AssertionError {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /** Told when a rank starts and completes a run (1-based), e.g. to check results in between. */
    public interface Observer {
        default void started(int rank, int run) {
        }

        default void completed(int rank, int run) {
        }
    }

    private static final byte P_PUT = 1;
    private static final byte P_ADD = 2;
    private static final byte P_DESC = 3;

    private static final class Packet {
        byte kind;
        int from;
        int to;
        int epoch;
        int arrival;
        byte rbuf;
        long roff;
        int counter;
        long add;
        long len;
        MemorySegment data = MemorySegment.NULL;
    }

    private static final class Channel {
        final ArrayDeque<Packet> queue = new ArrayDeque<>();
        boolean busy;
    }

    private final int n;
    private final OffloadProgram[] programs;
    private final OffloadEngine[] engines;
    private final Counter[][] counters;
    private final MemorySegment[][] memory;
    private final Random random;
    private final Channel[] channels;
    private final List<Channel> busy = new ArrayList<>();
    private final ArrayDeque<Packet> pool = new ArrayDeque<>();
    private final List<ArrayDeque<Packet>> held = new ArrayList<>();
    private final boolean[][] delivered;
    private final int[][] prefix;
    private final int[] pendingStart;
    private final long[] base;
    private final long[] notified;
    private int pendingCount;
    private long packets;
    private long heldBack;

    /** Allocates every rank's buffers (zeroed) and counters; {@code seed} draws every order. */
    public OffloadHarness(OffloadProgram[] programs, long seed) {
        if (programs.length > 4096) {
            throw new IllegalArgumentException("the harness keeps a channel per ordered pair: at most 4096 ranks");
        }
        this.n = programs.length;
        this.programs = programs;
        this.random = new Random(seed);
        this.engines = new OffloadEngine[n];
        this.counters = new Counter[n][];
        this.memory = new MemorySegment[n][];
        this.delivered = new boolean[n][];
        this.prefix = new int[n][];
        this.pendingStart = new int[n];
        this.channels = new Channel[n * n];
        this.base = new long[n];
        this.notified = new long[n];
        Arena arena = Arena.ofAuto();
        for (int r = 0; r < n; r++) {
            OffloadProgram p = programs[r];
            if (p.rank() != r || p.size() != n) {
                throw new IllegalArgumentException("program " + r + " is for rank " + p.rank() + " of " + p.size());
            }
            counters[r] = new Counter[p.counters()];
            for (int c = 0; c < counters[r].length; c++) {
                counters[r][c] = new Counter();
            }
            memory[r] = new MemorySegment[OffloadProgram.BUFFERS];
            for (int b = 0; b < OffloadProgram.BUFFERS; b++) {
                memory[r][b] = arena.allocate(Math.max(1, p.bufferBytes(b)), 8);
            }
            delivered[r] = new boolean[p.arrivals()];
            prefix[r] = new int[p.counters()];
            held.add(new ArrayDeque<>());
            engines[r] = new OffloadEngine(p, counters[r], memory[r], new Net(), this::check);
        }
    }

    /** Rank {@code rank}'s buffer {@code id}, to fill inputs and read results. */
    public MemorySegment memory(int rank, int id) {
        return memory[rank][id];
    }

    /** Rank {@code rank}'s counter {@code c}. */
    public Counter counter(int rank, int c) {
        return counters[rank][c];
    }

    /** Rank {@code rank}'s engine. */
    public OffloadEngine engine(int rank) {
        return engines[rank];
    }

    /** Packets delivered so far. */
    public long packets() {
        return packets;
    }

    /** Packets that landed before their target started their run and were held back. */
    public long heldBack() {
        return heldBack;
    }

    /** One run of every rank. */
    public void run() {
        run(1, null);
    }

    /**
     * {@code runs} back-to-back runs of every rank's program (each rank restarts when its own run
     * completes, at a random moment); returns when every rank completed them all and the network is
     * empty, or throws {@link Failure}.
     */
    public void run(int runs, Observer observer) {
        long target = engines[0].completedRuns() + runs;
        pendingCount = 0;
        for (int r = 0; r < n; r++) {
            base[r] = engines[r].completedRuns();
            notified[r] = base[r];
            if (!engines[r].idle()) {
                throw new IllegalStateException("rank " + r + " is still running");
            }
            pendingStart[pendingCount++] = r;
        }
        while (true) {
            int choices = busy.size() + pendingCount;
            if (choices == 0) {
                break;
            }
            int pick = random.nextInt(choices);
            if (pick < pendingCount) {
                int r = pendingStart[pick];
                pendingStart[pick] = pendingStart[--pendingCount];
                start(r, observer);
                afterProgress(r, target, observer);
            } else {
                int ci = pick - pendingCount;
                Channel ch = busy.get(ci);
                Packet pk = ch.queue.poll();
                if (ch.queue.isEmpty()) {
                    ch.busy = false;
                    busy.set(ci, busy.getLast());
                    busy.removeLast();
                }
                arrive(pk, target, observer);
            }
        }
        StringBuilder stuck = new StringBuilder();
        for (int r = 0; r < n; r++) {
            if (engines[r].completedRuns() != base[r] + runs) {
                OffloadEngine e = engines[r];
                OffloadProgram p = programs[r];
                stuck.append(String.format("%n  rank %d completed %d of %d runs;", r, e.completedRuns() - base[r], runs));
                for (int c = 0; c < p.counters(); c++) {
                    int i = e.cursor(c);
                    if (i < p.counterStart[c + 1]) {
                        stuck.append(String.format(" entry %d (%s, Th %d) never fires: counter %d stays at %d,"
                                + " arrivals landed %s", i, OffloadProgram.opName(p.op[i]), p.threshold[i], c,
                                counters[r][c].level(), landed(r)));
                    }
                }
            }
            if (!held.get(r).isEmpty()) {
                stuck.append(String.format("%n  rank %d: %d packets held back for a run it never started", r,
                        held.get(r).size()));
            }
        }
        if (!stuck.isEmpty()) {
            throw new Failure("offloaded " + programs[0].name() + " of " + n + " ranks is stuck:" + stuck);
        }
    }

    private void start(int r, Observer observer) {
        OffloadEngine e = engines[r];
        if (observer != null) {
            observer.started(r, (int) (e.completedRuns() - base[r] + 1));
        }
        java.util.Arrays.fill(delivered[r], false);
        java.util.Arrays.fill(prefix[r], 0);
        e.start();
        // packets of this run that landed early
        ArrayDeque<Packet> h = held.get(r);
        int k = h.size();
        for (int i = 0; i < k; i++) {
            Packet pk = h.poll();
            if (pk.epoch == e.epoch()) {
                land(pk);
            } else {
                h.add(pk);
            }
        }
        e.progress();
    }

    private void arrive(Packet pk, long target, Observer observer) {
        OffloadEngine e = engines[pk.to];
        int now = e.epoch();
        if (pk.epoch == now + 1) {
            heldBack++;
            held.get(pk.to).add(pk);
            return;
        }
        if (pk.epoch != now || e.idle()) {
            throw new Failure(String.format("rank %d got a %s packet of run %d from rank %d while %s run %d",
                    pk.to, pk.kind == P_PUT ? "PUT" : pk.kind == P_ADD ? "counter add" : "descriptor", pk.epoch,
                    pk.from, e.idle() ? "done with" : "in", now));
        }
        int to = pk.to; // land() returns the packet to the pool, and progress() may reuse it
        land(pk);
        e.progress();
        afterProgress(to, target, observer);
    }

    private void land(Packet pk) {
        OffloadEngine e = engines[pk.to];
        packets++;
        mark(pk.to, pk.arrival, pk.from);
        switch (pk.kind) {
            case P_PUT -> {
                MemorySegment dst = memory[pk.to][pk.rbuf];
                if (pk.roff < 0 || pk.roff + pk.len > dst.byteSize()) {
                    throw new Failure("PUT from rank " + pk.from + " to rank " + pk.to + " buffer " + pk.rbuf + " at "
                            + pk.roff + "+" + pk.len + " is outside its " + dst.byteSize() + " bytes");
                }
                e.onPut(pk.data, 0, pk.len, pk.rbuf, pk.roff, pk.counter, pk.add);
            }
            case P_ADD -> e.onRemoteAdd(pk.counter, pk.add);
            default -> {
                long before = e.rejected();
                e.onDescriptor(pk.data, 0);
                if (e.rejected() != before) {
                    throw new Failure("rank " + pk.to + " rejected a descriptor from rank " + pk.from);
                }
            }
        }
        pool.add(pk);
    }

    private void afterProgress(int r, long target, Observer observer) {
        OffloadEngine e = engines[r];
        long run = e.completedRuns();
        if (e.idle() && run > notified[r]) {
            notified[r] = run;
            if (observer != null) {
                observer.completed(r, (int) (run - base[r]));
            }
            if (run < base[r] + (target - base[0]) && !isPending(r)) {
                pendingStart[pendingCount++] = r;
            }
        }
    }

    private boolean isPending(int r) {
        for (int i = 0; i < pendingCount; i++) {
            if (pendingStart[i] == r) {
                return true;
            }
        }
        return false;
    }

    private void mark(int r, int arrival, int from) {
        if (arrival < 0) {
            return;
        }
        boolean[] d = delivered[r];
        if (arrival >= d.length) {
            throw new Failure("rank " + r + " got arrival " + arrival + " from rank " + from + " but expects only "
                    + d.length);
        }
        if (d[arrival]) {
            throw new Failure("rank " + r + " got arrival " + arrival + " twice (the second from rank " + from + ")");
        }
        d[arrival] = true;
        OffloadProgram p = programs[r];
        for (int c = 0; c < p.counters(); c++) {
            int start = p.arrivalStart(c);
            int end = p.arrivalStart(c + 1);
            while (start + prefix[r][c] < end && d[start + prefix[r][c]]) {
                prefix[r][c]++;
            }
        }
    }

    private String landed(int r) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < delivered[r].length; i++) {
            if (delivered[r][i]) {
                sb.append(sb.length() > 1 ? "," : "").append(i);
            }
        }
        return sb.append('}').toString();
    }

    private void check(OffloadEngine e, int entry, long level) {
        OffloadProgram p = e.program();
        int r = p.rank();
        int need = p.need(entry);
        int c = p.counter(entry);
        if (prefix[r][c] < need) {
            int from = p.arrivalStart(c);
            throw new Failure(String.format("rank %d entry %d (%s, Th %d) fired early at level %d: it needs arrivals"
                    + " %d..%d, landed %s", r, entry, OffloadProgram.opName(p.op[entry]), p.threshold[entry], level,
                    from, from + need - 1, landed(r)));
        }
    }

    private Packet packet(byte kind, int from, int to, int arrival, long len) {
        Packet pk = pool.poll();
        if (pk == null) {
            pk = new Packet();
        }
        pk.kind = kind;
        pk.from = from;
        pk.to = to;
        pk.epoch = engines[from].epoch();
        pk.arrival = arrival;
        pk.len = len;
        if (pk.data.byteSize() < len) {
            pk.data = Arena.ofAuto().allocate(Math.max(len, ReductionDescriptor.SIZE), 8);
        }
        return pk;
    }

    private void send(Packet pk) {
        if (pk.to < 0 || pk.to >= n) {
            throw new Failure("rank " + pk.from + " sends to rank " + pk.to + " of " + n);
        }
        int key = pk.from * n + pk.to;
        Channel ch = channels[key];
        if (ch == null) {
            ch = new Channel();
            channels[key] = ch;
        }
        ch.queue.add(pk);
        if (!ch.busy) {
            ch.busy = true;
            busy.add(ch);
        }
    }

    private final class Net implements OffloadEngine.Port {
        @Override
        public void put(int from, int peer, int epoch, MemorySegment src, long off, long len, byte rbuf, long roff,
                        int counter, long add, int arrival) {
            Packet pk = packet(P_PUT, from, peer, arrival, len);
            if (len > 0) {
                MemorySegment.copy(src, off, pk.data, 0, len);
            }
            pk.rbuf = rbuf;
            pk.roff = roff;
            pk.counter = counter;
            pk.add = add;
            send(pk);
        }

        @Override
        public void remoteAdd(int from, int peer, int epoch, int counter, long value, int arrival) {
            Packet pk = packet(P_ADD, from, peer, arrival, 0);
            pk.counter = counter;
            pk.add = value;
            send(pk);
        }

        @Override
        public void descriptor(int from, int peer, MemorySegment d, long at, int arrival) {
            Packet pk = packet(P_DESC, from, peer, arrival, ReductionDescriptor.SIZE);
            MemorySegment.copy(d, at, pk.data, 0, ReductionDescriptor.SIZE);
            send(pk);
        }
    }
}
