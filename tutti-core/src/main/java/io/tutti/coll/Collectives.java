package io.tutti.coll;

import io.tutti.Config;
import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.coll.algo.InterSchedules;
import io.tutti.coll.inc.InNetworkGroup;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import io.tutti.coll.slots.NodeSlots;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.TuttiException;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.metrics.Counters;
import io.tutti.metrics.FlightEvents;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * One communicator's collectives: picks and caches schedules, runs them on the host executor, and
 * hands out blocking, nonblocking and persistent requests. A loop of identical blocking calls reuses
 * one schedule and one executor, so it allocates nothing once warm. An intercommunicator's
 * ({@link #inter}) are the {@link InterSchedules}, over both groups' ranks.
 *
 * <p>Used by the communicator's owning thread only.
 */
public final class Collectives {
    /** How the caller wants the call run. */
    public enum Mode { BLOCKING, NONBLOCKING, PERSISTENT }

    private static final int CACHE = 32;

    private final Engine engine;
    private final Map<String, String> settings;
    private final int context;
    private final int[] group;
    private final int rank;
    /** For an intercommunicator, the local group's size (its ranks come first in {@link #group}); else 0. */
    private final int localSize;
    private final Selector algorithms;
    private final java.util.function.Supplier<Topology> topologySource;
    private final Map<Kind, String> forced = new EnumMap<>(Kind.class);
    private final List<Entry> cache = new ArrayList<>();
    private final IntSupplier sequence = this::nextSequence;
    private final Invocation invocation = new Invocation();
    private Topology topology;
    private int sequenceCounter;
    /** The in-network group, set up when {@code inc} is first used; {@link #incTried} once attempted. */
    private InNetworkGroup incGroup;
    private boolean incTried;
    private boolean incUnsupportedLogged;
    /** The shared-memory slots, created when a {@code slots} schedule is first built. */
    private NodeSlots nodeSlots;
    /** Whether calls compare their signatures first ({@link #verify}); and whether one is being compared now. */
    private final boolean check;
    private boolean checking;
    /** The signature of the call being run, once known: what {@link #failed} announces. */
    private long[] running;
    /** Words of a call's signature in {@link #verify}. */
    private static final int SIGNATURE_WORDS = 5;

    /**
     * A schedule, the executor kept for blocking calls of it, and the idle executors of finished
     * nonblocking calls, so that a loop of nonblocking calls allocates only its requests.
     */
    private static final class Entry implements CollectiveRequest.Pool {
        private static final int IDLE = 4;

        final CollectiveCall call;
        final Schedule schedule;
        final long[] signature;
        /** The in-network group that runs the schedule's INC steps, or null. */
        final InNetworkGroup inc;
        /** The communicator's shared-memory slots, for a schedule with SLOTS or SLOTS_REDUCE steps; else null. */
        final NodeSlots slots;
        /** The algorithm's index among its operation's ({@link Selector#counted}): its counters' cells. */
        final int algorithm;
        /** For an in-network schedule: the host schedule for operations the switches do not support. */
        Entry fallback;
        HostExecutor blocking;
        private final HostExecutor[] idle = new HostExecutor[IDLE];
        private int idleCount;

        Entry(CollectiveCall call, Schedule schedule, String algorithm, InNetworkGroup inc, NodeSlots slots) {
            this(call, schedule, call.signature(algorithm), Selector.counted(call.kind()).indexOf(algorithm), inc,
                    slots);
        }

        Entry(CollectiveCall call, Schedule schedule, long[] signature, int algorithm, InNetworkGroup inc,
              NodeSlots slots) {
            this.call = call;
            this.schedule = schedule;
            this.signature = signature;
            this.algorithm = algorithm;
            this.inc = inc;
            this.slots = slots;
        }

        HostExecutor executor(Engine engine, int context, int[] group) {
            return new HostExecutor(engine, schedule, context, group, signature, inc, slots);
        }

        HostExecutor take(Engine engine, int context, int[] group) {
            if (idleCount > 0) {
                HostExecutor x = idle[--idleCount];
                idle[idleCount] = null;
                return x;
            }
            return executor(engine, context, group);
        }

        @Override
        public void release(HostExecutor x) {
            if (idleCount < IDLE && x.isDone()) {
                idle[idleCount++] = x;
            }
        }
    }

    /**
     * @param context  the communicator's collective context (its point-to-point context + 1)
     * @param group    communicator rank to world rank
     * @param topology where the ranks run, asked for when a schedule is first built
     * @param settings the job's settings, by environment name: what a switch client reads its own from
     * @param check    compare every call's signature first ({@link CollConfig#check()})
     */
    public Collectives(Engine engine, int context, int[] group, int rank, Selector algorithms,
                       java.util.function.Supplier<Topology> topology, Map<String, String> settings, boolean check) {
        this(engine, context, group, rank, 0, algorithms, topology, settings, check);
    }

    /**
     * An intercommunicator's collectives on {@code context}, with MPI's meaning ({@link InterSchedules}):
     * calls are filled as that class says, and both groups' ranks make them in the same order.
     *
     * @param localGroup  local rank to world rank; this rank is local rank {@code rank}
     * @param remoteGroup remote rank to world rank
     */
    public static Collectives inter(Engine engine, int context, int[] localGroup, int[] remoteGroup, int rank) {
        int[] both = java.util.Arrays.copyOf(localGroup, localGroup.length + remoteGroup.length);
        System.arraycopy(remoteGroup, 0, both, localGroup.length, remoteGroup.length);
        return new Collectives(engine, context, both, rank, localGroup.length, null, null, Map.of(), false);
    }

    private Collectives(Engine engine, int context, int[] group, int rank, int localSize, Selector algorithms,
                        java.util.function.Supplier<Topology> topology, Map<String, String> settings, boolean check) {
        this.localSize = localSize;
        this.check = check;
        this.engine = engine;
        this.settings = settings;
        this.context = context;
        this.group = group;
        this.rank = rank;
        this.algorithms = algorithms;
        this.topologySource = topology;
    }

    /** Forces {@code algorithm} for {@code operation} on this communicator; null returns to the selector. */
    public void setAlgorithm(String operation, String algorithm) {
        if (localSize > 0) {
            throw new TuttiException.Unsupported("setAlgorithm on an intercommunicator: its collectives have one"
                    + " algorithm each (docs/guide/api.md); merge it and choose on the intracommunicator");
        }
        Kind kind = null;
        for (Kind k : Kind.values()) {
            if (k.settingName().equals(operation) || k.name().equalsIgnoreCase(operation)) {
                kind = k;
            }
        }
        if (kind == null) {
            StringBuilder names = new StringBuilder();
            for (Kind k : Kind.values()) {
                names.append(names.isEmpty() ? "" : ", ").append(k.settingName());
            }
            throw new TuttiException.InvalidArgument("'" + operation + "' is not a collective operation; use one of "
                    + names);
        }
        if (algorithm == null) {
            forced.remove(kind);
        } else {
            forced.put(kind, Selector.check(kind, algorithm, "setAlgorithm(\"" + operation + "\")"));
        }
        cache.clear();
    }

    /** The algorithm a call would use now (for reports and benchmarks). */
    public String algorithmFor(CollectiveCall call) {
        if (localSize > 0) {
            return InterSchedules.NAME;
        }
        return algorithms.choose(call, group.length, topology(), forced.get(call.kind()));
    }

    /** The schedule of a call (filled as for {@link #run}), built on first use. */
    public Schedule schedule(Invocation call) {
        return entry(call).schedule;
    }

    /** Bytes of one item of the call's user operation, once the call's vectors are checked to hold whole items. */
    private static int itemExtent(Invocation c) {
        int per = c.userOp.elementsPerItem();
        if (per < 1) {
            throw new TuttiException.InvalidArgument("the user operation's elementsPerItem() is " + per
                    + ": it must be at least 1");
        }
        long extent = (long) per * c.type.extent();
        if (extent > Integer.MAX_VALUE) {
            throw new TuttiException.InvalidArgument("the user operation's items of " + per + " elements of "
                    + c.type + " exceed 2^31 - 1 bytes");
        }
        wholeItems(c.bytes, c.type, per);
        if (c.blocks != null) {
            for (long b : c.blocks) {
                wholeItems(b, c.type, per);
            }
        }
        return (int) extent;
    }

    /** Refuses a vector of {@code bytes} that is no whole number of a user operation's {@code per}-element items. */
    public static void wholeItems(long bytes, Datatype type, int per) {
        if (bytes % ((long) per * type.extent()) != 0) {
            throw new TuttiException.InvalidArgument("a count of " + bytes / type.extent() + " " + type
                    + " elements is no whole number of the user operation's items of " + per + " elements"
                    + " (UserOp.elementsPerItem): pass a multiple of " + per);
        }
    }

    private Entry entry(Invocation c) {
        Kind kind = c.kind;
        long bytes = c.bytes;
        // a user operation's item is the unit every split keeps whole (UserOp.elementsPerItem)
        int extent = c.userOp == null ? c.type.extent() : itemExtent(c);
        int root = c.root;
        boolean inPlace = c.inPlace;
        boolean commutative = c.userOp == null || c.userOp.commutative();
        long[] blocks = c.blocks;
        long[] displs = c.displs;
        long[] sendBlocks = c.sendBlocks;
        long[] sendDispls = c.sendDispls;
        boolean irregular = c.irregular;
        for (int i = 0; i < cache.size(); i++) {
            Entry e = cache.get(i);
            if (e.call.matches(kind, bytes, extent, root, inPlace, commutative, blocks, displs, sendBlocks,
                    sendDispls, irregular)) {
                if (i > 0) {
                    // most recently used first, so a loop finds its entry at once
                    cache.remove(i);
                    cache.addFirst(e);
                }
                return e;
            }
        }
        CollectiveCall call = new CollectiveCall(kind, bytes, extent, root, inPlace, commutative, clone(blocks),
                clone(displs), clone(sendBlocks), clone(sendDispls), irregular);
        if (localSize > 0) {
            return remember(new Entry(call, InterSchedules.build(call, rank, localSize, group.length - localSize, true),
                    InterSchedules.signature(kind), Selector.counted(kind).indexOf(InterSchedules.NAME), null, null));
        }
        String algorithm = algorithmFor(call);
        InNetworkGroup inc = null;
        if (algorithm.equals(Selector.INC)) {
            inc = call.commutative() ? incGroup() : null;
            if (inc == null) {
                algorithm = algorithms.hostChoice(call, group.length, topology());
            }
        }
        NodeSlots slots = null;
        if (algorithm.equals(Selector.SLOTS)) {
            if (!topology().sharedMemory()) {
                throw new TuttiException.InvalidArgument(call.kind().settingName() + " with algorithm " + Selector.SLOTS
                        + " needs every rank on this node, reached through shared memory (not with --transport net or"
                        + " over several hosts); choose another with " + Selector.variable(call.kind())
                        + " or Communicator.setAlgorithm");
            }
            if (nodeSlots == null) {
                nodeSlots = new NodeSlots(engine, context, group, rank);
            }
            slots = nodeSlots;
        }
        return remember(new Entry(call, algorithms.build(call, rank, group.length, topology(), algorithm), algorithm,
                inc, slots));
    }

    private Entry remember(Entry e) {
        cache.addFirst(e);
        if (cache.size() > CACHE) {
            cache.removeLast();
        }
        return e;
    }

    /** This communicator's invocation, reset for a call of {@code kind}; fill it and pass it to {@link #run}. */
    public Invocation call(Kind kind, MemorySegment send, MemorySegment recv, Datatype type) {
        return invocation.reset(kind, send, recv, type);
    }

    /**
     * Runs or starts a call. Returns null for {@link Mode#BLOCKING} (the call has completed), else
     * the request.
     */
    public Request run(Mode mode, Invocation call) {
        // before any shared memory is touched: it is unmapped once the rank has closed
        engine.checkOpen();
        if (engine.revoked(context)) {
            throw Engine.revokedError("before this collective");
        }
        int issued = sequenceCounter;
        running = null;
        try {
            return run0(mode, call);
        } catch (TuttiException.InvalidArgument e) {
            // other errors (a dead peer, a closed rank) end the communicator's collectives anyway
            if (mode != Mode.PERSISTENT) {
                failed(issued, running);
            }
            throw e;
        }
    }

    /** The sequence number the next call takes: with {@link #failed}, what a call that fails before it runs needs. */
    public int issued() {
        return sequenceCounter;
    }

    /**
     * A blocking or nonblocking call numbered {@code issued} has failed on this rank (bad
     * arguments, a mismatch): it keeps its sequence number, so that every rank numbers the next call
     * alike, and every other rank is told, so that none waits for this one in it
     * ({@link HostExecutor#diagnose}), with the call's {@code signature} where it is known (else
     * null), so that they can say how the calls differ. Every rank can go on with the next call.
     */
    public void failed(int issued, long[] signature) {
        if (sequenceCounter == issued) {
            sequenceCounter++;
        }
        if (localSize == 0 && topology().sharedMemory()) {
            // the others' slot exchanges of this call must not wait for this rank's departures
            if (nodeSlots == null) {
                nodeSlots = new NodeSlots(engine, context, group, rank);
            }
            nodeSlots.abandon(issued, 0, 0);
        }
        for (int r = 0; r < group.length; r++) {
            if (r != rank) {
                try {
                    engine.announceCall(group[r], context, issued, HostExecutor.FAILED | (signature == null ? 0
                            : signature[0]), signature == null ? 0 : signature[1], signature == null ? 0 : signature[2]);
                } catch (TuttiException e) {
                    // a peer that cannot be told (it has failed) waits for nothing any more
                }
            }
        }
    }

    private Request run0(Mode mode, Invocation call) {
        MemorySegment send = call.send;
        MemorySegment recv = call.recv;
        Datatype type = call.type;
        ReduceOp op = call.op;
        UserOp userOp = call.userOp;
        Entry e = entry(call);
        if (e.inc != null && !e.inc.supports(op, userOp, type)) {
            e = fallback(e, op, userOp, type);
            engine.counters().inNetwork(Counters.INC_CALL_FALLBACKS);
        }
        running = e.signature;
        if (check && !checking && mode != Mode.PERSISTENT) {
            verify(e, type, op, userOp);
        }
        if (mode == Mode.BLOCKING) {
            HostExecutor x = e.blocking;
            if (x == null || !x.isDone()) {
                x = e.executor(engine, context, group);
                e.blocking = x;
            }
            Counters counters = engine.counters();
            long started = counters.startTimer(call.kind.ordinal(), e.algorithm);
            FlightEvents.Collective event = counters.collectiveEvent();
            counters.operation(call.kind.ordinal());
            try {
                x.start(send, recv, sequence.getAsInt(), type, op, userOp);
                engine.await(x);
            } finally {
                counters.operation(-1);
            }
            counters.collective(call.kind.ordinal(), e.algorithm, started);
            counters.commit(event, call.kind.ordinal());
            return null;
        }
        engine.counters().collective(call.kind.ordinal(), e.algorithm, 0);
        if (mode == Mode.PERSISTENT) {
            return new CollectiveRequest(engine, e.executor(engine, context, group), send, recv, type,
                    op, userOp, sequence, null);
        }
        return new CollectiveRequest(engine, e.take(engine, context, group), send, recv, type, op, userOp, sequence, e);
    }

    /**
     * Compares this rank's call with every other rank's before it runs (an allgather of the
     * signatures, as MPI correctness tools do): where they differ, every rank fails with its call
     * and the first differing rank's named. The compared call takes the sequence number; the call
     * itself, refused, takes none.
     */
    private void verify(Entry e, Datatype type, ReduceOp op, UserOp userOp) {
        long[] mine = {e.signature[0], e.signature[1], e.signature[2], type.ordinal(),
            userOp != null ? -2 : op == null ? -1 : op.ordinal()};
        long[] all = new long[SIGNATURE_WORDS * group.length];
        long[] blocks = new long[group.length];
        long[] displs = new long[group.length];
        for (int r = 0; r < group.length; r++) {
            blocks[r] = 8L * SIGNATURE_WORDS;
            displs[r] = 8L * SIGNATURE_WORDS * r;
        }
        checking = true;
        try {
            run(Mode.BLOCKING, new Invocation().reset(Kind.ALLGATHER, MemorySegment.ofArray(mine),
                    MemorySegment.ofArray(all), Datatype.LONG).blocks(blocks, displs));
        } finally {
            checking = false;
        }
        for (int r = 0; r < group.length; r++) {
            long[] theirs = java.util.Arrays.copyOfRange(all, SIGNATURE_WORDS * r, SIGNATURE_WORDS * (r + 1));
            if (!java.util.Arrays.equals(theirs, mine)) {
                throw new TuttiException.InvalidArgument("rank " + rank + " calls " + describe(mine) + " where rank "
                        + r + " calls " + describe(theirs) + " (" + Config.envName(CollConfig.CHECK)
                        + "=collectives): every rank must make the same collective call");
            }
        }
    }

    /** A signature of {@link #verify} in words. */
    private static String describe(long[] signature) {
        String op = signature[4] == -2 ? ", a user operation" : signature[4] == -1 ? ""
                : ", " + ReduceOp.values()[(int) signature[4]];
        return CollectiveCall.describe(signature) + " of " + Datatype.values()[(int) signature[3]] + op
                + " (algorithm #" + Integer.toHexString((int) signature[2]) + ")";
    }

    /**
     * The in-network group of this communicator, set up collectively on first use; null (after one
     * log line from rank 0) when the switches cannot serve it.
     */
    private InNetworkGroup incGroup() {
        if (!incTried) {
            incTried = true;
            int n = InNetworkGroup.fields();
            long[] blocks = new long[group.length];
            long[] displs = new long[group.length];
            for (int r = 0; r < group.length; r++) {
                blocks[r] = 4L * n;
                displs[r] = 4L * n * r;
            }
            InNetworkGroup.Outcome o = InNetworkGroup.setUp(engine, settings, rank, group, algorithms.incDomains(topology()),
                    algorithms.incSocketMode(), (mine, all) -> run(Mode.BLOCKING, new Invocation().reset(Kind.ALLGATHER,
                            InNetworkGroup.ints(mine), InNetworkGroup.ints(all), Datatype.INT).blocks(blocks, displs)));
            incGroup = o.group();
            engine.counters().inNetwork(incGroup != null ? Counters.INC_GROUPS : Counters.INC_SETUP_FALLBACKS);
            if (incGroup == null && rank == 0) {
                System.err.println("tutti: allreduce 'inc' uses the host algorithm instead: " + o.reason());
            }
        }
        return incGroup;
    }

    /** The host schedule for a call the in-network group cannot serve (operation or type unsupported). */
    private Entry fallback(Entry e, ReduceOp op, UserOp userOp, Datatype type) {
        if (e.fallback == null) {
            String algorithm = algorithms.hostChoice(e.call, group.length, topology());
            e.fallback = new Entry(e.call, algorithms.build(e.call, rank, group.length, topology(), algorithm), algorithm,
                    null, null);
        }
        if (!incUnsupportedLogged && rank == 0) {
            incUnsupportedLogged = true;
            System.err.println("tutti: allreduce 'inc': the switches do not reduce " + (userOp != null ? "user operations"
                    : op + " on " + type) + "; such calls use the host algorithm " + e.fallback.schedule.name());
        }
        return e.fallback;
    }

    private int nextSequence() {
        return sequenceCounter++;
    }

    private Topology topology() {
        if (topology == null) {
            topology = topologySource.get();
        }
        return topology;
    }

    private static long[] clone(long[] a) {
        return a == null ? null : a.clone();
    }
}
