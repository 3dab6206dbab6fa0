package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.RendezvousServer;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.monitor.MonitorServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * Starts the ranks of a job on this machine and watches them until the job ends: {@code tutti run},
 * and the engine behind {@code tutti bench} and {@code tutti demo}.
 *
 * <p>Ranks are separate JVMs by default, or with {@link Options#threads()} threads of this JVM, or,
 * with hosts, of one JVM per host ({@link HostThreads}), which is started and watched as a rank JVM.
 * The launcher is the job's rendezvous ({@link RendezvousServer}): ranks meet through it, prove
 * they hold the job secret it handed them, and keep their connection open, so a rank that drops it
 * has died and a rank whose launcher died knows. The launcher owns its host's shared-memory
 * directory: it creates it (owner-only) and removes it however the job ends — success, a failed rank, a timeout, an
 * exception, or a SIGTERM/Ctrl-C to the launcher — because the kernel does not reclaim files in
 * /dev/shm when their users die. When one rank fails, the others are stopped: a job that lost a
 * rank can only hang or fail, and the first failure is the one worth reporting.
 *
 * <p>Exit codes: 0 when every rank exited 0; the first failing rank's code (128 + signal when it
 * was killed); {@value #EXIT_TIMEOUT} on timeout; {@value #EXIT_USAGE} for a bad request (no main
 * class, bad {@code -n}); {@value #EXIT_FAILURE} when the job could not be set up, a rank thread
 * failed or a source file did not compile.
 *
 * <p>The parts: {@link JobTarget} (what to run), {@link SourceProgram} (a {@code .java} file
 * compiled for the job), {@link JobDirectory} (the job's files),
 * {@link RankProcesses} (a rank's command, environment and stop), {@link Placement} (hosts),
 * {@link TaggedOutput} (the ranks' output).
 */
public final class Launcher {
    /** Exit code of a job that ran out of time, as {@code timeout(1)} does. */
    public static final int EXIT_TIMEOUT = 124;
    /** Exit code of a request that cannot run as given (the same as picocli's usage errors). */
    public static final int EXIT_USAGE = 2;
    /** Exit code when the job could not be set up, or a rank thread threw. */
    public static final int EXIT_FAILURE = 1;

    /**
     * How long the other ranks get, after one failed, to notice it themselves and end before they
     * are stopped: the engine reports a dead peer within 2 s, and a rank that waits for one should
     * see the error rather than a SIGTERM.
     */
    static final Duration PEER_NOTICE = Duration.ofMillis(2500);

    /**
     * What to run and how.
     *
     * @param ranks      number of ranks, at least 1
     * @param threads    run the ranks as threads instead of as processes: of this JVM, or with hosts of one JVM per host
     * @param timeout    stop the job after this long; null for no limit
     * @param tagOutput  prefix every line a rank prints with {@code [rank] }
     * @param classpath  where the program's classes are, as for {@code java -cp} (null means ".", empty
     *                   means none); the launcher adds its own class path, which holds the Tutti jars
     * @param jvmOptions extra options for every rank JVM (and host JVM of rank threads)
     * @param target     the main class, a jar whose manifest names it, or a {@code .java} source file
     * @param args       the program's arguments
     * @param verbose    report the job id, directory and rank pids on stderr
     * @param placement  which host each rank runs on and how it is started there
     */
    public record Options(int ranks, boolean threads, Duration timeout, boolean tagOutput, String classpath,
                          List<String> jvmOptions, String target, List<String> args, boolean verbose,
                          Placement placement) {
        public Options {
            classpath = classpath == null ? "." : classpath.strip();
            jvmOptions = jvmOptions == null ? List.of() : List.copyOf(jvmOptions);
            args = args == null ? List.of() : List.copyOf(args);
            placement = placement == null ? Placement.LOCAL : placement;
        }

        public Options(int ranks, boolean threads, Duration timeout, boolean tagOutput, String classpath,
                       List<String> jvmOptions, String target, List<String> args, boolean verbose) {
            this(ranks, threads, timeout, tagOutput, classpath, jvmOptions, target, args, verbose, Placement.LOCAL);
        }

        /** A copy that runs {@code program} with {@code arguments}. */
        public Options withProgram(String program, List<String> arguments) {
            return new Options(ranks, threads, timeout, tagOutput, classpath, jvmOptions, program, arguments, verbose,
                    placement);
        }

        /** A copy with another placement. */
        public Options withPlacement(Placement p) {
            return new Options(ranks, threads, timeout, tagOutput, classpath, jvmOptions, target, args, verbose, p);
        }

        /** {@code ranks} processes of {@code target} with {@code args}, other settings at their defaults. */
        public static Options of(int ranks, String target, String... args) {
            return new Options(ranks, false, null, false, ".", List.of(), target, List.of(args), false);
        }

        /** A copy that runs the ranks as threads (true) or processes (false). */
        public Options withThreads(boolean on) {
            return new Options(ranks, on, timeout, tagOutput, classpath, jvmOptions, target, args, verbose, placement);
        }

        /** A copy with another time limit; null for none. */
        public Options withTimeout(Duration limit) {
            return new Options(ranks, threads, limit, tagOutput, classpath, jvmOptions, target, args, verbose, placement);
        }

        /** A copy that does or does not tag output lines with the rank. */
        public Options withTagOutput(boolean on) {
            return new Options(ranks, threads, timeout, on, classpath, jvmOptions, target, args, verbose, placement);
        }

        /** A copy with another user class path ("" for none). */
        public Options withClasspath(String cp) {
            return new Options(ranks, threads, timeout, tagOutput, cp, jvmOptions, target, args, verbose, placement);
        }

        /** A copy with other options for the rank JVMs. */
        public Options withJvmOptions(List<String> opts) {
            return new Options(ranks, threads, timeout, tagOutput, classpath, opts, target, args, verbose, placement);
        }

        /** A copy that does or does not report the job id, directory and pids. */
        public Options withVerbose(boolean on) {
            return new Options(ranks, threads, timeout, tagOutput, classpath, jvmOptions, target, args, on, placement);
        }
    }

    /** A request that cannot run as given; the message says what to change. */
    static final class UsageException extends RuntimeException {
        /** The launcher's exit code: {@link #EXIT_USAGE}, or 1 for a program that did not compile (as javac). */
        final int exitCode;

        UsageException(String message) {
            this(message, EXIT_USAGE);
        }

        UsageException(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    private final PrintStream out;
    private final PrintStream err;
    private final String name;
    private final boolean relay;
    /** The address ranks on other hosts are given for the rendezvous; null to choose one. */
    private String rendezvousAddress;
    /** The port of the job's monitor (--monitor), or null for none. */
    private Integer monitorPort;
    /** Whether the other ranks keep running when one dies ({@code --on-failure continue}). */
    private boolean keepSurvivors;
    /** Whether a timed-out job's ranks print their stacks first ({@code --get-stack-traces}). */
    private boolean stackTraces;
    /** Which rank reads this launcher's standard input: a rank, {@link #STDIN_NONE} or {@link #STDIN_ALL}. */
    private int stdin;
    /** {@link #stdin}: no rank reads this launcher's input. */
    public static final int STDIN_NONE = -1;
    /** {@link #stdin}: every rank gets a copy of this launcher's input. */
    public static final int STDIN_ALL = -2;
    /** How long a timed-out job's ranks have to print their stacks: a starved JVM answers late. */
    private static final Duration STACKS_WAIT = Duration.ofSeconds(10);

    /** How long a rank whose rendezvous connection dropped gets to be seen exiting before it counts as lost. */
    static final Duration LOST_GRACE = Duration.ofSeconds(2);

    /** A launcher that reports on {@link System#out} and {@link System#err} as {@code tutti run}. */
    public Launcher() {
        this(System.out, System.err, "tutti run");
    }

    /**
     * A launcher that writes tagged rank output to {@code out}/{@code err} and its own messages to
     * {@code err}, each prefixed with {@code commandName}.
     */
    public Launcher(PrintStream out, PrintStream err, String commandName) {
        this(out, err, commandName, false);
    }

    /**
     * As above; with {@code relay}, the ranks' standard output passes through {@code out} line by
     * line even without tags (for {@code tutti bench}'s progress bar), instead of going straight to
     * the launcher's own standard output.
     */
    Launcher(PrintStream out, PrintStream err, String commandName, boolean relay) {
        this.out = out;
        this.err = err;
        this.name = commandName;
        this.relay = relay;
    }

    /** Sets the address of this host given to ranks on other hosts for the rendezvous (--rendezvous-address). */
    public Launcher rendezvousAddress(String address) {
        this.rendezvousAddress = address;
        return this;
    }

    /** Serves the job's monitor on 127.0.0.1:{@code port} while it runs (--monitor); null for none. */
    public Launcher monitor(Integer port) {
        this.monitorPort = port;
        return this;
    }

    /** The job's monitor, started once its directory exists; null without --monitor. */
    private MonitorServer startMonitor(JobDirectory job) {
        if (monitorPort == null) {
            return null;
        }
        try {
            MonitorServer m = MonitorCommand.serve("127.0.0.1", monitorPort, null, () -> List.of(job.dir()));
            PrintWriter w = new PrintWriter(err, true);
            MonitorCommand.announce(w, name, "127.0.0.1", m, "job " + job.id());
            w.flush();
            return m;
        } catch (IllegalArgumentException e) {
            throw new UsageException("--monitor: " + e.getMessage());
        }
    }

    /**
     * With {@code on}, a rank that dies (killed, or exited with a non-zero code) is reported and the
     * others keep running, so that they can shrink their communicators and finish (ranks as processes
     * only: threads share one JVM). The job's exit code is then the survivors': see {@link #watch}.
     */
    public Launcher keepSurvivors(boolean on) {
        this.keepSurvivors = on;
        return this;
    }

    /**
     * With {@code on}, a job past its time limit first has every rank still running print its
     * threads' stacks (through the rendezvous, so ranks on other hosts too), as Open MPI's
     * {@code mpirun --get-stack-traces} does; ranks as processes only.
     */
    public Launcher stackTraces(boolean on) {
        this.stackTraces = on;
        return this;
    }

    /**
     * Which rank reads this launcher's standard input, as mpirun's {@code --stdin}: {@code rank}
     * (0 by default), {@link #STDIN_NONE} (every rank sees end of input, and nothing reads this
     * launcher's input: for a launcher inside a longer-lived JVM) or {@link #STDIN_ALL} (a copy to each).
     */
    public Launcher stdin(int rank) {
        this.stdin = rank;
        return this;
    }

    /** Whether the process of ranks {@code [first, first + count)} gets standard input. */
    private boolean readsInput(int first, int count) {
        return stdin == STDIN_ALL || (stdin >= first && stdin < first + count);
    }

    /** Runs the job to its end and returns the exit code for the launcher (see the class comment). */
    public int run(Options options) {
        try {
            boolean threadsHere = options.threads() && options.placement().hosts().isEmpty();
            if (options.ranks() >= 1 && stdin >= options.ranks()) {
                throw new UsageException("--stdin " + stdin + " names no rank: the job has " + options.ranks()
                        + (options.ranks() == 1 ? " rank (0)" : " ranks (0.." + (options.ranks() - 1) + ")")
                        + "; give one of them, all or none");
            }
            if (threadsHere && stdin != 0) {
                throw new UsageException("--stdin: with --threads on this host the ranks are threads of this JVM"
                        + " and share its standard input; leave out --stdin (or --threads)");
            }
            if (threadsHere && !options.jvmOptions().isEmpty()) {
                // silently dropped before: the options belong to a JVM that is already running
                throw new UsageException("--jvm-opt " + String.join(" ", options.jvmOptions()) + " is for rank JVMs,"
                        + " and with --threads on this host the ranks are threads of this JVM, which has started"
                        + " already: give JVM options through JAVA_TOOL_OPTIONS (e.g. JAVA_TOOL_OPTIONS=-Xmx8g), or"
                        + " leave out --threads");
            }
            JobTarget target = JobTarget.resolve(options);
            for (Path stale : StaleJobs.clean(ShmFiles.defaultRoot())) {
                if (options.verbose()) {
                    say("removed the stale job directory " + stale);
                }
            }
            // with hosts, --threads makes one JVM per host that runs the host's ranks as threads
            return threadsHere ? runThreads(options, target) : runProcesses(options, target);
        } catch (UsageException e) {
            say(e.getMessage());
            return e.exitCode;
        } catch (RuntimeException | IOException e) {
            say("the job could not be run: " + e);
            return EXIT_FAILURE;
        }
    }

    /** The target itself, or for a source file its classes, compiled into the job directory (removed with it). */
    private JobTarget compiled(Options o, JobTarget target, JobDirectory job) {
        if (target.source() == null) {
            return target;
        }
        JobTarget program = SourceProgram.compile(target.source(), o.classpath(), job.dir().resolve("classes"), err);
        if (o.verbose()) {
            say("compiled " + target.source() + " into " + program.classes() + "; main class " + program.mainClass());
        }
        return program;
    }

    /** Copies this launcher's standard input to each of {@code inputs} until its end; one whose rank ended is dropped. */
    private static void copyToAll(List<java.io.OutputStream> inputs) {
        List<java.io.OutputStream> open = new ArrayList<>(inputs);
        byte[] chunk = new byte[8192];
        try {
            for (int n; (n = System.in.read(chunk)) >= 0 && !open.isEmpty(); ) {
                for (var it = open.iterator(); it.hasNext(); ) {
                    var to = it.next();
                    try {
                        to.write(chunk, 0, n);
                        to.flush();
                    } catch (IOException e) {
                        it.remove();
                    }
                }
            }
        } catch (IOException e) {
            // this launcher's input failed: the ranks see its end
        }
        for (var to : open) {
            try {
                to.close();
            } catch (IOException e) {
                // the rank ended meanwhile
            }
        }
    }

    private void sayJob(Options o, JobDirectory job) {
        if (o.verbose()) {
            say("job " + job.id() + ": " + o.ranks() + (o.ranks() == 1 ? " rank" : " ranks")
                    + (!o.threads() ? " as processes" : o.placement().hosts().isEmpty() ? " as threads"
                    : " as threads of one JVM per host") + ", directory " + job.dir());
        }
    }

    // ------------------------------------------------------------------ process mode

    /** The state the shutdown hook shares with the watching thread. */
    private static final class Processes {
        /** The process of each rank: with one JVM per host ({@code --threads}), the same for a host's ranks. */
        final Process[] ranks;
        /** How many ranks the process of each rank runs (1 but with one JVM per host). */
        final int[] together;
        final List<Thread> pumps = new ArrayList<>();
        final RemoteStarts remote = new RemoteStarts();
        /** The shared ssh connections to the job's hosts, closed after the ranks. */
        volatile SshMasters masters = SshMasters.none();
        /** The job's rendezvous, once it listens: a rank that joined it did start. */
        volatile RendezvousServer server;
        boolean shuttingDown;

        Processes(int n) {
            ranks = new Process[n];
            together = new int[n];
            java.util.Arrays.fill(together, 1);
        }

        /** The processes started so far, each once. */
        synchronized List<Process> started() {
            List<Process> list = new ArrayList<>();
            for (Process p : ranks) {
                if (p != null && (list.isEmpty() || list.getLast() != p)) {
                    list.add(p);
                }
            }
            return list;
        }

        /** How many ranks still run (their process is alive). */
        synchronized long ranksAlive() {
            return java.util.Arrays.stream(ranks).filter(p -> p != null && p.isAlive()).count();
        }

        /** The ranks of the process of {@code first}, its first rank, in messages: {@code rank 3} or {@code ranks 2-3 (threads of one JVM)}. */
        String who(int first) {
            return who(first, null);
        }

        /** As above, with the pid of their process: {@code rank 3 (pid 7)}, {@code ranks 2-3 (threads of one JVM, pid 7)}. */
        String who(int first, Process p) {
            int k = together[first];
            String pid = p == null ? "" : "pid " + p.pid();
            return k == 1 ? "rank " + first + (p == null ? "" : " (" + pid + ")")
                    : "ranks " + first + "-" + (first + k - 1) + " (threads of one JVM" + (p == null ? "" : ", " + pid) + ")";
        }
    }

    private int runProcesses(Options o, JobTarget target) throws IOException {
        int n = o.ranks();
        Processes procs = new Processes(n);
        AtomicReference<JobDirectory> jobRef = new AtomicReference<>();
        AtomicReference<Spawns> spawnsRef = new AtomicReference<>();
        // Registered before the directory exists, so a Ctrl-C at any point leaves nothing behind.
        Thread hook = Thread.ofPlatform().name("tutti-run-cleanup").unstarted(() -> {
            synchronized (procs) {
                procs.shuttingDown = true;
            }
            List<Process> alive = procs.started().stream().filter(Process::isAlive).toList();
            if (!alive.isEmpty()) {
                say("the launcher is being stopped; stopping " + plural(alive.size(), "rank"));
            }
            RankProcesses.stop(alive);
            Spawns spawned = spawnsRef.get();
            if (spawned != null) {
                spawned.close();
            }
            procs.masters.close();
            JobDirectory job = jobRef.get();
            if (job != null) {
                ShmFiles.deleteTree(job.dir());
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        RendezvousServer server = null;
        MonitorServer monitor = null;
        CounterCopies copies = null;
        Spawns spawns = null;
        try {
            JobDirectory job = JobDirectory.create();
            jobRef.set(job);
            sayJob(o, job);
            boolean fromSource = target.source() != null;
            monitor = startMonitor(job);
            target = compiled(o, target, job);
            LinkedBlockingQueue<Integer> exited = new LinkedBlockingQueue<>();
            Placement place = o.placement();
            Placement.Layout layout = place.layout(n);
            // Ranks started through a template may be on other hosts: they are given a TCP address too.
            boolean prefixed = false;
            for (int r = 0; r < n; r++) {
                prefixed |= !place.prefix(layout.host(r)).isEmpty();
            }
            // the route to a host other than this one picks the address the remote ranks are given
            List<String> hostNames = prefixed ? layout.hosts().stream().filter(h -> h != null && !Placement.isOwnHost(h))
                    .toList() : null;
            server = rendezvous(job, n, hostNames);
            procs.server = server;
            String rendezvous = String.join(",", rendezvousAddresses(server, hostNames));
            if (o.verbose()) {
                say("rendezvous at " + rendezvous);
            }
            // the counters of ranks on other hosts, kept here for tutti status and the monitor
            CounterCopies kept = new CounterCopies(job.dir());
            copies = kept;
            server.onCopy(kept::copied);
            // rail commands posted in those copies go to their ranks, and the answers come back
            server.onRailAnswer(kept::answered);
            kept.forward(server::railCommand);
            server.onRankLost(r -> {
                kept.ended(r, true);
                exited.add(-r - 1);
            });
            // Behind a remote shell, whose command line is public, the secret comes on standard input.
            // made once per build, before the first job's ranks start (docs/perf/launch.md, "Start-up, round two")
            StartupCache caches = StartupCache.fromEnvironment();
            java.util.function.Consumer<String> why = m -> {
                if (o.verbose()) {
                    say(m);
                }
            };
            Path aot = caches.prepare(why);
            // and the launcher's own, for the next tutti command
            caches.prepareLauncher(why);
            // processes the ranks spawn start as the job's own ranks do, on the hosts of its ranks
            spawns = new Spawns(n, out, err, o.tagOutput(), relay, o.verbose(), this::say,
                    o.threads() ? "spawning processes, ports and names need a JVM per rank, and this job's ranks are threads"
                            + " (tutti run --threads); run it without --threads" : null);
            spawns.serve(server, job.secret());
            spawnsRef.set(spawns);
            // One ssh connection per host for all its ranks' sessions (docs/perf/launch.md)
            if (place.execPrefix() == null && SshMasters.isSsh(place.launchAgent())
                    && SshMasters.enabled(LaunchEnvironment.current())) {
                List<String> remoteHosts = layout.hosts().stream()
                        .filter(h -> h != null && place.remoteShell(h) != null).distinct().toList();
                if (!remoteHosts.isEmpty()) {
                    procs.masters = SshMasters.open(place.launchAgent(), remoteHosts, job.dir());
                    if (o.verbose()) {
                        say("one ssh connection per host for " + procs.masters.hosts() + " of " + remoteHosts);
                    }
                }
            }
            boolean hostThreads = o.threads();
            List<String> directCommand = RankProcesses.command(o, target, false, aot, hostThreads);
            List<String> shellCommand = RankProcesses.command(o, target, true, aot, hostThreads);
            // A rank behind a remote shell may be on a host without this one's files: a program
            // compiled here travels to it as a jar after the secret.
            boolean anyRemoteShell = layout.hosts().stream().anyMatch(h -> h != null && place.remoteShell(h) != null);
            byte[] shipped = fromSource && anyRemoteShell ? SourceProgram.jar(target.classes()) : null;
            JobTarget program = target;
            spawns.starter(new Spawns.Starter() {
                @Override
                public RendezvousServer rendezvous(JobDirectory spawned, int size) throws IOException {
                    return Launcher.this.rendezvous(spawned, size, hostNames);
                }

                @Override
                public String addresses(RendezvousServer spawned) {
                    return String.join(",", rendezvousAddresses(spawned, hostNames));
                }

                @Override
                public ProcessBuilder builder(JobDirectory spawned, int rank, int size, int slot, String at,
                                              String mainClass, List<String> args, Map<String, String> extra) {
                    Options child = o.withProgram(mainClass, args);
                    JobTarget runs = new JobTarget(mainClass, program.classes(), null);
                    ProcessBuilder pb = new ProcessBuilder();
                    rankProcess(pb, place, layout, procs.masters, spawned, rank, size, slot, at,
                            RankProcesses.command(child, runs, false, aot, false),
                            RankProcesses.command(child, runs, true, aot, false), extra, shipped);
                    return pb;
                }

                @Override
                public void started(Process p, JobDirectory spawned, int slot) {
                    if (place.remoteShell(layout.host(slot)) != null) {
                        handOver(p, spawned, shipped);
                    }
                }
            });
            // with --stdin all: every process's input, which one thread feeds
            List<java.io.OutputStream> inputs = new ArrayList<>();
            // one process per rank, or with --threads one per host for all its ranks
            for (int r = 0; r < n; r += procs.together[r]) {
                String host = layout.host(r);
                int together = hostThreads ? layout.localSize(r) - layout.localRank(r) : 1;
                // Through a remote shell: the secret on stdin, and its standard error read here too (it
                // says why a start failed).
                String shell = place.remoteShell(host);
                boolean remoteShell = shell != null;
                ProcessBuilder pb = new ProcessBuilder();
                rankProcess(pb, place, layout, procs.masters, job, r, n, r, rendezvous, directCommand, shellCommand,
                        hostThreads ? Map.of(LaunchEnvironment.THREAD_RANKS, Integer.toString(together)) : Map.of(),
                        shipped);
                boolean pipeErr = o.tagOutput() || remoteShell;
                // Like mpirun: only the --stdin rank (0 by default) reads the terminal; the others see
                // end of input. Through a remote shell the secret comes first, so that rank's input is
                // passed on after it; to all ranks, a copy is passed on to each.
                boolean reads = readsInput(r, together);
                boolean terminal = reads && !remoteShell && stdin != STDIN_ALL;
                pb.redirectInput(terminal ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
                ProcessBuilder.Redirect pipe = ProcessBuilder.Redirect.PIPE;
                ProcessBuilder.Redirect inherit = ProcessBuilder.Redirect.INHERIT;
                pb.redirectOutput(o.tagOutput() || relay ? pipe : inherit).redirectError(pipeErr ? pipe : inherit);
                Process p;
                synchronized (procs) {
                    if (procs.shuttingDown) {
                        return EXIT_FAILURE;
                    }
                    try {
                        p = pb.start();
                    } catch (IOException e) {
                        say("cannot start rank " + r + " (" + pb.command().getFirst() + "): " + e.getMessage()
                                + (r > 0 ? "; stopping the " + plural(r, "rank") + " already started" : ""));
                        return EXIT_FAILURE;
                    }
                    java.util.Arrays.fill(procs.ranks, r, r + together, p);
                    java.util.Arrays.fill(procs.together, r, r + together, together);
                }
                if (remoteShell) {
                    handOver(p, job, shipped);
                    if (reads && stdin != STDIN_ALL) {
                        procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-in-" + r).start(() -> {
                            try (var to = p.getOutputStream()) {
                                System.in.transferTo(to);
                            } catch (IOException e) {
                                // the rank ended, or closed its input
                            }
                        }));
                    }
                }
                if (reads && stdin == STDIN_ALL) {
                    inputs.add(p.getOutputStream());
                } else if (!reads) {
                    try {
                        p.getOutputStream().close();
                    } catch (IOException e) {
                        // the rank (or its remote shell) ended before reading its input: its exit is reported
                    }
                }
                // a host's JVM of rank threads tags its lines by thread itself
                byte[] prefix = o.tagOutput() && !hostThreads ? TaggedOutput.prefix(r) : new byte[0];
                if (o.tagOutput() || relay) {
                    procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-out-" + r)
                            .start(() -> TaggedOutput.pump(p.getInputStream(), out, prefix)));
                }
                if (pipeErr) {
                    java.io.InputStream errors = shell == null ? p.getErrorStream()
                            : procs.remote.track(r, together, procs.who(r), host, shell, shellCommand.getFirst(),
                                    p.getErrorStream());
                    procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-err-" + r)
                            .start(() -> TaggedOutput.pump(errors, err, prefix)));
                }
                final int rank = r;
                p.onExit().thenRun(() -> {
                    for (int k = rank; k < rank + together; k++) {
                        kept.ended(k, p.exitValue() != 0);
                    }
                    exited.add(rank);
                });
                if (o.verbose()) {
                    say(procs.who(r) + (together == 1 ? " is pid " : " are pid ") + p.pid()
                            + (host == null ? "" : " on " + host));
                }
            }
            if (!inputs.isEmpty()) {
                procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-in-all").start(() -> copyToAll(inputs)));
            }
            JobDirectory.writeAtomically(job.dir(), StaleJobs.RANK_PIDS, procs.started().stream()
                    .map(p -> Long.toString(p.pid())).collect(Collectors.joining(" ")) + "\n");
            long watching = System.nanoTime();
            int code = watch(o, procs, exited, job.dir());
            return spawns.await(code, o.timeout() == null ? 0 : watching + o.timeout().toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            say("interrupted while waiting for the spawned processes; stopping them");
            return 128 + 2;
        } finally {
            if (spawns != null) {
                spawns.close();
            }
            if (server != null) {
                // the connections of the ranks stopped now break by our doing: nothing to report
                server.onDropped(null);
            }
            RankProcesses.stop(procs.started());
            procs.masters.close();
            if (monitor != null) {
                monitor.close();
            }
            if (server != null) {
                server.close();
            }
            if (copies != null) {
                copies.close();
            }
            for (Thread t : procs.pumps) {
                if (t.getName().startsWith("tutti-in-")) {
                    continue; // blocked on the launcher's own input, which may never end
                }
                try {
                    // Bounded: a grandchild that inherited the pipe could hold it open forever.
                    t.join(RankProcesses.STOP_GRACE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            JobDirectory job = jobRef.get();
            if (job != null) {
                ShmFiles.deleteTree(job.dir());
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down and the hook is doing the same clean-up
            }
        }
    }

    /**
     * The job's rendezvous: a Unix socket in the job directory for ranks that share this file system,
     * and, for ranks started through a template ({@code hosts} not null), TCP on an ephemeral port.
     */
    private RendezvousServer rendezvous(JobDirectory job, int n, List<String> hosts) throws IOException {
        RendezvousServer server = new RendezvousServer(job.id(), job.secret(), n, job.dir().resolve("rendezvous.sock"),
                hosts == null ? null : new InetSocketAddress(0));
        server.onRejected(why -> say("refused a rendezvous connection: " + why));
        server.onDropped(this::say);
        return server;
    }

    private List<String> rendezvousAddresses(RendezvousServer server, List<String> hosts) {
        List<String> all = new ArrayList<>();
        for (String a : server.addresses()) {
            if (a.startsWith("unix:")) {
                all.add(a);
            }
        }
        if (hosts != null) {
            all.add(RendezvousAddress.tcp(RendezvousAddress.choose(rendezvousAddress, hosts), server.tcpPort()));
        }
        return all;
    }

    /**
     * Sets up {@code pb} to start rank {@code rank} of {@code size} of {@code job} where the layout
     * puts rank {@code slot}: its launch environment ({@code extra} beside the usual) and its command
     * line, {@code direct} on this host or {@code shell} through the host's remote shell, which then
     * reads the secret and {@code shipped}, the jar of a program compiled here, on standard input
     * ({@link #handOver}). The job's own ranks start so, and those its ranks spawn ({@link Spawns}).
     */
    private static void rankProcess(ProcessBuilder pb, Placement place, Placement.Layout layout, SshMasters masters,
                                    JobDirectory job, int rank, int size, int slot, String rendezvous,
                                    List<String> direct, List<String> shell, Map<String, String> extra,
                                    byte[] shipped) {
        String host = layout.host(slot);
        boolean remoteShell = place.remoteShell(host) != null;
        Map<String, String> env = pb.environment();
        RankProcesses.environment(env, job, rank, size, rendezvous, remoteShell);
        env.putAll(extra);
        if (remoteShell && shipped != null) {
            env.put(LaunchEnvironment.CLASSES_STDIN, Integer.toString(shipped.length));
        }
        if (place.prefix(host).isEmpty()) {
            // The same pid space: a rank whose launcher is gone notices at once.
            env.put(LaunchEnvironment.LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
        }
        env.putAll(place.env());
        if (host != null) {
            env.put(LaunchEnvironment.HOST, host);
            env.put(LaunchEnvironment.NODE_ID, Integer.toString(layout.node(slot)));
            env.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(layout.localRank(slot)));
            env.put(LaunchEnvironment.LOCAL_SIZE, Integer.toString(layout.localSize(slot)));
        }
        pb.command(masters.share(host, place.command(host, remoteShell ? shell : direct, env)));
    }

    /** Writes what a rank behind a remote shell reads first: the job's secret, then {@code shipped} (or nothing). */
    private static void handOver(Process p, JobDirectory job, byte[] shipped) {
        try {
            p.getOutputStream().write(RankProcesses.secretLine(job));
            if (shipped != null) {
                p.getOutputStream().write(shipped);
            }
            p.getOutputStream().flush();
        } catch (IOException e) {
            // the rank ended already: its exit is reported
        }
    }

    /** What the ranks were blocked in at the timeout, from their counters and the copies of remote ones; "" when none tell. */
    private static String stuckView(Path jobDir) {
        JobStatus status = JobStatus.read(jobDir);
        return status.ranks().isEmpty() ? "" : "; where they wait (other hosts' ranks as of their last copy):\n"
                + status.stuck(System.currentTimeMillis()).stripTrailing();
    }

    /**
     * Waits for the ranks in the order they end; the first non-zero exit or the deadline ends the job.
     * With {@link #keepSurvivors}, a rank's death is reported and the job goes on: its exit code is
     * then the first non-zero code of a rank that ended by itself (not by a signal, not lost), or 0
     * when all of those exited 0, or, when no rank ended by itself, the first failed rank's code.
     */
    private int watch(Options o, Processes procs, LinkedBlockingQueue<Integer> exited, Path jobDir) {
        int n = o.ranks();
        long deadline = o.timeout() == null ? 0 : System.nanoTime() + o.timeout().toNanos();
        int running = n;
        int survivorsCode = 0;
        boolean anySurvivor = false;
        int firstFailure = 0;
        try {
            while (running > 0) {
                Integer r;
                if (o.timeout() == null) {
                    r = exited.take();
                } else {
                    long left = deadline - System.nanoTime();
                    r = left > 0 ? exited.poll(left, TimeUnit.NANOSECONDS) : exited.poll();
                }
                if (r == null) {
                    List<Integer> still = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        if (procs.ranks[i].isAlive()) {
                            still.add(i);
                        }
                    }
                    if (!quiet(procs)) {
                        say("the job timed out after " + Durations.format(o.timeout()) + "; ranks still running: "
                                + still.stream().map(String::valueOf).collect(Collectors.joining(", "))
                                + stuckView(jobDir));
                        if (stackTraces && procs.server != null) {
                            int[] printed = procs.server.requestStacks(STACKS_WAIT);
                            say(printed[0] + " of the " + printed[1] + " ranks asked printed their threads' stacks"
                                    + " (--get-stack-traces)");
                        }
                    }
                    return EXIT_TIMEOUT;
                }
                if (r < 0) {
                    int lost = -r - 1;
                    if (rankLost(o, procs, lost)) {
                        if (!keepSurvivors) {
                            return EXIT_FAILURE;
                        }
                        firstFailure = firstFailure != 0 ? firstFailure : EXIT_FAILURE;
                    }
                    continue;
                }
                running -= procs.together[r];
                Process p = procs.ranks[r];
                int code = p.exitValue();
                if (keepSurvivors) {
                    if (RankProcesses.killedBySignal(code)) {
                        firstFailure = firstFailure != 0 ? firstFailure : code;
                        if (!quiet(procs)) {
                            long others = procs.ranksAlive();
                            say(procs.who(r, p) + " " + RankProcesses.describeExit(code)
                                    + (others == 0 ? "" : "; the other " + others + " rank" + (others == 1 ? "" : "s")
                                    + " go on (--on-failure continue)"));
                        }
                    } else {
                        anySurvivor = true;
                        if (code != 0 && survivorsCode == 0) {
                            survivorsCode = code;
                            if (!quiet(procs)) {
                                say(procs.who(r, p) + " " + RankProcesses.describeExit(code));
                            }
                        }
                    }
                    continue;
                }
                if (code != 0) {
                    if (!quiet(procs)) {
                        long others = procs.ranksAlive();
                        // a remote shell's 255 is also a remote rank killed by a signal (ssh's exit-signal)
                        RendezvousServer joinedAt = procs.server;
                        String notStarted = joinedAt != null && joinedAt.joined(r) ? null
                                : procs.remote.explain(r, code);
                        String remote = procs.remote.where(r);
                        say((notStarted != null ? notStarted : remote != null
                                ? remote + " " + RankProcesses.describeExit(code)
                                        + (code == 255 ? " (a remote shell's code for a rank killed by a signal, or"
                                        + " for its lost connection)" : "")
                                : procs.who(r, p) + " " + RankProcesses.describeExit(code))
                                + (others == 0 ? "" : others == 1 ? "; stopping the other rank"
                                : "; stopping the other " + others + " ranks"));
                    }
                    long notice = System.nanoTime() + PEER_NOTICE.toNanos();
                    if (deadline != 0 && deadline - notice < 0) {
                        notice = deadline;
                    }
                    while (procs.started().stream().anyMatch(Process::isAlive) && notice - System.nanoTime() > 0) {
                        exited.poll(20, TimeUnit.MILLISECONDS);
                    }
                    return code;
                }
            }
            return keepSurvivors && !anySurvivor ? firstFailure : survivorsCode;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            say("interrupted while waiting for the ranks; stopping them");
            return 128 + 2;
        }
    }

    /**
     * A rank's rendezvous connection dropped without its goodbye. If its process ends soon after,
     * its exit says more and is reported as usual; otherwise (a remote shell still running, a host
     * gone) the rank is lost: reported once, and the job ends. Returns whether it was lost.
     */
    private boolean rankLost(Options o, Processes procs, int rank) throws InterruptedException {
        Process p = procs.ranks[rank];
        try {
            p.onExit().get(LOST_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            if (!p.isAlive()) {
                return false;
            }
        }
        if (!quiet(procs)) {
            String host = o.placement().hostOf(rank, o.ranks());
            say("rank " + rank + (host == null ? "" : " on " + host) + " lost its connection to the launcher without"
                    + " saying goodbye: it or its host died; " + (keepSurvivors
                    ? "the other ranks go on (--on-failure continue)" : "stopping the other ranks"));
        }
        return true;
    }

    /** After a SIGTERM to the launcher the ranks' deaths are our doing: reporting them would mislead. */
    private static boolean quiet(Processes procs) {
        synchronized (procs) {
            return procs.shuttingDown;
        }
    }


    // ------------------------------------------------------------------ thread mode

    private int runThreads(Options o, JobTarget target) throws IOException {
        JobDirectory job = JobDirectory.create();
        Thread hook = Thread.ofPlatform().name("tutti-run-cleanup").unstarted(() -> ShmFiles.deleteTree(job.dir()));
        Runtime.getRuntime().addShutdownHook(hook);
        RendezvousServer server = null;
        MonitorServer monitor = null;
        try {
            server = rendezvous(job, o.ranks(), null);
            String rendezvous = String.join(",", rendezvousAddresses(server, null));
            sayJob(o, job);
            monitor = startMonitor(job);
            JobTarget program = compiled(o, target, job);
            URL[] urls = JobTarget.urls(o.classpath(), program.classes());
            ThreadLauncher.Outcome outcome;
            try (RankThreads threads = new RankThreads(out, err, o.tagOutput(), relay)) {
                ThreadLauncher.RankBody body = threads.body(urls, Launcher.class.getClassLoader(),
                        java.util.function.UnaryOperator.identity(), program.mainClass(), o.args().toArray(String[]::new));
                outcome = ThreadLauncher.run(job.id(), job.dir(), o.ranks(), o.timeout(), body, (rank, env) -> {
                    env.put(LaunchEnvironment.RENDEZVOUS, rendezvous);
                    env.put(LaunchEnvironment.SECRET, java.util.HexFormat.of().formatHex(job.secret()));
                });
            }
            // at the deadline the ranks still blocked are aborted and throw: those errors are the
            // timeout's consequence, not failures of their own
            ThreadLauncher.RankResult f = outcome.firstOwnFailure();
            if (f != null && f.failure() instanceof ThreadLauncher.Exited exited) {
                // as for a rank process that exits: named, and the job ends with its code
                say("rank " + f.rank() + " " + RankProcesses.describeExit(exited.status())
                        + (exited.status() == 0 ? "" : "; stopping the other ranks (threads of this JVM)"));
                return exited.status();
            }
            if (f != null) {
                say("rank " + f.rank() + " failed: " + f.failure());
                f.failure().printStackTrace(err);
                return EXIT_FAILURE;
            }
            if (outcome.timedOut()) {
                say("the job timed out after " + Durations.format(o.timeout()) + "; ranks still running: "
                        + outcome.stillRunning().stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + stuckView(job.dir()));
                return EXIT_TIMEOUT;
            }
            return 0;
        } finally {
            if (monitor != null) {
                monitor.close();
            }
            if (server != null) {
                server.close();
            }
            ShmFiles.deleteTree(job.dir());
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook removes the directory
            }
        }
    }


    // ------------------------------------------------------------------ messages

    private void say(String message) {
        err.println(name + ": " + message);
        err.flush();
    }

    private static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
