package io.tutti.sim;

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
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What an experiment writes for a researcher ({@code tutti sim experiment NAME --out DIR}): its
 * cells as {@code NAME.csv} and {@code NAME.json} (an array of the {@code --json} objects, written
 * by jackson-core through {@link JsonLine}), and the paper against the simulation as
 * {@code NAME.png} and {@code NAME.svg}: every cell at (published, simulated) in its unit (µs, MB/s),
 * with the diagonal and the band of the fidelity target around it.
 */
public final class ExperimentOutput {
    private ExperimentOutput() {
    }

    /** One cell of an experiment: its fields in column order, and what the plot needs. */
    public interface Cell {
        /** Column name → value ({@link String}, {@link Number}, {@link Boolean} or {@link Fixed}). */
        Map<String, Object> fields();

        /** The series the cell is plotted in: its mode, e.g. {@code host} or {@code nic}. */
        String series();

        /** The paper's value, in {@link #unit()}. */
        double published();

        /** The simulator's value, in {@link #unit()}. */
        double simulated();

        /** The unit of both values: µs for times, MB/s for bandwidths. */
        default String unit() {
            return "µs";
        }

        boolean calibration();

        /** One JSON object of {@link #fields()}. */
        default String json() {
            return ExperimentOutput.json(fields());
        }
    }

    /** A decimal written with a fixed number of places, in CSV and JSON alike. */
    public record Fixed(double value, int places) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%." + places + "f", value);
        }
    }

    /** {@code fields} as one JSON object on one line. */
    static String json(Map<String, Object> fields) {
        JsonLine j = JsonLine.object();
        fields.forEach((name, v) -> {
            switch (v) {
                case Fixed f -> j.fixed(name, f.value(), f.places());
                case Boolean b -> j.bool(name, b);
                case Integer i -> j.integer(name, i);
                case Long l -> j.integer(name, l);
                default -> j.text(name, String.valueOf(v));
            }
        });
        return j.end();
    }

    /**
     * Writes {@code NAME.csv}, {@code NAME.json}, {@code NAME.png} and {@code NAME.svg} into
     * {@code dir}; returns the files written.
     *
     * @param bar the fidelity target drawn around the diagonal (relative error)
     */
    public static List<Path> write(Path dir, String name, String title, List<? extends Cell> cells, double bar) {
        if (cells.isEmpty()) {
            throw new IllegalArgumentException("no cells to write");
        }
        try {
            Files.createDirectories(dir);
            Path csv = dir.resolve(name + ".csv");
            StringBuilder sb = new StringBuilder();
            SimExperiment.csvLine(sb, cells.getFirst().fields().keySet());
            for (Cell c : cells) {
                SimExperiment.csvLine(sb, c.fields().values());
            }
            Files.writeString(csv, sb);
            Path json = dir.resolve(name + ".json");
            Files.writeString(json, "[\n" + String.join(",\n", cells.stream().map(Cell::json).toList()) + "\n]\n");
            XYChart chart = chart(title, cells, bar);
            Path png = dir.resolve(name + ".png");
            Path svg = dir.resolve(name + ".svg");
            Charts.save(chart, png);
            Charts.save(chart, svg);
            return List.of(csv, json, png, svg);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write into " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The paper against the simulation: a series per mode for the predicted cells, one for the calibration cells. */
    static XYChart chart(String title, List<? extends Cell> cells, double bar) {
        System.setProperty("java.awt.headless", "true");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        double hi = 0;
        for (Cell c : cells) {
            String s = c.calibration() ? "calibration cells (fitted)" : c.series() + " (predicted)";
            double sim = c.simulated();
            series.computeIfAbsent(s, k -> new ArrayList<>()).add(new double[] {c.published(), sim});
            hi = Math.max(hi, Math.max(c.published(), sim));
        }
        String unit = String.join(" or ", cells.stream().map(Cell::unit).distinct().toList());
        XYChart chart = new XYChartBuilder().width(900).height(700).title(title)
                .xAxisTitle("published (" + unit + ")").yAxisTitle("simulated (" + unit + ")").build();
        // linear axes from 0: the cells span one decade or less, where a log axis would label a single tick
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setYAxisMin(0.0);
        Charts.plainNumbers(chart);
        double from = 0;
        double to = hi * (1 + bar);
        chart.getStyler().setXAxisMax(to);
        chart.getStyler().setYAxisMax(to);
        double pct = 100 * bar;
        line(chart, "simulated = published", from, to, 1, SeriesLines.SOLID);
        line(chart, String.format(Locale.ROOT, "+%.0f %%", pct), from, to, 1 + bar, SeriesLines.DASH_DASH);
        line(chart, String.format(Locale.ROOT, "-%.0f %%", pct), from, to, 1 - bar, SeriesLines.DASH_DASH);
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = chart.addSeries(e.getKey(), e.getValue().stream().mapToDouble(p -> p[0]).toArray(),
                    e.getValue().stream().mapToDouble(p -> p[1]).toArray());
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    /** A reference line simulated = factor × published, drawn grey without markers. */
    private static void line(XYChart chart, String name, double from, double to, double factor,
                             java.awt.BasicStroke stroke) {
        XYSeries s = chart.addSeries(name, new double[] {from, to}, new double[] {from * factor, to * factor});
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineStyle(stroke);
        s.setLineColor(java.awt.Color.GRAY);
    }
}
