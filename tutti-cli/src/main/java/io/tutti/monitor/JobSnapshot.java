package io.tutti.monitor;

import io.tutti.Metrics;
import io.tutti.monitor.JobCounters.Liveness;
import io.tutti.monitor.JobCounters.Rank;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One job as the monitor last read it: its ranks on this host with their liveness, whether the job
 * still runs, the samples of the last minutes ({@link Watch}) and the bytes per second between each
 * pair of ranks over the last sample period (null before two samples).
 *
 * @param job        the job's id
 * @param atMillis   when the ranks were read (epoch milliseconds)
 * @param running    false once the job's directory is gone (the job ended; the ranks are its last reading)
 * @param ranks      by rank
 * @param samples    oldest first
 * @param railNames  the interface of each rail index, as the ranks name it
 * @param heatRate   {@code heatRate[r][p]}: bytes per second rank r sent to rank p lately, or null
 */
public record JobSnapshot(String job, long atMillis, boolean running, List<Rank> ranks, List<Sample> samples,
                          Map<Integer, String> railNames, double[][] heatRate) {
    /** A peer a rank waits for and has not heard from for this long is reported silent. */
    public static final long SILENT_MILLIS = 5_000;

    /**
     * Job-wide totals at one moment, summed over the ranks: messages and bytes sent, per rail index
     * its bytes, retransmissions and datagrams sent, per collective operation its calls.
     */
    public record Sample(long atMillis, long messagesSent, long bytesSent, Map<Integer, long[]> rails,
                         Map<String, Long> calls) {
        /** Index of bytes sent in a {@link #rails} entry. */
        public static final int RAIL_BYTES = 0;
        /** Index of retransmissions in a {@link #rails} entry. */
        public static final int RAIL_RETRANSMITS = 1;
        /** Index of datagrams sent in a {@link #rails} entry. */
        public static final int RAIL_DATAGRAMS = 2;
    }

    /** Something a person should see in red: {@code failed}, {@code silent}, {@code rail-down} or {@code peer-failed}. */
    public record Alert(String kind, int rank, int peer, String message) {
    }

    /**
     * The alerts of this reading: failed ranks, ranks waiting for a peer silent for
     * {@link #SILENT_MILLIS} or more, rails down, and ranks that saw a peer fail.
     */
    public List<Alert> alerts() {
        List<Alert> out = new ArrayList<>();
        for (Rank r : ranks) {
            Metrics m = r.metrics();
            if (r.liveness() == Liveness.FAILED) {
                out.add(new Alert("failed", m.rank(), -1, "rank " + m.rank() + " (pid " + m.pid()
                        + ") is gone without leaving the job: killed or crashed"));
            }
            Metrics.Blocked w = m.blocked();
            if (r.liveness() == Liveness.RUNNING && w != null && w.peer() >= 0 && w.peer() < m.peers().size()
                    && atMillis - w.sinceMillis() >= SILENT_MILLIS) {
                long heard = m.peers().get(w.peer()).lastHeardMillis();
                long quiet = atMillis - Math.max(heard, m.startedMillis());
                if (quiet >= SILENT_MILLIS) {
                    out.add(new Alert("silent", m.rank(), w.peer(), "rank " + m.rank() + " waits in " + w.call()
                            + " for rank " + w.peer() + ", silent for " + quiet / 1000 + " s"));
                }
            }
            for (Metrics.Rail rail : m.rails()) {
                if (rail.state().startsWith("down")) {
                    out.add(new Alert("rail-down", m.rank(), -1, "rank " + m.rank() + ": rail " + rail.index() + " ("
                            + rail.name() + ") is " + (rail.state().equals("down") ? "down"
                            : "out of service (tutti rail ... up " + rail.index() + " brings it back)")));
                }
            }
            for (Metrics.ErrorCount e : m.errors()) {
                if (e.kind().equals("peer-failed")) {
                    out.add(new Alert("peer-failed", m.rank(), -1, "rank " + m.rank() + " saw a peer fail ("
                            + e.count() + (e.count() == 1 ? " error)" : " errors)")));
                }
            }
        }
        return out;
    }

    /** A sample of {@code ranks} taken at {@code atMillis}. */
    static Sample sample(long atMillis, List<Rank> ranks) {
        long messages = 0;
        long bytes = 0;
        Map<Integer, long[]> rails = new java.util.TreeMap<>();
        Map<String, Long> calls = new java.util.TreeMap<>();
        for (Rank r : ranks) {
            Metrics m = r.metrics();
            messages += m.shm().messagesSent() + m.net().messagesSent();
            bytes += m.shm().bytesSent() + m.net().bytesSent();
            for (Metrics.Rail rail : m.rails()) {
                long[] v = rails.computeIfAbsent(rail.index(), i -> new long[3]);
                v[Sample.RAIL_BYTES] += rail.bytesSent();
                v[Sample.RAIL_RETRANSMITS] += rail.retransmits();
                v[Sample.RAIL_DATAGRAMS] += rail.datagramsSent();
            }
            for (Metrics.Collective c : m.collectives()) {
                calls.merge(c.operation(), c.calls(), Long::sum);
            }
        }
        return new Sample(atMillis, messages, bytes, rails, calls);
    }

    /** {@code m[r][p]}: bytes rank r sent to rank p, for the ranks read (size from the first rank). */
    static long[][] bytesMatrix(List<Rank> ranks) {
        int n = ranks.isEmpty() ? 0 : ranks.getFirst().metrics().size();
        long[][] m = new long[n][n];
        for (Rank r : ranks) {
            Metrics x = r.metrics();
            if (x.rank() < n) {
                for (Metrics.Peer p : x.peers()) {
                    if (p.rank() < n) {
                        m[x.rank()][p.rank()] = p.traffic().bytesSent();
                    }
                }
            }
        }
        return m;
    }
}
