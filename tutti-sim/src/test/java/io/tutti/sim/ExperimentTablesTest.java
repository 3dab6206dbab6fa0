package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The experiments' tables: their shape, the published values (copied from the seeds, checked
 * cell by cell here against the papers' text), and that the shipped calibrations hold the values the
 * fit finds on the calibration column. The predictions' bands are {@link ExperimentFidelityTest}'s.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExperimentTablesTest {
    private static final Path DOCS = Path.of("..", "docs", "sim");

    @Test
    void nicReducePublishedValuesAreSeed000s() {
        // [NIC-reduce] tables 1-5, 无 / 有 columns
        assertEquals(26.174, NicReduceExperiment.published(16, 16, false));
        assertEquals(15.286, NicReduceExperiment.published(16, 16, true));
        assertEquals(70.110, NicReduceExperiment.published(16, 256, false));
        assertEquals(31.120, NicReduceExperiment.published(16, 256, true));
        assertEquals(48.288, NicReduceExperiment.published(24, 64, false));
        assertEquals(20.366, NicReduceExperiment.published(24, 64, true));
        assertEquals(63.270, NicReduceExperiment.published(32, 128, false));
        assertEquals(26.462, NicReduceExperiment.published(32, 128, true));
        assertEquals(39.616, NicReduceExperiment.published(40, 32, false));
        assertEquals(30.290, NicReduceExperiment.published(40, 256, true));
        assertEquals(78.934, NicReduceExperiment.published(48, 256, false));
        assertEquals(30.774, NicReduceExperiment.published(48, 256, true));
        assertThrows(IllegalArgumentException.class, () -> NicReduceExperiment.published(56, 16, true));
        assertThrows(IllegalArgumentException.class, () -> NicReduceExperiment.published(16, 512, true));
    }

    @Test
    void incAllreducePublishedValuesAreSeed002s() {
        // [RoCE-INC] table 4, first and last rows
        assertEquals(6.89, IncAllreduceExperiment.published(4, 4, "host", 8));
        assertEquals(14.72, IncAllreduceExperiment.published(4, 4, "node", 64));
        assertEquals(14.07, IncAllreduceExperiment.published(4, 4, "socket", 64));
        assertEquals(28.88, IncAllreduceExperiment.published(4, 256, "host", 64));
        // table 5
        assertEquals(17.43, IncAllreduceExperiment.published(9, 64, "host", 32));
        assertEquals(12.12, IncAllreduceExperiment.published(9, 32, "node", 32));
        assertEquals(19.33, IncAllreduceExperiment.published(9, 256, "socket", 64));
        // table 6
        assertEquals(11.53, IncAllreduceExperiment.published(16, 4, "host", 8));
        assertEquals(53.73, IncAllreduceExperiment.published(16, 256, "host", 64));
        assertEquals(14.59, IncAllreduceExperiment.published(16, 256, "node", 8));
        assertEquals(8.18, IncAllreduceExperiment.published(16, 8, "socket", 8));
        assertThrows(IllegalArgumentException.class, () -> IncAllreduceExperiment.published(8, 4, "host", 8));
        assertThrows(IllegalArgumentException.class, () -> IncAllreduceExperiment.published(4, 4, "nic", 8));
    }

    @Test
    void nicReduceTablesHaveTheSeedsShape() throws IOException {
        SimParams p = SimParams.defaults().withCalibration(DOCS.resolve("nic-reduce.cal"));
        NicReduceExperiment.Options o = NicReduceExperiment.Options.defaults();
        List<NicReduceExperiment.Cell> cells = NicReduceExperiment.run(p, o, null);
        assertEquals(5 * 5 * 2, cells.size());
        Set<String> seen = new HashSet<>();
        for (NicReduceExperiment.Cell c : cells) {
            assertTrue(seen.add(c.table() + "/" + c.nodes() + "/" + c.nic()), "each cell once");
            assertEquals(NicReduceExperiment.SIZES[c.table() - 1], c.size());
            assertEquals(NicReduceExperiment.published(c.size(), c.nodes(), c.nic()), c.publishedUs());
            assertTrue(c.simulatedNs() > 0);
            assertEquals(c.nodes() == 16, c.calibration());
        }
        String text = NicReduceExperiment.format(cells, o);
        for (int t = 1; t <= 5; t++) {
            assertTrue(text.contains("Table " + t + ": message size " + NicReduceExperiment.SIZES[t - 1] + " B"), text);
        }
        assertTrue(text.contains("16*"), "the calibration row is marked");
    }

    @Test
    void incAllreduceTablesHaveTheSeedsShape() throws IOException {
        SimParams p = SimParams.defaults().withCalibration(DOCS.resolve("inc-allreduce.cal"));
        IncAllreduceExperiment.Options o = IncAllreduceExperiment.Options.defaults();
        List<IncAllreduceExperiment.Cell> cells = IncAllreduceExperiment.run(p, o, null);
        assertEquals(3 * 7 * 3 * 3, cells.size());
        for (IncAllreduceExperiment.Cell c : cells) {
            assertEquals(c.nodes() == 4 ? 4 : c.nodes() == 9 ? 5 : 6, c.table());
            assertEquals(IncAllreduceExperiment.published(c.nodes(), c.size(), c.mode(), c.ppn()), c.publishedUs());
            assertTrue(c.simulatedNs() > 0);
        }
        String text = IncAllreduceExperiment.format(cells, o);
        for (String s : List.of("Table 4: 4 nodes (calibration)", "Table 5: 9 nodes", "Table 6: 16 nodes",
                "socket (B)")) {
            assertTrue(text.contains(s), s);
        }
    }

    /** The shipped calibrations record what the fit finds on the calibration column, and nothing else is fitted. */
    @Test
    void shippedCalibrationsAreTheFits() throws IOException {
        SimParams nr = SimParams.defaults().withCalibration(DOCS.resolve("nic-reduce.cal"));
        List<Fit.Result> f = NicReduceExperiment.fit(nr, NicReduceExperiment.Options.defaults());
        assertEquals(nr.os(), f.get(0).value());
        assertEquals(nr.or(), f.get(0).value());
        assertEquals(nr.nicProcess(), f.get(1).value());
        SimParams ia = SimParams.defaults().withCalibration(DOCS.resolve("inc-allreduce.cal"));
        List<Fit.Result> g = IncAllreduceExperiment.fit(ia, IncAllreduceExperiment.Options.defaults(), null);
        assertEquals(ia.g(), g.get(0).value());
        assertEquals(ia.switchDelay(), g.get(1).value());
        assertEquals(ia.L(), g.get(2).value());
        assertEquals(ia.shmCross(), g.get(3).value());
        assertEquals(ia.switchAlu(), g.get(4).value());
        assertEquals(ia.O(), g.get(5).value(), 0.0);
    }

    @Test
    void fitFindsTheValueOfAMonotoneFigure() {
        SimParams p = SimParams.defaults();
        // a figure of 3 L + 7: the fit must land on L = 331 for 1000
        Fit.Result r = Fit.fit(p, List.of("L"), 0, 10_000, 1000, q -> 3.0 * q.L() + 7);
        assertEquals(331, r.value());
        assertEquals(1000, r.simulated(), 0.0);
        assertThrows(IllegalArgumentException.class, () -> Fit.fit(p, List.of("L"), 5, 1, 0, q -> 0));
    }
}
