package io.tutti.coll;

import io.tutti.TuttiException;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Topology;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Pins the selector's choices: the algorithm for every call of a grid (0 B to 4 MiB, 1 to 64 ranks,
 * commutative or not, one node or several, shared memory, oversubscribed, even and uneven blocks,
 * gatherv/scatterv/alltoallv, forced by a communicator or the environment) and the errors of bad
 * settings, against {@code selector-choices.txt}, generated from the selector as it was measured
 * (docs/perf/collectives.md). A change of a default shows up here as a diff of that file: regenerate
 * it with {@code -Dtutti.selector.regenerate=<path of the file in src/test/resources>} and say why in
 * the commit.
 */
class SelectorChoicesTest {
    static final String RESOURCE = "selector-choices.txt";

    /** Bytes per call (per block for the block collectives), around every threshold of the selector. */
    static final long[] BYTES = {0, 8, 256, 264, 1016, 1024, 1032, 4096, 65528, 65536, 65544, 131072, 262136, 262144,
        262152, 524280, 524288, 524296, 1 << 20, 4 << 20};
    static final int[] RANKS = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 32, 33, 64};

    /** Where the ranks run, by name. */
    static Topology topology(String name, int p) {
        int[] node = new int[p];
        int[] socket = new int[p];
        int half = (p + 1) / 2;
        int quarter = Math.max(1, (p + 3) / 4);
        for (int r = 0; r < p; r++) {
            switch (name) {
                case "two-sockets-shm" -> socket[r] = r * 2 / p;
                case "two-nodes" -> node[r] = r / half;
                case "two-nodes-interleaved" -> node[r] = r % 2;
                case "four-nodes-two-sockets" -> {
                    node[r] = r / quarter;
                    socket[r] = r % 2;
                }
                default -> {
                }
            }
        }
        return switch (name) {
            case "flat" -> Topology.flat(p, false);
            case "flat-oversubscribed" -> Topology.flat(p, true);
            case "shm" -> new Topology(node, socket, false, true);
            case "shm-oversubscribed" -> new Topology(node, socket, true, true);
            case "two-sockets-shm" -> new Topology(node, socket, false, true);
            default -> new Topology(node, socket, false);
        };
    }

    static final String[] TOPOLOGIES = {"flat", "flat-oversubscribed", "shm", "shm-oversubscribed", "two-sockets-shm",
        "two-nodes", "two-nodes-interleaved", "four-nodes-two-sockets"};

    static boolean blocked(Kind k) {
        return switch (k) {
            case GATHER, SCATTER, ALLGATHER, ALLTOALL, REDUCE_SCATTER -> true;
            default -> false;
        };
    }

    /** A call of {@code bytes} (per block: equal, or uneven as {@code bytes · (v mod 3)}). */
    static CollectiveCall call(Kind k, long bytes, int p, boolean commutative, boolean uneven, boolean irregular) {
        long[] blocks = null;
        long[] displs = null;
        if (blocked(k)) {
            blocks = new long[p];
            displs = new long[p];
            long at = 0;
            for (int v = 0; v < p; v++) {
                blocks[v] = uneven ? bytes * (v % 3) : bytes;
                displs[v] = at;
                at += blocks[v];
            }
        }
        boolean a2a = k == Kind.ALLTOALL;
        return new CollectiveCall(k, k == Kind.BARRIER ? 0 : bytes, 8, 0, false, commutative, blocks, displs,
                a2a ? blocks : null, a2a ? displs : null, irregular);
    }

    /** "0-1016 slots, 1024-4194304 recursive-doubling": the choice over {@link #BYTES}, run by run. */
    static String runs(java.util.function.LongFunction<String> choice) {
        StringBuilder sb = new StringBuilder();
        String current = null;
        long from = 0;
        long to = 0;
        for (long b : BYTES) {
            String a = choice.apply(b);
            if (!a.equals(current)) {
                if (current != null) {
                    sb.append(sb.isEmpty() ? "" : ", ").append(from).append('-').append(to).append(' ').append(current);
                }
                current = a;
                from = b;
            }
            to = b;
        }
        sb.append(sb.isEmpty() ? "" : ", ").append(from).append('-').append(to).append(' ').append(current);
        return sb.toString();
    }

    static String attempt(Supplier<Object> s) {
        try {
            return String.valueOf(s.get());
        } catch (TuttiException | IllegalArgumentException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** The whole table, as the file holds it. */
    static String table() {
        List<String> lines = new ArrayList<>();
        Selector defaults = new Selector(Map.of());
        lines.add("# the selector's choice per call: kind, operation, blocks, topology, ranks: bytes-range choice");
        for (Kind k : Kind.values()) {
            for (boolean commutative : new boolean[] {true, false}) {
                for (boolean uneven : blocked(k) ? new boolean[] {false, true} : new boolean[] {false}) {
                    for (String t : TOPOLOGIES) {
                        // rank counts with the same choices share a line
                        Map<String, List<String>> ranks = new LinkedHashMap<>();
                        for (int p : RANKS) {
                            Topology topo = topology(t, p);
                            String row = runs(b -> defaults.choose(call(k, b, p, commutative, uneven, false), p, topo,
                                    null));
                            ranks.computeIfAbsent(row, x -> new ArrayList<>()).add(Integer.toString(p));
                        }
                        ranks.forEach((row, ps) -> lines.add(k + " " + (commutative ? "commutative" : "ordered") + " "
                                + (uneven ? "uneven" : "even") + " " + t + " P=" + String.join(",", ps) + ": " + row));
                    }
                }
            }
        }
        lines.add("# irregular calls (gatherv, scatterv, alltoallv), with and without a forced algorithm");
        Map<String, Selector> selectors = new LinkedHashMap<>();
        selectors.put("default", defaults);
        selectors.put("TUTTI_COLL_ALLTOALL=linear", new Selector(Map.of("TUTTI_COLL_ALLTOALL", "linear")));
        selectors.put("TUTTI_COLL_ALLTOALL=' linear '", new Selector(Map.of("TUTTI_COLL_ALLTOALL", " linear ")));
        selectors.put("TUTTI_COLL_ALLTOALL=bruck", new Selector(Map.of("TUTTI_COLL_ALLTOALL", "bruck")));
        selectors.put("TUTTI_COLL_GATHER=binomial", new Selector(Map.of("TUTTI_COLL_GATHER", "binomial")));
        for (Map.Entry<String, Selector> s : selectors.entrySet()) {
            for (Kind k : new Kind[] {Kind.GATHER, Kind.SCATTER, Kind.ALLTOALL}) {
                for (String forced : new String[] {null, "linear", "pairwise", "bruck", "binomial"}) {
                    for (int p : new int[] {1, 4, 9}) {
                        Topology topo = topology("shm", p);
                        String row = runs(b -> s.getValue().choose(call(k, b, p, true, true, true), p, topo, forced));
                        lines.add(s.getKey() + " " + k + " irregular forced=" + forced + " P=" + p + ": " + row);
                    }
                }
            }
        }
        lines.add("# forced by the communicator or the environment; hostChoice ignores both");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("TUTTI_COLL_ALLREDUCE", " ring ");
        env.put("TUTTI_COLL_BCAST", "chain");
        env.put("TUTTI_COLL_BARRIER", "  ");
        env.put("TUTTI_COLL_ALLGATHER", "");
        Selector forcedEnv = new Selector(env);
        for (Kind k : Kind.values()) {
            for (String t : new String[] {"shm", "two-nodes"}) {
                for (int p : new int[] {1, 4, 9}) {
                    Topology topo = topology(t, p);
                    lines.add("env " + k + " " + t + " P=" + p + ": "
                            + runs(b -> forcedEnv.choose(call(k, b, p, true, false, false), p, topo, null)));
                    lines.add("env+setAlgorithm(linear) " + k + " " + t + " P=" + p + ": "
                            + runs(b -> forcedEnv.choose(call(k, b, p, true, false, false), p, topo, "linear")));
                    lines.add("env hostChoice " + k + " " + t + " P=" + p + ": "
                            + runs(b -> forcedEnv.hostChoice(call(k, b, p, true, false, false), p, topo)));
                }
            }
        }
        lines.add("# in-network allreduce leaders");
        for (String mode : new String[] {null, "node", " socket ", "Socket", "rack"}) {
            String what = "TUTTI_INC_MODE=" + (mode == null ? "(unset)" : "'" + mode + "'");
            lines.add(what + ": " + attempt(() -> {
                Selector s = new Selector(mode == null ? Map.of() : Map.of("TUTTI_INC_MODE", mode));
                return s.incSocketMode() + " " + java.util.Arrays.toString(s.incDomains(topology(
                        "four-nodes-two-sockets", 8)));
            }));
        }
        lines.add("# settings and their errors");
        String[][] settings = {
            {"TUTTI_COLL_SEGMENT", "4096"}, {"TUTTI_COLL_SEGMENT", "0"}, {"TUTTI_COLL_SEGMENT", "-3"},
            {"TUTTI_COLL_SEGMENT", "64k"}, {"TUTTI_COLL_SEGMENT", " 100 "}, {"TUTTI_COLL_SEGMENT", ""},
            {"TUTTI_COLL_KARY", "1"}, {"TUTTI_COLL_KARY", "2"}, {"TUTTI_COLL_KARY", "x"}, {"TUTTI_COLL_KARY", "0"},
            {"TUTTI_COLL_ALLREDUCE", "fast"}, {"TUTTI_COLL_ALLREDUCE", "RING"}, {"TUTTI_COLL_BARRIER", "slots"},
            {"TUTTI_COLL_REDUCESCATTER", "ring"}, {"TUTTI_COLL_REDUCE_SCATTER", "bogus"},
            {"TUTTI_COLL_EXSCAN", "linear"}, {"TUTTI_COLL_ALLTOALL", "recursive-doubling"},
        };
        for (String[] kv : settings) {
            lines.add(kv[0] + "='" + kv[1] + "': " + attempt(() -> {
                new Selector(Map.of(kv[0], kv[1]));
                return "accepted";
            }));
        }
        for (Kind k : Kind.values()) {
            lines.add("variable " + k + ": " + Selector.variable(k) + "; available: "
                    + String.join(", ", Selector.AVAILABLE.get(k)));
        }
        lines.add("check(allreduce, fast): " + attempt(() -> Selector.check(Kind.ALLREDUCE, "fast", "where")));
        lines.add("check(bcast, kary): " + attempt(() -> Selector.check(Kind.BCAST, "kary", "where")));
        lines.add("# what a build refuses");
        Object[][] refused = {
            {Kind.ALLREDUCE, "ring", false}, {Kind.ALLREDUCE, "rabenseifner", false},
            {Kind.REDUCE, "rabenseifner", false}, {Kind.REDUCE_SCATTER, "ring", false},
            {Kind.REDUCE_SCATTER, "recursive-halving", false}, {Kind.ALLTOALL, "bruck", true},
            {Kind.ALLREDUCE, "node-leaders", false}, {Kind.ALLREDUCE, "slots", true},
        };
        for (Object[] x : refused) {
            Kind k = (Kind) x[0];
            String alg = (String) x[1];
            boolean uneven = (Boolean) x[2];
            int p = 6;
            CollectiveCall c = call(k, uneven ? 16 : 8000, p, uneven, uneven, false);
            lines.add("build " + k + " " + alg + ": " + attempt(() -> defaults.build(c, 1, p,
                    topology("two-nodes-interleaved", p), alg).name()));
        }
        return String.join("\n", lines) + "\n";
    }

    @Test
    void choicesAreThoseMeasured() throws IOException {
        String now = table();
        String target = System.getProperty("tutti.selector.regenerate");
        if (target != null) {
            Files.writeString(Path.of(target), now);
        }
        String pinned;
        try (InputStream in = SelectorChoicesTest.class.getResourceAsStream(RESOURCE)) {
            pinned = in == null ? "(missing " + RESOURCE + ")" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String[] want = pinned.split("\n");
        String[] got = now.split("\n");
        for (int i = 0; i < Math.min(want.length, got.length); i++) {
            assertEquals(want[i], got[i], RESOURCE + " line " + (i + 1));
        }
        assertEquals(want.length, got.length, RESOURCE + " lines");
    }
}
