package io.tutti.sim;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Topology;
import io.tutti.report.Charts;
import io.tutti.report.JsonLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleConsumer;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * One simulated experiment point and its report: builds the collective's schedules for
 * {@code nodes × ppn} ranks with the real {@link io.tutti.coll.Selector}, runs them in a rank model over a
 * network, and gives a {@link Row}; writes rows as CSV and as an XChart PNG or SVG.
 */
public final class SimExperiment {
    private SimExperiment() {
    }

    /** Rank models. */
    public static final List<String> MODES = List.of("host", "nic", "switch");

    /** Networks. */
    public static final List<String> NETWORKS = List.of("loggp", "packet");

    /**
     * One point.
     *
     * @param coll      the collective
     * @param algorithm algorithm name, or null for the selector's choice; in switch mode the leaders,
     *                  {@code node} (default) or {@code socket}
     * @param mode      rank model: host, nic or switch (allreduce only, always over the packet
     *                  network's links)
     * @param network   loggp or packet
     * @param topology  fabric spec for the packet network ({@link Fabric#parse}); ignored by loggp
     * @param nodes     nodes
     * @param ppn       ranks per node
     * @param size      bytes per rank (rounded down to whole elements)
     * @param extent    bytes per element
     * @param params    model parameters
     */
    public record Spec(Kind coll, String algorithm, String mode, String network, String topology, int nodes, int ppn,
                       long size, int extent, SimParams params) {
    }

    /** One result row. */
    public record Row(String coll, String algorithm, String mode, String network, String topology, int nodes, int ppn,
                      int ranks, long size, long completionNs, long events, long messages, long bytes, int shapes,
                      double wallSeconds) {
        /** Field name → value, in CSV column order. */
        public Map<String, Object> fields() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("coll", coll);
            m.put("algorithm", algorithm);
            m.put("mode", mode);
            m.put("network", network);
            m.put("topology", topology);
            m.put("nodes", nodes);
            m.put("ppn", ppn);
            m.put("ranks", ranks);
            m.put("size", size);
            m.put("completion_ns", completionNs);
            m.put("events", events);
            m.put("messages", messages);
            m.put("bytes", bytes);
            m.put("shapes", shapes);
            m.put("wall_s", String.format(Locale.ROOT, "%.3f", wallSeconds));
            return m;
        }

        /** One JSON object on one line, the fields in CSV column order. */
        public String json() {
            return JsonLine.object().text("coll", coll).text("algorithm", algorithm).text("mode", mode)
                    .text("network", network).text("topology", topology).integer("nodes", nodes).integer("ppn", ppn)
                    .integer("ranks", ranks).integer("size", size).integer("completion_ns", completionNs)
                    .integer("events", events).integer("messages", messages).integer("bytes", bytes)
                    .integer("shapes", shapes).fixed("wall_s", wallSeconds, 3).end();
        }
    }

    /** The collective by its setting name ({@code allreduce}, {@code reducescatter} ...). */
    public static Kind kind(String name) {
        for (Kind k : Kind.values()) {
            if (k.settingName().equals(name.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        List<String> names = new ArrayList<>();
        for (Kind k : Kind.values()) {
            names.add(k.settingName());
        }
        throw new IllegalArgumentException("unknown collective '" + name + "'; choose one of "
                + String.join(", ", names));
    }

    /** The call every rank makes: {@code size} bytes per rank (per block for the block collectives). */
    public static CollectiveCall call(Kind kind, long size, int extent, int ranks) {
        long bytes = size / extent * extent;
        long[] blocks = null;
        long[] displs = null;
        switch (kind) {
            case GATHER, SCATTER, ALLGATHER, ALLTOALL, REDUCE_SCATTER -> {
                blocks = new long[ranks];
                displs = new long[ranks];
                for (int r = 0; r < ranks; r++) {
                    blocks[r] = bytes;
                    displs[r] = r * bytes;
                }
            }
            default -> {
            }
        }
        boolean a2a = kind == Kind.ALLTOALL;
        return new CollectiveCall(kind, kind == Kind.BARRIER ? 0 : bytes, extent, 0, false, true, blocks, displs,
                a2a ? blocks : null, a2a ? displs : null, false);
    }

    /**
     * Runs one point; {@code progress} (may be null) hears the fraction done: building the
     * schedules is the first fifth, the simulation the rest.
     */
    public static Row run(Spec s, DoubleConsumer progress) {
        if (!MODES.contains(s.mode())) {
            throw new IllegalArgumentException("unknown mode '" + s.mode() + "'; choose host, nic or switch");
        }
        if (s.nodes() < 1 || s.ppn() < 1) {
            throw new IllegalArgumentException("nodes and ppn must be at least 1");
        }
        long ranksL = (long) s.nodes() * s.ppn();
        if (ranksL > (1 << 26)) {
            throw new IllegalArgumentException("at most 2^26 ranks, got " + ranksL);
        }
        int ranks = (int) ranksL;
        if (s.mode().equals("switch")) {
            return runSwitch(s, progress);
        }
        long wall = System.nanoTime();
        int[] node = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            node[r] = r / s.ppn();
        }
        Topology topo = new Topology(node, new int[ranks], false);
        CollectiveCall c = call(s.coll(), s.size(), s.extent(), ranks);
        Selector algorithms = new Selector(Map.of());
        boolean nic = s.mode().equals("nic");
        String alg = nic ? "offload" : s.algorithm() != null ? Selector.check(s.coll(), s.algorithm(), "--algorithm")
                : algorithms.choose(c, ranks, topo, null);
        CompiledSchedules cs = nic ? null : CompiledSchedules.build(algorithms, c, ranks, topo, alg,
                progress == null ? null : f -> progress.accept(0.2 * f));
        Network net;
        String topology;
        if (s.network().equals("loggp")) {
            net = new LogGPNetwork(s.params().L());
            topology = "-";
        } else if (s.network().equals("packet")) {
            Fabric f = Fabric.parse(s.topology(), s.nodes());
            net = new PacketNetwork(f, s.params(), s.ppn());
            topology = f.name();
        } else {
            throw new IllegalArgumentException("unknown network '" + s.network() + "'; choose loggp or packet");
        }
        RankModel model = nic ? new NicModel(nicPrograms(s, ranks), null, s.params())
                : new HostModel(cs, s.params(), null);
        SimResult r = Simulation.run(model, net, progress == null ? null : f -> progress.accept(0.2 + 0.8 * f));
        return new Row(s.coll().settingName(), alg, s.mode(), net.name(), topology, s.nodes(), s.ppn(), ranks,
                c.kind() == Kind.BARRIER ? 0 : s.size() / s.extent() * s.extent(), r.completionNs(), r.events(),
                r.messages(), r.bytes(), cs == null ? 0 : cs.shapes(), (System.nanoTime() - wall) / 1e9);
    }

    /** The leader modes of switch mode, by algorithm name. */
    public static final List<String> LEADERS = List.of("node", "socket");

    /** Switch mode: in-network aggregation of an allreduce ({@link SwitchModel}). */
    private static Row runSwitch(Spec s, DoubleConsumer progress) {
        if (s.coll() != Kind.ALLREDUCE) {
            throw new IllegalArgumentException("switch mode aggregates allreduce only, not " + s.coll().settingName());
        }
        String leaders = s.algorithm() == null ? "node" : s.algorithm().toLowerCase(Locale.ROOT);
        if (!LEADERS.contains(leaders)) {
            throw new IllegalArgumentException("switch mode's algorithm names the leaders: node or socket, not '"
                    + s.algorithm() + "'");
        }
        long wall = System.nanoTime();
        Fabric f = Fabric.parse(s.topology(), s.nodes());
        int perTor;
        if (f instanceof Fabric.LeafSpine ls) {
            perTor = ls.perLeaf;
        } else if (f instanceof Fabric.Crossbar) {
            perTor = s.nodes();
        } else {
            throw new IllegalArgumentException("switch mode aggregates in ToR and spine switches: use --topology"
                    + " leafspine:hosts=H,spines=S or crossbar, not " + f.name());
        }
        long bytes = Math.max(s.extent(), s.size() / s.extent() * s.extent());
        SwitchModel m = new SwitchModel(s.nodes(), s.ppn(), perTor, leaders.equals("node") ? SwitchModel.Leaders.NODE
                : SwitchModel.Leaders.SOCKET, bytes, s.extent(), null, s.params());
        SimResult r = Simulation.run(m, null, progress);
        return new Row(s.coll().settingName(), leaders, "switch", "packet", f.name(), s.nodes(), s.ppn(),
                s.nodes() * s.ppn(), bytes, r.completionNs(), r.events(), r.messages(), r.bytes(), 0,
                (System.nanoTime() - wall) / 1e9);
    }

    /** Every rank's offloaded program for NIC mode: the plans of the real offload engine. */
    static io.tutti.offload.OffloadProgram[] nicPrograms(Spec s, int ranks) {
        if (ranks > 1 << 16) {
            throw new IllegalArgumentException("NIC mode builds every rank's program up front: at most 65536 ranks");
        }
        io.tutti.offload.OffloadPlans.Coll coll = switch (s.coll()) {
            case BARRIER -> io.tutti.offload.OffloadPlans.Coll.BARRIER;
            case BCAST -> io.tutti.offload.OffloadPlans.Coll.BCAST;
            case ALLGATHER -> io.tutti.offload.OffloadPlans.Coll.ALLGATHER;
            case REDUCE -> io.tutti.offload.OffloadPlans.Coll.REDUCE;
            case ALLREDUCE -> io.tutti.offload.OffloadPlans.Coll.ALLREDUCE;
            default -> throw new IllegalArgumentException(s.coll().settingName() + " has no offloaded program;"
                    + " NIC mode runs barrier, bcast, allgather, reduce and allreduce");
        };
        long bytes = s.coll() == Kind.BARRIER ? 0 : Math.max(8, s.size() / 8 * 8);
        boolean reduces = coll == io.tutti.offload.OffloadPlans.Coll.REDUCE
                || coll == io.tutti.offload.OffloadPlans.Coll.ALLREDUCE;
        return io.tutti.offload.OffloadPlans.programs(coll, ranks, bytes, 0,
                reduces ? io.tutti.reduce.OffloadAlu.Op.ADD : null,
                reduces ? io.tutti.reduce.OffloadAlu.Type.INT64 : null);
    }

    /** Writes {@code rows} as CSV (RFC 4180) with a header line. */
    public static void writeCsv(Path file, List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        if (!rows.isEmpty()) {
            csvLine(sb, rows.getFirst().fields().keySet());
        }
        for (Row r : rows) {
            csvLine(sb, r.fields().values());
        }
        try {
            createParent(file);
            Files.writeString(file, sb);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** One CSV record: a field with a comma, quote, line break or edge space is quoted, its quotes doubled. */
    static void csvLine(StringBuilder sb, Iterable<?> fields) {
        boolean first = true;
        for (Object o : fields) {
            String x = String.valueOf(o);
            if (!first) {
                sb.append(',');
            }
            first = false;
            if (x.chars().anyMatch(c -> c == ',' || c == '"' || c == '\n' || c == '\r') || !x.equals(x.strip())) {
                sb.append('"').append(x.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(x);
            }
        }
        sb.append('\n');
    }

    /**
     * Writes a plot of completion time (µs) over the x axis, as PNG or SVG by the file's extension:
     * message size (in binary units) when there are several sizes, else node count; one series per
     * (node count or size).
     */
    public static void plot(Path file, List<Row> rows) {
        Charts.save(chart(rows), file);
    }

    /** The chart of {@link #plot}, for a test to look at. */
    static XYChart chart(List<Row> rows) {
        System.setProperty("java.awt.headless", "true");
        boolean bySize = rows.stream().map(Row::size).distinct().count() > 1;
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (Row r : rows) {
            String name = bySize ? r.nodes() + " nodes × " + r.ppn() : Charts.size(r.size());
            double x = bySize ? Charts.sizeX(Math.max(1, r.size())) : r.nodes();
            series.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {x, r.completionNs() / 1e3});
        }
        Row first = rows.getFirst();
        XYChart chart = new XYChartBuilder().width(900).height(560)
                .title("Tutti sim: " + first.coll() + " / " + first.algorithm() + ", " + first.mode() + " mode, "
                        + first.network() + (first.topology().equals("-") ? "" : " " + first.topology()))
                .xAxisTitle(bySize ? "size (bytes per rank)" : "nodes").yAxisTitle("completion time (us)").build();
        chart.getStyler().setXAxisLogarithmic(!bySize);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        if (bySize) {
            Charts.sizeAxis(chart);
        } else {
            Charts.plainNumbers(chart);
        }
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(p -> p[0]).toArray();
            double[] y = e.getValue().stream().mapToDouble(p -> Math.max(p[1], 1e-3)).toArray();
            chart.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    private static void createParent(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
    }
}
