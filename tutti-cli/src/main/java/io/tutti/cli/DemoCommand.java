package io.tutti.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tutti demo}: a first job to try, the heat-diffusion sample on separate processes. */
@Command(name = "demo", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Runs the heat-diffusion sample on N processes.",
            "",
            "The sample (io.tutti.samples.HeatDiffusion) splits a rod across the ranks, which exchange"
                + " their boundary cells every step.",
        },
        footer = {"", "Arguments after '--' are passed to the sample, e.g. tutti demo -- --help"})
public final class DemoCommand implements Callable<Integer> {
    /** The sample's class in tutti-samples; named, not imported, to keep the modules apart. */
    static final String DEMO_CLASS = "io.tutti.samples.HeatDiffusion";

    @Option(names = "-n", paramLabel = "N", defaultValue = "4", description = "Number of ranks (default ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.class, defaultValue = "120s",
            description = "Stop the demo and exit with 124 after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--jvm-opt", paramLabel = "OPT", description = "An option for every rank JVM (repeatable).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = {"-v", "--verbose"}, description = "Print the job id, its directory and the ranks' pids.")
    boolean verbose;

    @Parameters(paramLabel = "ARGS", description = "Arguments for the sample.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        Launcher.Options options = new Launcher.Options(ranks, false, timeout, false, "", jvmOptions,
                DEMO_CLASS, args, verbose);
        return new Launcher(System.out, System.err, "tutti demo").run(options);
    }
}
