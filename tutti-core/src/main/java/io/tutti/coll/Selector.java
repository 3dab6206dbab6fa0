package io.tutti.coll;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.coll.algo.BinomialBcast;
import io.tutti.coll.algo.BinomialGather;
import io.tutti.coll.algo.BinomialReduce;
import io.tutti.coll.algo.BinomialScatter;
import io.tutti.coll.algo.BruckAllgather;
import io.tutti.coll.algo.BruckAlltoall;
import io.tutti.coll.algo.ButterflyBarrier;
import io.tutti.coll.algo.ChainBcast;
import io.tutti.coll.algo.ChainReduce;
import io.tutti.coll.algo.DisseminationBarrier;
import io.tutti.coll.algo.HierarchicalSchedules;
import io.tutti.coll.algo.IncAllreduce;
import io.tutti.coll.algo.InterSchedules;
import io.tutti.coll.algo.KaryBcast;
import io.tutti.coll.algo.LeadersAllreduce;
import io.tutti.coll.algo.LeadersBarrier;
import io.tutti.coll.algo.LeadersBcast;
import io.tutti.coll.algo.LinearAllreduce;
import io.tutti.coll.algo.LinearAlltoall;
import io.tutti.coll.algo.LinearBarrier;
import io.tutti.coll.algo.LinearGather;
import io.tutti.coll.algo.LinearScan;
import io.tutti.coll.algo.LinearScatter;
import io.tutti.coll.algo.PairwiseAlltoall;
import io.tutti.coll.algo.PairwiseReduceScatter;
import io.tutti.coll.algo.RabenseifnerAllreduce;
import io.tutti.coll.algo.RabenseifnerReduce;
import io.tutti.coll.algo.RecursiveDoublingAllgather;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.algo.RecursiveDoublingScan;
import io.tutti.coll.algo.RecursiveHalvingReduceScatter;
import io.tutti.coll.algo.ReduceBcastAllreduce;
import io.tutti.coll.algo.RingAllgather;
import io.tutti.coll.algo.RingAllreduce;
import io.tutti.coll.algo.RingReduceScatter;
import io.tutti.coll.algo.ScatterAllgatherBcast;
import io.tutti.coll.algo.SequentialGather;
import io.tutti.coll.algo.SequentialScatter;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.algo.SlotsAllreduce;
import io.tutti.coll.algo.SlotsBarrier;
import io.tutti.coll.algo.TreeBarrier;
import io.tutti.coll.algo.Trinaryx3Bcast;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.Topology;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The selector: chooses the algorithm for a collective call and builds its schedule. It reads as a
 * table: per operation, its algorithms in the order users see them and the rule that picks one by
 * size, rank count and topology, each rule with its reason. The choice can be forced per operation
 * ({@link CollConfig#algorithms}, e.g. {@code TUTTI_COLL_ALLREDUCE=ring}) or per communicator
 * ({@code Communicator.setAlgorithm}), so that benchmarks can compare them; forcing an algorithm
 * that cannot serve a call (a ring allreduce of a non-commutative operation, Bruck's alltoall of
 * uneven blocks) is an error that says why.
 */
public final class Selector {
    /** Node and Socket leader modes, for any operation that has them. */
    public static final String NODE_LEADERS = HierarchicalSchedules.NODE_LEADERS;
    public static final String SOCKET_LEADERS = HierarchicalSchedules.SOCKET_LEADERS;
    /** In-network allreduce: the aggregation switches reduce the leaders' data (see {@code InNetworkGroup}). */
    public static final String INC = "inc";
    /**
     * Shared-memory slots ({@code NodeSlots}): every rank publishes its data in shared memory and
     * reads the others'; only when every rank of the communicator shares this node's memory.
     */
    public static final String SLOTS = "slots";
    /**
     * Allreduces of at most this many bytes use {@link #SLOTS} when they can, if ranks outnumber cores
     * or there are at most {@link #SLOTS_ALLREDUCE_RANKS} of them (docs/perf/collectives.md).
     */
    public static final long SLOTS_ALLREDUCE_MAX = 1024;
    /**
     * With a core per rank, slots beat recursive doubling for short allreduces at 2 ranks on the Intel
     * Xeon the figures are taken on (0.44–0.50 µs against 0.55–0.95 µs at 8 B), while the AMD EPYC
     * measured before favoured recursive doubling (0.19–0.22 against 0.30–0.31 µs); more ranks with a
     * core each could not be measured on two cores, so they keep recursive doubling.
     */
    public static final int SLOTS_ALLREDUCE_RANKS = 2;

    /** How a row picks an algorithm for a call of {@code size} ranks placed as {@code topo}. */
    @FunctionalInterface
    private interface Rule {
        String choose(CollectiveCall c, int size, Topology topo);
    }

    /** One row of the table: an operation, its algorithms in the order users see them, and its rule. */
    private record Row(Kind kind, List<ScheduleAlgorithm> algorithms, Rule rule) {
    }

    private static final ScheduleAlgorithm NODE_LEADERS_ALLREDUCE = new LeadersAllreduce(false);
    private static final ScheduleAlgorithm BRUCK_ALLTOALL = new BruckAlltoall();

    /**
     * The defaults, from the measurements in docs/perf/collectives.md where there are some:
     * latency-bound trees and butterflies for small messages, bandwidth-optimal rings and
     * halving-doubling for large ones, fewer waits when ranks outnumber cores, and leaders when ranks
     * span several nodes. Where a row cites no figure, its thresholds have not been measured on Tutti
     * yet; its reason is then the algorithms' costs, as their class comments state them.
     */
    private static final Map<Kind, Row> TABLE = table(
            // slots when the ranks share memory: one wait instead of ⌈log2 P⌉ rounds; else
            // dissemination, measured faster than the tree's fewer messages when ranks outnumber cores
            // (docs/perf/collectives.md)
            new Row(Kind.BARRIER, List.of(new DisseminationBarrier(), new ButterflyBarrier(), new TreeBarrier(),
                    new LinearBarrier(), new SlotsBarrier(), new LeadersBarrier(false), new LeadersBarrier(true)),
                    (c, p, t) -> multiNode(t) ? NODE_LEADERS : t.sharedMemory() ? SLOTS : "dissemination"),
            // node leaders for short messages over several nodes; scatter-allgather once the root's
            // ⌈log2 P⌉ full-size sends of the binomial tree dominate
            new Row(Kind.BCAST, List.of(new BinomialBcast(), new KaryBcast(), new ChainBcast(), new Trinaryx3Bcast(),
                    new ScatterAllgatherBcast(), new LeadersBcast(false), new LeadersBcast(true)),
                    (c, p, t) -> multiNode(t) && c.bytes() <= 64 * 1024 ? NODE_LEADERS
                            : p > 2 && c.bytes() >= 512 * 1024 ? "scatter-allgather" : "binomial"),
            // Rabenseifner once about 2n bytes per rank beat ⌈log2 P⌉·n arriving at the root, if the
            // operation commutes (it combines partial results out of rank order)
            new Row(Kind.REDUCE, List.of(new BinomialReduce(), new ChainReduce(), new RabenseifnerReduce()),
                    (c, p, t) -> c.commutative() && p > 2 && c.bytes() >= 512 * 1024 ? "rabenseifner" : "binomial"),
            // see allreduce() below
            new Row(Kind.ALLREDUCE, List.of(new RecursiveDoublingAllreduce(), new RabenseifnerAllreduce(),
                    new RingAllreduce(), new ReduceBcastAllreduce(), new LinearAllreduce(), new SlotsAllreduce(),
                    NODE_LEADERS_ALLREDUCE, new LeadersAllreduce(true), new IncAllreduce()), Selector::allreduce),
            // pairwise keeps rank order for non-commutative operations; the ring's bandwidth for long
            // inputs, recursive halving's ⌈log2 P⌉ rounds for short ones
            new Row(Kind.REDUCE_SCATTER, List.of(new RecursiveHalvingReduceScatter(), new RingReduceScatter(),
                    new PairwiseReduceScatter()),
                    (c, p, t) -> !c.commutative() ? "pairwise" : sum(c.blocks()) >= 512 * 1024 ? "ring"
                            : "recursive-halving"),
            // recursive doubling's ⌈log2 P⌉ rounds; the linear chain would move less data only for long
            // vectors on few ranks
            new Row(Kind.SCAN, List.of(new RecursiveDoublingScan(false), new LinearScan(false)),
                    (c, p, t) -> "recursive-doubling"),
            new Row(Kind.EXSCAN, List.of(new RecursiveDoublingScan(true), new LinearScan(true)),
                    (c, p, t) -> "recursive-doubling"),
            // the tree for small blocks, where the messages the root handles dominate; direct sends for
            // large ones, which a tree would only forward twice (sequential: MPICH 1.x's loop, for the
            // simulator, never faster)
            new Row(Kind.GATHER, List.of(new BinomialGather(), new LinearGather(), new SequentialGather()),
                    (c, p, t) -> max(c.blocks()) >= 64 * 1024 ? "linear" : "binomial"),
            new Row(Kind.SCATTER, List.of(new BinomialScatter(), new LinearScatter(), new SequentialScatter()),
                    (c, p, t) -> max(c.blocks()) >= 64 * 1024 ? "linear" : "binomial"),
            // recursive doubling's log2 P rounds for small blocks, the ring's bandwidth for large ones
            new Row(Kind.ALLGATHER, List.of(new RecursiveDoublingAllgather(), new BruckAllgather(),
                    new RingAllgather()),
                    (c, p, t) -> sum(c.blocks()) >= 256 * 1024 ? "ring" : "recursive-doubling"),
            // Bruck's fewer, larger messages for small equal blocks on many ranks; pairwise otherwise
            new Row(Kind.ALLTOALL, List.of(new PairwiseAlltoall(), BRUCK_ALLTOALL, new LinearAlltoall()),
                    (c, p, t) -> max(c.blocks()) <= 256 && p > 4 && BRUCK_ALLTOALL.serves(c, Params.DEFAULT)
                            ? "bruck" : "pairwise"));

    /** The algorithms per operation, in the order they are listed to users. */
    public static final Map<Kind, List<String>> AVAILABLE = available();

    /**
     * The algorithms per operation as the rank's counters count them: the available ones, then the
     * intercommunicator's ({@code InterSchedules.NAME}), which no setting chooses.
     */
    private static final Map<Kind, List<String>> COUNTED = counted();

    private final CollConfig config;
    private final Params params;

    public Selector(CollConfig config) {
        this.config = config;
        this.params = new Params(null, config.segment(), config.kary(), config.incSockets());
    }

    /** The collectives' settings from the {@code TUTTI_*} variables of an environment. */
    public Selector(Map<String, String> env) {
        this(CollConfig.from(Config.from(env, new Properties())));
    }

    private static Map<Kind, Row> table(Row... rows) {
        Map<Kind, Row> m = new EnumMap<>(Kind.class);
        for (Row r : rows) {
            for (ScheduleAlgorithm a : r.algorithms()) {
                if (a.kind() != r.kind()) {
                    throw new AssertionError(a.name() + " serves " + a.kind() + ", listed for " + r.kind());
                }
            }
            m.put(r.kind(), r);
        }
        if (m.size() != Kind.values().length) {
            throw new AssertionError("a row per operation, got " + m.keySet());
        }
        return Collections.unmodifiableMap(m);
    }

    private static Map<Kind, List<String>> available() {
        Map<Kind, List<String>> m = new EnumMap<>(Kind.class);
        TABLE.forEach((k, row) -> m.put(k, row.algorithms().stream().map(ScheduleAlgorithm::name).toList()));
        return Collections.unmodifiableMap(m);
    }

    private static Map<Kind, List<String>> counted() {
        Map<Kind, List<String>> m = new EnumMap<>(Kind.class);
        AVAILABLE.forEach((k, names) -> m.put(k, java.util.stream.Stream.concat(names.stream(),
                java.util.stream.Stream.of(InterSchedules.NAME)).toList()));
        return Collections.unmodifiableMap(m);
    }

    /** {@code kind}'s algorithms in the order of the counters' cells: the available ones, then an intercommunicator's. */
    public static List<String> counted(Kind kind) {
        return COUNTED.get(kind);
    }

    /** The environment variable that forces {@code kind}'s algorithm. */
    public static String variable(Kind kind) {
        return "TUTTI_COLL_" + kind.settingName().toUpperCase(Locale.ROOT);
    }

    /** Throws unless {@code algorithm} is one of {@code kind}'s; {@code where} names the setting. */
    public static String check(Kind kind, String algorithm, String where) {
        if (!AVAILABLE.get(kind).contains(algorithm)) {
            throw new TuttiException.InvalidArgument(where + ": '" + algorithm + "' is not an algorithm for "
                    + kind.settingName() + "; choose one of " + String.join(", ", AVAILABLE.get(kind)));
        }
        return algorithm;
    }

    /**
     * The algorithm for a call: {@code forced} (a communicator's setting) if not null, else the
     * configuration's, else the selector's choice by size, rank count and topology. Gatherv and
     * scatterv are always linear (only the root knows their layout) and alltoallv is pairwise or
     * linear (each rank knows only its own blocks).
     */
    public String choose(CollectiveCall c, int size, Topology topo, String forced) {
        String f = forced != null ? forced : config.algorithm(c.kind());
        if (c.irregular()) {
            // the ranks' block sizes differ, so no rank may choose by its own: every rank must
            // reach the same answer from what they all know
            return c.kind() == Kind.ALLTOALL && "linear".equals(f) ? "linear"
                    : c.kind() == Kind.ALLTOALL ? "pairwise" : "linear";
        }
        return f != null ? f : hostChoice(c, size, topo);
    }

    /** The table's choice among the host algorithms, whatever is forced: what {@code inc} falls back to. */
    public String hostChoice(CollectiveCall c, int size, Topology topo) {
        return TABLE.get(c.kind()).rule().choose(c, size, topo);
    }

    /** Whether the in-network allreduce uses socket leaders (else node leaders). */
    public boolean incSocketMode() {
        return config.incSockets();
    }

    /** The leader domains of the in-network allreduce. */
    public int[] incDomains(Topology topo) {
        return incSocketMode() ? topo.socketDomains() : topo.nodeDomains();
    }

    /** Builds rank {@code rank}'s schedule for the call with {@code algorithm}. */
    public Schedule build(CollectiveCall c, int rank, int size, Topology topo, String algorithm) {
        return build(c, rank, size, topo, algorithm, null);
    }

    /**
     * As {@link #build(CollectiveCall, int, int, Topology, String)}, in {@code reuse}'s arrays when not
     * null: a caller that builds many ranks' schedules in turn passes one builder for all of them.
     */
    public Schedule build(CollectiveCall c, int rank, int size, Topology topo, String algorithm,
                          ScheduleBuilder reuse) {
        if (reuse == null) {
            ScheduleAlgorithm a = algorithm(c.kind(), algorithm);
            try {
                return a.build(c, rank, size, params.withTopology(topo));
            } catch (IllegalArgumentException e) {
                throw impossible(c, algorithm, e);
            }
        }
        return ranks(c, size, topo, algorithm).fill(rank, reuse).build();
    }

    /**
     * The schedules of every rank of one call, to be filled one rank after another into one builder
     * and read from it ({@link RankSchedules#fill}): the simulator's million ranks, with nothing made
     * per rank. The algorithm, its parameters and the schedule's name are looked up once here.
     */
    public RankSchedules ranks(CollectiveCall c, int size, Topology topo, String algorithm) {
        ScheduleAlgorithm a = algorithm(c.kind(), algorithm);
        Params p = params.withTopology(topo);
        return new RankSchedules(a, c, size, p, a.scheduleName(c, p), algorithm);
    }

    /** One call's schedules for every rank of a communicator of {@code size}: see {@link #ranks}. */
    public static final class RankSchedules {
        private final ScheduleAlgorithm algorithm;
        private final CollectiveCall call;
        private final int size;
        private final Params params;
        private final String name;
        private final String chosen;

        private RankSchedules(ScheduleAlgorithm algorithm, CollectiveCall call, int size, Params params, String name,
                              String chosen) {
            this.algorithm = algorithm;
            this.call = call;
            this.size = size;
            this.params = params;
            this.name = name;
            this.chosen = chosen;
        }

        /** Rank {@code rank}'s steps in {@code into} (reset first); returns {@code into}. */
        public ScheduleBuilder fill(int rank, ScheduleBuilder into) {
            try {
                return algorithm.fill(call, rank, size, params, name, into);
            } catch (IllegalArgumentException e) {
                throw impossible(call, chosen, e);
            }
        }
    }

    private static TuttiException.InvalidArgument impossible(CollectiveCall c, String algorithm,
                                                             IllegalArgumentException e) {
        return new TuttiException.InvalidArgument(c.kind().settingName() + " with algorithm " + algorithm
                + " is not possible here: " + e.getMessage() + " (choose another with " + variable(c.kind())
                + " or Communicator.setAlgorithm)");
    }

    /** {@code kind}'s algorithm named {@code name}. */
    static ScheduleAlgorithm algorithm(Kind kind, String name) {
        for (ScheduleAlgorithm a : TABLE.get(kind).algorithms()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        check(kind, name, "algorithm");
        throw new AssertionError(name);
    }

    /**
     * Node leaders over several nodes for short vectors (if the leaders keep the order the operation
     * needs); on one node slots for vectors up to {@link #SLOTS_ALLREDUCE_MAX} when ranks outnumber
     * cores or are at most {@link #SLOTS_ALLREDUCE_RANKS}; recursive doubling below 64 KiB and for
     * non-commutative operations; above, Rabenseifner on a power of two and the ring otherwise, which
     * measured close to each other at np 2 (64 KiB: 23.0 and 23.7 µs) and well ahead of recursive
     * doubling (33.5 µs; docs/perf/collectives.md).
     */
    private static String allreduce(CollectiveCall c, int size, Topology topo) {
        long total = c.bytes();
        if (multiNode(topo) && total <= 64 * 1024
                && NODE_LEADERS_ALLREDUCE.serves(c, Params.DEFAULT.withTopology(topo))) {
            return NODE_LEADERS;
        }
        if (!multiNode(topo) && topo.sharedMemory() && (topo.oversubscribed() || size <= SLOTS_ALLREDUCE_RANKS)
                && total <= SLOTS_ALLREDUCE_MAX) {
            return SLOTS;
        }
        if (!c.commutative() || total < 64 * 1024) {
            return "recursive-doubling";
        }
        return Integer.bitCount(size) == 1 ? "rabenseifner" : "ring";
    }

    private static boolean multiNode(Topology topo) {
        return Topology.count(topo.node()) > 1;
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    private static long max(long[] a) {
        long m = 0;
        for (long x : a) {
            m = Math.max(m, x);
        }
        return m;
    }
}
