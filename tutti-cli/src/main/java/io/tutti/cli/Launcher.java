package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.bootstrap.ShmFiles;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * Starts the ranks of a job on this machine and watches them until the job ends: {@code tutti run},
 * and the engine behind {@code tutti bench} and {@code tutti demo}.
 *
 * <p>Ranks are separate JVMs by default, or threads of this JVM with {@link Options#threads()}.
 * The launcher owns the job's shared-memory directory: it creates it (owner-only) with the
 * per-job secret, and removes it however the job ends — success, a failed rank, a timeout, an
 * exception, or a SIGTERM/Ctrl-C to the launcher — because the kernel does not reclaim files in
 * /dev/shm when their users die. When one rank fails, the others are stopped: a job that lost a
 * rank can only hang or fail, and the first failure is the one worth reporting.
 *
 * <p>Exit codes: 0 when every rank exited 0; the first failing rank's code (128 + signal when it
 * was killed); {@value #EXIT_TIMEOUT} on timeout; {@value #EXIT_USAGE} for a bad request (no main
 * class, bad {@code -n}); {@value #EXIT_FAILURE} when the job could not be set up or a rank
 * thread failed.
 */
public final class Launcher {
    /** Exit code of a job that ran out of time, as {@code timeout(1)} does. */
    public static final int EXIT_TIMEOUT = 124;
    /** Exit code of a request that cannot run as given (the same as picocli's usage errors). */
    public static final int EXIT_USAGE = 2;
    /** Exit code when the job could not be set up, or a rank thread threw. */
    public static final int EXIT_FAILURE = 1;

    /** How long stopped ranks get to run their shutdown hooks before they are killed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(2);
    /**
     * How long the other ranks get, after one failed, to notice it themselves and end before they
     * are stopped: the engine reports a dead peer within 2 s, and a rank that waits for one should
     * see the error rather than a SIGTERM.
     */
    static final Duration PEER_NOTICE = Duration.ofMillis(2500);
    /** Name of the per-job secret in the job directory. */
    static final String SECRET = "secret";
    static final int SECRET_BYTES = 32;

    private static final String[] SIGNALS = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
        "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM",
        "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * What to run and how.
     *
     * @param ranks      number of ranks, at least 1
     * @param threads    run the ranks as threads of this JVM instead of as processes
     * @param timeout    stop the job after this long; null for no limit
     * @param tagOutput  prefix every line a rank prints with {@code [rank] }
     * @param classpath  where the program's classes are, as for {@code java -cp} (null means ".", empty
     *                   means none); the launcher adds its own class path, which holds the Tutti jars
     * @param jvmOptions extra options for every rank JVM (process mode)
     * @param target     the main class, or a jar whose manifest names it
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

    /**
     * Where ranks run: on this machine (no hosts), or in blocks of {@code ppn} consecutive ranks on
     * each of {@code hosts}, each process started through {@code execPrefix} with {@code {host}}
     * replaced (e.g. {@code ip netns exec {host}}). Ranks with the same host share memory; the
     * others talk over the network rails.
     *
     * @param hosts      host names; empty for this machine only
     * @param ppn        ranks per host; 0 spreads the ranks evenly
     * @param execPrefix command words put before every rank's command, or null
     * @param env        variables set for every rank (the network settings: TUTTI_RAILS, TUTTI_TRANSPORT)
     */
    public record Placement(List<String> hosts, int ppn, String execPrefix, Map<String, String> env) {
        public static final Placement LOCAL = new Placement(List.of(), 0, null, Map.of());

        public Placement {
            hosts = hosts == null ? List.of() : List.copyOf(hosts);
            env = env == null ? Map.of() : Map.copyOf(env);
            if (ppn < 0) {
                throw new UsageException("--ppn must be at least 1, got " + ppn);
            }
            if (execPrefix != null && execPrefix.isBlank()) {
                execPrefix = null;
            }
        }

        /** Ranks per host for a job of {@code ranks} ranks. */
        int perHost(int ranks) {
            if (hosts.isEmpty()) {
                return ranks;
            }
            int k = ppn > 0 ? ppn : (ranks + hosts.size() - 1) / hosts.size();
            if ((long) k * hosts.size() < ranks) {
                throw new UsageException(ranks + " ranks do not fit " + hosts.size() + " hosts with --ppn " + ppn
                        + ": give at least " + ((ranks + hosts.size() - 1) / hosts.size()) + " ranks per host");
            }
            return k;
        }

        /** The host of {@code rank}, or null when the job runs on this machine only. */
        String hostOf(int rank, int ranks) {
            return hosts.isEmpty() ? null : hosts.get(rank / perHost(ranks));
        }

        /** The words before a rank's command on {@code host}. */
        List<String> prefix(String host) {
            if (execPrefix == null) {
                return List.of();
            }
            List<String> words = new ArrayList<>();
            for (String w : execPrefix.trim().split("\\s+")) {
                words.add(w.replace("{host}", host == null ? "localhost" : host));
            }
            return words;
        }

        /**
         * Whether the rank inherits the launcher's environment: with no template, or with
         * {@code ip netns exec}, which starts the command itself. Any other template (ssh, ...) is
         * taken to start a remote shell that joins its words and parses them anew, with an
         * environment of its own.
         */
        boolean inheritsEnvironment() {
            if (execPrefix == null) {
                return true;
            }
            String[] w = execPrefix.trim().split("\\s+");
            return w.length >= 3 && w[0].equals("ip") && w[1].equals("netns") && w[2].equals("exec");
        }

        /**
         * The full command of a rank on {@code host}: the template's words, then the command. When
         * the template does not pass the environment on ({@link #inheritsEnvironment()}), the rank's
         * {@code TUTTI_*} variables go on the command line as {@code env K=V ...}, and every word
         * after the template is quoted for the remote shell.
         */
        List<String> command(String host, List<String> command, Map<String, String> rankEnv) {
            List<String> full = new ArrayList<>(prefix(host));
            if (inheritsEnvironment()) {
                full.addAll(command);
                return full;
            }
            full.add("env");
            new java.util.TreeMap<>(rankEnv).forEach((k, v) -> {
                if (k.startsWith("TUTTI_")) {
                    full.add(shellQuote(k + "=" + v));
                }
            });
            for (String w : command) {
                full.add(shellQuote(w));
            }
            return full;
        }
    }

    /** {@code word} as one word for a POSIX shell: unchanged when plainly safe, else in single quotes. */
    static String shellQuote(String word) {
        if (!word.isEmpty() && word.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c)
                || "_@%+=:,./-".indexOf(c) >= 0))) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** A request that cannot run as given; the message says what to change. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    /** The class to run and the jar it came from (null when given by name). */
    record Target(String mainClass, Path jar) {
    }

    /** The job's identity and its directory, set up before any rank starts. */
    record Job(String id, Path dir, Path secret) {
    }

    private final PrintStream out;
    private final PrintStream err;
    private final String name;

    /** A launcher that reports on {@link System#out} and {@link System#err} as {@code tutti run}. */
    public Launcher() {
        this(System.out, System.err, "tutti run");
    }

    /**
     * A launcher that writes tagged rank output to {@code out}/{@code err} and its own messages to
     * {@code err}, each prefixed with {@code commandName}.
     */
    public Launcher(PrintStream out, PrintStream err, String commandName) {
        this.out = out;
        this.err = err;
        this.name = commandName;
    }

    /** Runs the job to its end and returns the exit code for the launcher (see the class comment). */
    public int run(Options options) {
        try {
            Target target = resolve(options);
            for (Path stale : StaleJobs.clean(ShmFiles.defaultRoot())) {
                if (options.verbose()) {
                    say("removed the stale job directory " + stale);
                }
            }
            return options.threads() ? runThreads(options, target) : runProcesses(options, target);
        } catch (UsageException e) {
            say(e.getMessage());
            return EXIT_USAGE;
        } catch (RuntimeException | IOException e) {
            say("the job could not be run: " + e);
            return EXIT_FAILURE;
        }
    }

    // ------------------------------------------------------------------ the request

    /** Checks the request and finds the main class, so that a mistake fails before any rank starts. */
    static Target resolve(Options o) throws IOException {
        if (o.ranks() < 1) {
            throw new UsageException("give the number of ranks with -n N, N >= 1 (got " + o.ranks()
                    + "), e.g. tutti run -n 4 --cp build/classes com.example.Main");
        }
        String t = o.target();
        if (t == null || t.isBlank()) {
            throw new UsageException("give the main class (or a jar) to run after the options,"
                    + " e.g. tutti run -n 4 --cp build/classes com.example.Main");
        }
        Target target;
        if (t.endsWith(".jar")) {
            Path jar = Path.of(t);
            if (!Files.isRegularFile(jar)) {
                throw new UsageException("the jar " + jar.toAbsolutePath() + " does not exist; check the path");
            }
            String main;
            try (JarFile jf = new JarFile(jar.toFile())) {
                Manifest m = jf.getManifest();
                main = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            }
            if (main == null || main.isBlank()) {
                throw new UsageException(t + " has no Main-Class in its manifest: put the jar on the class path and"
                        + " name the class, e.g. tutti run -n " + o.ranks() + " --cp " + t + " com.example.Main");
            }
            target = new Target(main.trim(), jar.toAbsolutePath());
        } else if (t.endsWith(".java")) {
            throw new UsageException("tutti run starts compiled classes, not source files: compile " + t
                    + " first (javac -cp 'tutti-cli/target/tutti/lib/*' " + t + ") and give its class name");
        } else if (t.endsWith(".class") || t.contains("/") || t.contains(File.separator)) {
            throw new UsageException("'" + t + "' looks like a file: give the fully qualified class name"
                    + " (e.g. com.example.Main) and the directory or jar holding it with --cp");
        } else {
            target = new Target(t, null);
        }
        try (URLClassLoader loader = new URLClassLoader(urls(o.classpath(), target.jar()),
                Launcher.class.getClassLoader())) {
            if (loader.getResource(target.mainClass().replace('.', '/') + ".class") == null) {
                String searched = (o.classpath().isEmpty() ? "" : "--cp " + o.classpath() + ", ")
                        + (target.jar() == null ? "" : target.jar() + ", ") + "the Tutti jars";
                throw new UsageException("the main class " + target.mainClass() + " was not found on the class path ("
                        + searched + "): give the directory or jar that holds it with --cp, and check the package"
                        + " name");
            }
        }
        return target;
    }

    /** The user's class path as URLs, with {@code dir/*} expanded to the jars in it as {@code java} does. */
    static URL[] urls(String classpath, Path jar) {
        List<URL> urls = new ArrayList<>();
        try {
            if (jar != null) {
                urls.add(jar.toUri().toURL());
            }
            for (String entry : classpath.split(File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                if (entry.equals("*") || entry.endsWith(File.separator + "*")) {
                    Path dir = Path.of(entry.substring(0, entry.length() - 1).isEmpty() ? "."
                            : entry.substring(0, entry.length() - 1));
                    try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.{jar,JAR}")) {
                        for (Path p : jars) {
                            urls.add(p.toUri().toURL());
                        }
                    } catch (IOException e) {
                        // a wildcard over a missing directory adds nothing, as for java -cp
                    }
                } else {
                    urls.add(Path.of(entry).toAbsolutePath().toUri().toURL());
                }
            }
        } catch (MalformedURLException e) {
            throw new UsageException("bad class path entry in '" + classpath + "': " + e.getMessage());
        }
        return urls.toArray(URL[]::new);
    }

    // ------------------------------------------------------------------ the job directory

    /**
     * Creates the job directory with the launcher's pid and the secret. {@code launcher.pid} is
     * written atomically so that a concurrent stale-job cleaner never sees it empty.
     */
    static Job createJob() throws IOException {
        Path root = ShmFiles.defaultRoot();
        String id;
        Path dir;
        do {
            byte[] raw = new byte[6];
            RANDOM.nextBytes(raw);
            id = HexFormat.of().formatHex(raw);
            dir = root.resolve("tutti-" + id);
        } while (Files.exists(dir));
        ShmFiles.createJobDirectory(dir);
        writeAtomically(dir, StaleJobs.LAUNCHER_PID, ProcessHandle.current().pid() + "\n");
        Path secret = dir.resolve(SECRET);
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        try (SeekableByteChannel ch = Files.newByteChannel(secret,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.write(ByteBuffer.wrap(bytes));
        }
        return new Job(id, dir, secret);
    }

    static void writeAtomically(Path dir, String name, String content) throws IOException {
        Path tmp = dir.resolve("." + name + ".tmp");
        Files.writeString(tmp, content);
        try {
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void sayJob(Options o, Job job) {
        if (o.verbose()) {
            say("job " + job.id() + ": " + o.ranks() + (o.ranks() == 1 ? " rank" : " ranks")
                    + (o.threads() ? " as threads" : " as processes") + ", directory " + job.dir());
        }
    }

    // ------------------------------------------------------------------ process mode

    /** The state the shutdown hook shares with the watching thread. */
    private static final class Processes {
        final Process[] ranks;
        final List<Thread> pumps = new ArrayList<>();
        boolean shuttingDown;

        Processes(int n) {
            ranks = new Process[n];
        }

        synchronized List<Process> started() {
            List<Process> list = new ArrayList<>();
            for (Process p : ranks) {
                if (p != null) {
                    list.add(p);
                }
            }
            return list;
        }
    }

    private int runProcesses(Options o, Target target) throws IOException {
        int n = o.ranks();
        Processes procs = new Processes(n);
        AtomicReference<Job> jobRef = new AtomicReference<>();
        // Registered before the directory exists, so a Ctrl-C at any point leaves nothing behind.
        Thread hook = Thread.ofPlatform().name("tutti-run-cleanup").unstarted(() -> {
            synchronized (procs) {
                procs.shuttingDown = true;
            }
            List<Process> alive = procs.started().stream().filter(Process::isAlive).toList();
            if (!alive.isEmpty()) {
                say("the launcher is being stopped; stopping " + plural(alive.size(), "rank"));
            }
            stop(alive);
            Job job = jobRef.get();
            if (job != null) {
                ShmFiles.deleteTree(job.dir());
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Job job = createJob();
            jobRef.set(job);
            sayJob(o, job);
            List<String> command = command(o, target);
            LinkedBlockingQueue<Integer> exited = new LinkedBlockingQueue<>();
            Placement place = o.placement();
            int perHost = place.perHost(n);
            for (int r = 0; r < n; r++) {
                String host = place.hostOf(r, n);
                ProcessBuilder pb = new ProcessBuilder();
                environment(pb.environment(), job, r, n);
                pb.environment().putAll(place.env());
                if (host != null) {
                    int node = r / perHost;
                    int onHost = Math.min(n, (node + 1) * perHost) - node * perHost;
                    pb.environment().put(LaunchEnvironment.HOST, host);
                    pb.environment().put(LaunchEnvironment.NODE_ID, Integer.toString(node));
                    pb.environment().put(LaunchEnvironment.LOCAL_RANK, Integer.toString(r % perHost));
                    pb.environment().put(LaunchEnvironment.LOCAL_SIZE, Integer.toString(onHost));
                }
                pb.command(place.command(host, command, pb.environment()));
                // Like mpirun: only rank 0 reads the terminal; the others see end of input.
                pb.redirectInput(r == 0 ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
                if (o.tagOutput()) {
                    pb.redirectOutput(ProcessBuilder.Redirect.PIPE).redirectError(ProcessBuilder.Redirect.PIPE);
                } else {
                    pb.redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
                }
                Process p;
                synchronized (procs) {
                    if (procs.shuttingDown) {
                        return EXIT_FAILURE;
                    }
                    try {
                        p = pb.start();
                    } catch (IOException e) {
                        say("cannot start rank " + r + " (" + command.getFirst() + "): " + e.getMessage()
                                + (r > 0 ? "; stopping the " + plural(r, "rank") + " already started" : ""));
                        return EXIT_FAILURE;
                    }
                    procs.ranks[r] = p;
                }
                if (r > 0) {
                    p.getOutputStream().close();
                }
                if (o.tagOutput()) {
                    byte[] prefix = TaggedOutput.prefix(r);
                    procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-out-" + r)
                            .start(() -> TaggedOutput.pump(p.getInputStream(), out, prefix)));
                    procs.pumps.add(Thread.ofPlatform().daemon().name("tutti-err-" + r)
                            .start(() -> TaggedOutput.pump(p.getErrorStream(), err, prefix)));
                }
                final int rank = r;
                p.onExit().thenRun(() -> exited.add(rank));
                if (o.verbose()) {
                    say("rank " + r + " is pid " + p.pid());
                }
            }
            writeAtomically(job.dir(), StaleJobs.RANK_PIDS, procs.started().stream()
                    .map(p -> Long.toString(p.pid())).collect(Collectors.joining(" ")) + "\n");
            return watch(o, procs, exited);
        } finally {
            stop(procs.started());
            for (Thread t : procs.pumps) {
                try {
                    // Bounded: a grandchild that inherited the pipe could hold it open forever.
                    t.join(STOP_GRACE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Job job = jobRef.get();
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

    /** Waits for the ranks in the order they end; the first non-zero exit or the deadline ends the job. */
    private int watch(Options o, Processes procs, LinkedBlockingQueue<Integer> exited) {
        int n = o.ranks();
        long deadline = o.timeout() == null ? 0 : System.nanoTime() + o.timeout().toNanos();
        int running = n;
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
                                + still.stream().map(String::valueOf).collect(Collectors.joining(", ")));
                    }
                    return EXIT_TIMEOUT;
                }
                running--;
                Process p = procs.ranks[r];
                int code = p.exitValue();
                if (code != 0) {
                    if (!quiet(procs)) {
                        long others = procs.started().stream().filter(Process::isAlive).count();
                        say("rank " + r + " (pid " + p.pid() + ") " + describeExit(code)
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
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            say("interrupted while waiting for the ranks; stopping them");
            return 128 + 2;
        }
    }

    /** After a SIGTERM to the launcher the ranks' deaths are our doing: reporting them would mislead. */
    private static boolean quiet(Processes procs) {
        synchronized (procs) {
            return procs.shuttingDown;
        }
    }

    /** {@code exited with code 3}, or {@code was killed by signal 9 (SIGKILL)} for 128 + signal. */
    static String describeExit(int code) {
        int signal = code - 128;
        if (signal > 0 && signal < SIGNALS.length) {
            return "was killed by signal " + signal + " (" + SIGNALS[signal] + ")";
        }
        return "exited with code " + code;
    }

    /**
     * Stops processes the polite way first (SIGTERM, so their shutdown hooks remove their files),
     * then forcibly after {@link #STOP_GRACE}. Their own children go too: a rank that started
     * helpers must not leave them behind.
     */
    static void stop(List<Process> processes) {
        List<ProcessHandle> handles = new ArrayList<>();
        for (Process p : processes) {
            if (p.isAlive()) {
                p.descendants().forEach(handles::add);
                handles.add(p.toHandle());
            }
        }
        if (handles.isEmpty()) {
            return;
        }
        handles.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        for (ProcessHandle h : handles) {
            awaitExit(h, deadline);
        }
        handles.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        long reaped = System.nanoTime() + STOP_GRACE.toNanos();
        for (ProcessHandle h : handles) {
            awaitExit(h, reaped);
        }
    }

    private static void awaitExit(ProcessHandle h, long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !h.isAlive()) {
            return;
        }
        try {
            h.onExit().get(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // timed out: the caller escalates
        }
    }

    /** The command line of every rank JVM. */
    static List<String> command(Options o, Target target) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+UseSerialGC");
        // The environment first, so that the command line's --jvm-opt can override it.
        String envOpts = System.getenv("TUTTI_JVM_OPTS");
        if (envOpts != null) {
            for (String opt : envOpts.trim().split("\\s+")) {
                if (!opt.isEmpty()) {
                    cmd.add(opt);
                }
            }
        }
        cmd.addAll(o.jvmOptions());
        StringBuilder cp = new StringBuilder();
        if (target.jar() != null) {
            cp.append(target.jar()).append(File.pathSeparator);
        }
        cp.append(o.classpath());
        String own = System.getProperty("java.class.path", "");
        if (!own.isEmpty()) {
            cp.append(cp.isEmpty() || cp.toString().endsWith(File.pathSeparator) ? "" : File.pathSeparator).append(own);
        }
        cmd.add("-cp");
        cmd.add(cp.toString());
        cmd.add(target.mainClass());
        cmd.addAll(o.args());
        return cmd;
    }

    /** The launch environment of one rank process (names from {@link LaunchEnvironment}). */
    static void environment(Map<String, String> env, Job job, int rank, int size) {
        // Inherited from a launcher that itself runs inside a thread-mode job would mislead the rank.
        env.remove(LaunchEnvironment.THREADS);
        env.put(LaunchEnvironment.JOB_ID, job.id());
        env.put(LaunchEnvironment.RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.LOCAL_SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.NODE_ID, "0");
        env.put(LaunchEnvironment.JOB_DIR, job.dir().toString());
        env.put(LaunchEnvironment.KVS_DIR, job.dir().resolve("kvs").toString());
        env.put(LaunchEnvironment.SECRET_FILE, job.secret().toString());
        env.put(LaunchEnvironment.LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
    }

    // ------------------------------------------------------------------ thread mode

    /** The rank a thread belongs to, inherited by the threads a rank starts, for tagged output. */
    private static final InheritableThreadLocal<Integer> RANK_OF_THREAD = new InheritableThreadLocal<>();

    private int runThreads(Options o, Target target) throws IOException {
        Job job = createJob();
        Thread hook = Thread.ofPlatform().name("tutti-run-cleanup").unstarted(() -> ShmFiles.deleteTree(job.dir()));
        Runtime.getRuntime().addShutdownHook(hook);
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        TaggedOutput.ThreadStream taggedOut = null;
        TaggedOutput.ThreadStream taggedErr = null;
        try {
            sayJob(o, job);
            URL[] urls = urls(o.classpath(), target.jar());
            ClassLoader parent = Launcher.class.getClassLoader();
            String[] args = o.args().toArray(String[]::new);
            if (o.tagOutput()) {
                taggedOut = TaggedOutput.perThread(out, Launcher::threadPrefix);
                taggedErr = TaggedOutput.perThread(err, Launcher::threadPrefix);
                System.setOut(taggedOut);
                System.setErr(taggedErr);
            }
            TaggedOutput.ThreadStream tOut = taggedOut;
            TaggedOutput.ThreadStream tErr = taggedErr;
            ThreadLauncher.RankBody body = rank -> {
                RANK_OF_THREAD.set(rank);
                // A loader per rank gives each rank its own statics, as separate processes would have.
                try (URLClassLoader loader = new URLClassLoader("tutti-rank-" + rank, urls, parent)) {
                    Thread.currentThread().setContextClassLoader(loader);
                    invokeMain(Class.forName(target.mainClass(), true, loader), args);
                } finally {
                    if (tOut != null) {
                        tOut.endLine();
                        tErr.endLine();
                    }
                }
            };
            ThreadLauncher.Outcome outcome = ThreadLauncher.run(job.id(), job.dir(), o.ranks(), o.timeout(), body,
                    (rank, env) -> {
                        env.put(LaunchEnvironment.SECRET_FILE, job.secret().toString());
                        env.put(LaunchEnvironment.LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
                    });
            // at the deadline the ranks still blocked are aborted and throw: those errors are the
            // timeout's consequence, not failures of their own
            ThreadLauncher.RankResult f = outcome.firstOwnFailure();
            if (f != null) {
                say("rank " + f.rank() + " failed: " + f.failure());
                f.failure().printStackTrace(err);
                return EXIT_FAILURE;
            }
            if (outcome.timedOut()) {
                say("the job timed out after " + Durations.format(o.timeout()) + "; ranks still running: "
                        + outcome.stillRunning().stream().map(String::valueOf).collect(Collectors.joining(", ")));
                return EXIT_TIMEOUT;
            }
            return 0;
        } finally {
            if (taggedOut != null) {
                System.setOut(stdout);
                System.setErr(stderr);
            }
            ShmFiles.deleteTree(job.dir());
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook removes the directory
            }
        }
    }

    private static byte[] threadPrefix() {
        Integer rank = RANK_OF_THREAD.get();
        return rank == null ? new byte[0] : TaggedOutput.prefix(rank);
    }

    /**
     * Calls the program's entry point as the {@code java} launcher would: {@code static main(String[])},
     * else {@code static main()}, else the instance forms of Java 25's instance main methods.
     */
    static void invokeMain(Class<?> cls, String[] args) throws Throwable {
        Method m = findMain(cls);
        if (m == null) {
            throw new UsageException("the class " + cls.getName() + " has no main method: give it"
                    + " public static void main(String[] args)");
        }
        m.setAccessible(true);
        Object self = null;
        if (!Modifier.isStatic(m.getModifiers())) {
            var ctor = cls.getDeclaredConstructor();
            ctor.setAccessible(true);
            self = ctor.newInstance();
        }
        try {
            if (m.getParameterCount() == 1) {
                m.invoke(self, (Object) args);
            } else {
                m.invoke(self);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Method findMain(Class<?> cls) {
        // The java launcher's order of preference (JEP 512).
        for (boolean wantStatic : new boolean[] {true, false}) {
            for (boolean wantArgs : new boolean[] {true, false}) {
                for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
                    for (Method m : c.getDeclaredMethods()) {
                        boolean args = m.getParameterCount() == 1 && m.getParameterTypes()[0] == String[].class;
                        if (m.getName().equals("main") && m.getReturnType() == void.class
                                && !Modifier.isPrivate(m.getModifiers())
                                && Modifier.isStatic(m.getModifiers()) == wantStatic
                                && (wantArgs ? args : m.getParameterCount() == 0)) {
                            return m;
                        }
                    }
                }
            }
        }
        return null;
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
