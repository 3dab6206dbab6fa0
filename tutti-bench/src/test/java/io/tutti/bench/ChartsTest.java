package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

class ChartsTest {
    /** A tick label that reads as a size: a number and a binary unit. */
    static final Pattern SIZE = Pattern.compile("\\d+(\\.\\d{1,2})? (B|KiB|MiB|GiB|TiB)");

    @Test
    void sizesReadInBinaryUnits() {
        assertEquals("8 B", Charts.size(8));
        assertEquals("1000 B", Charts.size(1000));
        assertEquals("1 KiB", Charts.size(1024));
        assertEquals("1.5 KiB", Charts.size(1536));
        assertEquals("64 KiB", Charts.size(64 * 1024));
        assertEquals("1 MiB", Charts.size(1 << 20));
        assertEquals("4 MiB", Charts.size(4 << 20));
        assertEquals("5.66 B", Charts.size(Math.pow(2, 2.5)));
        assertEquals("10 KiB", Charts.size(10 * 1024));
        assertEquals(10.0, Charts.sizeX(1024), 1e-12);
    }

    @Test
    void theExtensionChoosesTheFormat() {
        assertEquals("svg", Charts.format("a/b.SVG"));
        assertEquals("png", Charts.format("b.png"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Charts.format("b.pdf")).getMessage()
                .contains("x.png or x.svg"));
        assertThrows(IllegalArgumentException.class, () -> Charts.format("plot"));
    }

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
