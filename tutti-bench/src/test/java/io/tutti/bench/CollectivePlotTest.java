package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.report.Charts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.w3c.dom.Document;

/** {@code tutti bench --bcl3 --plot}: the [BCL-3] plot as SVG, its size axis in binary units. */
class CollectivePlotTest {
    /** A tick label that reads as a size: a number and a binary unit. */
    static final Pattern SIZE = Pattern.compile("\\d+(\\.\\d{1,2})? (B|KiB|MiB|GiB|TiB)");

    /**
     * The [BCL-3] plot as SVG: well-formed XML with an svg root, and every tick label the chart drew
     * on the size axis reads as a size (XChart draws text as outlines, so the labels are taken where
     * the chart asks for them).
     */
    @Test
    void theBcl3PlotIsAnSvgWithSizesOnItsAxis(@TempDir Path dir) throws Exception {
        List<CollectiveBenchmark.Row> rows = new ArrayList<>();
        for (long size = 8; size <= 1 << 20; size *= 2) {
            rows.add(new CollectiveBenchmark.Row(size, 10, 1, 1, 1, 0, size * 1e3, 2e9, 3e9, Double.NaN, Double.NaN,
                    Double.NaN));
        }
        XYChart chart = CollectivePlot.chart("bcast", 4, rows);
        List<String> labels = new ArrayList<>();
        Function<Double, String> label = chart.getStyler().getxAxisTickLabelsFormattingFunction();
        chart.getStyler().setxAxisTickLabelsFormattingFunction(x -> {
            String s = label.apply(x);
            labels.add(s);
            return s;
        });
        Path file = dir.resolve("sub/bcast.svg");
        Charts.save(chart, file);
        Document svg = parseXml(file);
        assertEquals("svg", svg.getDocumentElement().getNodeName());
        assertFalse(labels.isEmpty());
        for (String s : labels) {
            assertTrue(SIZE.matcher(s).matches(), s);
        }
        assertTrue(labels.containsAll(List.of("1 KiB", "64 KiB", "1 MiB")), labels.toString());

        CollectivePlot.write(dir.resolve("bcast.svg"), "bcast", 4, rows);
        assertEquals("svg", parseXml(dir.resolve("bcast.svg")).getDocumentElement().getNodeName());
    }

    /** Parses without fetching the SVG 1.1 DTD the file names. */
    static Document parseXml(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(Files.newInputStream(file));
    }
}
