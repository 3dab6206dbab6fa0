package io.tutti.monitor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Rank;
import io.tutti.monitor.JobSnapshot.Sample;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * The JSON of the monitor's API and of {@code tutti status --json}, written by jackson-core (every
 * string escaped by the library): a rank's counters ({@link #rankFields}), the list of jobs
 * ({@link #jobs}), and one job with its alerts, traffic matrix, collectives merged over the ranks and
 * the rates of its last samples ({@link #job}), which the page draws.
 */
public final class MonitorJson {
    private static final JsonFactory JSON = new JsonFactory();

    private MonitorJson() {
    }

    /** Writes JSON through {@code body}, returning it as a string. */
    public static String write(JsonBody body) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** What writes one JSON value. */
    @FunctionalInterface
    public interface JsonBody {
        /** Writes the value. */
        void write(JsonGenerator g) throws IOException;
    }

    /** {@code /api/jobs}: each job's id, whether it runs, its ranks here, failed ones and alerts. */
    public static String jobs(List<JobSnapshot> jobs, long nowMillis, boolean control) {
        return write(g -> {
            g.writeStartObject();
            g.writeNumberField("nowMillis", nowMillis);
            g.writeBooleanField("control", control);
            g.writeArrayFieldStart("jobs");
            for (JobSnapshot j : jobs) {
                g.writeStartObject();
                g.writeStringField("job", j.job());
                g.writeBooleanField("running", j.running());
                g.writeNumberField("ranks", j.ranks().size());
                g.writeNumberField("failed", j.ranks().stream()
                        .filter(r -> r.liveness() == JobCounters.Liveness.FAILED).count());
                g.writeNumberField("alerts", j.alerts().size());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** {@code /api/jobs/JOB}: the ranks (as {@code tutti status --json}, with their state), and what the page draws. */
    public static String job(JobSnapshot j) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("job", j.job());
            g.writeBooleanField("running", j.running());
            g.writeNumberField("atMillis", j.atMillis());
            g.writeNumberField("size", j.ranks().isEmpty() ? 0 : j.ranks().getFirst().metrics().size());
            g.writeArrayFieldStart("ranks");
            for (Rank r : j.ranks()) {
                g.writeStartObject();
                g.writeStringField("state", r.liveness().label());
                rankFields(g, r.metrics());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("alerts");
            for (JobSnapshot.Alert a : j.alerts()) {
                g.writeStartObject();
                g.writeStringField("kind", a.kind());
                g.writeNumberField("rank", a.rank());
                g.writeNumberField("peer", a.peer());
                g.writeStringField("message", a.message());
                g.writeEndObject();
            }
            g.writeEndArray();
            heatmap(g, j);
            collectives(g, j.ranks());
            history(g, j);
            g.writeEndObject();
        });
    }

    /** {@code m[r][p]} over the traffic rank r had with peer p. */
    private static void matrix(JsonGenerator g, String name, List<Rank> ranks, int n,
                               ToLongFunction<Metrics.Traffic> value) throws IOException {
        long[][] m = new long[n][n];
        for (Rank r : ranks) {
            Metrics x = r.metrics();
            for (Metrics.Peer p : x.peers()) {
                if (x.rank() < n && p.rank() < n) {
                    m[x.rank()][p.rank()] = value.applyAsLong(p.traffic());
                }
            }
        }
        g.writeArrayFieldStart(name);
        for (long[] row : m) {
            g.writeArray(row, 0, row.length);
        }
        g.writeEndArray();
    }

    private static void heatmap(JsonGenerator g, JobSnapshot j) throws IOException {
        int n = j.ranks().isEmpty() ? 0 : j.ranks().getFirst().metrics().size();
        g.writeObjectFieldStart("heatmap");
        matrix(g, "bytes", j.ranks(), n, Metrics.Traffic::bytesSent);
        matrix(g, "messages", j.ranks(), n, Metrics.Traffic::messagesSent);
        if (j.heatRate() == null) {
            g.writeNullField("bytesPerSecond");
        } else {
            g.writeArrayFieldStart("bytesPerSecond");
            for (double[] row : j.heatRate()) {
                g.writeArray(row, 0, row.length);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** Each operation's calls and latency histogram summed over the ranks, and per algorithm the same. */
    static List<Metrics.Collective> merged(List<Rank> ranks) {
        Map<String, Merged> ops = new TreeMap<>();
        for (Rank r : ranks) {
            for (Metrics.Collective c : r.metrics().collectives()) {
                Merged m = ops.computeIfAbsent(c.operation(), o -> new Merged());
                m.add(c.calls(), c.histogram());
                for (Metrics.Algorithm a : c.algorithms()) {
                    m.algorithms.computeIfAbsent(a.name(), x -> new Merged()).add(a.calls(), a.histogram());
                }
            }
        }
        List<Metrics.Collective> out = new ArrayList<>();
        ops.forEach((op, m) -> {
            List<Metrics.Algorithm> algorithms = new ArrayList<>();
            m.algorithms.forEach((name, a) -> algorithms.add(new Metrics.Algorithm(name, a.calls, a.histogram)));
            out.add(new Metrics.Collective(op, m.calls, m.histogram, List.copyOf(algorithms)));
        });
        return out;
    }

    /** Calls and a histogram summed over ranks. */
    private static final class Merged {
        long calls;
        long[] histogram = new long[0];
        final Map<String, Merged> algorithms = new TreeMap<>();

        void add(long n, long[] h) {
            calls += n;
            if (histogram.length < h.length) {
                histogram = java.util.Arrays.copyOf(histogram, h.length);
            }
            for (int i = 0; i < h.length; i++) {
                histogram[i] += h[i];
            }
        }
    }

    private static void collectives(JsonGenerator g, List<Rank> ranks) throws IOException {
        g.writeArrayFieldStart("collectives");
        for (Metrics.Collective c : merged(ranks)) {
            collective(g, c);
        }
        g.writeEndArray();
    }

    /**
     * One operation: calls, blocking calls timed, percentiles (upper bucket edges) and the histogram;
     * and the same for each algorithm that ran it, under {@code algorithms}.
     */
    private static void collective(JsonGenerator g, Metrics.Collective c) throws IOException {
        g.writeStartObject();
        g.writeStringField("operation", c.operation());
        latency(g, c.calls(), c.histogram());
        g.writeArrayFieldStart("algorithms");
        for (Metrics.Algorithm a : c.algorithms()) {
            g.writeStartObject();
            g.writeStringField("algorithm", a.name());
            latency(g, a.calls(), a.histogram());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void latency(JsonGenerator g, long calls, long[] histogram) throws IOException {
        Metrics.Algorithm figures = new Metrics.Algorithm("", calls, histogram);
        g.writeNumberField("calls", calls);
        g.writeNumberField("timed", figures.timed());
        g.writeNumberField("p50Nanos", figures.percentileNanos(0.5));
        g.writeNumberField("p90Nanos", figures.percentileNanos(0.9));
        g.writeNumberField("p99Nanos", figures.percentileNanos(0.99));
        g.writeFieldName("log2Histogram");
        g.writeArray(histogram, 0, histogram.length);
    }

    /**
     * The rates between consecutive samples, each at the later one's time: messages and bytes per
     * second, per rail bytes, retransmissions and datagrams per second, per operation calls per
     * second (summed over the ranks and divided by their number: a collective of every rank counts once).
     */
    private static void history(JsonGenerator g, JobSnapshot j) throws IOException {
        List<Sample> s = j.samples();
        int ranks = Math.max(1, j.ranks().size());
        g.writeObjectFieldStart("history");
        g.writeArrayFieldStart("atMillis");
        for (int i = 1; i < s.size(); i++) {
            g.writeNumber(s.get(i).atMillis());
        }
        g.writeEndArray();
        rates(g, "messagesPerSecond", s, x -> x.messagesSent(), 1);
        rates(g, "bytesPerSecond", s, x -> x.bytesSent(), 1);
        TreeSet<Integer> rails = new TreeSet<>(j.railNames().keySet());
        s.forEach(x -> rails.addAll(x.rails().keySet()));
        g.writeArrayFieldStart("rails");
        for (int rail : rails) {
            g.writeStartObject();
            g.writeNumberField("index", rail);
            g.writeStringField("name", j.railNames().getOrDefault(rail, "rail " + rail));
            rates(g, "bytesPerSecond", s, x -> railValue(x, rail, Sample.RAIL_BYTES), 1);
            rates(g, "retransmitsPerSecond", s, x -> railValue(x, rail, Sample.RAIL_RETRANSMITS), 1);
            rates(g, "datagramsPerSecond", s, x -> railValue(x, rail, Sample.RAIL_DATAGRAMS), 1);
            g.writeEndObject();
        }
        g.writeEndArray();
        TreeSet<String> ops = new TreeSet<>();
        s.forEach(x -> ops.addAll(x.calls().keySet()));
        g.writeArrayFieldStart("collectives");
        for (String op : ops) {
            g.writeStartObject();
            g.writeStringField("operation", op);
            rates(g, "callsPerSecond", s, x -> x.calls().getOrDefault(op, 0L), ranks);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static long railValue(Sample x, int rail, int which) {
        long[] v = x.rails().get(rail);
        return v == null ? 0 : v[which];
    }

    private static void rates(JsonGenerator g, String name, List<Sample> s, ToLongFunction<Sample> value,
                              int divisor) throws IOException {
        g.writeArrayFieldStart(name);
        for (int i = 1; i < s.size(); i++) {
            long dt = s.get(i).atMillis() - s.get(i - 1).atMillis();
            long dv = Math.max(0, value.applyAsLong(s.get(i)) - value.applyAsLong(s.get(i - 1)));
            g.writeNumber(dt <= 0 ? 0.0 : Math.round(dv * 1000.0 / dt / divisor * 100) / 100.0);
        }
        g.writeEndArray();
    }

    /** A rank's counters as fields of an object already started: the rank objects of {@code tutti status --json}. */
    public static void rankFields(JsonGenerator g, Metrics m) throws IOException {
        g.writeNumberField("rank", m.rank());
        g.writeNumberField("size", m.size());
        g.writeNumberField("pid", m.pid());
        g.writeNumberField("startedMillis", m.startedMillis());
        g.writeBooleanField("enabled", m.enabled());
        traffic(g, "shm", m.shm());
        traffic(g, "net", m.net());
        g.writeNumberField("droppedRecords", m.droppedRecords());
        g.writeArrayFieldStart("peers");
        for (Metrics.Peer p : m.peers()) {
            g.writeStartObject();
            g.writeNumberField("rank", p.rank());
            g.writeStringField("transport", p.transport());
            traffic(g, "traffic", p.traffic());
            g.writeNumberField("lastHeardMillis", p.lastHeardMillis());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("collectives");
        for (Metrics.Collective c : m.collectives()) {
            collective(g, c);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("rails");
        for (Metrics.Rail r : m.rails()) {
            g.writeStartObject();
            g.writeNumberField("index", r.index());
            g.writeStringField("name", r.name());
            g.writeStringField("state", r.state());
            g.writeNumberField("datagramsSent", r.datagramsSent());
            g.writeNumberField("bytesSent", r.bytesSent());
            g.writeNumberField("datagramsReceived", r.datagramsReceived());
            g.writeNumberField("retransmits", r.retransmits());
            g.writeNumberField("outstandingBytes", r.outstandingBytes());
            g.writeEndObject();
        }
        g.writeEndArray();
        Metrics.NetTotals t = m.netTotals();
        g.writeObjectFieldStart("netTotals");
        g.writeNumberField("naksSent", t.naksSent());
        g.writeNumberField("crcDrops", t.crcDrops());
        g.writeNumberField("foreignDrops", t.foreignDrops());
        g.writeNumberField("otherDrops", t.otherDrops());
        g.writeNumberField("timeouts", t.timeouts());
        g.writeNumberField("srttNanos", t.srttNanos());
        g.writeEndObject();
        g.writeObjectFieldStart("errors");
        for (Metrics.ErrorCount e : m.errors()) {
            g.writeNumberField(e.kind(), e.count());
        }
        g.writeEndObject();
        named(g, "offload", m.offload());
        named(g, "inNetwork", m.inNetwork());
        Metrics.Blocked w = m.blocked();
        if (w == null) {
            g.writeNullField("blocked");
        } else {
            g.writeObjectFieldStart("blocked");
            g.writeStringField("call", w.call());
            g.writeNumberField("peer", w.peer());
            g.writeNumberField("tag", w.tag());
            g.writeNumberField("context", w.context());
            g.writeNumberField("sinceMillis", w.sinceMillis());
            g.writeEndObject();
        }
    }

    /** A group of named counters as an object, every counter in the file's order. */
    private static void named(JsonGenerator g, String name, Map<String, Long> counters) throws IOException {
        g.writeObjectFieldStart(name);
        for (Map.Entry<String, Long> e : counters.entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }

    private static void traffic(JsonGenerator g, String name, Metrics.Traffic t) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("messagesSent", t.messagesSent());
        g.writeNumberField("bytesSent", t.bytesSent());
        g.writeNumberField("messagesReceived", t.messagesReceived());
        g.writeNumberField("bytesReceived", t.bytesReceived());
        g.writeEndObject();
    }
}
