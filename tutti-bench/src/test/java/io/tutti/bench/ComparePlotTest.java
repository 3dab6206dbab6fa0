package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** {@code bench/compare-p2p.sh --plot}: the bandwidth curves read from the script's median table. */
class ComparePlotTest {
    static final List<String> TABLE = List.of(
            "config                 size       median  runs",
            "tutti-seg-lat          1024         0.62  0.62 0.61 0.64",
            "tutti-seg-bw           1024       1511.0  2113.1 1442.1 1511.0",
            "tutti-seg-bw        1048576      12376.8  9836.9 12969.4 12376.8",
            "ompi-none-bw           1024      2972.80  2972.80 3013.04 2774.67",
            "ompi-none-bw        1048576     12255.05  11489.58 12255.05 12349.48",
            "tutti-seg-mr              8         96.0  96.0");

    @Test
    void bandwidthRowsBecomeOneCurvePerConfiguration(@TempDir Path dir) throws Exception {
        Map<String, Map<Long, Double>> s = ComparePlot.series(TABLE);
        assertEquals(List.of("tutti-seg-bw", "ompi-none-bw", "tutti-seg-mr"), List.copyOf(s.keySet()),
                "latency rows are not bandwidth");
        assertEquals(12255.05, s.get("ompi-none-bw").get(1048576L));
        XYChart chart = ComparePlot.chart(s, "t");
        assertEquals(3, chart.getSeriesMap().size());
        Path table = dir.resolve("t.txt");
        Files.write(table, TABLE);
        Path svg = dir.resolve("p.svg");
        ComparePlot.main(new String[] {table.toString(), svg.toString()});
        assertTrue(Files.readString(svg).contains("<svg"), "an SVG was written");
    }

    @Test
    void aTableWithoutBandwidthRowsIsRefusedWithAReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ComparePlot.series(List.of("config size median", "tutti-seg-lat 8 0.1")));
        assertTrue(e.getMessage().contains("no bandwidth rows"), e.getMessage());
    }
}
