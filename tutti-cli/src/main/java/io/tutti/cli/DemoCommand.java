package io.tutti.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tutti demo}: a first job to try, the heat-diffusion sample on separate processes. */
@Command(name = "demo", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Runs the heat-diffusion sample on N processes.",
            "",
            "The sample (io.tutti.samples.HeatDiffusion) solves 2-D heat diffusion by Jacobi steps on a square"
                + " grid, hot along its top edge, split into one block per rank: the ranks exchange the rows and"
                + " columns on their blocks' edges (halo exchange) every step, learn the largest change of the"
                + " step by allreduce four times along the way, and gather the grid on rank 0, which checks it"
                + " against a sequential run. Then ranks 0 and 1 print a short ping-pong table (latency and"
                + " bandwidth from 8 B to 1 MiB).",
        },
        footer = {"", "Examples:",
            "  tutti demo",
            "  tutti demo -n 6 960 200      (a 960 x 960 grid, 200 steps, on 6 ranks)"})
public final class DemoCommand implements Callable<Integer> {
    /** The sample's class in tutti-samples; named, not imported, to keep the modules apart. */
    static final String DEMO_CLASS = "io.tutti.samples.HeatDiffusion";
    /** The sample's own defaults, for the help and for choosing a grid that splits. */
    static final int DEFAULT_GRID = 384;
    static final int DEFAULT_STEPS = 400;

    @Option(names = "-n", paramLabel = "N", defaultValue = "4", description = "Number of ranks (default ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.class, defaultValue = "120s",
            description = "Stop the demo and exit with 124 after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--jvm-opt", paramLabel = "OPT", description = "An option for every rank JVM (repeatable).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "Print the job id, its directory and the ranks' pids.")
    boolean verbose;

    @Parameters(index = "0", arity = "0..1", paramLabel = "GRID", description = "Cells along each side of the grid"
            + " (default " + DEFAULT_GRID + ", or the next multiple of N when that does not split into the blocks;"
            + " a multiple of N always does).")
    Integer grid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "STEPS", description = "Jacobi steps, at least 4 (default "
            + DEFAULT_STEPS + ").")
    Integer steps;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (ranks < 1) {
            err.println("tutti demo: give the number of ranks with -n N, N >= 1 (got " + ranks + ")");
            return Launcher.EXIT_USAGE;
        }
        int n = grid == null ? splittingGrid(DEFAULT_GRID, ranks) : grid;
        int s = steps == null ? DEFAULT_STEPS : steps;
        if (n < 1 || !splits(n, ranks)) {
            int[] b = blocks(ranks);
            err.println("tutti demo: a " + n + " x " + n + " grid does not split into " + b[0] + " x " + b[1]
                    + " blocks for " + ranks + " ranks: give a multiple of " + ranks + ", e.g. "
                    + splittingGrid(Math.max(n, 1), ranks));
            return Launcher.EXIT_USAGE;
        }
        if (s < 4) {
            err.println("tutti demo: give at least 4 steps (got " + s + ")");
            return Launcher.EXIT_USAGE;
        }
        Launcher.Options options = new Launcher.Options(ranks, false, timeout, false, "", jvmOptions,
                DEMO_CLASS, List.of(Integer.toString(n), Integer.toString(s)), verbose);
        return new Launcher(System.out, System.err, "tutti demo").run(options);
    }

    /**
     * The sample's blocks for {@code ranks}: rows are the largest divisor of the rank count at most
     * its square root (HeatDiffusion.gridRows), columns the rest.
     */
    static int[] blocks(int ranks) {
        int rows = (int) Math.sqrt(ranks);
        while (ranks % rows != 0) {
            rows--;
        }
        return new int[] {rows, ranks / rows};
    }

    static boolean splits(int grid, int ranks) {
        int[] b = blocks(ranks);
        return grid % b[0] == 0 && grid % b[1] == 0;
    }

    /** {@code grid} when it splits into the blocks, else the next multiple of {@code ranks}. */
    static int splittingGrid(int grid, int ranks) {
        return splits(grid, ranks) ? grid : (grid + ranks - 1) / ranks * ranks;
    }
}
