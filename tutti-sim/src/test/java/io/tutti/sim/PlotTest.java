package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

/** {@code tutti sim run --plot}: PNG or SVG by the extension, the size axis in binary units. */
class PlotTest {
    private static final Pattern SIZE = Pattern.compile("\\d+(\\.\\d{1,2})? (B|KiB|MiB|GiB|TiB)");

    private static List<SimExperiment.Row> rows() {
        List<SimExperiment.Row> rows = new ArrayList<>();
        for (int nodes : new int[] {16, 64}) {
            for (long size = 8; size <= 4 << 20; size *= 2) {
                rows.add(new SimExperiment.Row("allreduce", "ring", "host", "loggp", "-", nodes, 1, nodes, size,
                        1000 + size * nodes, 1, 1, size, 1, 0.01));
            }
        }
        return rows;
    }

    @Test
    void svgIsWellFormedAndItsSizeAxisReadsAsSizes(@TempDir Path dir) throws Exception {
        XYChart chart = SimExperiment.chart(rows());
        List<String> labels = new ArrayList<>();
        Function<Double, String> label = chart.getStyler().getxAxisTickLabelsFormattingFunction();
        chart.getStyler().setxAxisTickLabelsFormattingFunction(x -> {
            String s = label.apply(x);
            labels.add(s);
            return s;
        });
        Path svg = dir.resolve("out/ar.svg");
        Charts.save(chart, svg);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        assertEquals("svg", f.newDocumentBuilder().parse(Files.newInputStream(svg)).getDocumentElement().getNodeName());
        assertFalse(labels.isEmpty());
        labels.forEach(s -> assertTrue(SIZE.matcher(s).matches(), s));
        assertTrue(labels.containsAll(List.of("8 B", "1 KiB", "64 KiB", "1 MiB", "4 MiB")), labels.toString());
    }

    @Test
    void pngByItsExtensionAndNothingElse(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("ar.png");
        SimExperiment.plot(png, rows());
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        Path svg = dir.resolve("nodes.svg");
        SimExperiment.plot(svg, rows().stream().filter(r -> r.size() == 64).toList());
        assertTrue(Files.readString(svg).contains("<svg"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SimExperiment.plot(dir.resolve("ar.pdf"),
                rows())).getMessage().contains("PNG or SVG"));
    }
}
