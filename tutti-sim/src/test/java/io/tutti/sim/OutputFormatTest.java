package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator's written results: JSON lines that any parser reads back, and CSV that quotes what it must. */
class OutputFormatTest {
    private static Map<String, String> parse(String line) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        try (JsonParser p = new JsonFactory().createParser(line)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                fields.put(name, p.getText());
            }
            assertEquals(JsonToken.END_OBJECT, p.currentToken());
            assertEquals(null, p.nextToken());
        }
        return fields;
    }

    private static SimExperiment.Row row(String topology) {
        return new SimExperiment.Row("allreduce", "ring", "host", "packet", topology, 4, 2, 8, 64, 1234, 56, 7, 890,
                3, 0.01234);
    }

    @Test
    void quotesBackslashesAndControlCharactersAreEscaped() throws IOException {
        String nasty = "leafspine:\"a\"\\b,\tc\nd\u0002";
        String line = row(nasty).json();
        assertFalse(line.contains("\n") || line.contains("\t") || line.contains("\u0002"), line);
        Map<String, String> back = parse(line);
        assertEquals(nasty, back.get("topology"));
        assertEquals("{\"coll\":\"allreduce\",\"algorithm\":\"ring\",\"mode\":\"host\",\"network\":\"packet\","
                + "\"topology\":\"x\",\"nodes\":4,\"ppn\":2,\"ranks\":8,\"size\":64,\"completion_ns\":1234,"
                + "\"events\":56,\"messages\":7,\"bytes\":890,\"shapes\":3,\"wall_s\":0.012}", row("x").json());
        assertEquals(new ArrayList<>(row("x").fields().keySet()), new ArrayList<>(back.keySet()));
    }

    @Test
    void experimentCellsKeepTheirFields() throws IOException {
        String nic = new NicReduceExperiment.Cell(1, 16, 64, true, 15.286, 15_000).json();
        assertEquals("{\"experiment\":\"nic-reduce\",\"table\":1,\"size\":16,\"nodes\":64,\"mode\":\"nic\","
                + "\"published_us\":15.286,\"simulated_us\":15.000,\"error\":-0.0187,\"calibration\":false}", nic);
        String inc = new IncAllreduceExperiment.Cell(4, 4, 256, "host", 64, 28.88, 28_000).json();
        Map<String, String> f = parse(inc);
        assertEquals(List.of("experiment", "table", "nodes", "size", "mode", "ppn", "published_us", "simulated_us",
                "error", "calibration"), new ArrayList<>(f.keySet()));
        assertEquals("28.880", f.get("published_us"));
        assertEquals("true", f.get("calibration"));
    }

    @Test
    void csvQuotesFieldsThatNeedIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("rows.csv");
        SimExperiment.writeCsv(file, List.of(row("fattree:k=4,n=2"), row("say \"hi\"\nthere")));
        String csv = Files.readString(file);
        List<String> lines = csv.lines().toList();
        assertTrue(lines.get(0).startsWith("coll,algorithm,mode,network,topology,nodes"), lines.get(0));
        assertEquals("allreduce,ring,host,packet,\"fattree:k=4,n=2\",4,2,8,64,1234,56,7,890,3,0.012", lines.get(1));
        assertTrue(csv.contains(",\"say \"\"hi\"\"\nthere\",4,"), csv);
    }
}
