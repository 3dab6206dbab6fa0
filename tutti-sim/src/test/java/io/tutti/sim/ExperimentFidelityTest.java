package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fidelity held: each experiment's free parameters are re-fitted here on the calibration column
 * (starting from the simulator's defaults, not the shipped values), and every predicted cell must
 * then lie within the band its documentation states (docs/perf/sim.md, the bands being constants of
 * the experiment classes). A model change that ruins a prediction fails here.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ExperimentFidelityTest {
    private static final Path DOCS = Path.of("..", "docs", "sim");

    /** The shipped calibration with its fitted parameters put back to the defaults, then re-fitted. */
    private static SimParams refit(String file, List<String> fitted, java.util.function.Function<SimParams,
            List<Fit.Result>> fit) throws IOException {
        SimParams shipped = SimParams.defaults().withCalibration(DOCS.resolve(file));
        Map<String, String> reset = new java.util.HashMap<>();
        for (SimParams.Property prop : SimParams.PROPERTIES) {
            if (fitted.contains(prop.name())) {
                reset.put(prop.name(), prop.defaultValue());
            }
        }
        assertEquals(fitted.size(), reset.size(), "every fitted parameter is a property");
        SimParams start = shipped.with(reset);
        SimParams p = start;
        for (Fit.Result r : fit.apply(start)) {
            p = Fit.with(p, r.names(), r.value());
        }
        return p;
    }

    /**
     * [NIC-reduce]: per column (without offload, with it) the predicted cells' max |error| and mean
     * |error| within the experiment's bands, each row's mean speed-up within {@code SPEEDUP_BAND} of
     * the seed's, and the calibration column met on average.
     */
    @Test
    void nicReducePredictionsStayInTheirBands() throws IOException {
        NicReduceExperiment.Options o = NicReduceExperiment.Options.defaults();
        SimParams p = refit("nic-reduce.cal", List.of("o_s", "o_r", "nic_process"), q -> NicReduceExperiment.fit(q, o));
        List<NicReduceExperiment.Cell> cells = NicReduceExperiment.run(p, o, null);
        StringBuilder misses = new StringBuilder();
        for (boolean nic : new boolean[] {false, true}) {
            String column = nic ? "nic" : "host";
            double maxBand = nic ? NicReduceExperiment.NIC_MAX_BAND : NicReduceExperiment.HOST_MAX_BAND;
            double meanBand = nic ? NicReduceExperiment.NIC_MEAN_BAND : NicReduceExperiment.HOST_MEAN_BAND;
            List<NicReduceExperiment.Cell> predicted = cells.stream().filter(c -> !c.calibration() && c.nic() == nic)
                    .toList();
            assertEquals(20, predicted.size());
            NicReduceExperiment.ColumnError e = NicReduceExperiment.columnError(cells, nic);
            double max = e.maxAbs();
            double mean = e.meanAbs();
            System.out.printf("nic-reduce %s: predicted mean |error| %.2f%% (band %.1f%%), max %.2f%% (band %.1f%%)%n",
                    column, 100 * mean, 100 * meanBand, 100 * max, 100 * maxBand);
            for (NicReduceExperiment.Cell c : predicted) {
                if (Math.abs(c.error()) > maxBand) {
                    misses.append(String.format("%n  %s %d B %d nodes: %+.1f%% (band %.0f%%)", column, c.size(),
                            c.nodes(), 100 * c.error(), 100 * maxBand));
                }
            }
            if (mean > meanBand) {
                misses.append(String.format("%n  %s column: mean |error| %.2f%% (band %.1f%%)", column, 100 * mean,
                        100 * meanBand));
            }
            // the calibration column is met on average
            double calib = cells.stream().filter(c -> c.calibration() && c.nic() == nic)
                    .mapToDouble(NicReduceExperiment.Cell::error).average().orElseThrow();
            assertTrue(Math.abs(calib) < 0.01, column + " calibration column off by " + calib);
        }
        for (int nodes : NicReduceExperiment.NODES) {
            NicReduceExperiment.Summary s = NicReduceExperiment.summary(cells, nodes);
            double off = s.simSpeedup() / s.seedSpeedup() - 1;
            System.out.printf("nic-reduce %d nodes: speed-up seed %.2f, simulated %.2f%n", nodes, s.seedSpeedup(),
                    s.simSpeedup());
            if (Math.abs(off) > NicReduceExperiment.SPEEDUP_BAND) {
                misses.append(String.format("%n  speed-up at %d nodes: %.2f against the seed's %.2f (%+.1f%%)", nodes,
                        s.simSpeedup(), s.seedSpeedup(), 100 * off));
            }
        }
        assertEquals(0, misses.length(), "outside their bands:" + misses);
    }

    @Test
    void incAllreducePredictionsStayInTheirBands() throws IOException {
        IncAllreduceExperiment.Options o = IncAllreduceExperiment.Options.defaults();
        SimParams p = refit("inc-allreduce.cal", IncAllreduceExperiment.FITTED,
                q -> IncAllreduceExperiment.fit(q, o, null));
        List<IncAllreduceExperiment.Cell> cells = IncAllreduceExperiment.run(p, o, null);
        StringBuilder misses = new StringBuilder();
        int within = 0;
        int predicted = 0;
        for (IncAllreduceExperiment.Cell c : cells) {
            if (c.calibration()) {
                continue;
            }
            predicted++;
            if (Math.abs(c.error()) <= IncAllreduceExperiment.BAR) {
                within++;
            }
            double band = IncAllreduceExperiment.CELL_BAND.get(c.mode());
            if (Math.abs(c.error()) > band) {
                misses.append(String.format("%n  %s %d nodes %d B PPN %d: %+.1f%% (band %.0f%%)", c.mode(), c.nodes(),
                        c.size(), c.ppn(), 100 * c.error(), 100 * band));
            }
        }
        for (int nodes : IncAllreduceExperiment.NODES) {
            for (String mode : IncAllreduceExperiment.MODES) {
                IncAllreduceExperiment.Summary s = IncAllreduceExperiment.summary(cells, nodes, mode);
                System.out.printf("inc-allreduce %d nodes %s: mean |err| %.1f%%, max %.1f%%, gain seed %+.1f%% sim"
                        + " %+.1f%%%n", nodes, mode, 100 * s.meanAbsError(), 100 * s.maxAbsError(), 100 * s.seedGain(),
                        100 * s.simGain());
                if (nodes != IncAllreduceExperiment.CALIBRATION_NODES
                        && s.meanAbsError() > IncAllreduceExperiment.MEAN_BAND.get(mode)) {
                    misses.append(String.format("%n  %s %d nodes: mean |error| %.1f%% (band %.0f%%)", mode, nodes,
                            100 * s.meanAbsError(), 100 * IncAllreduceExperiment.MEAN_BAND.get(mode)));
                }
            }
        }
        System.out.printf("inc-allreduce: %d of %d predicted cells within %.0f%%%n", within, predicted,
                100 * IncAllreduceExperiment.BAR);
        assertEquals(0, misses.length(), "outside their bands:" + misses);
        assertEquals(126, predicted);
        assertTrue(within >= IncAllreduceExperiment.WITHIN_BAR_AT_LEAST, within + " of 126 within the bar");
        // Socket mode is faster than Node mode at every node count, as in the seed (its trees stay on one CPU)
        for (int nodes : IncAllreduceExperiment.NODES) {
            double node = IncAllreduceExperiment.summary(cells, nodes, "node").simGain();
            double socket = IncAllreduceExperiment.summary(cells, nodes, "socket").simGain();
            assertTrue(socket > node, nodes + " nodes: Socket gains " + socket + ", Node " + node);
        }
        // both switch modes gain over the host about what the seed's do at every node count, and more at
        // 9 nodes than at 4 (from 9 to 16 the seed's gains grow by 2-3 points; the model's stay within 1)
        for (String mode : List.of("node", "socket")) {
            for (int nodes : IncAllreduceExperiment.NODES) {
                IncAllreduceExperiment.Summary s = IncAllreduceExperiment.summary(cells, nodes, mode);
                assertEquals(s.seedGain(), s.simGain(), IncAllreduceExperiment.GAIN_BAND,
                        mode + " gain at " + nodes + " nodes");
            }
            assertTrue(IncAllreduceExperiment.summary(cells, 9, mode).simGain()
                    > IncAllreduceExperiment.summary(cells, 4, mode).simGain(), mode + " gain from 4 to 9 nodes");
        }
    }

    /**
     * [BCL-3] and [MNC]: each experiment's fitted parameter re-fitted from its default, every predicted
     * cell within the experiment's band, at least as many within the ±15 % target as its documentation
     * says, the calibration cells met, and the shipped calibration file holding what the fit finds.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bcl3-latency", "bcl3-bandwidth", "bcl3-barrier", "bcl3-bisection", "bcl3-dual-nic", "bcl3-collectives",
        "mnc-rails", "tutti-rma"})
    void paperPredictionsStayInTheirBands(String name) throws IOException {
        PaperExperiment e = PaperExperiment.all().get(name);
        SimParams shipped = SimParams.defaults().withCalibration(DOCS.resolve(e.calibration()));
        SimParams p = refit(e.calibration(), e.fitted(), e::fit);
        for (String f : e.fitted()) {
            assertEquals(shipped.toMap().get(f), p.toMap().get(f), name + ": the shipped " + f + " is what the fit finds");
        }
        List<PaperCell> cells = e.run(p);
        StringBuilder misses = new StringBuilder();
        int predicted = 0;
        int within = 0;
        for (PaperCell c : cells) {
            if (c.calibration()) {
                assertTrue(Math.abs(c.error()) < 0.01, name + " calibration cell " + c.row() + " off by " + c.error());
                continue;
            }
            predicted++;
            if (Math.abs(c.error()) <= PaperExperiment.TARGET) {
                within++;
            }
            if (Math.abs(c.error()) > e.band()) {
                misses.append(String.format("%n  %s %s %s: %+.1f%% (band %.0f%%)", c.table(), c.row(), c.column(),
                        100 * c.error(), 100 * e.band()));
            }
        }
        System.out.printf("%s: %d predicted cells, max |error| %.1f%%, %d within %.0f%%%n", name, predicted,
                100 * PaperCell.maxPredictedError(cells), within, 100 * PaperExperiment.TARGET);
        assertTrue(predicted > 0, name + " predicts nothing");
        assertEquals(0, misses.length(), name + " cells outside the band:" + misses);
        assertTrue(within >= Math.min(predicted, e.withinTargetAtLeast()), name + ": " + within + " of " + predicted
                + " within the target, documented " + e.withinTargetAtLeast());
    }
}
