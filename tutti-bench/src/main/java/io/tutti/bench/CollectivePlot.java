package io.tutti.bench;

import io.tutti.report.Charts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The [BCL-3]-style plot of a collective benchmark (as figures 5.16–5.20 of [BCL-3]): measured
 * bandwidth and its theoretical value over the message size, written as PNG or SVG by the file's
 * extension, with the size axis in binary units ({@link Charts}).
 */
final class CollectivePlot {
    private CollectivePlot() {
    }

    /** Writes the plot of {@code rows} (sizes with a finite figure and bound) to {@code file} (.png or .svg). */
    static void write(Path file, String op, int ranks, List<CollectiveBenchmark.Row> rows) {
        Charts.save(chart(op, ranks, rows), file);
    }

    /** The chart of {@link #write}, for a test to look at. */
    static XYChart chart(String op, int ranks, List<CollectiveBenchmark.Row> rows) {
        System.setProperty("java.awt.headless", "true");
        List<Double> x = new ArrayList<>();
        List<Double> measured = new ArrayList<>();
        List<Double> bound = new ArrayList<>();
        for (CollectiveBenchmark.Row r : rows) {
            if (r.size() > 0 && r.bandwidth() > 0 && r.bound() > 0 && Double.isFinite(r.bound())) {
                x.add(Charts.sizeX(r.size()));
                measured.add(r.bandwidth() / 1e6);
                bound.add(r.bound() / 1e6);
            }
        }
        if (x.isEmpty()) {
            throw new IllegalStateException("nothing to plot: no size has both a bandwidth and a bound"
                    + " (a bound needs at least 2 ranks)");
        }
        XYChart chart = new XYChartBuilder().width(900).height(560)
                .title("Tutti " + op + ", " + ranks + " ranks: [BCL-3] bandwidth and its bound")
                .xAxisTitle("size (bytes per rank)").yAxisTitle("MB/s").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        Charts.sizeAxis(chart);
        chart.addSeries("measured", x, measured).setMarker(SeriesMarkers.CIRCLE);
        chart.addSeries("theoretical bound", x, bound).setMarker(SeriesMarkers.DIAMOND);
        return chart;
    }
}
