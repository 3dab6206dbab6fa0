package io.tutti;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of one rank's counters ({@link Tutti#metrics()}, and what {@code tutti status} reads
 * from outside): messages and bytes by transport and by peer, collectives by operation and
 * algorithm with a latency histogram, the offload engine and the in-network aggregation, the rails
 * of the network transport, errors by class, and the call the rank is blocked in, if any. Counts start at 0 when the rank joins the job. Every value is read
 * without stopping the rank, so two values may come from moments a few operations apart; each
 * one is exact for its own moment.
 *
 * @param job          the job's id
 * @param rank         the rank (world)
 * @param size         ranks in the job
 * @param pid          the rank's process
 * @param startedMillis when the rank joined (epoch milliseconds)
 * @param enabled      false when counting is off ({@code tutti.counters=false}): every count is then 0
 * @param shm          messages through shared memory
 * @param net          messages through the network transport
 * @param droppedRecords records rejected by the engine's checks (never delivered)
 * @param peers        one entry per rank of the job, by rank (this rank's own entry counts nothing)
 * @param collectives  operations that have run at least once
 * @param rails        the network transport's rails (empty without one)
 * @param netTotals    the network transport's totals (all 0 without one)
 * @param errors       errors raised to the program, by class, those that occurred
 * @param blocked      the call the rank waits in now, or null
 * @param offload      the offload engine's counters by name, all of them in a fixed order (docs/guide/monitoring.md):
 *                     offloaded collectives, runs, packets landed, held and queued, entries fired per operation
 * @param inNetwork    the in-network aggregation's counters by name, all of them in a fixed order: groups
 *                     joined, fallbacks to the host path, packets sent and received, retries, timeouts
 */
public record Metrics(String job, int rank, int size, long pid, long startedMillis, boolean enabled, Traffic shm,
                      Traffic net, long droppedRecords, List<Peer> peers, List<Collective> collectives,
                      List<Rail> rails, NetTotals netTotals, List<ErrorCount> errors, Blocked blocked,
                      Map<String, Long> offload, Map<String, Long> inNetwork) {

    /** Messages (sends started, messages arrived) and their bytes. */
    public record Traffic(long messagesSent, long bytesSent, long messagesReceived, long bytesReceived) {
    }

    /**
     * Traffic with one peer; {@code lastHeardMillis} is when this rank last took a message from it
     * (epoch milliseconds, from a clock the rank advances whenever it waits; 0: never).
     */
    public record Peer(int rank, String transport, Traffic traffic, long lastHeardMillis) {
    }

    /**
     * One collective operation: calls started, and the latency of the blocking ones as a histogram
     * of powers of two: {@code histogram[i]} counts calls that took [2^i, 2^(i+1)) nanoseconds (the
     * last bucket everything longer); and the same per algorithm that ran it (the selector's choice,
     * or the one forced), those that ran at least once, whose sums these are.
     */
    public record Collective(String operation, long calls, long[] histogram, List<Algorithm> algorithms) {
        @Override
        public String toString() {
            return "Collective[operation=" + operation + ", calls=" + calls + ", timed=" + timed() + ", p50<="
                    + percentileNanos(0.5) + " ns, p99<=" + percentileNanos(0.99) + " ns, algorithms=" + algorithms
                    + "]";
        }

        /** Blocking calls timed. */
        public long timed() {
            return Metrics.timed(histogram);
        }

        /**
         * The latency below which a fraction {@code q} (0 to 1) of the timed calls finished, as the
         * upper edge of its bucket (so within a factor of two above the truth); 0 when none was timed.
         */
        public long percentileNanos(double q) {
            return Metrics.percentileNanos(histogram, q);
        }

        /** The calls algorithm {@code name} ran (0 when it ran none). */
        public long calls(String name) {
            for (Algorithm a : algorithms) {
                if (a.name().equals(name)) {
                    return a.calls();
                }
            }
            return 0;
        }
    }

    /**
     * One algorithm of a collective operation: the calls it ran, and the latency of the blocking ones
     * timed as {@link Collective}'s histogram (the first of its calls and one in 16 after it).
     */
    public record Algorithm(String name, long calls, long[] histogram) {
        @Override
        public String toString() {
            return "Algorithm[" + name + ", calls=" + calls + ", timed=" + timed() + ", p50<=" + percentileNanos(0.5)
                    + " ns]";
        }

        /** Blocking calls timed. */
        public long timed() {
            return Metrics.timed(histogram);
        }

        /** As {@link Collective#percentileNanos}. */
        public long percentileNanos(double q) {
            return Metrics.percentileNanos(histogram, q);
        }
    }

    private static long timed(long[] histogram) {
        long n = 0;
        for (long c : histogram) {
            n += c;
        }
        return n;
    }

    private static long percentileNanos(long[] histogram, double q) {
        long n = timed(histogram);
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < histogram.length; i++) {
            seen += histogram[i];
            if (seen >= Math.max(1, rank)) {
                return i >= 62 ? Long.MAX_VALUE : 1L << (i + 1);
            }
        }
        return Long.MAX_VALUE;
    }

    /** The collective operation {@code name}, or null when it has not run. */
    public Collective collective(String name) {
        for (Collective c : collectives) {
            if (c.operation().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * One rail of the network transport: its state ({@code down}, {@code free}, {@code busy}, or
     * {@code down (admin)}: taken out of service by an operator, here or by a peer), datagrams and
     * bytes sent (retransmissions included), datagrams received, retransmissions, and bytes in
     * flight on it from this host.
     */
    public record Rail(int index, String name, String state, long datagramsSent, long bytesSent,
                       long datagramsReceived, long retransmits, long outstandingBytes) {
    }

    /** The network transport as a whole: NAKs sent, received datagrams dropped, timeouts, smoothed RTT. */
    public record NetTotals(long naksSent, long crcDrops, long foreignDrops, long otherDrops, long timeouts,
                            long srttNanos) {
    }

    /** How often errors of one class ({@code peer-failed}, {@code truncation}, ...) were raised. */
    public record ErrorCount(String kind, long count) {
    }

    /**
     * The call a rank waits in: {@code call} is {@code send}, {@code recv}, {@code probe}, {@code wait}
     * or a collective's name; {@code peer} the world rank it waits for (-1: any, or several), {@code tag}
     * (-1: any), {@code context} the communicator's context, {@code sinceMillis} when the wait
     * stopped spinning (epoch milliseconds).
     */
    public record Blocked(String call, int peer, int tag, int context, long sinceMillis) {
    }
}
