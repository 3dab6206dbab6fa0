package io.tutti.bench;

import io.tutti.report.Charts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * The plot of {@code bench/compare-p2p.sh --plot FILE}: one curve per configuration whose name ends
 * in {@code -bw} or {@code -mr} (Tutti's and Open MPI's), MB/s against message size, from the median
 * table the script prints ({@code config size median runs...}). Run as
 * {@code java -cp 'lib/*' io.tutti.bench.ComparePlot TABLE FILE.png|svg [TITLE]}.
 */
public final class ComparePlot {
    private ComparePlot() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: ComparePlot TABLE FILE.png|FILE.svg [TITLE]");
            System.exit(2);
        }
        Charts.format(args[1]);
        String title = args.length == 3 ? args[2] : "Point-to-point bandwidth over shared memory";
        Charts.save(chart(series(Files.readAllLines(Path.of(args[0]))), title), Path.of(args[1]));
    }

    /** Per bandwidth configuration, in table order: size to median MB/s. */
    static Map<String, Map<Long, Double>> series(List<String> lines) {
        Map<String, Map<Long, Double>> out = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3 || !(f[0].endsWith("-bw") || f[0].endsWith("-mr")) || !f[1].matches("\\d+")) {
                continue;
            }
            try {
                out.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).put(Long.parseLong(f[1]), Double.parseDouble(f[2]));
            } catch (NumberFormatException e) {
                // a header or a row without a figure
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no bandwidth rows (config ending in -bw or -mr, size, MB/s) in the"
                    + " table: give the summary compare-p2p.sh prints");
        }
        return out;
    }

    /** The chart of {@link #series}: a size axis in binary units, MB/s on a linear axis (readable ticks). */
    static XYChart chart(Map<String, Map<Long, Double>> series, String title) {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
                .xAxisTitle("message size").yAxisTitle("MB/s (10^6 bytes per second)").build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        Charts.sizeAxis(chart);
        series.forEach((name, points) -> {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            points.forEach((size, mbps) -> {
                if (size > 0 && mbps > 0) {
                    x.add(Charts.sizeX(size));
                    y.add(mbps);
                }
            });
            if (!x.isEmpty()) {
                chart.addSeries(name, x, y);
            }
        });
        return chart;
    }
}
