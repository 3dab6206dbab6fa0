package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmarks' --json rows and options: their fields and format, read back by jackson-core. */
class BenchmarkJsonTest {
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
    void benchmarkRowsKeepTheirFieldsAndFormat() throws IOException {
        P2pBenchmark.Options lat = P2pBenchmark.Options.parse(new String[] {"latency", "--json"});
        String row = P2pBenchmark.json(lat, new P2pBenchmark.Row(8, 1.23456, 1.0, 2.0, 0.0, "us"));
        assertEquals("{\"benchmark\":\"latency\",\"buffer\":\"segment\",\"size\":8,\"median_us\":1.235,"
                + "\"min_us\":1.000,\"p99_us\":2.000,\"alloc_bytes_per_msg\":0.00}", row);
        P2pBenchmark.Options bw = P2pBenchmark.Options.parse(new String[] {"bw", "--json", "--buffer", "array"});
        assertEquals("{\"benchmark\":\"bw\",\"buffer\":\"array\",\"size\":1024,\"mb_per_s\":5000.0,"
                + "\"alloc_bytes_per_msg\":0.50}",
                P2pBenchmark.json(bw, new P2pBenchmark.Row(1024, 5000, Double.NaN, Double.NaN, 0.5, "MB/s")));
        P2pBenchmark.Options mr = P2pBenchmark.Options.parse(new String[] {"mr", "--json"});
        assertEquals("{\"benchmark\":\"mr\",\"buffer\":\"segment\",\"size\":8,\"mb_per_s\":96.0,"
                + "\"messages_per_s\":12000000,\"alloc_bytes_per_msg\":0.00}",
                P2pBenchmark.json(mr, new P2pBenchmark.Row(8, 96, 12e6, Double.NaN, 0, "MB/s")));
        assertEquals(10, mr.sizes().length, "mr defaults to 8 B .. 4 KiB");
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> P2pBenchmark.Options.parse(new String[] {"mr", "--format", "osu"})).getMessage()
                .contains("own columns"));
        LogGpBenchmark.Figure f = new LogGpBenchmark.Figure(1, 0.01);
        Map<String, String> loggp = parse(LogGpBenchmark.json("shared \"memory\"", f, f, f, f, f, f, f));
        assertEquals(java.util.List.of("benchmark", "path", "L_us", "L_err", "os_us", "os_err", "or_us", "or_err",
                "g_us", "g_err", "G_ns_per_B", "G_err", "bw_MBps", "bw_err", "rtt_half_us", "rtt_half_err"),
                java.util.List.copyOf(loggp.keySet()));
        assertEquals("shared \"memory\"", loggp.get("path"));
        assertEquals("1000.00000", loggp.get("G_ns_per_B"));
    }

    @Test
    void p2pOptionsAreReadByPicocli() {
        P2pBenchmark.Options o = P2pBenchmark.Options.parse(new String[] {"bw", "--sizes", "8,1k,2^20", "--iters",
            "5", "--warmup", "0"});
        assertArrayEquals(new long[] {8, 1024, 1 << 20}, o.sizes());
        assertEquals(5, o.itersFor(1 << 20));
        assertEquals(0, o.warmupFor(8));
        assertTrue(o.segment());
        assertEquals(11, P2pBenchmark.Options.parse(new String[] {"latency"}).sizes().length);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> P2pBenchmark.Options.parse(new String[] {}))
                .getMessage().startsWith("usage:"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> P2pBenchmark.Options.parse(new String[] {"pingpong"})).getMessage()
                .contains("latency, bw, bibw or mr"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> P2pBenchmark.Options.parse(new String[] {"bw", "--buffer", "heap"})).getMessage()
                .contains("array or segment"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> P2pBenchmark.Options.parse(new String[] {"bw", "--sizes", "3g"})).getMessage()
                .contains("out of range"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> P2pBenchmark.Options.parse(new String[] {"bw", "--sizes", "8,lots"})).getMessage()
                .contains("'lots' is not a size"));
        assertThrows(IllegalArgumentException.class, () -> P2pBenchmark.Options.parse(new String[] {"bw", "--x"}));
        assertTrue(LogGpBenchmarkArgs.json("--json"));
        assertFalse(LogGpBenchmarkArgs.json());
    }

    /** LogGpBenchmark's one option. */
    private static final class LogGpBenchmarkArgs {
        static boolean json(String... args) {
            return BenchArgs.parse(new LogGpBenchmark.Args(), args).json;
        }
    }
}
