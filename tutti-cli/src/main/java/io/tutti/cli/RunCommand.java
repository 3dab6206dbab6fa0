package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tutti run}: starts a job of N ranks on this machine; see {@link Launcher}. */
@Command(name = "run", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        sortOptions = false,
        description = {
            "Runs N ranks of a Java program that uses Tutti, on this machine, on the hosts of --hostfile,"
                + " --host or --hosts, or inside a Slurm allocation on its nodes.",
            "",
            "Options end at the program: everything after it is passed to the program unchanged.",
        },
        footer = {
            "",
            "A .java file is compiled once, as Java's source launcher would compile it, against"
                + " --cp and the Tutti jars: the main class is its first class, or else the class named after the"
                + " file; other classes it uses come from .java files in the same source tree (JDK 22's"
                + " multi-file programs). The classes go into the job directory and are removed with it. Compile"
                + " errors are javac's; to compile once for many runs, use tutti javac.",
            "",
            "Each rank is a JVM started with --enable-native-access=ALL-UNNAMED and the serial GC, then the"
                + " options in $TUTTI_JVM_OPTS (split on spaces), then the --jvm-opt options. Its class path is"
                + " the jar or compiled source file, --cp, then the Tutti jars. Ranks learn about their job (rank,"
                + " size, where tutti run serves the rendezvous) from TUTTI_* environment variables, which"
                + " Tutti.init reads; the job's random secret comes in the environment, or, for ranks started"
                + " through a remote shell (an --exec-prefix other than 'ip netns exec'), as the first line of"
                + " their standard input, never on a command line. Ranks keep their connection to tutti run"
                + " open: when tutti run dies, they stop within seconds.",
            "",
            "When a rank exits with a non-zero code or is killed, the other ranks get 2.5 s to end by themselves,"
                + " then are stopped (SIGTERM, then SIGKILL after 2 s), and tutti run exits with that rank's code"
                + " (128 + signal for a signal). With --on-failure continue, a rank killed by a signal or lost is"
                + " reported and the others go on; tutti run then exits with the first non-zero code of a rank that"
                + " ended by itself, or 0 when they all exited 0.",
            "",
            "Ranks fill the hosts' slots host by host (mpirun's --map-by slot): a host's ranks are consecutive."
                + " More ranks than slots is an error unless --oversubscribe. Ranks on other hosts of --hostfile or"
                + " --host start through the launch agent (ssh, which must log in without a password); the JDK,"
                + " the Tutti jars and the program must be at the same paths there. A host the agent cannot reach"
                + " (exit 255), or with no java at this JDK's path (exit 127), is named with the rank in one line."
                + " Inside a Slurm allocation (salloc, sbatch: SLURM_JOB_ID set), and unless --hostfile, --host,"
                + " --hosts, --launch-agent or --exec-prefix is given, the hosts are the allocation's"
                + " nodes with their tasks as slots (SLURM_TASKS_PER_NODE), and each rank starts through 'srun"
                + " --nodes=1 --ntasks=1 --nodelist=HOST --overlap --mpi=none'.",
            "",
            "Exit codes: 0 every rank succeeded; 124 timed out; 2 bad request; 1 the program did not compile,"
                + " the job could not be set up or a rank thread threw (--threads); otherwise the code of the"
                + " first rank that failed.",
            "",
            "With --threads, the ranks are threads: of this JVM, or, with hosts (--hostfile, --host, --hosts, a"
                + " Slurm allocation), of one JVM per host, started as a rank JVM would be, whose threads meet the"
                + " job as rank JVMs do (shared memory within the host, the rails to the others). Each rank loads the"
                + " program's classes through a class loader of its own, so statics are per rank, as with"
                + " processes; the mpi API keeps its state per JVM and refuses to start in a rank thread. System.exit"
                + " in a rank ends its whole JVM, and so every rank of it (of the job, or of its host): return from"
                + " main instead, or throw to report a failure. A rank thread that throws ends its host's ranks;"
                + " tutti run names it and exits with 1. With hosts, a host JVM that dies or is killed is reported"
                + " with its ranks, and --on-failure continue lets the other hosts' ranks go on.",
            "",
            "Examples:",
            "  tutti run -n 4 Ring.java",
            "  tutti run -n 4 --cp build/classes com.example.Ring --rounds 10",
            "  tutti run -n 2 --timeout 30s --tag-output app.jar",
            "  tutti run -n 4 --monitor 9464 app.jar          # the page at http://127.0.0.1:9464/",
            "  tutti run --hostfile hosts --launch-agent 'ssh -o BatchMode=yes' app.jar",
            "  tutti run -n 8 --host node1:4,node2:4 app.jar",
            "  tutti run -n 64 --hostfile hosts --threads app.jar   # one JVM per host",
            "  sbatch -N 2 --ntasks-per-node=4 --wrap 'tutti run app.jar'",
            "  tutti run -n 4 --hosts h0,h1 --ppn 2 --exec-prefix 'ip netns exec {host}' \\",
            "      --rails r0,r1 app.jar",
        })
public final class RunCommand implements Callable<Integer> {
    @Option(names = "-n", paramLabel = "N", description = "Number of ranks to start, at least 1 (required, except"
            + " with --hostfile, --host or --hosts --ppn, or in a Slurm allocation: then every slot).")
    Integer ranks;

    @Option(names = "--threads", description = "Run the ranks as threads instead of one JVM each: of this JVM"
            + " (quick start; for tests and small jobs), or with hosts of one JVM per host, which starts a JVM and"
            + " its JIT once per host.")
    boolean threads;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Durations.class,
            description = "Stop the job and exit with 124 after this long: 30s, 2m, 500ms, 1h, or seconds.")
    Duration timeout;

    @Option(names = "--get-stack-traces", description = "At the --timeout, have every rank still running print"
            + " its threads' stacks on its standard error before the job is stopped (ranks as processes).")
    boolean stackTraces;

    @Option(names = "--tag-output", description = "Prefix every line a rank prints with '[rank] '.")
    boolean tagOutput;

    @Option(names = {"--cp", "-cp", "--class-path"}, paramLabel = "CLASSPATH",
            description = "Where the program's classes are (or, for a source file, the classes it uses), as"
                    + " for java -cp (default: the current directory).")
    String classpath;

    @Option(names = "--jvm-opt", paramLabel = "OPT", description = "An option for every rank JVM, e.g."
            + " --jvm-opt=-Xmx2g (repeat for more; with --threads, for every host JVM, and refused without hosts:"
            + " the ranks are then threads of this JVM, whose options JAVA_TOOL_OPTIONS gives).")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--on-failure", paramLabel = "POLICY", description = "What a rank's death does to the job:"
            + " 'stop' (default) stops the other ranks; 'continue' reports it and lets them go on, to revoke and"
            + " shrink their communicators (ranks as processes, or with --threads a host JVM's ranks together; see"
            + " docs/guide/fault-tolerance.md).")
    String onFailure = "stop";

    @Option(names = "--stdin", paramLabel = "RANK|all|none", description = "Which rank reads this command's"
            + " standard input, as mpirun's --stdin: a rank (default 0; the others see end of input), 'all' (a copy"
            + " to each) or 'none' (every rank sees end of input, and nothing reads this command's).")
    String stdin = "0";

    @Option(names = {"-v", "--verbose"}, description = "Print the job id, its directory and the ranks' pids.")
    boolean verbose;

    @Option(names = "--rendezvous-address", paramLabel = "ADDRESS", description = "The address of this host that"
            + " ranks on other hosts use to reach tutti run (default: the address of the interface that routes to"
            + " the first host, else the first one that is up).")
    String rendezvousAddress;

    @Option(names = "--monitor", paramLabel = "PORT", description = "Serve the job's status page, JSON API and"
            + " Prometheus metrics on 127.0.0.1:PORT while it runs, as 'tutti monitor JOB' would (0: any free port,"
            + " printed).")
    Integer monitor;

    @picocli.CommandLine.Mixin
    PlacementOptions placement = new PlacementOptions();

    @Parameters(index = "0", arity = "0..1", paramLabel = "MAIN_CLASS|JAR|FILE.java",
            description = "The program: a fully qualified class name, a jar with a Main-Class, or a Java source"
                    + " file.")
    String target;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments for the program.")
    List<String> args = new ArrayList<>();

    /** The environment tutti run looks for a Slurm allocation in (a test sets its own). */
    Map<String, String> environment = LaunchEnvironment.current();

    @Override
    public Integer call() {
        Placement where;
        SlurmAllocation slurm;
        try {
            // hosts or a launcher on the command line keep the ranks off the allocation
            slurm = placement.choosesHosts() ? null : SlurmAllocation.find(environment);
        } catch (IllegalArgumentException e) {
            System.err.println("tutti run: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        if (ranks == null && !placement.namesHosts() && slurm == null) {
            System.err.println("tutti run: give the number of ranks with -n N, e.g. tutti run -n 4 "
                    + (target == null ? "com.example.Main" : target) + "; see 'tutti run --help'");
            return Launcher.EXIT_USAGE;
        }
        try {
            where = placement.placement(ranks, slurm);
        } catch (IllegalArgumentException e) {
            System.err.println("tutti run: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        if (placement.skippedNotice() != null) {
            System.err.println("tutti run: " + placement.skippedNotice());
        }
        if (slurm != null && slurm.here() == null) {
            System.err.println("tutti run: this host is not one of Slurm job " + slurm.jobId() + "'s nodes ("
                    + slurm.nodeList() + "): its ranks start there through srun and connect back here over TCP");
        }
        int stdinRank = stdin.equals("none") ? Launcher.STDIN_NONE : stdin.equals("all") ? Launcher.STDIN_ALL
                : stdin.matches("[0-9]{1,9}") ? Integer.parseInt(stdin) : Integer.MIN_VALUE;
        if (stdinRank == Integer.MIN_VALUE) {
            System.err.println("tutti run: --stdin takes a rank (0, 1, ...), 'all' or 'none', not '" + stdin + "'");
            return Launcher.EXIT_USAGE;
        }
        if (!onFailure.equals("stop") && !onFailure.equals("continue")) {
            System.err.println("tutti run: --on-failure takes 'stop' or 'continue', not '" + onFailure + "'");
            return Launcher.EXIT_USAGE;
        }
        if (threads && onFailure.equals("continue") && where.hosts().isEmpty()) {
            System.err.println("tutti run: --on-failure continue lets the other ranks go on when one dies, but ranks"
                    + " that are threads of this one JVM die together: leave out --threads, or give hosts"
                    + " (--host, --hostfile), where a host's ranks die together and the other hosts' go on");
            return Launcher.EXIT_USAGE;
        }
        String bad = SettingsCheck.problem(environment);
        if (bad != null) {
            System.err.println("tutti run: " + bad);
            return Launcher.EXIT_USAGE;
        }
        // Without -n, every slot of the hosts gets a rank, as with mpirun.
        Launcher.Options options = new Launcher.Options(ranks != null ? ranks : where.slots(), threads, timeout, tagOutput, classpath, jvmOptions,
                target, args, verbose, where);
        return new Launcher().rendezvousAddress(rendezvousAddress).monitor(monitor)
                .keepSurvivors(onFailure.equals("continue")).stackTraces(stackTraces).stdin(stdinRank).run(options);
    }
}
