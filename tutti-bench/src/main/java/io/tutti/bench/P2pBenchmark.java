package io.tutti.bench;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.report.JsonLine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * OSU-style point-to-point benchmarks between ranks 0 and 1 (other ranks wait): {@code latency}
 * (one-way, half the round trip of a ping-pong; the figure is the median, with min and p99),
 * {@code bw} (a window of 64 sends into 64 distinct receive buffers, then an acknowledgement; MB/s
 * with MB = 10^6 bytes) and
 * {@code bibw} (both directions at once), and {@code mr} (OSU's {@code osu_mbw_mr}: the first half of
 * the ranks send windows to the second half, rank i to rank i + n/2; aggregate MB/s and messages per
 * second). Run by {@code tutti bench}; rank 0 prints, as a table, JSON rows or with {@code --format osu}
 * OSU's own output ({@link OsuFormat}: the mean latency, as OSU's).
 *
 * <p>The timed loops use blocking calls or persistent requests only, so they allocate nothing; the
 * allocation per message is measured (thread allocated bytes) and reported.
 */
public final class P2pBenchmark {
    static final int WINDOW = 64;
    static final int TAG = 1;
    static final int ACK_TAG = 2;

    private P2pBenchmark() {
    }

    /** The parsed command line. */
    record Options(String mode, long[] sizes, int iters, int warmup, boolean json, boolean segment, boolean osu) {
        static final String USAGE = "usage: P2pBenchmark latency|bw|bibw|mr [--sizes LIST] [--iters N]"
                + " [--warmup N] [--json | --format table|json|osu] [--buffer array|segment]";

        /** The options as picocli reads them; {@link #parse} checks them and fills in the defaults. */
        @Command(name = "P2pBenchmark")
        static final class Args {
            @Parameters(index = "0", arity = "0..1")
            String mode;
            @Mixin
            BenchArgs.Common common = new BenchArgs.Common();
        }

        static Options parse(String[] args) {
            Args a = BenchArgs.parse(new Args(), args);
            if (a.mode == null) {
                throw new IllegalArgumentException(USAGE);
            }
            if (!List.of("latency", "bw", "bibw", "mr").contains(a.mode)) {
                throw new IllegalArgumentException("unknown benchmark '" + a.mode + "': use latency, bw, bibw or mr");
            }
            boolean segment = BenchArgs.segment(a.common.buffer);
            String format = BenchArgs.format(a.common.format, a.common.json);
            if (a.common.full) {
                throw new IllegalArgumentException("--full is OSU's -f of the collectives; OSU's " + a.mode
                        + " has no full format: drop --full");
            }
            if (a.mode.equals("mr") && format.equals("osu")) {
                throw new IllegalArgumentException("--format osu: mr prints its own columns (MB/s and"
                        + " messages/s); use --format table or json");
            }
            long[] sizes = a.common.sizes;
            if (sizes == null && a.mode.equals("mr")) {
                sizes = new long[] {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
            } else if (sizes == null && format.equals("osu")) {
                sizes = OsuFormat.defaultSizes(true);
            } else if (sizes == null) {
                sizes = a.mode.equals("latency")
                        ? new long[] {0, 1, 8, 64, 512, 1024, 4096, 16384, 65536, 262144, 1048576}
                        : new long[] {8, 1024, 16384, 65536, 262144, 1048576, 4194304};
            }
            return new Options(a.mode, BenchArgs.checkSizes(sizes), a.common.iters == null ? -1 : a.common.iters,
                    a.common.warmup == null ? -1 : a.common.warmup, format.equals("json"),
                    segment, format.equals("osu"));
        }

        int itersFor(long size) {
            if (iters > 0) {
                return iters;
            }
            boolean lat = mode.equals("latency");
            if (mode.equals("mr") && size <= 4096) {
                return 20000; // 1.28 M messages: about 0.1 s at 10 M messages/s
            }
            if (size <= 16384) {
                return lat ? 20000 : 4000;
            }
            return (int) Math.max(lat ? 100 : 20, (lat ? 20000 : 4000) * 16384 / size);
        }

        int warmupFor(long size) {
            return warmup >= 0 ? warmup : Math.max(10, itersFor(size) / 10);
        }
    }

    /** How many result rows rank 0 prints for {@code args}, one per size; for the launcher's progress bar. */
    public static int rows(String... args) {
        return Options.parse(args).sizes().length;
    }

    public static void main(String[] args) {
        Options o = Options.parse(args);
        try (Tutti tutti = Tutti.init(args); Arena arena = Arena.ofShared()) {
            Communicator world = tutti.world();
            if (world.size() < 2) {
                throw new IllegalArgumentException("point-to-point benchmarks need at least 2 ranks (run with -n 2)");
            }
            int rank = world.rank();
            boolean pairs = o.mode().equals("mr");
            if (pairs && world.size() % 2 != 0) {
                throw new IllegalArgumentException("mr pairs rank i with rank i + n/2: run it with an even -n");
            }
            int half = world.size() / 2;
            int peer = pairs ? (rank < half ? rank + half : rank - half) : 1 - rank;
            if (rank == 0) {
                header(o, world, tutti);
            }
            if (pairs || rank < 2) {
                warmUp(world, peer, arena, o.segment());
            }
            for (long size : o.sizes()) {
                Buffers b = new Buffers(o.segment(), (int) size, arena);
                if (pairs) {
                    Row row = messageRate(world, peer, b, size, o.itersFor(size), o.warmupFor(size));
                    if (rank == 0) {
                        print(o, row);
                    }
                } else if (rank < 2) {
                    Row row = switch (o.mode()) {
                        case "latency" -> latency(world, b, size, o.itersFor(size), o.warmupFor(size));
                        case "bw" -> bandwidth(world, b, size, o.itersFor(size), o.warmupFor(size), false);
                        default -> bandwidth(world, b, size, o.itersFor(size), o.warmupFor(size), true);
                    };
                    if (rank == 0) {
                        print(o, row);
                    }
                }
            }
        }
    }

    /** How long the JIT gets to compile the measured paths before the first size. */
    static final long WARM_UP_NANOS = 2_000_000_000L;

    /**
     * After {@link #WARM_UP_NANOS}, the warm-up goes on while a rank's JIT compilers worked more
     * than this share of the last second...
     */
    static final double JIT_SETTLED_SHARE = 0.02;
    /** ...but no longer than this in all. */
    static final long WARM_UP_LIMIT_NANOS = 10_000_000_000L;

    /**
     * Runs every code path the measurement will take (eager and pipelined, ping-pong and window)
     * until the JIT has compiled them, so that no size is measured half-interpreted: at least
     * {@link #WARM_UP_NANOS}, then until neither rank's JIT compilers took more than
     * {@link #JIT_SETTLED_SHARE} of the last second (they never stop for good: a trickle of small
     * methods goes on for many seconds). A compilation late in the warm-up takes a core from a
     * rank while the first size is timed. Rank 1 tells rank 0 after each round whether its JIT has
     * settled, and rank 0 tells rank 1 whether to go on.
     */
    static void warmUp(Communicator c, int peer, Arena arena, boolean segment) {
        Buffers small = new Buffers(segment, 8, arena);
        Buffers large = new Buffers(segment, 256 * 1024, arena);
        long start = System.nanoTime();
        long windowStart = 0;
        long windowJit = CollectiveBenchmark.jitMillis();
        int[] busy = {1};
        int[] more = {1};
        boolean leader = c.rank() < peer;
        while (more[0] != 0) {
            latency(c, peer, small, 8, 5_000, 0);
            latency(c, peer, large, 256 * 1024, 50, 0);
            bandwidth(c, peer, small, 8, 200, 0, false);
            bandwidth(c, peer, small, 8, 50, 0, true);
            bandwidth(c, peer, large, 256 * 1024, 5, 0, false);
            long elapsed = System.nanoTime() - start;
            if (elapsed - windowStart >= 1_000_000_000L) {
                long jit = CollectiveBenchmark.jitMillis();
                busy[0] = (jit - windowJit) * 1e6 > JIT_SETTLED_SHARE * (elapsed - windowStart) ? 1 : 0;
                windowStart = elapsed;
                windowJit = jit;
            }
            if (leader) {
                c.recv(more, 0, 1, peer, ACK_TAG);
                more[0] = elapsed < WARM_UP_NANOS || ((busy[0] | more[0]) != 0 && elapsed < WARM_UP_LIMIT_NANOS) ? 1 : 0;
                c.send(more, 0, 1, peer, ACK_TAG);
            } else {
                c.send(busy, 0, 1, peer, ACK_TAG);
                c.recv(more, 0, 1, peer, ACK_TAG);
            }
        }
    }

    /** A send and a receive buffer of one kind and size, and a window of each for bandwidth. */
    static final class Buffers {
        final Object sendArray;
        final Object recvArray;
        final MemorySegment sendSegment;
        final MemorySegment recvSegment;

        Buffers(boolean segment, int size, Arena arena) {
            if (segment) {
                sendSegment = arena.allocate(Math.max(1, size), 64).asSlice(0, size);
                recvSegment = arena.allocate(Math.max(1, size), 64).asSlice(0, size);
                sendSegment.fill((byte) 1);
                sendArray = null;
                recvArray = null;
            } else {
                byte[] s = new byte[size];
                java.util.Arrays.fill(s, (byte) 1);
                sendArray = s;
                recvArray = new byte[size];
                sendSegment = null;
                recvSegment = null;
            }
        }

        void send(Communicator c, int dest, int tag) {
            if (sendSegment != null) {
                c.send(sendSegment, dest, tag);
            } else {
                byte[] a = (byte[]) sendArray;
                c.send(a, 0, a.length, dest, tag);
            }
        }

        void recv(Communicator c, int source, int tag, Status s) {
            if (recvSegment != null) {
                c.recv(recvSegment, source, tag, s);
            } else {
                byte[] a = (byte[]) recvArray;
                c.recv(a, 0, a.length, source, tag, s);
            }
        }

        Request sendInit(Communicator c, int dest, int tag) {
            if (sendSegment != null) {
                return c.sendInit(sendSegment, dest, tag);
            }
            byte[] a = (byte[]) sendArray;
            return c.sendInit(a, 0, a.length, dest, tag);
        }

        /**
         * A receive into a buffer of its own: receives in flight at the same time must not share
         * memory (MPI's rule, which OSU's benchmark bends), and Open MPI's side is measured so too.
         */
        Request recvInitDistinct(Communicator c, int source, int tag, Arena arena) {
            int size = recvSegment != null ? (int) recvSegment.byteSize() : ((byte[]) recvArray).length;
            if (recvSegment != null) {
                return c.recvInit(arena.allocate(Math.max(1, size), 64).asSlice(0, size), source, tag);
            }
            return c.recvInit(new byte[size], 0, size, source, tag);
        }
    }

    /** One result row; {@code mean} is the latency's mean (OSU's figure), NaN for bandwidth. */
    record Row(long size, double figure, double min, double p99, double allocPerMessage, String unit, double mean) {
        /** A row without a mean: bandwidth. */
        Row(long size, double figure, double min, double p99, double allocPerMessage, String unit) {
            this(size, figure, min, p99, allocPerMessage, unit, Double.NaN);
        }
    }

    static Row latency(Communicator c, Buffers b, long size, int iters, int warmup) {
        return latency(c, 1 - c.rank(), b, size, iters, warmup);
    }

    static Row latency(Communicator c, int peer, Buffers b, long size, int iters, int warmup) {
        Status st = new Status();
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        boolean first = c.rank() < peer;
        for (int i = 0; i < warmup; i++) {
            pingPong(c, b, peer, first, st);
        }
        long allocBefore = allocated();
        long total = 0;
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            pingPong(c, b, peer, first, st);
            long rtt = System.nanoTime() - t0;
            h.recordValue(Math.max(1, rtt));
            total += rtt;
        }
        long alloc = allocated() - allocBefore;
        // one-way latency = half the round trip
        return new Row(size, h.getValueAtPercentile(50) / 2000.0, h.getMinValue() / 2000.0,
                h.getValueAtPercentile(99) / 2000.0, Math.max(0, alloc) / (2.0 * iters), "us",
                total / (2000.0 * Math.max(1, iters)));
    }

    private static void pingPong(Communicator c, Buffers b, int peer, boolean first, Status st) {
        if (first) {
            b.send(c, peer, TAG);
            b.recv(c, peer, TAG, st);
        } else {
            b.recv(c, peer, TAG, st);
            b.send(c, peer, TAG);
        }
    }

    static Row bandwidth(Communicator c, Buffers b, long size, int iters, int warmup, boolean bidirectional) {
        return bandwidth(c, 1 - c.rank(), b, size, iters, warmup, bidirectional);
    }

    static Row bandwidth(Communicator c, int peer, Buffers b, long size, int iters, int warmup, boolean bidirectional) {
        try (Arena windowArena = Arena.ofConfined()) {
            return bandwidth(c, peer, b, size, iters, warmup, bidirectional, windowArena);
        }
    }

    private static Row bandwidth(Communicator c, int peer, Buffers b, long size, int iters, int warmup,
                                 boolean bidirectional, Arena arena) {
        boolean sender = c.rank() < peer;
        Request[] sends = new Request[WINDOW];
        Request[] recvs = new Request[WINDOW];
        for (int w = 0; w < WINDOW; w++) {
            sends[w] = b.sendInit(c, peer, TAG);
            recvs[w] = b.recvInitDistinct(c, peer, TAG, arena);
        }
        byte[] ack = new byte[4];
        Request ackSend = c.sendInit(ack, 0, 4, peer, ACK_TAG);
        Request ackRecv = c.recvInit(ack, 0, 4, peer, ACK_TAG);
        for (int i = 0; i < warmup; i++) {
            window(sender, bidirectional, sends, recvs, ackSend, ackRecv);
        }
        long allocBefore = allocated();
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            window(sender, bidirectional, sends, recvs, ackSend, ackRecv);
        }
        long elapsed = System.nanoTime() - t0;
        long alloc = allocated() - allocBefore;
        double bytes = (double) size * WINDOW * iters * (bidirectional ? 2 : 1);
        double mbps = bytes / (elapsed / 1e9) / 1e6;
        return new Row(size, mbps, Double.NaN, Double.NaN, Math.max(0, alloc) / ((double) WINDOW * iters), "MB/s");
    }

    /**
     * OSU's {@code osu_mbw_mr} on every pair at once, after a barrier: each sender's MB/s and messages
     * per second, summed over the pairs at rank 0 (the row's {@code min} holds the messages per second).
     */
    static Row messageRate(Communicator c, int peer, Buffers b, long size, int iters, int warmup) {
        c.barrier();
        Row own = bandwidth(c, peer, b, size, iters, warmup, false);
        boolean sender = c.rank() < peer;
        double[] rates = sender ? new double[] {own.figure(), own.figure() * 1e6 / Math.max(1, size),
                own.allocPerMessage()} : new double[3];
        double[] sum = new double[3];
        c.reduce(rates, sum, io.tutti.ReduceOp.SUM, 0);
        int pairs = c.size() / 2;
        return new Row(size, sum[0], sum[1], Double.NaN, sum[2] / pairs, "MB/s");
    }

    private static void window(boolean sender, boolean bidirectional, Request[] sends, Request[] recvs,
                               Request ackSend, Request ackRecv) {
        if (sender || bidirectional) {
            if (bidirectional) {
                for (Request r : recvs) {
                    r.start();
                }
            }
            for (Request r : sends) {
                r.start();
            }
            for (Request r : sends) {
                r.waitFor(null);
            }
            if (bidirectional) {
                for (Request r : recvs) {
                    r.waitFor(null);
                }
            }
            if (sender) {
                ackRecv.start();
                ackRecv.waitFor(null);
            } else {
                ackSend.start();
                ackSend.waitFor(null);
            }
        } else {
            for (Request r : recvs) {
                r.start();
            }
            for (Request r : recvs) {
                r.waitFor(null);
            }
            ackSend.start();
            ackSend.waitFor(null);
        }
    }

    private static long allocated() {
        return ThreadAllocation.bytes();
    }

    private static void header(Options o, Communicator world, Tutti tutti) {
        if (o.json()) {
            return;
        }
        if (o.osu()) {
            OsuFormat.header(o.mode(), false, false).forEach(System.out::println);
            return;
        }
        String title = switch (o.mode()) {
            case "latency" -> "# Tutti one-way latency (median of ping-pong round trips / 2)";
            case "bw" -> "# Tutti bandwidth (window of " + WINDOW + " messages)";
            case "mr" -> "# Tutti multiple bandwidth / message rate (" + world.size() / 2 + " pairs, window of "
                    + WINDOW + " messages)";
            default -> "# Tutti bidirectional bandwidth (window of " + WINDOW + " messages each way)";
        };
        System.out.println(title);
        System.out.println("# ranks " + world.size() + ", buffers " + (o.segment() ? "off-heap segments" : "Java arrays")
                + ", " + io.tutti.runtime.Rank.of(tutti).engine().config().eagerLimits() + ", single copy "
                + (io.tutti.runtime.Rank.of(tutti).engine().singleCopyEnabled() ? "on" : "off") + ", java " + Runtime.version());
        if (o.mode().equals("latency")) {
            System.out.printf("# %-10s %12s %12s %12s %14s%n", "Size", "Median(us)", "Min(us)", "P99(us)", "Alloc(B/msg)");
        } else if (o.mode().equals("mr")) {
            System.out.printf("# %-10s %12s %14s %14s%n", "Size", "MB/s", "Messages/s", "Alloc(B/msg)");
        } else {
            System.out.printf("# %-10s %12s %14s%n", "Size", "MB/s", "Alloc(B/msg)");
        }
    }

    /** A {@code --json} row: the benchmark, buffer and size, the figures, the allocation per message. */
    static String json(Options o, Row r) {
        JsonLine j = JsonLine.object().text("benchmark", o.mode()).text("buffer", o.segment() ? "segment" : "array")
                .integer("size", r.size());
        if (o.mode().equals("latency")) {
            j.fixed("median_us", r.figure(), 3).fixed("min_us", r.min(), 3).fixed("p99_us", r.p99(), 3);
        } else if (o.mode().equals("mr")) {
            j.fixed("mb_per_s", r.figure(), 1).fixed("messages_per_s", r.min(), 0);
        } else {
            j.fixed("mb_per_s", r.figure(), 1);
        }
        return j.fixed("alloc_bytes_per_msg", r.allocPerMessage(), 2).end();
    }

    private static void print(Options o, Row r) {
        if (o.json()) {
            System.out.println(json(o, r));
        } else if (o.osu()) {
            System.out.println(OsuFormat.row(r.size(), o.mode().equals("latency") ? r.mean() : r.figure()));
        } else if (o.mode().equals("latency")) {
            // three decimals: 8 B latencies are about 0.1 us, where two leave a ratio to 6 % (docs/perf/p2p.md)
            System.out.printf(Locale.ROOT, "%-12d %12.3f %12.3f %12.3f %14.2f%n", r.size(), r.figure(), r.min(), r.p99(),
                    r.allocPerMessage());
        } else if (o.mode().equals("mr")) {
            System.out.printf(Locale.ROOT, "%-12d %12.1f %14.0f %14.2f%n", r.size(), r.figure(), r.min(),
                    r.allocPerMessage());
        } else {
            System.out.printf(Locale.ROOT, "%-12d %12.1f %14.2f%n", r.size(), r.figure(), r.allocPerMessage());
        }
        System.out.flush();
    }
}
