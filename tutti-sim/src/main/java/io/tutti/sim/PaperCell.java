package io.tutti.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One published cell of a paper's table next to the simulator's value, for the experiments that
 * reproduce [BCL-3] and [MNC] ({@link PaperExperiment}): the table, its row and column as the
 * paper labels them, the unit (µs or MB/s), and whether the cell was used to calibrate.
 */
public record PaperCell(String experiment, String table, String row, String column, String unit, double published,
                        double simulated, boolean calibration) implements ExperimentOutput.Cell {
    /** Relative error of the simulation against the paper. */
    public double error() {
        return simulated / published - 1;
    }

    @Override
    public String series() {
        return column;
    }

    @Override
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("experiment", experiment);
        m.put("table", table);
        m.put("row", row);
        m.put("column", column);
        m.put("unit", unit);
        m.put("published", new ExperimentOutput.Fixed(published, 3));
        m.put("simulated", new ExperimentOutput.Fixed(simulated, 3));
        m.put("error", new ExperimentOutput.Fixed(error(), 4));
        m.put("calibration", calibration);
        return m;
    }

    /**
     * The cells as the paper's tables (rows down, columns across, each with published, simulated
     * and error), then the largest predicted error and the predicted cells outside {@code bar}.
     */
    public static String format(String heading, List<PaperCell> cells, double bar) {
        StringBuilder sb = new StringBuilder(heading).append(String.format(Locale.ROOT, "%n"));
        List<String> tables = cells.stream().map(PaperCell::table).distinct().toList();
        int w = Math.max(8, cells.stream().mapToInt(c -> c.row().length()).max().orElse(0) + 1);
        String label = "%-" + w + "s";
        for (String t : tables) {
            List<PaperCell> in = cells.stream().filter(c -> c.table().equals(t)).toList();
            List<String> cols = in.stream().map(PaperCell::column).distinct().toList();
            sb.append(String.format(Locale.ROOT, "%n%s (%s)%n" + label, t, in.getFirst().unit(), ""));
            for (String c : cols) {
                sb.append(String.format(Locale.ROOT, "| %-30s", c.length() > 30 ? c.substring(0, 30) : c));
            }
            sb.append(String.format(Locale.ROOT, "%n" + label, "row"));
            for (int i = 0; i < cols.size(); i++) {
                sb.append(String.format(Locale.ROOT, "| %9s %9s %9s ", "paper", "sim", "error"));
            }
            sb.append(String.format(Locale.ROOT, "%n"));
            for (String r : in.stream().map(PaperCell::row).distinct().toList()) {
                sb.append(String.format(Locale.ROOT, label, r));
                for (String c : cols) {
                    PaperCell x = in.stream().filter(y -> y.row().equals(r) && y.column().equals(c)).findFirst()
                            .orElse(null);
                    if (x == null) {
                        sb.append(String.format(Locale.ROOT, "| %9s %9s %9s ", "-", "-", ""));
                    } else {
                        sb.append(String.format(Locale.ROOT, "| %9.3f %9.3f %+8.1f%%%s", x.published(), x.simulated(),
                                100 * x.error(), x.calibration() ? "*" : " "));
                    }
                }
                sb.append(String.format(Locale.ROOT, "%n"));
            }
        }
        List<PaperCell> predicted = cells.stream().filter(c -> !c.calibration()).toList();
        double max = predicted.stream().mapToDouble(c -> Math.abs(c.error())).max().orElse(0);
        double mean = predicted.stream().mapToDouble(c -> Math.abs(c.error())).average().orElse(0);
        List<PaperCell> misses = predicted.stream().filter(c -> Math.abs(c.error()) > bar).toList();
        sb.append(String.format(Locale.ROOT, "%n* calibration cell. Predicted cells: %d, mean |error| %.1f %%, max"
                + " %.1f %%, %d within %.0f %%.%n", predicted.size(), 100 * mean, 100 * max,
                predicted.size() - misses.size(), 100 * bar));
        for (PaperCell c : misses) {
            sb.append(String.format(Locale.ROOT, "  outside: %s, %s, %s: %+.1f %%%n", c.table(), c.row(), c.column(),
                    100 * c.error()));
        }
        return sb.toString();
    }

    /** The largest |error| over the predicted cells. */
    public static double maxPredictedError(List<PaperCell> cells) {
        return cells.stream().filter(c -> !c.calibration()).mapToDouble(c -> Math.abs(c.error())).max().orElse(0);
    }
}
