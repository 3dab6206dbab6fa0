package io.tutti.bench;

import io.tutti.Communicator;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.report.JsonLine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The LogGP parameters of the path between rank 0 and rank 1, measured as [BCL-3] does
 * (§5.2.1, after Culler et al.): the round trip RTT by ping-pong; the send overhead o_s as the time
 * per send of a short burst (too short to meet back-pressure); the gap g as the time per send of a
 * long burst (long enough to fill the receiver's ring, so the slower of the two sides sets it); the
 * receive overhead o_r as the time of a receive whose message has already arrived; G from the
 * bandwidth of 1 MiB messages; and L = RTT/2 − o_s − o_r. Each figure is the mean of
 * {@value #TRIALS} trials ± the standard deviation of that mean, as [BCL-3]'s (5.2)–(5.4).
 * Printed in the layout of [BCL-3]'s table 5.3; which path is measured depends on where the ranks
 * run ({@code --transport net}, {@code --hosts}).
 */
public final class LogGpBenchmark {
    static final int TRIALS = 20;
    private static final int SMALL = 8;
    private static final int PINGS = 2000;
    private static final int SHORT_BURST = 8;
    private static final int LONG_BURST = 20_000;
    private static final int RECEIVES = 200;
    private static final int LARGE = 1 << 20;
    private static final int LARGE_BURST = 16;
    private static final int TAG = 11;
    private static final int ACK = 12;

    private LogGpBenchmark() {
    }

    /** Mean and the standard deviation of the mean, of a parameter's trials. */
    record Figure(double mean, double error) {
        static Figure of(double[] v) {
            double m = 0;
            for (double x : v) {
                m += x;
            }
            m /= v.length;
            double s = 0;
            for (double x : v) {
                s += (m - x) * (m - x);
            }
            return new Figure(m, Math.sqrt(s / (v.length * (double) (v.length - 1))));
        }

        String format(String unit) {
            return String.format(Locale.ROOT, "%.3f ± %.3f %s", mean, error, unit);
        }
    }

    /** The command line: {@code [--json]}. */
    @Command(name = "LogGpBenchmark")
    static final class Args {
        @Option(names = "--json")
        boolean json;
    }

    public static void main(String[] args) {
        boolean json = BenchArgs.parse(new Args(), args).json;
        try (Tutti tutti = Tutti.init(args); Arena arena = Arena.ofConfined()) {
            Communicator w = tutti.world();
            if (w.size() < 2) {
                throw new IllegalArgumentException("loggp needs 2 ranks: use -n 2");
            }
            int rank = w.rank();
            MemorySegment small = arena.allocate(SMALL, 64);
            MemorySegment large = arena.allocate(LARGE, 64);
            MemorySegment ack = arena.allocate(8, 8);
            if (rank > 1) {
                w.barrier();
                return;
            }
            int peer = 1 - rank;
            // warm-up: every path once, so the JIT has compiled them before the trials
            for (int i = 0; i < 3; i++) {
                rtt(w, rank, peer, small);
                burst(w, rank, peer, small, ack, SHORT_BURST);
                burst(w, rank, peer, small, ack, LONG_BURST);
                receive(w, rank, peer, small, ack);
                burst(w, rank, peer, large, ack, LARGE_BURST);
            }
            double[] rtt = new double[TRIALS];
            double[] os = new double[TRIALS];
            double[] g = new double[TRIALS];
            double[] or = new double[TRIALS];
            double[] gLarge = new double[TRIALS];
            for (int t = 0; t < TRIALS; t++) {
                rtt[t] = rtt(w, rank, peer, small);
                os[t] = burst(w, rank, peer, small, ack, SHORT_BURST);
                g[t] = burst(w, rank, peer, small, ack, LONG_BURST);
                or[t] = receive(w, rank, peer, small, ack);
                gLarge[t] = burst(w, rank, peer, large, ack, LARGE_BURST) / LARGE;
            }
            // o_r is timed at rank 1: bring it to rank 0, which prints
            MemorySegment ors = arena.allocate(8L * TRIALS, 8);
            if (rank == 1) {
                MemorySegment.copy(MemorySegment.ofArray(or), 0, ors, 0, 8L * TRIALS);
                w.send(ors, 0, ACK);
            } else {
                w.recv(ors, 1, ACK);
                MemorySegment.copy(ors, 0, MemorySegment.ofArray(or), 0, 8L * TRIALS);
                double[] l = new double[TRIALS];
                double[] oneWay = new double[TRIALS];
                double[] bw = new double[TRIALS];
                for (int t = 0; t < TRIALS; t++) {
                    oneWay[t] = rtt[t] / 2;
                    l[t] = rtt[t] / 2 - os[t] - or[t];
                    bw[t] = 1 / gLarge[t]; // bytes per µs = MB/s
                }
                print(json, tutti, Figure.of(l), Figure.of(os), Figure.of(or), Figure.of(g), Figure.of(gLarge),
                        Figure.of(bw), Figure.of(oneWay));
            }
            w.barrier();
        }
    }

    /** Microseconds per round trip of an 8 B message, over {@value #PINGS} round trips. */
    private static double rtt(Communicator w, int rank, int peer, MemorySegment buf) {
        long start = System.nanoTime();
        for (int i = 0; i < PINGS; i++) {
            if (rank == 0) {
                w.send(buf, peer, TAG);
                w.recv(buf, peer, TAG);
            } else {
                w.recv(buf, peer, TAG);
                w.send(buf, peer, TAG);
            }
        }
        return (System.nanoTime() - start) / 1e3 / PINGS;
    }

    /**
     * Rank 0 sends {@code n} messages back to back and times them; rank 1 receives them all and
     * answers once. Returns rank 0's time per send in microseconds (rank 1: 0).
     */
    private static double burst(Communicator w, int rank, int peer, MemorySegment buf, MemorySegment ack, int n) {
        if (rank == 0) {
            w.recv(ack, peer, ACK); // rank 1 is ready: its receive loop runs while we send
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                w.send(buf, peer, TAG);
            }
            long elapsed = System.nanoTime() - start;
            w.recv(ack, peer, ACK);
            return elapsed / 1e3 / n;
        }
        w.send(ack, peer, ACK);
        for (int i = 0; i < n; i++) {
            w.recv(buf, peer, TAG);
        }
        w.send(ack, peer, ACK);
        return 0;
    }

    /**
     * Rank 0 sends a message, then says so; rank 1 waits for that word (so the message is there),
     * then times its receive. Returns rank 1's microseconds per receive (rank 0: 0).
     */
    private static double receive(Communicator w, int rank, int peer, MemorySegment buf, MemorySegment ack) {
        long total = 0;
        Status status = new Status();
        for (int i = 0; i < RECEIVES; i++) {
            if (rank == 0) {
                w.send(buf, peer, TAG);
                w.send(ack, peer, ACK);
                w.recv(ack, peer, ACK);
            } else {
                w.recv(ack, peer, ACK); // sent after the message: the message has arrived (non-overtaking)
                long start = System.nanoTime();
                w.recv(buf, peer, TAG, status);
                total += System.nanoTime() - start;
                w.send(ack, peer, ACK);
            }
        }
        return total / 1e3 / RECEIVES;
    }

    /** The {@code --json} line: each parameter's mean and the error of that mean. */
    static String json(String path, Figure l, Figure os, Figure or, Figure g, Figure gPerByte, Figure bw,
                       Figure oneWay) {
        return JsonLine.object().text("benchmark", "loggp").text("path", path)
                .fixed("L_us", l.mean(), 4).fixed("L_err", l.error(), 4)
                .fixed("os_us", os.mean(), 4).fixed("os_err", os.error(), 4)
                .fixed("or_us", or.mean(), 4).fixed("or_err", or.error(), 4)
                .fixed("g_us", g.mean(), 4).fixed("g_err", g.error(), 4)
                .fixed("G_ns_per_B", gPerByte.mean() * 1e3, 5).fixed("G_err", gPerByte.error() * 1e3, 5)
                .fixed("bw_MBps", bw.mean(), 1).fixed("bw_err", bw.error(), 1)
                .fixed("rtt_half_us", oneWay.mean(), 4).fixed("rtt_half_err", oneWay.error(), 4).end();
    }

    private static void print(boolean json, Tutti tutti, Figure l, Figure os, Figure or, Figure g, Figure gPerByte,
                              Figure bw, Figure oneWay) {
        String path = io.tutti.runtime.Rank.of(tutti).engine().config().forceNetwork() ? "network (forced between ranks of one host)"
                : "shared memory, or the network between hosts";
        if (json) {
            System.out.println(json(path, l, os, or, g, gPerByte, bw, oneWay));
            return;
        }
        System.out.println("# Tutti LogGP parameters, rank 0 -> rank 1 (" + path + "); mean ± std. dev. of the mean of "
                + TRIALS + " trials ([BCL-3] §5.2.1, table 5.3)");
        System.out.printf(Locale.ROOT, "%-30s %s%n", "parameter", "value");
        System.out.printf(Locale.ROOT, "%-30s %s%n", "latency L", l.format("µs"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "send overhead o_s", os.format("µs"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "receive overhead o_r", or.format("µs"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "gap g", g.format("µs"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "gap per byte G",
                new Figure(gPerByte.mean() * 1e3, gPerByte.error() * 1e3).format("ns/B"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "bandwidth 1/G", bw.format("MB/s"));
        System.out.printf(Locale.ROOT, "%-30s %s%n", "one-way latency RTT/2", oneWay.format("µs"));
    }
}
