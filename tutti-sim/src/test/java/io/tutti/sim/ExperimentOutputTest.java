package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** {@code tutti sim experiment --out}: CSV, a JSON array, and the paper-against-simulation plot as PNG and SVG. */
class ExperimentOutputTest {
    private static List<IncAllreduceExperiment.Cell> cells() {
        List<IncAllreduceExperiment.Cell> c = new ArrayList<>();
        c.add(new IncAllreduceExperiment.Cell(4, 4, 4, "host", 8, 6.89, 10_250));
        c.add(new IncAllreduceExperiment.Cell(5, 9, 256, "node", 64, 20.21, 15_100));
        c.add(new IncAllreduceExperiment.Cell(6, 16, 8, "socket", 32, 11.27, 13_720));
        return c;
    }

    @Test
    void writesCsvJsonPngAndSvg(@TempDir Path dir) throws Exception {
        List<Path> files = ExperimentOutput.write(dir.resolve("out"), "inc-allreduce", "t", cells(), 0.15);
        assertEquals(List.of("inc-allreduce.csv", "inc-allreduce.json", "inc-allreduce.png", "inc-allreduce.svg"),
                files.stream().map(f -> f.getFileName().toString()).toList());
        List<String> csv = Files.readAllLines(files.get(0));
        assertEquals("experiment,table,nodes,size,mode,ppn,published_us,simulated_us,error,calibration", csv.get(0));
        assertEquals("inc-allreduce,5,9,256,node,64,20.210,15.100,-0.2528,false", csv.get(2));
        assertEquals(4, csv.size());
        // the JSON file is one array of the --json objects
        int objects = 0;
        try (JsonParser p = new JsonFactory().createParser(files.get(1).toFile())) {
            assertEquals(JsonToken.START_ARRAY, p.nextToken());
            while (p.nextToken() == JsonToken.START_OBJECT) {
                p.skipChildren();
                objects++;
            }
            assertEquals(JsonToken.END_ARRAY, p.currentToken());
        }
        assertEquals(3, objects);
        assertTrue(Files.readString(files.get(1)).contains(cells().get(1).json()));
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(files.get(2)), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        assertEquals("svg", f.newDocumentBuilder().parse(files.get(3).toFile()).getDocumentElement().getNodeName());
    }

    /** One series per mode for predicted cells, one for the calibration cells, the diagonal and the band; axes in µs. */
    @Test
    void thePlotSetsPaperAgainstSimulation() {
        XYChart chart = ExperimentOutput.chart("t", cells(), 0.15);
        assertEquals(List.of("simulated = published", "+15 %", "-15 %", "calibration cells (fitted)",
                "node (predicted)", "socket (predicted)"), new ArrayList<>(chart.getSeriesMap().keySet()));
        assertEquals("published (µs)", chart.getXAxisTitle());
        assertEquals("simulated (µs)", chart.getYAxisTitle());
        double[] y = chart.getSeriesMap().get("node (predicted)").getYData();
        assertEquals(15.1, y[0], 1e-9);
        // plain numbers, not 1E1
        assertFalse(Pattern.compile("E").matcher(chart.getStyler().getYAxisDecimalPattern()).find());
        assertEquals("#,##0.###", chart.getStyler().getXAxisDecimalPattern());
    }
}
