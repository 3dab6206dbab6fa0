package io.tutti.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One JSON object per line: escaping, fixed places, non-finite numbers as null. */
class JsonLineTest {
    /** The fields of a flat JSON object, parsed by jackson-core: a line that is not valid JSON fails here. */
    static Map<String, String> parse(String line) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        try (JsonParser p = new JsonFactory().createParser(line)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                fields.put(name, t == JsonToken.VALUE_NULL ? null : p.getText());
            }
            assertEquals(JsonToken.END_OBJECT, p.currentToken());
            assertEquals(null, p.nextToken(), "nothing after the object");
        }
        return fields;
    }

    @Test
    void quotesBackslashesAndControlCharactersAreEscaped() throws IOException {
        String nasty = "a \"quoted\" path\\with\\backslashes,\ttab\nnewline\r\u0001\u001f and ünïcode";
        String line = JsonLine.object().text("path", nasty).text("key \"x\"", "v").end();
        assertFalse(line.contains("\n") || line.contains("\r") || line.contains("\t") || line.contains("\u0001"), line);
        assertTrue(line.contains("\\\"quoted\\\"") && line.contains("\\\\with") && line.contains("\\n")
                && line.contains("\\u0001"), line);
        Map<String, String> back = parse(line);
        assertEquals(nasty, back.get("path"));
        assertEquals("v", back.get("key \"x\""));
    }

    @Test
    void numbersKeepTheirFixedPlacesAndNonFiniteIsNull() throws IOException {
        String line = JsonLine.object().text("benchmark", "bcast").integer("size", 1024).fixed("avg_us", 2.5, 3)
                .fixed("mb_per_s", 1234.56, 1).fixed("bound", Double.NaN, 1).fixed("inf", Double.POSITIVE_INFINITY, 2)
                .end();
        assertEquals("{\"benchmark\":\"bcast\",\"size\":1024,\"avg_us\":2.500,\"mb_per_s\":1234.6,\"bound\":null,"
                + "\"inf\":null}", line);
        assertEquals("2.500", parse(line).get("avg_us"));
    }
}
