package io.tutti.cli;

import io.tutti.bench.CollectiveBenchmark;
import io.tutti.bench.P2pBenchmark;
import io.tutti.bench.RmaBenchmark;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tutti bench}: OSU-style point-to-point benchmarks between ranks 0 and 1, and collective
 * benchmarks over every rank (with [BCL-3]'s bandwidth figures and OSU's nonblocking overlap
 * method), run through the real launcher so that what is measured is what applications get. Rank 0
 * prints a table, JSON rows, or with {@code --format osu} exactly OSU Micro-Benchmarks' output.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Measures point-to-point latency, bandwidth or bidirectional bandwidth, or the latency of a collective.",
            "",
            "latency: half the round trip of a ping-pong; bw: windows of sends from rank 0 to rank 1;"
                + " bibw: both directions at once; mr: OSU's osu_mbw_mr, windows from rank i to rank i + n/2 on"
                + " every pair at once, aggregate MB/s and messages/s (even -n). Rank 0 prints the results.",
            "",
            "put, get, acc: OSU's one-sided latency (osu_put_latency, osu_get_latency, osu_acc_latency), rank 0"
                + " to rank 1's window, us per operation; putbw, getbw: osu_put_bw, osu_get_bw, windows of 64"
                + " operations, MB/s. --sync and --win choose OSU's -s and -w (default flush and allocate).",
            "",
            "barrier, bcast, reduce, allreduce, scatter, gather, allgather, alltoall, reducescatter, shift:"
                + " OSU's collective method; each rank times its own loop and the table gives the average,"
                + " minimum and maximum over the ranks of the time per operation (us). Size = bytes per rank;"
                + " reductions sum size/8 doubles; shift sends to rank+1 and receives from rank-1.",
        },
        footer = {
            "",
            "Sizes accept k and m suffixes (powers of 1024). Without --sizes, --iters or --warmup the"
                + " benchmark picks its own, scaled to each size.",
            "",
            "--bcl3 adds [BCL-3]'s bandwidth figure (e.g. bcast: MsgLen*N*(P-1)/T) and its theoretical"
                + " bound (e.g. (P-1)*B_Node/ceil(log2 P)) and writes a plot of both (PNG, or SVG for a .svg file);"
                + " B_Node is --link-bw or measured between ranks 0 and 1. --nonblocking prints overall, compute,"
                + " pure collective time and overlap (OSU's osu_iallreduce method).",
            "",
            "--format osu prints exactly what OSU Micro-Benchmarks 7.4 print (title '# OSU MPI ... Test v7.4',"
                + " datatype and column header lines, rows of a 10-wide size and 18-wide figures), over OSU's sizes (1 B to 4 MiB"
                + " point-to-point, 1 B to 1 MiB collectives) unless --sizes is given; --full adds OSU's -f columns."
                + " loggp, shift and --offload have no OSU counterpart.",
            "",
            "Examples:",
            "  tutti bench latency",
            "  tutti bench bw --sizes 4k,64k,1m --json",
            "  tutti bench allreduce -n 4 --sizes 8,1k,64k,1m",
            "  tutti bench bcast -n 4 --bcl3 --plot bcast.png",
            "  tutti bench allreduce -n 4 --nonblocking",
            "  tutti bench allreduce -n 4 --format osu --full",
            "  tutti bench put --sync lock --win create",
        })
public final class BenchCommand implements Callable<Integer> {
    /** The class in tutti-bench that runs on every rank, by name: the ranks load it, the launcher does not run it. */
    static final String BENCHMARK_CLASS = "io.tutti.bench.P2pBenchmark";

    /** The class in tutti-bench that runs the collective benchmarks on every rank. */
    static final String COLLECTIVE_CLASS = "io.tutti.bench.CollectiveBenchmark";
    /** The class in tutti-bench that runs the one-sided benchmarks on every rank. */
    static final String RMA_CLASS = "io.tutti.bench.RmaBenchmark";
    /** The LogGP parameters, measured as [BCL-3] does. */
    static final String LOGGP_CLASS = "io.tutti.bench.LogGpBenchmark";

    /** The benchmarks: three point-to-point ones ({@value #BENCHMARK_CLASS}), then the collectives. */
    enum Mode {
        latency, bw, bibw, mr, loggp, put, get, acc, putbw, getbw, barrier, bcast, reduce, allreduce, scatter, gather,
        allgather, alltoall, reducescatter, shift;

        boolean pointToPoint() {
            return this == latency || this == bw || this == bibw || this == mr || this == loggp || oneSided();
        }

        /** The one-sided benchmarks, run by RmaBenchmark. */
        boolean oneSided() {
            return this == put || this == get || this == acc || this == putbw || this == getbw;
        }
    }

    /** The collectives that have a nonblocking variant ({@code iallreduce} ...). */
    static final EnumSet<Mode> NONBLOCKING = EnumSet.range(Mode.barrier, Mode.reducescatter);

    /** How rank 0 prints: Tutti's table, JSON rows, or OSU Micro-Benchmarks' own output. */
    enum Format { table, json, osu }

    /** The buffers the benchmark sends from and receives into. */
    enum Buffer { array, segment }

    @Parameters(index = "0", paramLabel = "BENCHMARK", description = "Which benchmark: ${COMPLETION-CANDIDATES}.")
    Mode mode;

    @Option(names = "-n", paramLabel = "N", defaultValue = "2", description = "Number of ranks (default ${DEFAULT-VALUE};"
            + " in point-to-point benchmarks ranks beyond 1 only wait).")
    int ranks;

    @Option(names = "--sizes", paramLabel = "LIST", description = "Message sizes in bytes, comma separated, e.g. 8,1k,64k,1m.")
    String sizes;

    @Option(names = "--iters", paramLabel = "N", description = "Timed iterations per size.")
    Integer iters;

    @Option(names = "--warmup", paramLabel = "N", description = "Untimed iterations per size before the timed ones.")
    Integer warmup;

    @Option(names = "--json", description = "Print results as JSON instead of a table (= --format json).")
    boolean json;

    @Option(names = "--format", paramLabel = "table|json|osu", description = "table (default), json, or osu:"
            + " exactly OSU Micro-Benchmarks' output, which scripts that read OSU's read.")
    Format format;

    @Option(names = "--full", description = "With --format osu, collectives: OSU's -f, adding min, max and"
            + " iterations columns.")
    boolean full;

    @Option(names = "--buffer", paramLabel = "array|segment", defaultValue = "segment",
            description = "Heap arrays or off-heap memory segments (default ${DEFAULT-VALUE}).")
    Buffer buffer;

    @Option(names = "--sync", paramLabel = "S", description = "One-sided: OSU's -s, the synchronisation: flush"
            + " (default), flush_local, lock, lock_all, fence or pscw.")
    String sync;

    @Option(names = "--win", paramLabel = "W", description = "One-sided: OSU's -w, the window: allocate (default),"
            + " create (over the benchmark's own memory) or dynamic (attached memory, addressed by its address).")
    String win;

    @Option(names = "--algorithm", paramLabel = "A", description = "Collectives: force this algorithm"
            + " (Communicator.setAlgorithm), e.g. ring; default automatic.")
    String algorithm;

    @Option(names = "--blocking", description = "Collectives: time the blocking calls (which allocate a request each)"
            + " instead of persistent requests.")
    boolean blocking;

    @Option(names = "--offload", description = "Collectives: time persistent requests offloaded to the software NIC"
            + " (barrier, bcast, reduce, allreduce, allgather); add --jvm-opt=-Dtutti.progress.thread=true for the"
            + " agent to run them.")
    boolean offload;

    @Option(names = "--paired", paramLabel = "N", description = "With --offload: time the offloaded request and the"
            + " blocking host call in N pairs of rows back to back, and print the median of each and of their ratio.")
    Integer paired;

    @Option(names = "--nonblocking", description = "Collectives: OSU's nonblocking method, the overlap of the"
            + " collective (iallreduce ...) with computation.")
    boolean nonblocking;

    @Option(names = "--test-calls", paramLabel = "N", description = "With --nonblocking: test() calls spread over"
            + " the computation (OSU's -t; default 10).")
    Integer testCalls;

    @Option(names = "--bcl3", description = "Collectives: add [BCL-3]'s bandwidth figure and its theoretical"
            + " bound, and plot them.")
    boolean bcl3;

    @Option(names = "--link-bw", paramLabel = "GB/s", description = "With --bcl3: the node bandwidth B_Node in"
            + " GB/s (10^9 B/s); default: measured per size between ranks 0 and 1.")
    Double linkBandwidth;

    @Option(names = "--plot", paramLabel = "FILE", description = "With --bcl3: the plot to write, PNG or SVG by"
            + " its extension (default ./<op>-bandwidth.png).")
    Path plot;

    @Option(names = "--threads", description = "Run the ranks as threads of this JVM instead of as processes.")
    boolean threads;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.class,
            description = "Stop the benchmark and exit with 124 after this long (e.g. 10m).")
    Duration timeout;

    @Option(names = "--jvm-opt", paramLabel = "OPT", description = "An option for every rank JVM (repeatable).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "Print the job id, its directory and the ranks' pids.")
    boolean verbose;

    @Option(names = "--no-progress", description = "No progress bar on standard error (there is none when the"
            + " output is not a terminal).")
    boolean noProgress;

    @picocli.CommandLine.Mixin
    PlacementOptions placement = new PlacementOptions();

    /** Runs longer than this show a progress bar on a terminal. */
    static final Duration PROGRESS_AFTER = Duration.ofSeconds(3);

    @Override
    public Integer call() {
        String problem = check();
        Placement where = null;
        if (problem == null) {
            try {
                where = placement.placement(ranks);
                if (placement.skippedNotice() != null) {
                    System.err.println("tutti bench: " + placement.skippedNotice());
                }
                if (threads && !where.hosts().isEmpty()) {
                    problem = "--hostfile, --host and --hosts start processes: leave out --threads";
                }
            } catch (IllegalArgumentException e) {
                problem = e.getMessage();
            }
        }
        List<String> args = mode == Mode.loggp ? (json() ? List.of("--json") : List.of()) : benchmarkArgs();
        int rows = -1;
        if (problem == null) {
            try {
                // the ranks' own parser, so that what they would reject fails here, before they start
                String[] a = args.toArray(String[]::new);
                rows = mode == Mode.loggp ? -1 : mode.oneSided() ? RmaBenchmark.rows(a)
                        : mode.pointToPoint() ? P2pBenchmark.rows(a) : CollectiveBenchmark.rows(a);
            } catch (IllegalArgumentException e) {
                problem = e.getMessage();
            }
        }
        if (problem != null) {
            System.err.println("tutti bench: " + problem);
            return Launcher.EXIT_USAGE;
        }
        // Empty user class path: the benchmark is in the launcher's own jars, and "." could shadow it.
        Launcher.Options options = new Launcher.Options(ranks, threads, timeout, false, "", jvmOptions,
                mode == Mode.loggp ? LOGGP_CLASS : mode.oneSided() ? RMA_CLASS
                        : mode.pointToPoint() ? BENCHMARK_CLASS : COLLECTIVE_CLASS,
                args, verbose, where);
        try (ProgressDisplay bar = ProgressDisplay.start("tutti bench " + mode, rows, rows < 0 ? "" : " sizes",
                PROGRESS_AFTER, !noProgress)) {
            Launcher launcher = bar.shown()
                    ? new Launcher(bar.relay(System.out, BenchCommand::isRow), System.err, "tutti bench", true)
                    : new Launcher(System.out, System.err, "tutti bench");
            return launcher.run(options);
        }
    }

    /** A result row of the benchmark's output: neither a {@code #} comment nor blank. */
    static boolean isRow(String line) {
        String t = line.strip();
        return !t.isEmpty() && !t.startsWith("#");
    }

    /** Whether rank 0 prints JSON rows ({@code --json} or {@code --format json}). */
    boolean json() {
        return json || format == Format.json;
    }

    /** What is wrong with the command line, or null when it can run. */
    String check() {
        if (json && format != null && format != Format.json) {
            return "--json is --format json: give one format, not --json and --format " + format;
        }
        if (mode == Mode.loggp && (format == Format.osu || full)) {
            return "loggp has no OSU counterpart (OSU Micro-Benchmarks do not measure LogGP parameters):"
                    + " drop --format osu and --full";
        }
        if ((sync != null || win != null) && !mode.oneSided()) {
            return "--sync and --win are for the one-sided benchmarks (put, get, acc, putbw, getbw), not " + mode;
        }
        if (mode.pointToPoint() && ranks < 2) {
            return "point-to-point benchmarks need at least 2 ranks: use -n 2";
        }
        if (mode == Mode.mr && ranks % 2 != 0) {
            return "mr pairs rank i with rank i + n/2: use an even -n";
        }
        if (mode == Mode.mr && format == Format.osu) {
            return "mr prints its own columns (MB/s and messages/s): use --format table or json";
        }
        if (ranks < 1) {
            return "-n must be at least 1";
        }
        if ((iters != null && iters < 1) || (warmup != null && warmup < 0)) {
            return "--iters must be at least 1 and --warmup at least 0";
        }
        if (mode.pointToPoint() && (algorithm != null || blocking || offload || nonblocking || testCalls != null || bcl3
                || linkBandwidth != null || plot != null)) {
            return "--algorithm, --blocking, --nonblocking, --test-calls, --bcl3, --link-bw and --plot are for"
                    + " collective benchmarks, not " + mode;
        }
        if (nonblocking && !NONBLOCKING.contains(mode)) {
            return mode + " has no nonblocking variant: drop --nonblocking";
        }
        if (nonblocking && (bcl3 || blocking)) {
            return "--nonblocking cannot be combined with --bcl3 or --blocking";
        }
        if (paired != null && (!offload || paired < 1 || nonblocking || bcl3 || json())) {
            return "--paired N (N >= 1) goes with --offload, and not with --nonblocking, --bcl3 or --json";
        }
        if (testCalls != null && (!nonblocking || testCalls < 0)) {
            return "--test-calls goes with --nonblocking and must be at least 0";
        }
        if ((linkBandwidth != null || plot != null) && !bcl3) {
            return "--link-bw and --plot go with --bcl3";
        }
        if (linkBandwidth != null && !(linkBandwidth > 0 && linkBandwidth < Double.POSITIVE_INFINITY)) {
            return "--link-bw must be a positive number of GB/s";
        }
        if (bcl3 && mode == Mode.barrier && plot != null) {
            return "barrier has no bandwidth to plot: drop --plot";
        }
        if (algorithm != null && mode == Mode.shift) {
            return "shift is point-to-point: it has no algorithm to choose";
        }
        if (bcl3 && ranks < 2 && mode != Mode.barrier) {
            return "--bcl3 compares against a bound that needs at least 2 ranks: use -n 2 or more";
        }
        return null;
    }

    /** The arguments of the benchmark class that runs on every rank. */
    List<String> benchmarkArgs() {
        List<String> args = new ArrayList<>(List.of(mode.name()));
        if (sizes != null) {
            args.addAll(List.of("--sizes", sizes));
        }
        if (iters != null) {
            args.addAll(List.of("--iters", iters.toString()));
        }
        if (warmup != null) {
            args.addAll(List.of("--warmup", warmup.toString()));
        }
        if (json()) {
            args.add("--json");
        }
        if (format == Format.osu) {
            args.addAll(List.of("--format", "osu"));
        }
        if (full) {
            args.add("--full");
        }
        args.addAll(List.of("--buffer", buffer.name()));
        if (sync != null) {
            args.addAll(List.of("--sync", sync));
        }
        if (win != null) {
            args.addAll(List.of("--win", win));
        }
        if (mode.pointToPoint()) {
            return args;
        }
        if (algorithm != null) {
            args.addAll(List.of("--algorithm", algorithm));
        }
        if (blocking) {
            args.add("--blocking");
        }
        if (offload) {
            args.add("--offload");
        }
        if (paired != null) {
            args.addAll(List.of("--paired", paired.toString()));
        }
        if (nonblocking) {
            args.add("--nonblocking");
            if (testCalls != null) {
                args.addAll(List.of("--test-calls", testCalls.toString()));
            }
        }
        if (bcl3) {
            args.add("--bcl3");
            if (linkBandwidth != null) {
                args.addAll(List.of("--link-bw", linkBandwidth.toString()));
            }
            if (mode != Mode.barrier) {
                // Resolved here, where the user is: the ranks may run elsewhere.
                Path file = plot != null ? plot : Path.of(mode.name() + "-bandwidth.png");
                args.addAll(List.of("--plot", file.toAbsolutePath().toString()));
            }
        }
        return args;
    }
}
