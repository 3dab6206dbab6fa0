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

    /**
     * The table: one line per rank; one per algorithm that ran a collective of each rank; a line of
     * each rank's offload and in-network counters that are not 0; one per rail of each rank with a
     * network transport.
     */
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
        boolean collHeader = false;
        for (Metrics m : ranks) {
            for (Metrics.Collective c : m.collectives()) {
                for (Metrics.Algorithm a : c.algorithms()) {
                    if (!collHeader) {
                        b.append(String.format(Locale.ROOT, "%n%5s %-15s %-20s %10s %8s %10s %10s%n", "RANK", "COLLECTIVE",
                                "ALGORITHM", "CALLS", "TIMED", "P50 us", "P99 us"));
                        collHeader = true;
                    }
                    b.append(String.format(Locale.ROOT, "%5d %-15s %-20s %10d %8d %10s %10s%n", m.rank(), c.operation(),
                            a.name(), a.calls(), a.timed(), micros(a.percentileNanos(0.5)),
                            micros(a.percentileNanos(0.99))));
                }
            }
        }
        boolean countsHeader = false;
        for (Metrics m : ranks) {
            for (String group : new String[] {"offload", "in-network"}) {
                StringBuilder line = new StringBuilder();
                (group.equals("offload") ? m.offload() : m.inNetwork()).forEach((name, v) -> {
                    if (v != 0) {
                        line.append(line.isEmpty() ? "" : ", ").append(name).append(' ').append(v);
                    }
                });
                if (!line.isEmpty()) {
                    if (!countsHeader) {
                        b.append(String.format(Locale.ROOT, "%n%5s %-10s  %s%n", "RANK", "ENGINE", "COUNTERS (not 0)"));
                        countsHeader = true;
                    }
                    b.append(String.format(Locale.ROOT, "%5d %-10s  %s%n", m.rank(), group, line));
                }
            }
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

    /** A percentile's upper edge in microseconds; "-" when nothing was timed. */
    private static String micros(long nanos) {
        return nanos == 0 ? "-" : nanos == Long.MAX_VALUE ? "inf" : String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
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
