package io.tutti.monitor;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tutti.metrics.RailControl;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The monitor's HTTP server (the JDK's): the page at {@code /} (its script and style beside it), the
 * JSON API at {@code /api/jobs} and {@code /api/jobs/JOB}, and the Prometheus exposition at
 * {@code /metrics} through the client's own handler. Read-only unless started with a token: then
 * {@code POST /api/jobs/JOB/rails/RAIL/down} (or {@code up}, {@code ?rank=R} for one rank) with the
 * header {@code Authorization: Bearer TOKEN} takes a rail out of service as {@code tutti rail} does
 * ({@link RailControl}); every other request but GET is refused with the reason.
 */
public final class MonitorServer implements AutoCloseable {
    /** The port {@code tutti monitor} listens on unless told otherwise. */
    public static final int DEFAULT_PORT = 9464;
    private static final Map<String, String> PAGES = Map.of("/", "index.html", "/index.html", "index.html",
            "/monitor.js", "monitor.js", "/monitor.css", "monitor.css");

    /** {@code /api/jobs/JOB/rails/RAIL/down|up}: job ids and rail names or indexes, no slashes. */
    private static final Pattern RAIL_ACTION = Pattern.compile("/api/jobs/([A-Za-z0-9._-]+)/rails/([^/]+)/(down|up)");
    /** How long a rail action waits for each rank's answer, as {@code tutti rail --wait} does by default. */
    private static final Duration ACTION_WAIT = Duration.ofSeconds(10);

    private final HttpServer http;
    private final ExecutorService executor;
    private final Watch watch;
    private final byte[] token;

    private MonitorServer(HttpServer http, ExecutorService executor, Watch watch, byte[] token) {
        this.http = http;
        this.executor = executor;
        this.watch = watch;
        this.token = token;
    }

    /**
     * Serves {@code watch}'s jobs at {@code address} (port 0: any free one) until {@link #close()},
     * which closes the watch too. {@code token} (null: none) is what a control request will have to show.
     */
    public static MonitorServer start(InetSocketAddress address, Watch watch, String token) throws IOException {
        HttpServer http = HttpServer.create(address, 16);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        MonitorServer s = new MonitorServer(http, executor, watch, token == null ? null
                : token.getBytes(StandardCharsets.UTF_8));
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new PrometheusMapping(watch::jobs));
        Filter readOnly = new Filter() {
            @Override
            public void doFilter(HttpExchange x, Chain chain) throws IOException {
                if (x.getRequestMethod().equals("GET")) {
                    chain.doFilter(x);
                } else {
                    s.control(x);
                }
            }

            @Override
            public String description() {
                return "GET, and POST of a control action with the token; others refused with the reason";
            }
        };
        for (HttpContext c : new HttpContext[] {http.createContext("/", s::page), http.createContext("/api/", s::api),
            http.createContext("/metrics", new MetricsHandler(registry))}) {
            c.getFilters().add(readOnly);
        }
        http.setExecutor(executor);
        http.start();
        return s;
    }

    /** The port it listens on. */
    public int port() {
        return http.getAddress().getPort();
    }

    /** Whether control requests are accepted at all (a token was given). */
    public boolean control() {
        return token != null;
    }

    /**
     * Answers a request other than GET: 403 with why (no token; a wrong token); with the right one a
     * rail action, answered with each rank's outcome (200 when all took it, 409 when one refused), or
     * 404 or 400 saying what is wrong.
     */
    private void control(HttpExchange x) throws IOException {
        try (x) {
            if (token == null) {
                send(x, 403, "text/plain", "tutti monitor: " + x.getRequestMethod() + " refused: control is disabled,"
                        + " this monitor is read-only (start it with --token-file FILE to allow control actions)\n");
                return;
            }
            if (!tokenMatches(x.getRequestHeaders().getFirst("Authorization"))) {
                send(x, 403, "text/plain", "tutti monitor: " + x.getRequestMethod() + " refused: a control request needs"
                        + " the monitor's token, as the header 'Authorization: Bearer TOKEN'\n");
                return;
            }
            Matcher m = RAIL_ACTION.matcher(x.getRequestURI().getPath());
            if (!x.getRequestMethod().equals("POST") || !m.matches()) {
                send(x, 404, "text/plain", "tutti monitor: no control action at " + x.getRequestMethod() + " "
                        + x.getRequestURI().getPath() + "; the one there is: POST /api/jobs/JOB/rails/RAIL/down|up\n");
                return;
            }
            Path dir = watch.directory(m.group(1));
            if (dir == null) {
                send(x, 404, "text/plain", "tutti monitor: no running job " + m.group(1) + " watched here\n");
                return;
            }
            String query = x.getRequestURI().getQuery();
            int rank = -1;
            if (query != null && !query.isEmpty()) {
                if (!query.matches("rank=\\d{1,9}")) {
                    send(x, 400, "text/plain", "tutti monitor: the only parameter is rank=N, not '" + query + "'\n");
                    return;
                }
                rank = Integer.parseInt(query.substring("rank=".length()));
            }
            List<RailControl.Outcome> outcomes;
            try {
                outcomes = RailControl.apply(dir, m.group(2), m.group(3).equals("down"), rank, ACTION_WAIT);
            } catch (IllegalArgumentException e) {
                send(x, 400, "text/plain", "tutti monitor: " + e.getMessage() + "\n");
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                send(x, 503, "text/plain", "tutti monitor: stopping\n");
                return;
            }
            boolean all = outcomes.stream().allMatch(RailControl.Outcome::done);
            send(x, all ? 200 : 409, "application/json", MonitorJson.write(g -> {
                g.writeStartObject();
                g.writeStringField("job", m.group(1));
                g.writeStringField("action", m.group(3));
                g.writeBooleanField("done", all);
                g.writeArrayFieldStart("outcomes");
                for (RailControl.Outcome o : outcomes) {
                    g.writeStartObject();
                    g.writeNumberField("rank", o.rank());
                    g.writeNumberField("rail", o.rail());
                    g.writeBooleanField("done", o.done());
                    g.writeStringField("message", o.message());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }));
        }
    }

    private boolean tokenMatches(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        return MessageDigest.isEqual(token, authorization.substring("Bearer ".length()).strip()
                .getBytes(StandardCharsets.UTF_8));
    }

    private void page(HttpExchange x) throws IOException {
        try (x) {
            String name = PAGES.get(x.getRequestURI().getPath());
            if (name == null) {
                send(x, 404, "text/plain", "tutti monitor: no page " + x.getRequestURI().getPath()
                        + "; the page is /, the API /api/jobs, the metrics /metrics\n");
                return;
            }
            try (InputStream in = MonitorServer.class.getResourceAsStream("web/" + name)) {
                if (in == null) {
                    send(x, 500, "text/plain", "tutti monitor: the page's resource " + name + " is missing from the jar\n");
                    return;
                }
                String type = name.endsWith(".js") ? "text/javascript" : name.endsWith(".css") ? "text/css" : "text/html";
                // nothing but this server's own files: no network fetch from the page
                x.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:");
                send(x, 200, type + "; charset=utf-8", in.readAllBytes());
            }
        }
    }

    private void api(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            if (path.equals("/api/jobs") || path.equals("/api/jobs/")) {
                send(x, 200, "application/json", MonitorJson.jobs(watch.jobs(), System.currentTimeMillis(), control()));
                return;
            }
            if (path.startsWith("/api/jobs/")) {
                String id = path.substring("/api/jobs/".length());
                JobSnapshot j = watch.job(id);
                if (j != null) {
                    send(x, 200, "application/json", MonitorJson.job(j));
                    return;
                }
                send(x, 404, "application/json", MonitorJson.write(g -> {
                    g.writeStartObject();
                    g.writeStringField("error", "no job " + id + " watched here; /api/jobs lists them");
                    g.writeEndObject();
                }));
                return;
            }
            send(x, 404, "text/plain", "tutti monitor: no API at " + path + "; try /api/jobs\n");
        }
    }

    private static void send(HttpExchange x, int status, String type, String body) throws IOException {
        send(x, status, type.contains("charset") ? type : type + "; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type);
        x.getResponseHeaders().set("Cache-Control", "no-store");
        x.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    /**
     * The token in {@code file}: its first line, stripped. Refused with the reason when the file is
     * missing, empty, or readable by others than its owner (a token others can read guards nothing).
     */
    public static String readToken(Path file) {
        try {
            if (Files.getFileAttributeView(file, java.nio.file.attribute.PosixFileAttributeView.class) != null) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
                if (perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ)) {
                    throw new IllegalArgumentException("the token file " + file + " is readable by others than its"
                            + " owner: make it private (chmod 600 " + file + ")");
                }
            }
            String token = Files.readString(file).lines().findFirst().orElse("").strip();
            if (token.isEmpty()) {
                throw new IllegalArgumentException("the token file " + file + " is empty: put a secret in its first line,"
                        + " e.g. head -c 32 /dev/urandom | base64 > " + file);
            }
            return token;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + e);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        watch.close();
    }
}
