package io.tutti.bench;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.ReduceOp;
import io.tutti.report.Charts;
import io.tutti.report.JsonLine;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * OSU-style collective benchmarks, run on every rank by {@code tutti bench <collective>}.
 *
 * <p><b>Method</b> (the OSU collective benchmarks', e.g. osu_allreduce): after a time-based JIT
 * warm-up, for each size every rank runs {@code warmup} untimed operations (repeated until no rank's
 * JIT compiler has worked for 200 ms), meets the others in a barrier, then times its own loop of {@code iters} operations; its figure is the average time per
 * operation. avg, min and max are taken over the ranks' figures (gathered with reduce at rank 0,
 * which prints). Defaults follow OSU: 1000 iterations and 200 warm-up ones up to 8 KiB, 100 and 10
 * above. The timed loop runs a persistent request ({@code allreduceInit} ... {@code start},
 * {@code waitFor}) over buffers allocated beforehand, so it allocates nothing; {@code --blocking}
 * uses the blocking calls instead. The thread-allocated bytes of the timed loop per operation are
 * reported (the largest over the ranks).
 *
 * <p><b>{@code --nonblocking}</b> (OSU's osu_iallreduce method): first the pure collective time,
 * start ({@code iallreduce} ...) then wait; then, per operation, start, a dummy computation as
 * long as this rank's pure time (split into {@code --test-calls} pieces with a {@code test()} after
 * each, as OSU's {@code -t}), wait. Printed: overall, compute and pure collective time (averages over
 * the ranks) and overlap = max(0, 100 − (overall − compute) / pure · 100) %.
 *
 * <p><b>{@code --bcl3}</b>: the bandwidth figure of [BCL-3] for the operation and its
 * theoretical value ({@link Bcl3Bandwidth}), with T_Total / N = the slowest rank's time per
 * operation, and B_Node from {@code --link-bw} or measured at each size with a quick window
 * bandwidth run between ranks 0 and 1 (the {@code bw} benchmark's method); plus a PNG or SVG plot
 * of both over size ({@link CollectivePlot}). <b>{@code --format osu}</b>: OSU's own output and
 * sizes ({@link OsuFormat}, {@link Options#osuSize}).
 */
public final class CollectiveBenchmark {
    /** How long the JIT gets to compile the measured paths before the first size (as P2pBenchmark). */
    static final long WARM_UP_NANOS = 2_000_000_000L;
    /** The JIT must have been idle this long on every rank before the warm-up ends... */
    static final long JIT_QUIET_NANOS = 1_000_000_000L;
    /** ...unless the warm-up has already run this long. */
    static final long WARM_UP_LIMIT_NANOS = 20_000_000_000L;

    /** A row's warm-up goes on until the JIT has been idle this long on every rank... */
    static final long ROW_JIT_QUIET_NANOS = 200_000_000L;
    /** ...or the row's warm-up has run this long. */
    static final long ROW_WARM_UP_LIMIT_NANOS = 5_000_000_000L;

    /** Milliseconds this JVM's JIT compilers have worked so far, or 0 when unknown. */
    static long jitMillis() {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }
    /** OSU's LARGE_MESSAGE_SIZE: above it, fewer iterations. */
    static final long LARGE = 8192;

    private CollectiveBenchmark() {
    }

    /** The parsed command line. */
    record Options(String op, long[] sizes, int iters, int warmup, boolean json, boolean segment, boolean bcl3,
                   double linkBytesPerSecond, String plot, boolean nonblocking, int testCalls, String algorithm,
                   boolean blocking, boolean offload, int pairs, boolean osu, boolean full) {

        /** Where persistent requests run: offloaded with {@code --offload}, so that warm-up compiles that path. */
        io.tutti.Offload where() {
            return offload ? io.tutti.Offload.NIC : io.tutti.Offload.HOST;
        }

        static final String USAGE = "usage: CollectiveBenchmark " + String.join("|", CollectiveOp.NAMES)
                + " [--sizes LIST] [--iters N] [--warmup N] [--json | --format table|json|osu [--full]]"
                + " [--buffer array|segment] [--blocking]"
                + " [--algorithm A] [--nonblocking [--test-calls N]] [--bcl3 [--link-bw GB/s] [--plot FILE]]"
                + " [--offload [--paired N]]";

        /** The options as picocli reads them; {@link #parse} checks them and fills in the defaults. */
        @Command(name = "CollectiveBenchmark")
        static final class Args {
            @Parameters(index = "0", arity = "0..1")
            String op;
            @Mixin
            BenchArgs.Common common = new BenchArgs.Common();
            @Option(names = "--bcl3")
            boolean bcl3;
            @Option(names = "--link-bw")
            String linkBw;
            @Option(names = "--plot")
            String plot;
            @Option(names = "--nonblocking")
            boolean nonblocking;
            @Option(names = "--test-calls")
            Integer testCalls;
            @Option(names = "--algorithm")
            String algorithm;
            @Option(names = "--blocking")
            boolean blocking;
            @Option(names = "--offload")
            boolean offload;
            @Option(names = "--paired")
            Integer paired;
        }

        static Options parse(String[] args) {
            Args a = BenchArgs.parse(new Args(), args);
            if (a.op == null) {
                throw new IllegalArgumentException(USAGE);
            }
            String op = a.op;
            if (!CollectiveOp.NAMES.contains(op)) {
                throw new IllegalArgumentException("unknown collective '" + op + "': use one of "
                        + String.join(", ", CollectiveOp.NAMES));
            }
            long[] sizes = a.common.sizes == null ? null : BenchArgs.checkSizes(a.common.sizes);
            int iters = a.common.iters == null ? -1 : atLeast(a.common.iters, "--iters", 1);
            int warmup = a.common.warmup == null ? -1 : atLeast(a.common.warmup, "--warmup", 0);
            String format = BenchArgs.format(a.common.format, a.common.json);
            boolean json = format.equals("json");
            boolean osu = format.equals("osu");
            boolean segment = BenchArgs.segment(a.common.buffer);
            boolean bcl3 = a.bcl3;
            double link = Double.NaN;
            if (a.linkBw != null) {
                try {
                    link = Double.parseDouble(a.linkBw) * 1e9;
                } catch (NumberFormatException e) {
                    // reported below
                }
                if (!(link > 0) || Double.isInfinite(link)) {
                    throw new IllegalArgumentException("--link-bw takes a positive number of GB/s, not '" + a.linkBw
                            + "'");
                }
            }
            String plot = a.plot;
            boolean nonblocking = a.nonblocking;
            int testCalls = a.testCalls == null ? 10 : atLeast(a.testCalls, "--test-calls", 0);
            String algorithm = a.algorithm;
            boolean blocking = a.blocking;
            boolean offload = a.offload;
            int pairs = a.paired == null ? 0 : atLeast(a.paired, "--paired", 1);
            if (nonblocking && !CollectiveOp.NONBLOCKING.contains(op)) {
                throw new IllegalArgumentException(op + " has no nonblocking variant: drop --nonblocking");
            }
            if (nonblocking && (bcl3 || blocking)) {
                throw new IllegalArgumentException("--nonblocking cannot be combined with --bcl3 or --blocking");
            }
            if (offload && !CollectiveOp.OFFLOADED.contains(op)) {
                throw new IllegalArgumentException(op + " is not offloaded; --offload takes "
                        + String.join(", ", CollectiveOp.OFFLOADED));
            }
            if (offload && (blocking || algorithm != null)) {
                throw new IllegalArgumentException("--offload times persistent offloaded requests: drop --blocking"
                        + " and --algorithm");
            }
            if (pairs > 0 && (!offload || nonblocking || bcl3 || json)) {
                throw new IllegalArgumentException("--paired compares --offload with the blocking host call in text"
                        + " rows: give --offload, and drop --nonblocking, --bcl3 and --json");
            }
            if ((plot != null || !Double.isNaN(link)) && !bcl3) {
                throw new IllegalArgumentException("--plot and --link-bw go with --bcl3");
            }
            if (algorithm != null && CollectiveOp.algorithmOperation(op) == null) {
                throw new IllegalArgumentException(op + " is point-to-point: it has no algorithm to choose");
            }
            checkOsu(op, osu, a.common.full, bcl3, offload, nonblocking);
            if (sizes == null && osu) {
                sizes = OsuFormat.defaultSizes(false);
            }
            if (sizes == null) {
                sizes = op.equals("barrier") ? new long[] {0} : defaultSizes();
            } else if (op.equals("barrier")) {
                sizes = new long[] {0};
            }
            if (bcl3 && plot == null && !op.equals("barrier")) {
                plot = op + "-bandwidth.png";
            }
            if (plot != null) {
                Charts.format(plot);
            }
            return new Options(op, sizes, iters, warmup, json, segment, bcl3, link, plot, nonblocking, testCalls,
                    algorithm, blocking, offload, pairs, osu, a.common.full);
        }

        /** What {@code --format osu} and {@code --full} cannot go with: what OSU has no counterpart for. */
        private static void checkOsu(String op, boolean osu, boolean full, boolean bcl3, boolean offload,
                                     boolean nonblocking) {
            if (full && !osu) {
                throw new IllegalArgumentException("--full is OSU's -f (min, max and iterations columns): give it"
                        + " with --format osu");
            }
            if (!osu) {
                return;
            }
            if (OsuFormat.name(op, false) == null) {
                throw new IllegalArgumentException(op + " has no OSU counterpart (OSU Micro-Benchmarks have no"
                        + " shift benchmark): drop --format osu");
            }
            if (offload) {
                throw new IllegalArgumentException("--offload has no OSU counterpart (OSU times host MPI calls):"
                        + " drop --format osu");
            }
            if (bcl3) {
                throw new IllegalArgumentException("--bcl3 adds columns OSU does not print: drop --format osu or"
                        + " --bcl3");
            }
            if (nonblocking && full) {
                throw new IllegalArgumentException("OSU's full nonblocking table has columns Tutti does not measure"
                        + " (Coll. Init, MPI_Test, MPI_Wait, min and max Comm.): drop --full");
            }
        }

        /**
         * The size a row of {@code --format osu} reports for {@code asked} (OSU's meaning: for
         * reducescatter the whole vector of {@code ranks} blocks), or -1 when it has no whole
         * element, which OSU skips.
         */
        static long osuSize(String op, long asked, int ranks) {
            if (op.equals("reducescatter")) {
                long block = asked / Double.BYTES / ranks;
                return block == 0 ? -1 : block * Double.BYTES * ranks;
            }
            if (CollectiveOp.reduces(op) && asked < Double.BYTES) {
                return -1;
            }
            return CollectiveOp.effectiveSize(op, asked);
        }

        /** 8 B to 1 MiB in powers of 4 (8, 32, 128, ... 512 KiB) and 1 MiB itself. */
        static long[] defaultSizes() {
            List<Long> out = new ArrayList<>();
            for (long s = 8; s < 1 << 20; s *= 4) {
                out.add(s);
            }
            out.add(1L << 20);
            return out.stream().mapToLong(Long::longValue).toArray();
        }

        private static int atLeast(int n, String option, int min) {
            if (n < min) {
                throw new IllegalArgumentException(option + " must be at least " + min);
            }
            return n;
        }

        /** OSU's policy: 1000 timed iterations up to 8 KiB, 100 above; --iters overrides. */
        int itersFor(long size) {
            return iters > 0 ? iters : size <= LARGE ? 1000 : 100;
        }

        /** OSU's policy: 200 warm-up iterations up to 8 KiB, 10 above; --warmup overrides. */
        int warmupFor(long size) {
            return warmup >= 0 ? warmup : size <= LARGE ? 200 : 10;
        }
    }

    /** One printed row; NaN where a column does not apply. */
    record Row(long size, int iters, double avgUs, double minUs, double maxUs, double allocPerOp,
               double bandwidth, double nodeBandwidth, double bound,
               double computeUs, double pureUs, double overlapPercent) {
    }

    /** How many result rows rank 0 prints for {@code args}, one per size; for the launcher's progress bar. */
    public static int rows(String... args) {
        return Options.parse(args).sizes().length;
    }

    public static void main(String[] args) {
        Options o = Options.parse(args);
        try (Tutti tutti = Tutti.init(args); Arena arena = Arena.ofShared()) {
            Communicator world = tutti.world();
            if (o.algorithm() != null) {
                world.setAlgorithm(CollectiveOp.algorithmOperation(o.op()), o.algorithm());
            }
            int rank = world.rank();
            if (rank == 0) {
                header(o, world, tutti);
            }
            double[] bNodes = o.bcl3() && Bcl3Bandwidth.hasBandwidth(o.op())
                    ? nodeBandwidths(world, o, arena) : null;
            warmUp(world, o, arena);
            List<Row> rows = new ArrayList<>();
            Stats stats = new Stats(world);
            for (int k = 0; k < o.sizes().length; k++) {
                long size = o.osu() ? Options.osuSize(o.op(), o.sizes()[k], world.size())
                        : CollectiveOp.effectiveSize(o.op(), o.sizes()[k]);
                if (size < 0) {
                    continue;
                }
                // the bytes per rank CollectiveOp takes: OSU's reducescatter size is the whole vector
                long perRank = o.osu() && o.op().equals("reducescatter") ? size / world.size() : size;
                double bNode = bNodes == null ? Double.NaN : bNodes[k];
                if (o.pairs() > 0) {
                    paired(world, o, size, arena, stats);
                    continue;
                }
                try (CollectiveOp op = CollectiveOp.create(o.op(), perRank, world, arena, o.segment(), o.blocking(),
                        o.where())) {
                    Row row = o.nonblocking()
                            ? nonblocking(world, op, o, size, stats)
                            : blocking(world, op, o, size, stats, bNode);
                    if (rank == 0) {
                        rows.add(row);
                        print(o, world.size(), row);
                    }
                }
            }
            if (rank == 0 && o.plot() != null) {
                Path file = Path.of(o.plot()).toAbsolutePath();
                CollectivePlot.write(file, o.op(), world.size(), rows);
                (o.json() ? System.err : System.out).println("# plot: " + file);
            }
        }
    }

    /**
     * Runs the operation at a small and a large size until the JIT has compiled its paths (rank 0
     * keeps time and tells the others by bcast whether to go on), so no size is measured
     * half-interpreted.
     */
    static void warmUp(Communicator c, Options o, Arena arena) {
        long small = CollectiveOp.effectiveSize(o.op(), o.sizes()[0]);
        long large = small;
        for (long s : o.sizes()) {
            large = Math.max(large, Math.min(CollectiveOp.effectiveSize(o.op(), s), 256 * 1024));
        }
        Stats stats = new Stats(c);
        try (Arena scratch = Arena.ofConfined();
             CollectiveOp a = CollectiveOp.create(o.op(), small, c, scratch, o.segment(), o.blocking(), o.where());
             CollectiveOp b = CollectiveOp.create(o.op(), large, c, scratch, o.segment(), o.blocking(), o.where())) {
            untilJitQuiet(c, () -> {
                if (o.nonblocking()) {
                    for (int i = 0; i < 200; i++) {
                        warmOnce(a, o);
                    }
                    for (int i = 0; i < 5; i++) {
                        warmOnce(b, o);
                    }
                } else {
                    // whole rows, so that everything a row runs is compiled before rows count
                    measure(c, a, 200, 10, stats);
                    measure(c, b, 5, 1, stats);
                }
            });
        }
    }

    /**
     * Runs {@code round} on every rank of {@code c} (collective) until the warm-up time is over and
     * no rank's JIT compiler has worked for {@link #JIT_QUIET_NANOS}, at most
     * {@link #WARM_UP_LIMIT_NANOS}: on a machine whose cores the ranks keep busy, a late compilation
     * stalls the ranks for milliseconds and would show up in the timed loops.
     */
    static void untilJitQuiet(Communicator c, Runnable round) {
        long start = System.nanoTime();
        long lastJit = -1;
        long quietSince = 0;
        int[] busy = {1};
        while (busy[0] != 0) {
            round.run();
            long elapsed = System.nanoTime() - start;
            long jit = jitMillis();
            if (jit != lastJit) {
                lastJit = jit;
                quietSince = elapsed;
            }
            busy[0] = elapsed < WARM_UP_NANOS || (elapsed - quietSince < JIT_QUIET_NANOS
                    && elapsed < WARM_UP_LIMIT_NANOS) ? 1 : 0;
            c.allreduce(Communicator.IN_PLACE, busy, 1, Datatype.INT, ReduceOp.MAX);
        }
    }

    private static void warmOnce(CollectiveOp op, Options o) {
        if (o.nonblocking()) {
            Request r = op.start();
            computeAndTest(1_000, o.testCalls(), r);
            r.waitFor(null);
        }
        timedLoop(op, 1);
    }

    /** Warm-up, barrier, timed loop, statistics: one row of the blocking method, and its warm-up. */
    static void measure(Communicator c, CollectiveOp op, int iters, int warmup, Stats stats) {
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
        c.barrier();
        long alloc0 = allocated();
        long elapsed = timedLoop(op, iters);
        long alloc = allocated() - alloc0;
        stats.collect(elapsed / 1e3 / iters, Math.max(0, alloc) / (double) iters);
    }

    /**
     * A row's warm-up: {@code batch} (OSU's count of untimed operations) once, then again until no
     * rank's JIT compiler has finished anything for {@link #ROW_JIT_QUIET_NANOS} (at most
     * {@link #ROW_WARM_UP_LIMIT_NANOS}). A row's new request takes branches the general warm-up did
     * not (its first start, its first packets), which deoptimizes compiled code; OSU's 200 untimed
     * operations last well under a millisecond, so without this the recompilation would run on a
     * rank's core during the timed loop.
     */
    static void warmRow(Communicator c, Runnable batch) {
        long start = System.nanoTime();
        long lastJit = jitMillis();
        long quietSince = start;
        int[] busy = {1};
        while (true) {
            batch.run();
            long now = System.nanoTime();
            long jit = jitMillis();
            if (jit != lastJit) {
                lastJit = jit;
                quietSince = now;
            }
            busy[0] = now - quietSince < ROW_JIT_QUIET_NANOS && now - start < ROW_WARM_UP_LIMIT_NANOS ? 1 : 0;
            c.allreduce(Communicator.IN_PLACE, busy, 1, Datatype.INT, ReduceOp.MAX);
            if (busy[0] == 0) {
                return;
            }
        }
    }

    /** The loop the blocking method times; warmed up too, so that it is compiled before it counts. */
    static long timedLoop(CollectiveOp op, int iters) {
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            op.run();
        }
        return System.nanoTime() - t0;
    }

    /** The blocking method: every rank times its own loop; avg, min, max over the ranks. */
    static Row blocking(Communicator c, CollectiveOp op, Options o, long size, Stats stats, double bNode) {
        int iters = o.itersFor(size);
        int warmup = o.warmupFor(size);
        warmRow(c, () -> {
            for (int i = 0; i < warmup; i++) {
                op.run();
            }
        });
        measure(c, op, iters, 0, stats);
        if (c.rank() != 0) {
            return null;
        }
        double bw = Double.NaN;
        double bound = Double.NaN;
        if (o.bcl3() && Bcl3Bandwidth.hasBandwidth(o.op())) {
            // T_Total / N: the slowest rank's time per operation (the operation ends when it does).
            bw = Bcl3Bandwidth.bandwidth(o.op(), size, c.size(), stats.max * 1e-6);
            bound = Bcl3Bandwidth.bound(o.op(), c.size(), bNode);
        }
        return new Row(size, iters, stats.avg, stats.min, stats.max, stats.alloc, bw, bNode, bound,
                Double.NaN, Double.NaN, Double.NaN);
    }

    /**
     * {@code --offload --paired N}: the offloaded persistent request and the blocking host call of the
     * same collective, timed in N pairs of rows run back to back (in alternating order), so that the
     * machine's slow phases hit both alike. Prints the median of each one's row averages and the
     * median of the per-pair ratios offloaded / host.
     */
    static void paired(Communicator c, Options o, long size, Arena arena, Stats stats) {
        int iters = o.itersFor(size);
        int warmup = o.warmupFor(size);
        double[] off = new double[o.pairs()];
        double[] host = new double[o.pairs()];
        double[] ratio = new double[o.pairs()];
        try (CollectiveOp offloaded = CollectiveOp.create(o.op(), size, c, arena, o.segment(), false, o.where());
             CollectiveOp blocking = CollectiveOp.create(o.op(), size, c, arena, o.segment(), true,
                     io.tutti.Offload.HOST)) {
            warmRow(c, () -> {
                for (int i = 0; i < warmup; i++) {
                    offloaded.run();
                    blocking.run();
                }
            });
            for (int k = 0; k < o.pairs(); k++) {
                for (int turn = 0; turn < 2; turn++) {
                    boolean offloadTurn = (turn == 0) == (k % 2 == 0);
                    measure(c, offloadTurn ? offloaded : blocking, iters, warmup, stats);
                    (offloadTurn ? off : host)[k] = stats.avg;
                }
                ratio[k] = off[k] / host[k];
            }
        }
        if (c.rank() == 0) {
            System.out.printf(Locale.ROOT, "%-10d %14.2f %14.2f %10.2f %8d %8d%n", size, median(off), median(host),
                    median(ratio), o.pairs(), iters);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** OSU's nonblocking method (osu_iallreduce and friends): pure, then overlapped with compute. */
    static Row nonblocking(Communicator c, CollectiveOp op, Options o, long size, Stats stats) {
        int iters = o.itersFor(size);
        int warmup = o.warmupFor(size);
        warmRow(c, () -> {
            for (int i = 0; i < warmup; i++) {
                op.begin().waitFor(null);
            }
        });
        c.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            op.begin().waitFor(null);
        }
        long pureNanos = (System.nanoTime() - t0) / iters;
        long computeTarget = pureNanos;
        for (int i = 0; i < warmup; i++) {
            Request r = op.begin();
            computeAndTest(computeTarget, o.testCalls(), r);
            r.waitFor(null);
        }
        c.barrier();
        long alloc0 = allocated();
        long overall = 0;
        long compute = 0;
        for (int i = 0; i < iters; i++) {
            long s = System.nanoTime();
            Request r = op.begin();
            long cs = System.nanoTime();
            computeAndTest(computeTarget, o.testCalls(), r);
            compute += System.nanoTime() - cs;
            r.waitFor(null);
            overall += System.nanoTime() - s;
        }
        long alloc = allocated() - alloc0;
        stats.collectNonblocking(overall / 1e3 / iters, compute / 1e3 / iters, pureNanos / 1e3,
                Math.max(0, alloc) / (double) iters);
        if (c.rank() != 0) {
            return null;
        }
        double overlap = Math.max(0, 100 - (stats.avg - stats.compute) / stats.pure * 100);
        return new Row(size, iters, stats.avg, Double.NaN, Double.NaN, stats.alloc, Double.NaN, Double.NaN,
                Double.NaN, stats.compute, stats.pure, overlap);
    }

    /** Keeps the result of the dummy computation alive so the JIT cannot drop it. */
    static volatile double sink;

    /**
     * OSU's do_compute_and_probe: {@code nanos} of computation in {@code tests} equal pieces, with a
     * {@code test()} of the request after each piece (none when {@code tests} is 0).
     */
    static void computeAndTest(long nanos, int tests, Request r) {
        if (tests == 0) {
            dummyCompute(nanos);
            return;
        }
        long piece = nanos / tests;
        boolean done = false;
        for (int k = 0; k < tests; k++) {
            dummyCompute(piece);
            if (!done) {
                done = r.test();
            }
        }
    }

    /** Floating-point work for {@code nanos} nanoseconds of this thread's time. */
    static void dummyCompute(long nanos) {
        long end = System.nanoTime() + nanos;
        double x = sink;
        do {
            for (int i = 0; i < 32; i++) {
                x = x * 0.999999 + 1e-9;
            }
        } while (System.nanoTime() < end);
        sink = x;
    }

    /**
     * B_Node for each size: the {@code --link-bw} value, or a quick window bandwidth run between
     * ranks 0 and 1 (64 messages per window, as {@code tutti bench bw}) measured once before the
     * collectives (after the {@code bw} benchmark's own 2 s JIT warm-up) while the other ranks wait
     * in a barrier; known at rank 0 only.
     */
    static double[] nodeBandwidths(Communicator c, Options o, Arena arena) {
        double[] out = new double[o.sizes().length];
        java.util.Arrays.fill(out, o.linkBytesPerSecond());
        if (!Double.isNaN(o.linkBytesPerSecond()) || c.size() < 2) {
            return out;
        }
        if (c.rank() < 2) {
            P2pBenchmark.warmUp(c, 1 - c.rank(), arena, o.segment()); // the JIT warm-up of tutti bench bw, 2 s
            for (int k = 0; k < out.length; k++) {
                long size = Math.max(1, CollectiveOp.effectiveSize(o.op(), o.sizes()[k]));
                int windows = Math.clamp((256L << 20) / (P2pBenchmark.WINDOW * size), 5, 200);
                P2pBenchmark.Buffers b = new P2pBenchmark.Buffers(o.segment(), (int) size, arena);
                P2pBenchmark.bandwidth(c, b, size, Math.max(2, windows / 4), 0, false); // warm-up
                out[k] = P2pBenchmark.bandwidth(c, b, size, windows, 2, false).figure() * 1e6;
            }
        }
        c.barrier();
        return out;
    }

    /** Gathers the ranks' figures at rank 0 with reduce; buffers allocated once. */
    static final class Stats {
        private final Communicator c;
        private final double[] send = new double[3];
        private final double[] recv = new double[3];
        double avg;
        double min;
        double max;
        double alloc;
        double compute;
        double pure;

        Stats(Communicator c) {
            this.c = c;
        }

        void collect(double us, double allocPerOp) {
            send[0] = us;
            send[1] = -us;
            send[2] = allocPerOp;
            c.reduce(send, recv, 3, Datatype.DOUBLE, ReduceOp.MAX, 0);
            max = recv[0];
            min = -recv[1];
            alloc = recv[2];
            c.reduce(send, recv, 1, Datatype.DOUBLE, ReduceOp.SUM, 0);
            avg = recv[0] / c.size();
        }

        void collectNonblocking(double overallUs, double computeUs, double pureUs, double allocPerOp) {
            send[0] = overallUs;
            send[1] = computeUs;
            send[2] = pureUs;
            c.reduce(send, recv, 3, Datatype.DOUBLE, ReduceOp.SUM, 0);
            avg = recv[0] / c.size();
            compute = recv[1] / c.size();
            pure = recv[2] / c.size();
            send[0] = allocPerOp;
            c.reduce(send, recv, 1, Datatype.DOUBLE, ReduceOp.MAX, 0);
            alloc = recv[0];
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
            OsuFormat.header(o.op(), o.nonblocking(), o.full()).forEach(System.out::println);
            System.out.flush();
            return;
        }
        String method = o.nonblocking()
                ? "OSU nonblocking method: pure collective, then overlapped with " + o.testCalls()
                        + " test() calls in a dummy compute as long as the pure time"
                : "OSU method: each rank times its own loop; avg/min/max over the ranks' averages";
        System.out.println("# Tutti " + o.op() + " (" + method + ")");
        String calls = o.offload() ? "persistent requests offloaded to the software NIC (progress agent "
                + (io.tutti.runtime.Rank.of(tutti).engine().hasProgressAgent() ? "on" : "off") + ")"
                : o.nonblocking() ? "nonblocking calls (i" + o.op() + ")"
                : o.blocking() ? "blocking calls" : "persistent requests";
        System.out.println("# ranks " + world.size() + ", buffers " + (o.segment() ? "off-heap segments" : "Java arrays")
                + ", " + calls + ", algorithm " + (o.offload() ? "offload plan" : o.algorithm() == null ? "automatic"
                        : o.algorithm())
                + ", " + io.tutti.runtime.Rank.of(tutti).engine().config().eagerLimits() + ", java " + Runtime.version());
        System.out.println("# size = bytes per rank" + (CollectiveOp.reduces(o.op())
                ? " (doubles, SUM, count = size/8)" : "") + "; iterations " + (o.iters() > 0 ? o.iters()
                : "1000 (<= 8 KiB) / 100") + ", warm-up " + (o.warmup() >= 0 ? o.warmup() : "200 / 10")
                + " after a JIT warm-up (2 s, then until no rank has compiled for 1 s)");
        if (o.bcl3()) {
            System.out.println("# [BCL-3] " + Bcl3Bandwidth.describe(o.op()));
            if (Bcl3Bandwidth.hasBandwidth(o.op())) {
                System.out.println("# T_Total/N = slowest rank's time per operation; MB = 10^6 B; B_Node "
                        + (Double.isNaN(o.linkBytesPerSecond())
                        ? "measured per size (window bandwidth, ranks 0 and 1)"
                        : String.format(Locale.ROOT, "= %.3f GB/s (--link-bw)", o.linkBytesPerSecond() / 1e9)));
            }
        }
        if (o.pairs() > 0) {
            System.out.println("# paired: " + o.pairs() + " pairs of rows, offloaded persistent request and blocking"
                    + " host call back to back; medians of the rows' averages, and of the per-pair ratios");
            System.out.printf("# %-10s %14s %14s %10s %8s %8s%n", "Size", "Offload(us)", "Host(us)", "Off/Host",
                    "Pairs", "Iters");
        } else if (o.nonblocking()) {
            System.out.printf("# %-10s %12s %12s %12s %11s %8s %14s%n", "Size", "Overall(us)", "Compute(us)",
                    "Pure(us)", "Overlap(%)", "Iters", "Alloc(B/op)");
        } else if (o.bcl3() && Bcl3Bandwidth.hasBandwidth(o.op())) {
            System.out.printf("# %-10s %12s %12s %12s %8s %14s %12s %12s %12s %8s%n", "Size", "Avg(us)", "Min(us)",
                    "Max(us)", "Iters", "Alloc(B/op)", "B(MB/s)", "B_Node", "Bound(MB/s)", "B/Bound");
        } else {
            System.out.printf("# %-10s %12s %12s %12s %8s %14s%n", "Size", "Avg(us)", "Min(us)", "Max(us)", "Iters",
                    "Alloc(B/op)");
        }
        System.out.flush();
    }

    static String format(Options o, int ranks, Row r) {
        boolean bw = o.bcl3() && Bcl3Bandwidth.hasBandwidth(o.op());
        if (o.json()) {
            JsonLine j = JsonLine.object().text("benchmark", o.op()).integer("ranks", ranks).integer("size", r.size())
                    .integer("iters", r.iters());
            if (o.nonblocking()) {
                j.fixed("overall_us", r.avgUs(), 3).fixed("compute_us", r.computeUs(), 3)
                        .fixed("pure_us", r.pureUs(), 3).fixed("overlap_percent", r.overlapPercent(), 1);
            } else {
                j.fixed("avg_us", r.avgUs(), 3).fixed("min_us", r.minUs(), 3).fixed("max_us", r.maxUs(), 3);
            }
            if (bw) {
                j.fixed("bcl3_mb_per_s", r.bandwidth() / 1e6, 1).fixed("node_mb_per_s", r.nodeBandwidth() / 1e6, 1)
                        .fixed("bound_mb_per_s", r.bound() / 1e6, 1);
            }
            return j.fixed("alloc_bytes_per_op", r.allocPerOp(), 2).end();
        }
        if (o.osu()) {
            return o.nonblocking()
                    ? OsuFormat.nonblockingRow(o.op(), r.size(), r.avgUs(), r.computeUs(), r.pureUs(),
                            r.overlapPercent())
                    : OsuFormat.collectiveRow(o.op(), o.full(), r.size(), r.avgUs(), r.minUs(), r.maxUs(), r.iters());
        }
        if (o.nonblocking()) {
            return String.format(Locale.ROOT, "%-12d %12.2f %12.2f %12.2f %11.1f %8d %14.2f", r.size(), r.avgUs(),
                    r.computeUs(), r.pureUs(), r.overlapPercent(), r.iters(), r.allocPerOp());
        }
        String base = String.format(Locale.ROOT, "%-12d %12.2f %12.2f %12.2f %8d %14.2f", r.size(), r.avgUs(),
                r.minUs(), r.maxUs(), r.iters(), r.allocPerOp());
        if (!bw) {
            return base;
        }
        return base + String.format(Locale.ROOT, " %12.1f %12.1f %12.1f %8.2f", r.bandwidth() / 1e6,
                r.nodeBandwidth() / 1e6, r.bound() / 1e6, r.bandwidth() / r.bound());
    }

    private static void print(Options o, int ranks, Row r) {
        System.out.println(format(o, ranks, r));
        System.out.flush();
    }
}
