package io.tutti.cli;

import io.tutti.Metrics;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.monitor.JobCounters;
import io.tutti.monitor.MonitorJson;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The counters of the ranks of one job on this host, read from their files in the job's directory
 * ({@code counters-N}, {@link CountersDescriptor}), and their three views: the table
 * {@code tutti status JOB} prints, its JSON, and the stuck view (which call each rank waits in, for
 * whom), which {@code tutti run --timeout} prints too.
 */
record JobStatus(String job, List<Metrics> ranks) {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());

    /** The directory of job {@code job} (its id, as {@code tutti status} lists it, or a path) under {@code root}. */
    static Path directory(Path root, String job) {
        return job.contains("/") ? Path.of(job) : root.resolve(job.startsWith("tutti-") ? job : "tutti-" + job);
    }

    /** Reads every rank's counters file in {@code dir}, by rank; files not yet formatted are skipped. */
    static JobStatus read(Path dir) {
        return new JobStatus(JobCounters.jobId(dir), JobCounters.read(dir));
    }

    /** The stuck view: per rank, the call it waits in, for whom and since when; or that it is not blocked. */
    String stuck(long nowMillis) {
        StringBuilder b = new StringBuilder();
        for (Metrics m : ranks) {
            b.append("  rank ").append(m.rank()).append(" (pid ").append(m.pid()).append("): ");
            Metrics.Blocked w = m.blocked();
            if (!m.enabled()) {
                b.append("counters are off (tutti.counters=false)");
            } else if (w == null) {
                b.append("not blocked in a call");
            } else {
                b.append("blocked in ").append(w.call());
                b.append(whom(w));
                if (w.tag() >= 0) {
                    b.append(", tag ").append(w.tag());
                } else if (w.call().equals("recv")) {
                    b.append(", any tag");
                }
                if (w.context() >= 0) {
                    b.append(", context ").append(w.context());
                }
                b.append(", for ").append(seconds(nowMillis - w.sinceMillis())).append(" s");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The table: one line per rank, then one per rail of each rank with a network transport. */
    String table(long nowMillis) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "job %s, %d rank(s) seen from this host, %s%n", job, ranks.size(),
                CLOCK.format(Instant.ofEpochMilli(nowMillis))));
        b.append(String.format(Locale.ROOT, "%5s %8s %10s %10s %10s %10s %9s %6s  %s%n", "RANK", "PID", "SENT",
                "SENT B", "RECEIVED", "RECV B", "COLLS", "ERRORS", "BLOCKED IN"));
        for (Metrics m : ranks) {
            long sent = m.shm().messagesSent() + m.net().messagesSent();
            long sentB = m.shm().bytesSent() + m.net().bytesSent();
            long recv = m.shm().messagesReceived() + m.net().messagesReceived();
            long recvB = m.shm().bytesReceived() + m.net().bytesReceived();
            long colls = 0;
            for (Metrics.Collective c : m.collectives()) {
                colls += c.calls();
            }
            long errors = 0;
            for (Metrics.ErrorCount e : m.errors()) {
                errors += e.count();
            }
            Metrics.Blocked w = m.blocked();
            String blocked = !m.enabled() ? "(counters off)" : w == null ? "-"
                    : w.call() + whom(w) + (w.tag() < 0 ? "" : " tag " + w.tag())
                    + " " + seconds(nowMillis - w.sinceMillis()) + " s";
            b.append(String.format(Locale.ROOT, "%5d %8d %10d %10s %10d %10s %9d %6d  %s%n", m.rank(), m.pid(), sent,
                    bytes(sentB), recv, bytes(recvB), colls, errors, blocked));
        }
        boolean railHeader = false;
        for (Metrics m : ranks) {
            for (Metrics.Rail r : m.rails()) {
                if (!railHeader) {
                    b.append(String.format(Locale.ROOT, "%n%5s %4s %-16s %-12s %10s %10s %10s %8s %10s %8s %6s%n", "RANK",
                            "RAIL", "INTERFACE", "STATE", "DGRAMS OUT", "BYTES OUT", "DGRAMS IN", "RESENT", "IN FLIGHT",
                            "SRTT us", "NAKS"));
                    railHeader = true;
                }
                b.append(String.format(Locale.ROOT, "%5d %4d %-16s %-12s %10d %10s %10d %8d %10s %8d %6d%n", m.rank(),
                        r.index(), r.name(), r.state(), r.datagramsSent(), bytes(r.bytesSent()), r.datagramsReceived(),
                        r.retransmits(), bytes(r.outstandingBytes()), m.netTotals().srttNanos() / 1000,
                        m.netTotals().naksSent()));
            }
        }
        return b.toString();
    }

    /** The JSON of {@code tutti status --json}: the monitor's rank objects, written by jackson-core. */
    String json() {
        return MonitorJson.write(g -> {
            g.writeStartObject();
            g.writeStringField("job", job);
            g.writeArrayFieldStart("ranks");
            for (Metrics m : ranks) {
                g.writeStartObject();
                MonitorJson.rankFields(g, m);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** " to rank 3" for a send, " from rank 3" or " from any rank" for a receive, " waiting for rank 3" else. */
    private static String whom(Metrics.Blocked w) {
        boolean receive = w.call().equals("recv") || w.call().equals("probe");
        if (w.peer() < 0) {
            return receive ? " from any rank" : "";
        }
        return (w.call().equals("send") ? " to rank " : receive ? " from rank " : " waiting for rank ") + w.peer();
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f", Math.max(0, millis) / 1000.0);
    }

    /** Bytes with a binary unit: 512, 1.5K, 3.2M, 7.0G. */
    static String bytes(long n) {
        if (n < 1024) {
            return Long.toString(n);
        }
        String units = "KMGTPE";
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f%c", v, units.charAt(u));
    }
}
