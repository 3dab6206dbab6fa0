package io.tutti.coll;

import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.TuttiException;
import io.tutti.coll.CollectiveCall.Kind;
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
 * one schedule and one executor, so it allocates nothing once warm.
 *
 * <p>Used by the communicator's owning thread only.
 */
public final class Collectives {
    /** How the caller wants the call run. */
    public enum Mode { BLOCKING, NONBLOCKING, PERSISTENT }

    private static final int CACHE = 32;

    private final Engine engine;
    private final int context;
    private final int[] group;
    private final int rank;
    private final Algorithms algorithms;
    private final java.util.function.Supplier<Topology> topologySource;
    private final Map<Kind, String> forced = new EnumMap<>(Kind.class);
    private final List<Entry> cache = new ArrayList<>();
    private final IntSupplier sequence = this::nextSequence;
    private Topology topology;
    private int sequenceCounter;

    /**
     * A schedule, the executor kept for blocking calls of it, and the idle executors of finished
     * nonblocking calls, so that a loop of nonblocking calls allocates only its requests.
     */
    private static final class Entry implements CollectiveRequest.Pool {
        private static final int IDLE = 4;

        final CollectiveCall call;
        final Schedule schedule;
        final long[] signature;
        HostExecutor blocking;
        private final HostExecutor[] idle = new HostExecutor[IDLE];
        private int idleCount;

        Entry(CollectiveCall call, Schedule schedule, String algorithm) {
            this.call = call;
            this.schedule = schedule;
            this.signature = call.signature(algorithm);
        }

        HostExecutor executor(Engine engine, int context, int[] group) {
            return new HostExecutor(engine, schedule, context, group, signature);
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
     */
    public Collectives(Engine engine, int context, int[] group, int rank, Algorithms algorithms,
                       java.util.function.Supplier<Topology> topology) {
        this.engine = engine;
        this.context = context;
        this.group = group;
        this.rank = rank;
        this.algorithms = algorithms;
        this.topologySource = topology;
    }

    /** Forces {@code algorithm} for {@code operation} on this communicator; null returns to the selector. */
    public void setAlgorithm(String operation, String algorithm) {
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
            forced.put(kind, Algorithms.check(kind, algorithm, "setAlgorithm(\"" + operation + "\")"));
        }
        cache.clear();
    }

    /** The algorithm a call would use now (for reports and benchmarks). */
    public String algorithmFor(CollectiveCall call) {
        return algorithms.choose(call, group.length, topology(), forced.get(call.kind));
    }

    /** The schedule for a call, built on first use. */
    public Schedule schedule(Kind kind, long bytes, int extent, int root, boolean inPlace, boolean commutative,
                             long[] blocks, long[] displs, long[] sendBlocks, long[] sendDispls, boolean irregular) {
        return entry(kind, bytes, extent, root, inPlace, commutative, blocks, displs, sendBlocks, sendDispls,
                irregular).schedule;
    }

    private Entry entry(Kind kind, long bytes, int extent, int root, boolean inPlace, boolean commutative,
                        long[] blocks, long[] displs, long[] sendBlocks, long[] sendDispls, boolean irregular) {
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
        String algorithm = algorithmFor(call);
        Entry e = new Entry(call, algorithms.build(call, rank, group.length, topology(), algorithm), algorithm);
        cache.addFirst(e);
        if (cache.size() > CACHE) {
            cache.removeLast();
        }
        return e;
    }

    /**
     * Runs or starts a call. Returns null for {@link Mode#BLOCKING} (the call has completed), else
     * the request.
     */
    public Request run(Mode mode, Kind kind, MemorySegment send, MemorySegment recv, Datatype type, ReduceOp op,
                       UserOp userOp, long bytes, int root, boolean inPlace, long[] blocks, long[] displs,
                       long[] sendBlocks, long[] sendDispls, boolean irregular) {
        boolean commutative = userOp != null ? userOp.commutative() : true;
        Entry e = entry(kind, bytes, type.extent(), root, inPlace, commutative, blocks, displs, sendBlocks,
                sendDispls, irregular);
        if (mode == Mode.BLOCKING) {
            HostExecutor x = e.blocking;
            if (x == null || !x.isDone()) {
                x = e.executor(engine, context, group);
                e.blocking = x;
            }
            x.start(send, recv, sequence.getAsInt(), type, op, userOp);
            engine.await(x);
            return null;
        }
        if (mode == Mode.PERSISTENT) {
            return new CollectiveRequest(engine, e.executor(engine, context, group), send, recv, type,
                    op, userOp, sequence, null);
        }
        return new CollectiveRequest(engine, e.take(engine, context, group), send, recv, type, op, userOp, sequence, e);
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
