package io.tutti.coll;

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
import io.tutti.coll.algo.KaryBcast;
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
import io.tutti.coll.algo.SlotsAllreduce;
import io.tutti.coll.algo.SlotsBarrier;
import io.tutti.coll.algo.TreeBarrier;
import io.tutti.coll.algo.Trinaryx3Bcast;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import io.tutti.TuttiException;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The selector: chooses the algorithm for a collective call and builds its schedule. The choice can
 * be forced per operation with {@code TUTTI_COLL_<OP>=<algorithm>} (for example {@code
 * TUTTI_COLL_ALLREDUCE=ring}) or per communicator ({@code Communicator.setAlgorithm}), so that
 * benchmarks can compare them. Forcing an algorithm that cannot serve a call (a ring allreduce of a
 * non-commutative operation, Bruck's alltoall of uneven blocks) is an error that says why.
 *
 * <p>Parameters of the pipelined and k-ary algorithms: {@code TUTTI_COLL_SEGMENT} (bytes per
 * pipeline segment, default {@value #SEGMENT_DEFAULT}) and {@code TUTTI_COLL_KARY} (children per
 * node of the k-ary tree, default {@value #KARY_DEFAULT}).
 */
public final class Selector {
    public static final String SEGMENT = "TUTTI_COLL_SEGMENT";
    public static final long SEGMENT_DEFAULT = 64 * 1024;
    public static final String KARY = "TUTTI_COLL_KARY";
    public static final int KARY_DEFAULT = 4;

    /** Node and Socket leader modes, for any operation that has them. */
    public static final String NODE_LEADERS = "node-leaders";
    public static final String SOCKET_LEADERS = "socket-leaders";
    /** In-network allreduce: the aggregation switches reduce the leaders' data (see {@link InNetworkGroup}). */
    public static final String INC = "inc";
    /** Leaders of the in-network allreduce: {@code node} (one per node) or {@code socket} (one per CPU package). */
    public static final String INC_MODE = "TUTTI_INC_MODE";
    public static final String INC_MODE_DEFAULT = "node";
    /**
     * Shared-memory slots ({@link NodeSlots}): every rank publishes its data in shared memory and
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

    /** The algorithms per operation, in the order they are listed to users. */
    public static final Map<Kind, List<String>> AVAILABLE = available();

    private static Map<Kind, List<String>> available() {
        Map<Kind, List<String>> m = new EnumMap<>(Kind.class);
        m.put(Kind.BARRIER, List.of("dissemination", "butterfly", "tree", "linear", SLOTS, NODE_LEADERS, SOCKET_LEADERS));
        m.put(Kind.BCAST, List.of("binomial", "kary", "chain", "trinaryx3", "scatter-allgather", NODE_LEADERS,
                SOCKET_LEADERS));
        m.put(Kind.REDUCE, List.of("binomial", "chain", "rabenseifner"));
        m.put(Kind.ALLREDUCE, List.of("recursive-doubling", "rabenseifner", "ring", "reduce-bcast", "linear", SLOTS,
                NODE_LEADERS, SOCKET_LEADERS, INC));
        m.put(Kind.REDUCE_SCATTER, List.of("recursive-halving", "ring", "pairwise"));
        m.put(Kind.SCAN, List.of("recursive-doubling", "linear"));
        m.put(Kind.EXSCAN, List.of("recursive-doubling", "linear"));
        m.put(Kind.GATHER, List.of("binomial", "linear"));
        m.put(Kind.SCATTER, List.of("binomial", "linear"));
        m.put(Kind.ALLGATHER, List.of("recursive-doubling", "bruck", "ring"));
        m.put(Kind.ALLTOALL, List.of("pairwise", "bruck", "linear"));
        return m;
    }

    private final Map<String, String> env;
    private final long segment;
    private final int kary;
    private final boolean incSocketMode;

    public Selector(Map<String, String> env) {
        this.env = env;
        String mode = env.getOrDefault(INC_MODE, INC_MODE_DEFAULT).trim();
        if (!mode.equals("node") && !mode.equals("socket")) {
            throw new TuttiException.InvalidArgument(INC_MODE + " must be node or socket, got '" + mode + "'");
        }
        this.incSocketMode = mode.equals("socket");
        this.segment = positive(env, SEGMENT, SEGMENT_DEFAULT);
        this.kary = (int) positive(env, KARY, KARY_DEFAULT);
        if (kary < 2) {
            throw new TuttiException.InvalidArgument(KARY + " must be at least 2, got " + kary);
        }
        for (Kind k : Kind.values()) {
            String forced = env.get(variable(k));
            if (forced != null && !forced.isBlank()) {
                check(k, forced.trim(), variable(k) + "=" + forced);
            }
        }
    }

    private static long positive(Map<String, String> env, String name, long fallback) {
        return io.tutti.bootstrap.LaunchEnvironment.positive(env, name, fallback, "a positive whole number");
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
     * environment's, else the selector's choice by size, rank count and topology. Gatherv and
     * scatterv are always linear (only the root knows their layout) and alltoallv is pairwise or
     * linear (each rank knows only its own blocks).
     */
    public String choose(CollectiveCall c, int size, Topology topo, String forced) {
        if (c.irregular()) {
            // the ranks' block sizes differ, so no rank may choose by its own: every rank must
            // reach the same answer from what they all know
            if (c.kind() == Kind.ALLTOALL) {
                String f = forced != null ? forced : env.get(variable(c.kind()));
                return "linear".equals(f == null ? null : f.trim()) ? "linear" : "pairwise";
            }
            return "linear";
        }
        if (forced != null) {
            return forced;
        }
        String fromEnv = env.get(variable(c.kind()));
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        return select(c, size, topo);
    }

    /**
     * The defaults, from the measurements in docs/perf/collectives.md: latency-bound trees and
     * butterflies for small messages, bandwidth-optimal rings and halving-doubling for large ones,
     * fewer messages when ranks outnumber cores, and leaders when ranks span several nodes.
     */
    private String select(CollectiveCall c, int size, Topology topo) {
        boolean multiNode = Topology.count(topo.node()) > 1;
        long total = c.bytes();
        return switch (c.kind()) {
            // slots when the ranks share memory: one wait instead of ⌈log2 P⌉ rounds; else
            // dissemination, measured faster than the tree's fewer messages when ranks outnumber cores
            // (docs/perf/collectives.md)
            case BARRIER -> multiNode ? NODE_LEADERS : topo.sharedMemory() ? SLOTS : "dissemination";
            case BCAST -> {
                if (multiNode && total <= 64 * 1024) {
                    yield NODE_LEADERS;
                }
                yield size > 2 && total >= 512 * 1024 ? "scatter-allgather" : "binomial";
            }
            case REDUCE -> c.commutative() && size > 2 && total >= 512 * 1024 ? "rabenseifner" : "binomial";
            case ALLREDUCE -> {
                if (multiNode && total <= 64 * 1024 && leadersKeepOrder(c, topo.nodeDomains())) {
                    yield NODE_LEADERS;
                }
                if (!multiNode && topo.sharedMemory() && (topo.oversubscribed() || size <= SLOTS_ALLREDUCE_RANKS)
                        && total <= SLOTS_ALLREDUCE_MAX) {
                    yield SLOTS;
                }
                if (!c.commutative() || total < 64 * 1024) {
                    yield "recursive-doubling";
                }
                yield Integer.bitCount(size) == 1 ? "rabenseifner" : "ring";
            }
            case REDUCE_SCATTER -> !c.commutative() ? "pairwise" : sum(c.blocks()) >= 512 * 1024 ? "ring"
                    : "recursive-halving";
            case SCAN, EXSCAN -> "recursive-doubling";
            case GATHER, SCATTER -> max(c.blocks()) >= 64 * 1024 ? "linear" : "binomial";
            case ALLGATHER -> sum(c.blocks()) >= 256 * 1024 ? "ring" : "recursive-doubling";
            case ALLTOALL -> max(c.blocks()) <= 256 && size > 4 && BruckAlltoall.supports(c.sendBlocks(), c.blocks())
                    ? "bruck" : "pairwise";
        };
    }

    /** The selector's choice among the host algorithms: what {@code inc} falls back to. */
    public String hostChoice(CollectiveCall c, int size, Topology topo) {
        return select(c, size, topo);
    }

    /** Whether the in-network allreduce uses socket leaders (else node leaders). */
    public boolean incSocketMode() {
        return incSocketMode;
    }

    /** The leader domains of the in-network allreduce. */
    public int[] incDomains(Topology topo) {
        return incSocketMode ? topo.socketDomains() : topo.nodeDomains();
    }

    /** Leaders reduce their domains' partial results in leader order: fine unless order matters and domains interleave. */
    private static boolean leadersKeepOrder(CollectiveCall c, int[] domains) {
        return c.commutative() || HierarchicalSchedules.contiguous(domains);
    }

    /** Builds rank {@code rank}'s schedule for the call with {@code algorithm}. */
    public Schedule build(CollectiveCall c, int rank, int size, Topology topo, String algorithm) {
        try {
            return switch (c.kind()) {
                case BARRIER -> switch (algorithm) {
                    case "dissemination" -> DisseminationBarrier.build(rank, size);
                    case "butterfly" -> ButterflyBarrier.build(rank, size);
                    case "tree" -> TreeBarrier.build(rank, size);
                    case "linear" -> LinearBarrier.build(rank, size);
                    case SLOTS -> SlotsBarrier.build(rank, size);
                    default -> HierarchicalSchedules.barrier(rank, size, domains(topo, algorithm));
                };
                case BCAST -> switch (algorithm) {
                    case "binomial" -> BinomialBcast.build(rank, size, c.bytes(), c.root());
                    case "kary" -> KaryBcast.build(rank, size, c.bytes(), c.root(), kary);
                    case "chain" -> ChainBcast.build(rank, size, c.bytes(), c.root(), segment);
                    case "trinaryx3" -> Trinaryx3Bcast.build(rank, size, c.bytes(), c.root(), segment);
                    case "scatter-allgather" -> ScatterAllgatherBcast.build(rank, size, c.bytes(), c.root());
                    default -> HierarchicalSchedules.bcast(rank, size, c.bytes(), c.root(), domains(topo, algorithm));
                };
                case REDUCE -> switch (algorithm) {
                    case "binomial" -> BinomialReduce.build(rank, size, c.bytes(), c.extent(), c.root(), c.inPlace(),
                            c.commutative());
                    case "chain" -> ChainReduce.build(rank, size, c.bytes(), c.extent(), c.root(), c.inPlace(), c.commutative(),
                            segment);
                    default -> RabenseifnerReduce.build(rank, size, c.bytes(), c.extent(), c.root(), c.inPlace(),
                            c.commutative());
                };
                case ALLREDUCE -> switch (algorithm) {
                    case "recursive-doubling" -> RecursiveDoublingAllreduce.build(rank, size, c.bytes(), c.extent(),
                            c.inPlace(), c.commutative());
                    case "rabenseifner" -> RabenseifnerAllreduce.build(rank, size, c.bytes(), c.extent(), c.inPlace(),
                            c.commutative());
                    case "ring" -> RingAllreduce.build(rank, size, c.bytes(), c.extent(), c.inPlace(), c.commutative());
                    case "reduce-bcast" -> ReduceBcastAllreduce.build(rank, size, c.bytes(), c.extent(), c.inPlace(),
                            c.commutative());
                    case "linear" -> LinearAllreduce.build(rank, size, c.bytes(), c.extent(), c.inPlace());
                    case SLOTS -> SlotsAllreduce.build(rank, size, c.bytes(), c.extent(), c.inPlace());
                    case INC -> HierarchicalSchedules.incAllreduce(rank, size, c.bytes(), c.extent(), c.inPlace(),
                            incDomains(topo));
                    default -> HierarchicalSchedules.allreduce(rank, size, c.bytes(), c.extent(), c.inPlace(), c.commutative(),
                            domains(topo, algorithm));
                };
                case REDUCE_SCATTER -> switch (algorithm) {
                    case "recursive-halving" -> RecursiveHalvingReduceScatter.build(rank, size, c.blocks(), c.extent(),
                            c.inPlace(), c.commutative());
                    case "ring" -> RingReduceScatter.build(rank, size, c.blocks(), c.extent(), c.inPlace(), c.commutative());
                    default -> PairwiseReduceScatter.build(rank, size, c.blocks(), c.extent(), c.inPlace(), c.commutative());
                };
                case SCAN, EXSCAN -> {
                    boolean exclusive = c.kind() == Kind.EXSCAN;
                    yield algorithm.equals("linear")
                            ? LinearScan.build(rank, size, c.bytes(), c.extent(), c.inPlace(), c.commutative(), exclusive,
                                    segment)
                            : RecursiveDoublingScan.build(rank, size, c.bytes(), c.extent(), c.inPlace(), c.commutative(),
                                    exclusive);
                }
                case GATHER -> algorithm.equals("linear")
                        ? LinearGather.build(rank, size, c.blocks(), c.displs(), c.root(), c.inPlace())
                        : BinomialGather.build(rank, size, c.blocks(), c.displs(), c.root(), c.inPlace());
                case SCATTER -> algorithm.equals("linear")
                        ? LinearScatter.build(rank, size, c.blocks(), c.displs(), c.root(), c.inPlace())
                        : BinomialScatter.build(rank, size, c.blocks(), c.displs(), c.root(), c.inPlace());
                case ALLGATHER -> switch (algorithm) {
                    case "ring" -> RingAllgather.build(rank, size, c.blocks(), c.displs(), c.inPlace());
                    case "bruck" -> BruckAllgather.build(rank, size, c.blocks(), c.displs(), c.inPlace());
                    default -> RecursiveDoublingAllgather.build(rank, size, c.blocks(), c.displs(), c.inPlace());
                };
                case ALLTOALL -> switch (algorithm) {
                    case "bruck" -> BruckAlltoall.build(rank, size, c.sendBlocks(), c.sendDispls(), c.blocks(), c.displs(),
                            c.inPlace());
                    case "linear" -> LinearAlltoall.build(rank, size, c.sendBlocks(), c.sendDispls(), c.blocks(), c.displs(),
                            c.inPlace());
                    default -> PairwiseAlltoall.build(rank, size, c.sendBlocks(), c.sendDispls(), c.blocks(), c.displs(),
                            c.inPlace());
                };
            };
        } catch (IllegalArgumentException e) {
            throw new TuttiException.InvalidArgument(c.kind().settingName() + " with algorithm " + algorithm
                    + " is not possible here: " + e.getMessage() + " (choose another with " + variable(c.kind())
                    + " or Communicator.setAlgorithm)");
        }
    }

    private static int[] domains(Topology topo, String algorithm) {
        return algorithm.equals(SOCKET_LEADERS) ? topo.socketDomains() : topo.nodeDomains();
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
