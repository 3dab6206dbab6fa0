package io.tutti.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tutti bench}: OSU-style point-to-point benchmarks between ranks 0 and 1, run through the
 * real launcher so that what is measured is what applications get.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Measures point-to-point latency, bandwidth or bidirectional bandwidth.",
            "",
            "latency: half the round trip of a ping-pong; bw: windows of sends from rank 0 to rank 1;"
                + " bibw: both directions at once. Rank 0 prints the results.",
        },
        footer = {
            "",
            "Sizes accept k and m suffixes (powers of 1024). Without --sizes, --iters or --warmup the"
                + " benchmark picks its own, scaled to each size.",
            "",
            "Examples:",
            "  tutti bench latency",
            "  tutti bench bw --sizes 4k,64k,1m --json",
        })
public final class BenchCommand implements Callable<Integer> {
    /** The class in tutti-bench that runs on every rank; named, not imported, to keep the modules apart. */
    static final String BENCHMARK_CLASS = "io.tutti.bench.P2pBenchmark";

    /** The benchmarks {@value #BENCHMARK_CLASS} knows. */
    enum Mode { latency, bw, bibw }

    /** The buffers the benchmark sends from and receives into. */
    enum Buffer { array, segment }

    @Parameters(index = "0", paramLabel = "latency|bw|bibw", description = "Which benchmark: ${COMPLETION-CANDIDATES}.")
    Mode mode;

    @Option(names = "-n", paramLabel = "N", defaultValue = "2", description = "Number of ranks (default ${DEFAULT-VALUE};"
            + " ranks beyond 1 only wait).")
    int ranks;

    @Option(names = "--sizes", paramLabel = "LIST", description = "Message sizes in bytes, comma separated, e.g. 8,1k,64k,1m.")
    String sizes;

    @Option(names = "--iters", paramLabel = "N", description = "Timed iterations per size.")
    Integer iters;

    @Option(names = "--warmup", paramLabel = "N", description = "Untimed iterations per size before the timed ones.")
    Integer warmup;

    @Option(names = "--json", description = "Print results as JSON instead of a table.")
    boolean json;

    @Option(names = "--buffer", paramLabel = "array|segment", defaultValue = "segment",
            description = "Heap arrays or off-heap memory segments (default ${DEFAULT-VALUE}).")
    Buffer buffer;

    @Option(names = "--threads", description = "Run the ranks as threads of this JVM instead of as processes.")
    boolean threads;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.class,
            description = "Stop the benchmark and exit with 124 after this long (e.g. 10m).")
    Duration timeout;

    @Option(names = "--jvm-opt", paramLabel = "OPT", description = "An option for every rank JVM (repeatable).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "Print the job id, its directory and the ranks' pids.")
    boolean verbose;

    @Override
    public Integer call() {
        if (ranks < 2) {
            System.err.println("tutti bench: point-to-point benchmarks need at least 2 ranks: use -n 2");
            return Launcher.EXIT_USAGE;
        }
        if ((iters != null && iters < 1) || (warmup != null && warmup < 0)) {
            System.err.println("tutti bench: --iters must be at least 1 and --warmup at least 0");
            return Launcher.EXIT_USAGE;
        }
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
        if (json) {
            args.add("--json");
        }
        args.addAll(List.of("--buffer", buffer.name()));
        // Empty user class path: the benchmark is in the launcher's own jars, and "." could shadow it.
        Launcher.Options options = new Launcher.Options(ranks, threads, timeout, false, "", jvmOptions,
                BENCHMARK_CLASS, args, verbose);
        return new Launcher(System.out, System.err, "tutti bench").run(options);
    }
}
