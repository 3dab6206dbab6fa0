package io.tutti.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tutti.metrics.Counters;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The monitor over HTTP: the page and its files, the JSON API, the metrics, and every other method refused. */
@Timeout(60)
class MonitorServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path root;

    /** A server over job "j" of two ranks, rank 0 having sent 3 messages of 10 bytes to rank 1. */
    private MonitorServer serve(CountersFiles files, String token) throws Exception {
        Counters c = files.rank(0, 2, ProcessHandle.current().pid());
        files.rank(1, 2, ProcessHandle.current().pid());
        for (int i = 0; i < 3; i++) {
            c.sent(1, 10);
        }
        Watch w = new Watch(() -> List.of(root.resolve("tutti-j"))).start();
        return MonitorServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), w, token);
    }

    private static HttpResponse<String> send(MonitorServer s, String method, String path, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesThePageTheApiAndTheMetrics() throws Exception {
        try (CountersFiles files = new CountersFiles(root.resolve("tutti-j")); MonitorServer s = serve(files, null)) {
            HttpResponse<String> page = send(s, "GET", "/");
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("id=\"heatmap\"") && page.body().contains("monitor.js"), page::body);
            assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("").contains("default-src 'self'"));
            HttpResponse<String> js = send(s, "GET", "/monitor.js");
            assertEquals(200, js.statusCode());
            assertTrue(js.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
            assertTrue(js.body().contains("function drawHeatmap"));
            assertEquals(404, send(s, "GET", "/nothing.html").statusCode());

            JsonNode jobs = JSON.readTree(send(s, "GET", "/api/jobs").body());
            assertEquals("j", jobs.get("jobs").get(0).get("job").asText());
            assertEquals(false, jobs.get("control").asBoolean());
            JsonNode job = JSON.readTree(send(s, "GET", "/api/jobs/j").body());
            assertEquals(3, job.get("ranks").get(0).get("peers").get(1).get("traffic").get("messagesSent").asLong());
            assertEquals(30, job.get("heatmap").get("bytes").get(0).get(1).asLong());
            HttpResponse<String> missing = send(s, "GET", "/api/jobs/other");
            assertEquals(404, missing.statusCode());
            assertTrue(JSON.readTree(missing.body()).get("error").asText().contains("no job other"));

            HttpResponse<String> metrics = send(s, "GET", "/metrics");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains(
                    "tutti_sent_messages_total{job=\"j\",peer=\"1\",rank=\"0\",transport=\"shm\"} 3.0"), metrics::body);
        }
    }

    @Test
    void withoutATokenEveryMethodButGetIsRefusedAsControl() throws Exception {
        try (CountersFiles files = new CountersFiles(root.resolve("tutti-j")); MonitorServer s = serve(files, null)) {
            for (String[] req : new String[][] {{"POST", "/api/jobs/j"}, {"DELETE", "/metrics"}, {"PUT", "/"}}) {
                HttpResponse<String> r = send(s, req[0], req[1]);
                assertEquals(403, r.statusCode(), req[0] + " " + req[1]);
                assertTrue(r.body().contains(req[0] + " refused: control is disabled"), r::body);
                assertTrue(r.body().contains("--token-file"), r::body);
            }
        }
    }

    @Test
    void withATokenAControlRequestMustShowIt() throws Exception {
        try (CountersFiles files = new CountersFiles(root.resolve("tutti-j")); MonitorServer s = serve(files, "s3cret")) {
            HttpResponse<String> none = send(s, "POST", "/api/jobs/j");
            assertEquals(403, none.statusCode());
            assertTrue(none.body().contains("needs the monitor's token"), none::body);
            assertEquals(403, send(s, "POST", "/api/jobs/j", "Authorization", "Bearer wrong").statusCode());
            HttpResponse<String> right = send(s, "POST", "/api/jobs/j", "Authorization", "Bearer s3cret");
            assertEquals(404, right.statusCode(), right::body);
            assertTrue(right.body().contains("POST /api/jobs/JOB/rails/RAIL/down|up"), right::body);
            assertEquals(true, JSON.readTree(send(s, "GET", "/api/jobs").body()).get("control").asBoolean());
        }
    }

    /**
     * With the token, the page's rail buttons post an action that reaches the ranks as {@code tutti rail}
     * does: each rank's answer comes back, and a refusal makes it a 409.
     */
    @Test
    void aRailActionWithTheTokenReachesTheRanksAndBringsBackTheirAnswers() throws Exception {
        try (CountersFiles files = new CountersFiles(root.resolve("tutti-j")); MonitorServer s = serve(files, "s3cret")) {
            Counters c = files.rank(0, 2, ProcessHandle.current().pid());
            c.railName(0, "eth0");
            c.railName(1, "eth1");
            // rank 0's transport: takes rail 1 down and refuses rail 0, its last
            Thread transport = Thread.ofPlatform().daemon().start(() -> {
                for (int answered = 0; answered < 2; ) {
                    long command = c.railCommand();
                    if (io.tutti.transport.RailCounters.sequence(command) > answered) {
                        answered = io.tutti.transport.RailCounters.sequence(command);
                        c.railAnswer(command, io.tutti.transport.RailCounters.rail(command) == 0
                                ? io.tutti.transport.RailCounters.LAST_RAIL : io.tutti.transport.RailCounters.DONE);
                    }
                    Thread.onSpinWait();
                }
            });
            HttpResponse<String> noToken = send(s, "POST", "/api/jobs/j/rails/eth1/down");
            assertEquals(403, noToken.statusCode());
            HttpResponse<String> down = send(s, "POST", "/api/jobs/j/rails/eth1/down?rank=0", "Authorization",
                    "Bearer s3cret");
            assertEquals(200, down.statusCode(), down::body);
            JsonNode d = JSON.readTree(down.body());
            assertTrue(d.get("done").asBoolean(), down::body);
            assertEquals("rail 1 (eth1) out of service", d.get("outcomes").get(0).get("message").asText());
            HttpResponse<String> last = send(s, "POST", "/api/jobs/j/rails/0/down?rank=0", "Authorization",
                    "Bearer s3cret");
            assertEquals(409, last.statusCode(), last::body);
            assertTrue(JSON.readTree(last.body()).get("outcomes").get(0).get("message").asText()
                    .contains("last rail in service"), last::body);
            transport.join(10_000);
            HttpResponse<String> noRail = send(s, "POST", "/api/jobs/j/rails/eth9/up?rank=0", "Authorization",
                    "Bearer s3cret");
            assertEquals(400, noRail.statusCode(), noRail::body);
            assertTrue(noRail.body().contains("rank 0 has no rail eth9"), noRail::body);
            assertEquals(400, send(s, "POST", "/api/jobs/j/rails/0/up?rank=x", "Authorization", "Bearer s3cret")
                    .statusCode());
            assertEquals(404, send(s, "POST", "/api/jobs/other/rails/0/up", "Authorization", "Bearer s3cret")
                    .statusCode());
        }
    }

    @Test
    void aTokenFileMustBePrivateAndNotEmpty() throws Exception {
        Path f = root.resolve("token");
        Files.writeString(f, "  abc123 \nignored\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertEquals("abc123", MonitorServer.readToken(f));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MonitorServer.readToken(f)).getMessage()
                .contains("chmod 600 " + f));
        Files.writeString(f, "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MonitorServer.readToken(f)).getMessage()
                .contains("is empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MonitorServer.readToken(root.resolve("none")))
                .getMessage().contains("cannot read the token file"));
    }
}
