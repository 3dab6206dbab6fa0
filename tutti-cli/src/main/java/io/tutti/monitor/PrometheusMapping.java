package io.tutti.monitor;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot.StateSetDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The running jobs' counters as Prometheus metric families, for the Prometheus client's exposition
 * (text, OpenMetrics or protobuf, as the scraper asks): a collector that reads the jobs at each scrape.
 * Every series has the labels {@code job} and {@code rank}; per peer {@code peer} and {@code transport},
 * per rail {@code rail} and {@code interface}, per collective {@code op} (and {@code algorithm} for
 * its algorithms' families). Counters are the ranks' own (exact at the scrape); the collective latency
 * is a histogram whose buckets are the counters' powers of two of nanoseconds, in seconds. The offload
 * engine's and the in-network aggregation's families appear for a rank once one of their counters
 * is not 0 (docs/guide/monitoring.md lists them).
 */
public final class PrometheusMapping implements MultiCollector {
    private static final String[] RANK_STATES = {"running", "done", "failed"};
    private static final String[] RAIL_STATES = {"down", "free", "busy", "down (admin)"};

    private final Supplier<List<JobSnapshot>> jobs;

    /** A collector of the jobs {@code jobs} gives at each scrape (ended ones are left out). */
    public PrometheusMapping(Supplier<List<JobSnapshot>> jobs) {
        this.jobs = jobs;
    }

    @Override
    public MetricSnapshots collect() {
        return snapshots(jobs.get());
    }

    /** The metric families of the running jobs among {@code jobs}, read at {@code atMillis} of each. */
    public static MetricSnapshots snapshots(List<JobSnapshot> jobs) {
        Families f = new Families();
        for (JobSnapshot j : jobs) {
            if (!j.running()) {
                continue;
            }
            for (Rank r : j.ranks()) {
                rank(f, j, r);
            }
        }
        return new MetricSnapshots(f.build());
    }

    private static void rank(Families f, JobSnapshot j, Rank r) {
        Metrics m = r.metrics();
        String job = j.job();
        String rank = Integer.toString(m.rank());
        Labels rl = Labels.of("job", job, "rank", rank);
        f.stateSet("tutti_rank_state", "The rank's process: running, done (left the job) or failed (killed or crashed).",
                rl, RANK_STATES, r.liveness().label());
        f.gauge("tutti_rank_start_time_seconds", "When the rank joined its job, in seconds since the epoch.", null, rl,
                m.startedMillis() / 1000.0);
        Metrics.Blocked w = m.blocked();
        f.gauge("tutti_rank_blocked_seconds", "How long the rank has been blocked in its current call (0: not blocked).",
                Unit.SECONDS, rl, w == null || r.liveness() != Liveness.RUNNING ? 0
                        : Math.max(0, j.atMillis() - w.sinceMillis()) / 1000.0);
        f.counter("tutti_dropped_records", "Records the engine rejected (never delivered).", null, rl, m.droppedRecords());
        for (Metrics.ErrorCount e : m.errors()) {
            f.counter("tutti_errors", "Errors raised to the program, by kind.", null, rl.add("kind", e.kind()), e.count());
        }
        for (Metrics.Peer p : m.peers()) {
            if (p.rank() == m.rank()) {
                continue;
            }
            Labels pl = rl.merge(new String[] {"peer", "transport"}, new String[] {Integer.toString(p.rank()), p.transport()});
            Metrics.Traffic t = p.traffic();
            f.counter("tutti_sent_messages", "Messages this rank started sending to the peer.", null, pl, t.messagesSent());
            f.counter("tutti_sent_bytes", "Bytes of the messages sent to the peer.", Unit.BYTES, pl, t.bytesSent());
            f.counter("tutti_received_messages", "Messages from the peer that arrived.", null, pl, t.messagesReceived());
            f.counter("tutti_received_bytes", "Bytes of the messages from the peer.", Unit.BYTES, pl, t.bytesReceived());
            if (p.lastHeardMillis() > 0) {
                f.gauge("tutti_peer_last_heard_timestamp_seconds", "When the rank last took a message from the peer.",
                        null, pl, p.lastHeardMillis() / 1000.0);
            }
        }
        for (Metrics.Collective c : m.collectives()) {
            Labels cl = rl.add("op", c.operation());
            f.counter("tutti_collective_calls", "Collective calls started, by operation.", null, cl, c.calls());
            f.histogram("tutti_collective_latency_seconds", "Latency of the blocking collective calls.", cl,
                    c.histogram());
        }
        for (Metrics.Collective c : m.collectives()) {
            for (Metrics.Algorithm a : c.algorithms()) {
                Labels al = rl.merge(new String[] {"op", "algorithm"}, new String[] {c.operation(), a.name()});
                f.counter("tutti_collective_algorithm_calls", "Collective calls started, by operation and algorithm.",
                        null, al, a.calls());
                f.histogram("tutti_collective_algorithm_latency_seconds",
                        "Latency of the blocking collective calls, by algorithm (its first call and one in 16 timed).",
                        al, a.histogram());
            }
        }
        if (m.offload().values().stream().anyMatch(v -> v != 0)) {
            m.offload().forEach((name, v) -> offload(f, rl, name, v));
        }
        if (m.inNetwork().values().stream().anyMatch(v -> v != 0)) {
            m.inNetwork().forEach((name, v) -> f.counter("tutti_inc_" + name.replace('-', '_'),
                    IN_NETWORK_HELP.getOrDefault(name, "In-network aggregation: " + name + "."), null, rl, v));
        }
        for (Metrics.Rail rail : m.rails()) {
            Labels al = rl.merge(new String[] {"rail", "interface"}, new String[] {Integer.toString(rail.index()),
                rail.name()});
            f.stateSet("tutti_rail_state", "The rail's state as the striping sees it.", al, RAIL_STATES, rail.state());
            f.counter("tutti_rail_sent_datagrams", "Datagrams sent on the rail, retransmissions included.", null, al,
                    rail.datagramsSent());
            f.counter("tutti_rail_sent_bytes", "Bytes sent on the rail, retransmissions included.", Unit.BYTES, al,
                    rail.bytesSent());
            f.counter("tutti_rail_received_datagrams", "Datagrams received on the rail.", null, al,
                    rail.datagramsReceived());
            f.counter("tutti_rail_retransmits", "Datagrams sent again on the rail.", null, al, rail.retransmits());
            f.gauge("tutti_rail_outstanding_bytes", "Bytes in flight on the rail from this rank.", Unit.BYTES, al,
                    rail.outstandingBytes());
        }
        if (!m.rails().isEmpty()) {
            Metrics.NetTotals t = m.netTotals();
            f.counter("tutti_net_sent_naks", "NAKs the network transport sent.", null, rl, t.naksSent());
            String drops = "Received datagrams dropped: bad CRC, from another job or an unproven address, or else.";
            f.counter("tutti_net_dropped_datagrams", drops, null, rl.add("reason", "crc"), t.crcDrops());
            f.counter("tutti_net_dropped_datagrams", drops, null, rl.add("reason", "foreign"), t.foreignDrops());
            f.counter("tutti_net_dropped_datagrams", drops, null, rl.add("reason", "other"), t.otherDrops());
            f.counter("tutti_net_timeouts", "Retransmission timeouts of the network transport.", null, rl, t.timeouts());
            f.gauge("tutti_net_srtt_seconds", "Smoothed round-trip time, the mean over the peers.", Unit.SECONDS, rl,
                    t.srttNanos() / 1e9);
        }
    }

    /** Help of the in-network families, by counter name (Counters.IN_NETWORK). */
    private static final Map<String, String> IN_NETWORK_HELP = Map.of(
            "groups", "In-network groups set up for this rank's communicators.",
            "setup-fallbacks", "In-network group set-ups that failed: the communicator uses the host algorithm.",
            "call-fallbacks", "Allreduce calls the switches could not reduce (operation or type): run on the host.",
            "packets-sent", "Data packets this leader sent to its switch, retransmissions included.",
            "retransmits", "Data packets sent again because their result was late.",
            "results-received", "Results this leader took in from its switch.",
            "wrong-token", "Results dropped because they did not carry their group's token.",
            "control-retries", "Control requests (query, notify, release) sent again for want of an answer.",
            "timeouts", "In-network transfers given up: no result from the switch within the timeout.");

    /**
     * An offload counter: the fired entries by operation ({@code fired-put} ...) as one family, the
     * packets landed by kind as another, the rest each its own.
     */
    private static void offload(Families f, Labels rl, String name, long v) {
        if (name.startsWith("fired-")) {
            f.counter("tutti_offload_fired_entries", "Deferred-work entries the offload engine fired, by operation.",
                    null, rl.add("op", name.substring("fired-".length())), v);
        } else if (name.startsWith("landed-")) {
            f.counter("tutti_offload_landed_packets", "Offload packets landed in this rank's program, by kind.", null,
                    rl.add("kind", name.substring("landed-".length())), v);
        } else {
            f.counter("tutti_offload_" + name.replace('-', '_'), switch (name) {
                case "collectives" -> "Offloaded collectives set up (persistent requests compiled to deferred work).";
                case "runs" -> "Runs of offloaded collectives started.";
                case "held" -> "Offload packets held for a run this rank had not started yet.";
                case "queued" -> "Fired offload operations that waited for room at their destination.";
                default -> "Offload engine: " + name + ".";
            }, null, rl, v);
        }
    }

    /** Data points gathered by family name, in the order the families were first met. */
    private static final class Families {
        private final Map<String, MetricSnapshot.Builder<?>> builders = new LinkedHashMap<>();

        void counter(String name, String help, Unit unit, Labels labels, long value) {
            CounterSnapshot.Builder b = (CounterSnapshot.Builder) builders.computeIfAbsent(name,
                    n -> withUnit(CounterSnapshot.builder().name(n).help(help), unit));
            b.dataPoint(CounterDataPointSnapshot.builder().labels(labels).value(value).build());
        }

        void gauge(String name, String help, Unit unit, Labels labels, double value) {
            GaugeSnapshot.Builder b = (GaugeSnapshot.Builder) builders.computeIfAbsent(name,
                    n -> withUnit(GaugeSnapshot.builder().name(n).help(help), unit));
            b.dataPoint(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
        }

        void stateSet(String name, String help, Labels labels, String[] states, String current) {
            StateSetSnapshot.Builder b = (StateSetSnapshot.Builder) builders.computeIfAbsent(name,
                    n -> StateSetSnapshot.builder().name(n).help(help));
            StateSetDataPointSnapshot.Builder p = StateSetDataPointSnapshot.builder().labels(labels);
            for (String s : states) {
                p.state(s, s.equals(current));
            }
            b.dataPoint(p.build());
        }

        /** Bucket i of the counters ([2^i, 2^(i+1)) ns) has the upper bound 2^(i+1) ns; the last is +Inf. */
        void histogram(String name, String help, Labels labels, long[] log2Nanos) {
            HistogramSnapshot.Builder b = (HistogramSnapshot.Builder) builders.computeIfAbsent(name,
                    n -> HistogramSnapshot.builder().name(n).help(help).unit(Unit.SECONDS));
            double[] bounds = new double[log2Nanos.length];
            for (int i = 0; i < bounds.length; i++) {
                bounds[i] = i == bounds.length - 1 ? Double.POSITIVE_INFINITY : Math.scalb(1.0, i + 1) / 1e9;
            }
            b.dataPoint(HistogramDataPointSnapshot.builder().labels(labels)
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, log2Nanos)).build());
        }

        private static <B extends MetricSnapshot.Builder<B>> B withUnit(B b, Unit unit) {
            return unit == null ? b : b.unit(unit);
        }

        List<MetricSnapshot> build() {
            List<MetricSnapshot> out = new ArrayList<>();
            builders.values().forEach(b -> out.add(b.build()));
            return out;
        }
    }
}
