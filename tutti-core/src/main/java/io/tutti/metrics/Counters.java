package io.tutti.metrics;

import static io.tutti.metrics.CountersDescriptor.*;

import io.tutti.TuttiException;
import io.tutti.transport.RailCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The writing side of a rank's counters file ({@link CountersDescriptor}): one call per event on
 * the hot paths, a read of the owner's own last value and a release store, no allocation. The
 * owner's methods are called by whoever holds the engine (one thread at a time); the
 * {@link RailCounters} methods by the network transport's protocol thread. Off
 * ({@link CountersConfig#enabled()} false), every method returns at once.
 *
 * <p>Memory ordering: every cell is stored with {@code setRelease} by its one writer, so a reader
 * that loads a cell with acquire sees every earlier store of that writer (in {@link #sent} the
 * bytes before the count). The blocked call is a seqlock ({@link #block}, {@link #unblock}).
 */
public final class Counters implements RailCounters {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** What {@link #block} records as the call, in cell {@code BLOCKED_CALL}: these, or COLLECTIVE + operation. */
    public static final int NONE = 0;
    public static final int SEND = 1;
    public static final int RECV = 2;
    public static final int PROBE = 3;
    public static final int WAIT = 4;
    public static final int COLLECTIVE = 16;

    /** The error classes, in cell order: what {@link #error} counts. */
    public static final List<String> ERRORS = List.of("peer-failed", "truncation", "invalid-argument", "not-active",
            "other");
    public static final int PEER_FAILED = 0;
    public static final int TRUNCATION = 1;
    public static final int INVALID_ARGUMENT = 2;
    public static final int NOT_ACTIVE = 3;
    public static final int OTHER = 4;

    /**
     * The offload engine's counters, in cell order ({@link #offload}): offloaded collectives set up,
     * runs started, packets landed by kind, packets held for a run this rank has not started, fired
     * operations queued for want of room at the destination; then the deferred-work entries fired,
     * by operation ({@link #offloadFired}), named after the offload program's operation codes 1 to 8.
     */
    public static final List<String> OFFLOAD = List.of("collectives", "runs", "landed-puts", "landed-adds",
            "landed-descriptors", "held", "queued", "fired-put", "fired-cntr-add", "fired-remote-cntr-add",
            "fired-nic-reduce", "fired-triggered-bcast", "fired-copy", "fired-reduce", "fired-complete");
    public static final int OFFLOAD_COLLECTIVES = 0;
    public static final int OFFLOAD_RUNS = 1;
    public static final int OFFLOAD_LANDED_PUTS = 2;
    public static final int OFFLOAD_LANDED_ADDS = 3;
    public static final int OFFLOAD_LANDED_DESCRIPTORS = 4;
    public static final int OFFLOAD_HELD = 5;
    public static final int OFFLOAD_QUEUED = 6;
    /** The cell of the entries fired of operation code 1 (PUT); code c is at {@code OFFLOAD_FIRED + c - 1}. */
    public static final int OFFLOAD_FIRED = 7;

    /**
     * The in-network aggregation's counters, in cell order ({@link #inNetwork}): groups joined and
     * set-ups that fell back to the host algorithm (every rank of the communicator counts them), calls
     * the switches could not serve (host path), and the leader's data packets sent, of them sent
     * again, results received, results dropped for a wrong token, control requests sent again, and
     * transfers given up for want of an answer.
     */
    public static final List<String> IN_NETWORK = List.of("groups", "setup-fallbacks", "call-fallbacks",
            "packets-sent", "retransmits", "results-received", "wrong-token", "control-retries", "timeouts");
    public static final int INC_GROUPS = 0;
    public static final int INC_SETUP_FALLBACKS = 1;
    public static final int INC_CALL_FALLBACKS = 2;
    public static final int INC_PACKETS_SENT = 3;
    public static final int INC_RETRANSMITS = 4;
    public static final int INC_RESULTS_RECEIVED = 5;
    public static final int INC_WRONG_TOKEN = 6;
    public static final int INC_CONTROL_RETRIES = 7;
    public static final int INC_TIMEOUTS = 8;

    /** A collective operation and its algorithms, in the order of their cells. */
    public record Operation(String name, List<String> algorithms) {
        public Operation {
            algorithms = List.copyOf(algorithms);
            if (algorithms.isEmpty()) {
                throw new IllegalArgumentException("operation " + name + " needs at least one algorithm");
            }
        }
    }

    private final MemorySegment s;
    private final boolean on;
    private final long peers;
    private final long collectives;
    private final long offload;
    private final long inNetwork;
    private final long netTotals;
    private final long rails;
    private final long command;
    private final long answer;
    private final int size;
    private final int operations;
    /** Per peer: SHM or NET, set at start-up. */
    private final int[] transportOf;
    private final long startMillis;
    private final long startNanos;
    /** For the flight-recorder events. */
    private final String job;
    private final int rank;
    private final List<String> operationNames;
    /** The owner's coarse clock, epoch ms: advanced by {@link #tick} on slow paths, stamped on receipt. */
    private long clockMillis;
    /** The last-heard time stored per peer, so a message stores it only when the coarse clock moved. */
    private final long[] heardStored;
    private long blockedSeq;
    private int operation = -1;
    /** Per operation: the index of its first algorithm over all operations' algorithms. */
    private final int[] firstAlgorithm;
    /** Per algorithm (over all operations): blocking calls left before the next one is timed ({@link #startTimer}). */
    private final int[] untilTimed;

    private Counters(MemorySegment s, boolean on, String job, int rank, int size, List<Operation> operations) {
        this.s = s;
        this.on = on;
        this.job = job;
        this.rank = rank;
        this.size = size;
        this.operationNames = operations.stream().map(Operation::name).toList();
        this.operations = operations.size();
        this.firstAlgorithm = new int[this.operations + 1];
        for (int o = 0; o < this.operations; o++) {
            firstAlgorithm[o + 1] = firstAlgorithm[o] + operations.get(o).algorithms().size();
        }
        Shape shape = shape(size, operations);
        this.peers = shape.peersOffset();
        this.collectives = shape.collectivesOffset();
        this.offload = shape.offloadOffset();
        this.inNetwork = shape.inNetworkOffset();
        this.netTotals = shape.netTotalsOffset();
        this.rails = shape.railsOffset();
        this.command = shape.commandOffset();
        this.answer = shape.answerOffset();
        this.transportOf = new int[size];
        this.heardStored = new long[size];
        this.untilTimed = new int[firstAlgorithm[this.operations]];
        this.startMillis = System.currentTimeMillis();
        this.startNanos = System.nanoTime();
        this.clockMillis = startMillis;
    }

    /** The file's length for a job of {@code size} ranks and these collective operations. */
    public static long fileLength(int size, List<Operation> operations) {
        return shape(size, operations).fileLength();
    }

    private static Shape shape(int size, List<Operation> operations) {
        int algorithms = 0;
        for (Operation o : operations) {
            algorithms += o.algorithms().size();
        }
        return new Shape(ERRORS.size(), size, algorithms, OFFLOAD.size(), IN_NETWORK.size());
    }

    /**
     * Formats {@code s} (zeroed, {@link #fileLength} bytes) and returns its writer; the magic is
     * stored last, so a reader that sees it sees a formatted file.
     */
    public static Counters format(MemorySegment s, boolean on, String job, int rank, int size, long pid,
                                  List<Operation> operations) {
        Counters c = new Counters(s, on, job, rank, size, operations);
        s.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        s.set(ValueLayout.JAVA_INT, RANK_OFFSET, rank);
        s.set(ValueLayout.JAVA_INT, SIZE_OFFSET, size);
        s.set(ValueLayout.JAVA_INT, RAILS_OFFSET, MAX_RAILS);
        s.set(ValueLayout.JAVA_LONG, PID_OFFSET, pid);
        s.set(ValueLayout.JAVA_LONG, STARTED_OFFSET, c.startMillis);
        s.set(ValueLayout.JAVA_INT, ENABLED_OFFSET, on ? 1 : 0);
        putText(s, JOB_OFFSET, job, JOB_MAX_BYTES);
        StringBuilder labels = new StringBuilder();
        for (Operation op : operations) {
            labels.append("collective ").append(op.name()).append('\n');
            for (String a : op.algorithms()) {
                labels.append("algorithm ").append(a).append('\n');
            }
        }
        label(labels, "offload ", OFFLOAD);
        label(labels, "inc ", IN_NETWORK);
        label(labels, "error ", ERRORS);
        byte[] text = labels.toString().getBytes(StandardCharsets.UTF_8);
        if (text.length > LABELS_LENGTH - 4) {
            throw new IllegalArgumentException("the counters' labels take " + text.length + " bytes, the file has room"
                    + " for " + (LABELS_LENGTH - 4) + ": raise CountersDescriptor.LABELS_LENGTH");
        }
        putText(s, LABELS_OFFSET, labels.toString(), LABELS_LENGTH - 4);
        c.cellRelease(TRAFFIC_OFFSET, CLOCK_CELL, c.startMillis);
        LONG.setRelease(s, (long) MAGIC_OFFSET, MAGIC);
        if (on) {
            FlightEvents.recording(); // registers the recorder listener now, not in the first call that asks
        }
        return c;
    }

    /**
     * A writer that counts nothing, over private memory (no file): a rank with counting off. Its
     * {@link #snapshot()} names the rank and says {@code enabled} false.
     */
    public static Counters off(String job, int rank, int size, long pid, List<Operation> operations) {
        MemorySegment s = MemorySegment.ofArray(new long[(int) (fileLength(size, operations) / 8)]);
        return format(s, false, job, rank, size, pid, operations);
    }

    private static void label(StringBuilder labels, String kind, List<String> names) {
        for (String n : names) {
            labels.append(kind).append(n).append('\n');
        }
    }

    /** Writes {@code text} as an i32 length and UTF-8 bytes, cut to {@code max} bytes. */
    static void putText(MemorySegment s, long at, String text, int max) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, max);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, at + 4, n);
        INT.setRelease(s, at, n);
    }

    /** Whether counting is on. */
    public boolean enabled() {
        return on;
    }

    // ------------------------------------------------------------------ owner: traffic

    /** At start-up: whether {@code peer} is reached through the network. Owner thread. */
    public void transport(int peer, boolean network) {
        transportOf[peer] = network ? NET : SHM;
        if (on) {
            cellRelease(peers + (long) peer * PEER_CELLS * 8, TRANSPORT, transportOf[peer]);
        }
    }

    /** A send of {@code bytes} to {@code peer} started. Release stores, bytes before counts. Owner thread. */
    public void sent(int peer, long bytes) {
        if (on) {
            count(peer, MSGS_SENT, BYTES_SENT, bytes);
        }
    }

    /** A message of {@code bytes} arrived from {@code peer} (eager, or a rendezvous' RTS). Owner thread. */
    public void received(int peer, long bytes) {
        if (on) {
            count(peer, MSGS_RECEIVED, BYTES_RECEIVED, bytes);
            if (heardStored[peer] != clockMillis) {
                heardStored[peer] = clockMillis;
                cellRelease(peers + (long) peer * PEER_CELLS * 8, LAST_HEARD, clockMillis);
            }
        }
    }

    /**
     * Two cells of the peer's line, bytes before the count; the totals by transport are the reader's
     * sum over the peers, which halves the stores of a message (docs/perf/monitor.md).
     */
    private void count(int peer, int msgs, int bytesCell, long bytes) {
        long p = peers + (long) peer * PEER_CELLS * 8;
        add(p, bytesCell, bytes);
        add(p, msgs, 1);
    }

    /** A record was rejected by the engine's checks. Owner thread. */
    public void dropped() {
        if (on) {
            add(TRAFFIC_OFFSET, DROPPED_CELL, 1);
        }
    }

    /** An error of class {@code kind} ({@link #PEER_FAILED}, ...) is raised. Owner thread. */
    public void error(int kind) {
        if (on) {
            add(ERRORS_OFFSET, kind, 1);
        }
    }

    /** An error is raised to the program: counted under its class. Owner thread. */
    public void error(RuntimeException e) {
        error(e instanceof TuttiException.PeerFailed ? PEER_FAILED
                : e instanceof TuttiException.Truncation ? TRUNCATION
                : e instanceof TuttiException.InvalidArgument ? INVALID_ARGUMENT
                : e instanceof TuttiException.NotActive ? NOT_ACTIVE : OTHER);
    }

    /** Advances the owner's coarse clock to {@code nanoTime} (a reading the caller has anyway). Owner thread. */
    public void tick(long nanoTime) {
        if (on) {
            clockMillis = startMillis + (nanoTime - startNanos) / 1_000_000L;
            cellRelease(TRAFFIC_OFFSET, CLOCK_CELL, clockMillis);
        }
    }

    // ------------------------------------------------------------------ owner: collectives

    /**
     * One blocking call of an algorithm of an operation in {@value #TIMED_EVERY} is timed, the first
     * among them: two clock reads (about 25 ns each here) were most of what counting cost a collective
     * (docs/perf/monitor.md). The counts stay exact; the histogram holds the timed calls.
     */
    public static final int TIMED_EVERY = 16;

    /**
     * A reading of the clock to pass to {@link #collective} when this blocking call of operation
     * {@code op} with its {@code algorithm} is one to time (the first, then one in
     * {@link #TIMED_EVERY}), else 0. Owner thread.
     */
    public long startTimer(int op, int algorithm) {
        if (!on || op < 0 || op >= operations) {
            return 0;
        }
        int a = firstAlgorithm[op] + algorithm;
        if (a >= firstAlgorithm[op + 1] || untilTimed[a]-- > 0) {
            return 0;
        }
        untilTimed[a] = TIMED_EVERY - 1;
        return System.nanoTime();
    }

    /**
     * A call of operation {@code op} (its index in the labels) run with its {@code algorithm} (the
     * index among the operation's) started; with {@code startNanos} from {@link #startTimer} for a
     * blocking call that has just finished, else 0 (not timed). Owner thread.
     */
    public void collective(int op, int algorithm, long startNanos) {
        if (on) {
            long at = collectives + (long) (firstAlgorithm[op] + algorithm) * COLLECTIVE_CELLS * 8;
            add(at, 0, 1);
            if (startNanos != 0) {
                long now = System.nanoTime();
                add(at, 1 + bucket(now - startNanos), 1);
                tick(now);
            }
        }
    }

    /**
     * A flight-recorder event of a blocking collective, begun now; null (nothing allocated) when
     * counting is off or no recording runs. Pass it to {@link #commit} when the call ends.
     */
    public FlightEvents.Collective collectiveEvent() {
        if (!on || !FlightEvents.recording()) {
            return null;
        }
        FlightEvents.Collective e = new FlightEvents.Collective();
        e.begin();
        return e;
    }

    /** Ends and records {@code event} of operation {@code op}; nothing for null. */
    public void commit(FlightEvents.Collective event, int op) {
        if (event != null) {
            event.end();
            event.job = job;
            event.rank = rank;
            event.operation = operationNames.get(op);
            event.commit();
        }
    }

    /**
     * A message of {@code bytes} (longer than the eager limit) to or from {@code peer} started its
     * rendezvous: a flight-recorder event while a recording runs, else nothing. Owner thread.
     */
    public void largeMessage(int peer, int tag, long bytes, boolean sent) {
        if (on && FlightEvents.recording()) {
            FlightEvents.LargeMessage e = new FlightEvents.LargeMessage();
            e.job = job;
            e.rank = rank;
            e.peer = peer;
            e.tag = tag;
            e.bytes = bytes;
            e.sent = sent;
            e.commit();
        }
    }

    /** The rank is about to raise that {@code peer} (-1: the job) failed: counted, and a flight-recorder event. */
    public void peerFailed(int peer, String message) {
        error(PEER_FAILED);
        if (on && FlightEvents.recording()) {
            FlightEvents.PeerFailure e = new FlightEvents.PeerFailure();
            e.job = job;
            e.rank = rank;
            e.peer = peer;
            e.message = message;
            e.commit();
        }
    }

    // ------------------------------------------------------------------ owner: offload and in-network

    /** The offload counter {@code cell} ({@link #OFFLOAD_RUNS}, ...) gains 1. Whoever holds the engine. */
    public void offload(int cell) {
        if (on) {
            add(offload, cell, 1);
        }
    }

    /**
     * The offload engine fired a deferred-work entry of operation code {@code op} (the offload
     * program's PUT = 1 to COMPLETE = 8). Whoever holds the engine (the offload engine runs under it).
     */
    public void offloadFired(int op) {
        if (on && op >= 1 && OFFLOAD_FIRED + op - 1 < OFFLOAD.size()) {
            add(offload, OFFLOAD_FIRED + op - 1, 1);
        }
    }

    /** The in-network counter {@code cell} ({@link #INC_GROUPS}, ...) gains 1. Whoever holds the engine. */
    public void inNetwork(int cell) {
        if (on) {
            add(inNetwork, cell, 1);
        }
    }

    /** The collective operation the next {@link #block} of a task names (-1: none); the caller resets it. */
    public void operation(int op) {
        operation = op;
    }

    // ------------------------------------------------------------------ owner: the blocked call

    /**
     * The rank waits in {@code call} ({@link #SEND}, ..., {@link #WAIT}: a task, named after the
     * collective set by {@link #operation}) for {@code peer}, {@code tag} on {@code context}. Slow
     * path (a wait past its spinning); {@code nanoTime} is the caller's reading of the clock, so that
     * the time it started is right without a clock read of its own. Seqlock write: the sequence is made odd, a store-store fence
     * keeps the fields after it, the fields, then the sequence made even with a release store.
     */
    public void block(int call, int peer, int tag, int context, long nanoTime) {
        if (!on) {
            return;
        }
        int named = call == WAIT && operation >= 0 ? COLLECTIVE + operation : call;
        tick(nanoTime);
        long seq = blockedSeq + 1;
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_SEQ * 8L, seq);
        VarHandle.storeStoreFence();
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_CALL * 8L, (long) named);
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_PEER * 8L, (long) peer);
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_TAG * 8L, (long) tag);
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_CONTEXT * 8L, (long) context);
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_SINCE * 8L, clockMillis);
        blockedSeq = seq + 1;
        LONG.setRelease(s, BLOCKED_OFFSET + BLOCKED_SEQ * 8L, blockedSeq);
    }

    /** The wait {@link #block} recorded has ended. Same protocol, the call set to {@link #NONE}. */
    public void unblock() {
        if (!on) {
            return;
        }
        long seq = blockedSeq + 1;
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_SEQ * 8L, seq);
        VarHandle.storeStoreFence();
        LONG.setOpaque(s, BLOCKED_OFFSET + BLOCKED_CALL * 8L, (long) NONE);
        blockedSeq = seq + 1;
        LONG.setRelease(s, BLOCKED_OFFSET + BLOCKED_SEQ * 8L, blockedSeq);
    }

    // ------------------------------------------------------------------ the transport's region

    @Override
    public void railName(int rail, String name) {
        if (on && rail >= 0 && rail < MAX_RAILS) {
            putText(s, rails + (long) rail * RAIL_LENGTH + RAIL_NAME_OFFSET, name, RAIL_NAME_MAX_BYTES);
        }
    }

    @Override
    public void rail(int rail, Rail what, long value) {
        if (on && rail >= 0 && rail < MAX_RAILS) {
            cellRelease(rails + (long) rail * RAIL_LENGTH, what.ordinal(), value);
        }
    }

    @Override
    public void total(Total what, long value) {
        if (on) {
            cellRelease(netTotals, what.ordinal(), value);
        }
    }

    @Override
    public long railCommand() {
        return on ? (long) LONG.getAcquire(s, command) : 0;
    }

    @Override
    public void railAnswer(long command, int result) {
        if (on) {
            LONG.setRelease(s, answer, RailCounters.answer(command, result));
        }
    }

    // ------------------------------------------------------------------ cells

    /** One writer's increment: its own last value, plus {@code n}, stored with release. */
    private void add(long group, int cell, long n) {
        long at = group + cell * 8L;
        LONG.setRelease(s, at, (long) LONG.get(s, at) + n);
    }

    private void cellRelease(long group, int cell, long value) {
        LONG.setRelease(s, group + cell * 8L, value);
    }

    /** What the counters hold now, read as another process would read them. Allocates. */
    public io.tutti.Metrics snapshot() {
        return CountersReader.of(s, null).read();
    }

    /** Ranks in the job. */
    public int size() {
        return size;
    }

    /** Collective operations counted. */
    public int operations() {
        return operations;
    }
}
