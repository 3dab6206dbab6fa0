package io.tutti.coll;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Settings of the collectives, read once from the job's {@link Config}: each a property name
 * ({@code tutti.coll.segment}, or {@code TUTTI_COLL_SEGMENT} in the environment) and its default
 * here. docs/guide/configuration.md lists them all.
 *
 * @param segment    bytes per pipeline segment of the chain, trinaryx3 and linear-scan algorithms
 * @param kary       children per node of the k-ary broadcast tree, at least 2
 * @param incMode    leaders of the in-network allreduce: {@code node} (one per node) or {@code socket}
 *                   (one per CPU package)
 * @param algorithms the algorithm forced per operation ({@code tutti.coll.allreduce=ring}, or
 *                   {@code TUTTI_COLL_ALLREDUCE=ring}), so that benchmarks can compare them; an
 *                   operation not in the map is left to the selector
 * @param nodeSize   pretend each run of this many consecutive world ranks is a node (tests and
 *                   benchmarks of the hierarchical algorithms on one machine); 0: nodes are hosts
 * @param sockets    pretend each node has this many sockets, its ranks split evenly in rank order;
 *                   0: the CPU package each rank started on
 * @param check      before every blocking or nonblocking collective, the ranks compare the call's
 *                   signature (operation, root, bytes, datatype, reduction, algorithm) and fail
 *                   with both calls named where they differ ({@code TUTTI_CHECK=collectives})
 */
public record CollConfig(long segment, int kary, String incMode, Map<Kind, String> algorithms, int nodeSize,
                         int sockets, boolean check) {
    public static final String SEGMENT = "tutti.coll.segment";
    public static final long SEGMENT_DEFAULT = ScheduleAlgorithm.Params.SEGMENT_DEFAULT;
    public static final String KARY = "tutti.coll.kary";
    public static final int KARY_DEFAULT = ScheduleAlgorithm.Params.KARY_DEFAULT;
    public static final String INC_MODE = "tutti.inc.mode";
    public static final String INC_MODE_DEFAULT = "node";
    public static final String NODE_SIZE = "tutti.topology.node.size";
    public static final String SOCKETS = "tutti.topology.sockets";
    public static final String CHECK = "tutti.check";
    /**
     * None: the ranks find out that they disagree only when a call stalls (a liveness interval),
     * and a disagreement that does not stall (another reduction, another datatype of the same size)
     * goes unnoticed; {@code collectives} costs an allgather of the signatures per call, whose
     * price at np 4 on an 8 B allreduce is to be measured before it could be the default.
     */
    public static final String CHECK_DEFAULT = "";

    public CollConfig {
        checkIncMode(incMode);
        if (segment <= 0) {
            throw notPositive(SEGMENT, Long.toString(segment));
        }
        if (nodeSize < 0 || sockets < 0) {
            throw new TuttiException.InvalidArgument(Config.envName(nodeSize < 0 ? NODE_SIZE : SOCKETS)
                    + " must be a whole number >= 0, got " + Math.min(nodeSize, sockets));
        }
        if (kary < 2) {
            throw new TuttiException.InvalidArgument(Config.envName(KARY) + " must be at least 2, got " + kary);
        }
        EnumMap<Kind, String> forced = new EnumMap<>(Kind.class);
        forced.putAll(algorithms);
        forced.forEach((kind, algorithm) -> Selector.check(kind, algorithm, Selector.variable(kind) + "=" + algorithm));
        algorithms = Collections.unmodifiableMap(forced);
    }

    /** Defaults only: the selector chooses every algorithm. */
    public static CollConfig defaults() {
        return new CollConfig(SEGMENT_DEFAULT, KARY_DEFAULT, INC_MODE_DEFAULT, Map.of(), 0, 0, false);
    }

    /** The collectives' settings of a job. */
    public static CollConfig from(Config c) {
        String mode = c.text(INC_MODE, INC_MODE_DEFAULT);
        checkIncMode(mode);
        long segment = positive(c, SEGMENT, SEGMENT_DEFAULT);
        int kary = (int) positive(c, KARY, KARY_DEFAULT);
        Map<Kind, String> forced = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            String algorithm = c.get(property(k));
            if (algorithm != null) {
                forced.put(k, algorithm);
            }
        }
        String check = c.text(CHECK, CHECK_DEFAULT).trim();
        if (!check.isEmpty() && !check.equals("collectives") && !check.equals("none")) {
            throw new TuttiException.InvalidArgument(Config.envName(CHECK) + " must be collectives or none, got '"
                    + check + "'");
        }
        return new CollConfig(segment, kary, mode, forced, atLeastZero(c, NODE_SIZE), atLeastZero(c, SOCKETS),
                check.equals("collectives"));
    }

    /** The property that forces {@code kind}'s algorithm: {@code tutti.coll.allreduce}. */
    public static String property(Kind kind) {
        return "tutti.coll." + kind.settingName();
    }

    /** The algorithm forced for {@code kind}, or null when the selector chooses. */
    public String algorithm(Kind kind) {
        return algorithms.get(kind);
    }

    /** Whether the in-network allreduce has a leader per socket (else per node). */
    public boolean incSockets() {
        return incMode.equals("socket");
    }

    private static void checkIncMode(String mode) {
        if (!mode.equals("node") && !mode.equals("socket")) {
            throw new TuttiException.InvalidArgument(Config.envName(INC_MODE) + " must be node or socket, got '"
                    + mode + "'");
        }
    }

    private static long positive(Config c, String name, long fallback) {
        String v = c.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            long x = Long.parseLong(v);
            if (x > 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw notPositive(name, v);
    }

    private static int atLeastZero(Config c, String name) {
        String v = c.get(name);
        if (v == null) {
            return 0;
        }
        try {
            int x = Integer.parseInt(v);
            if (x >= 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new TuttiException.InvalidArgument(Config.envName(name) + " must be a whole number >= 0, got '" + v
                + "'");
    }

    private static TuttiException.InvalidArgument notPositive(String name, String value) {
        return new TuttiException.InvalidArgument(Config.envName(name) + " must be a positive whole number, got '"
                + value + "'");
    }
}
