package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.RankMain;
import io.tutti.os.Platform;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How a rank process is started and stopped: the command line of its JVM, its launch environment,
 * the polite-then-forcible stop, and the words for how it ended.
 */
final class RankProcesses {
    /** How long stopped ranks get to run their shutdown hooks before they are killed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(2);

    private static final String[] SIGNALS = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
        "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM",
        "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

    private RankProcesses() {
    }

    /** Whether a process's exit code is 128 + a signal's number: it was killed. */
    static boolean killedBySignal(int code) {
        int signal = code - 128;
        return signal > 0 && signal < SIGNALS.length;
    }

    /** {@code exited with code 3}, or {@code was killed by signal 9 (SIGKILL)} for 128 + signal. */
    static String describeExit(int code) {
        int signal = code - 128;
        if (killedBySignal(code)) {
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
    static List<String> command(Launcher.Options o, JobTarget target) {
        return command(o, target, false, null);
    }

    /**
     * The command line of a rank JVM; with {@code secretOnStdin} the program runs behind
     * {@link RankMain}, which takes the job secret off standard input before the program can read it.
     * With the start-up cache {@code aotCache} ({@link StartupCache}; null for none) Tutti's jars lead
     * the class path, as the cache requires; the JVM ignores an unusable cache silently.
     */
    static List<String> command(Launcher.Options o, JobTarget target, boolean secretOnStdin, Path aotCache) {
        return command(o, target, secretOnStdin, aotCache, false);
    }

    /**
     * As above; with {@code hostThreads} the command of the JVM that runs one host's ranks as threads
     * ({@link HostThreads}): the program's classes stay off its class path and are named to it, so
     * that each rank loads them for itself.
     */
    static List<String> command(Launcher.Options o, JobTarget target, boolean secretOnStdin, Path aotCache,
                                boolean hostThreads) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(Platform.JAVA_HOME, "bin", "java").toString());
        cmd.addAll(StartupCache.jvmFlags());
        List<String> lead = aotCache == null ? List.of() : StartupCache.tuttiJars();
        if (aotCache != null) {
            cmd.add("-XX:AOTCache=" + aotCache);
            cmd.add("-Xlog:aot=off,cds=off");
        }
        // The environment first, so that the command line's --jvm-opt can override it.
        String envOpts = LaunchEnvironment.current().get(LaunchEnvironment.JVM_OPTS);
        if (envOpts != null) {
            for (String opt : envOpts.trim().split("\\s+")) {
                if (!opt.isEmpty()) {
                    cmd.add(opt);
                }
            }
        }
        cmd.addAll(o.jvmOptions());
        StringBuilder cp = new StringBuilder();
        for (String jar : lead) {
            cp.append(jar).append(File.pathSeparator);
        }
        String program = (target.classes() != null ? target.classes() + File.pathSeparator : "") + o.classpath();
        if (!hostThreads) {
            cp.append(program);
        }
        String own = lead.isEmpty() ? Platform.CLASS_PATH : java.util.Arrays.stream(
                Platform.CLASS_PATH.split(File.pathSeparator)).filter(e -> !lead.contains(e))
                .collect(java.util.stream.Collectors.joining(File.pathSeparator));
        if (!own.isEmpty()) {
            cp.append(cp.isEmpty() || cp.toString().endsWith(File.pathSeparator) ? "" : File.pathSeparator).append(own);
        }
        cmd.add("-cp");
        cmd.add(cp.toString());
        if (hostThreads) {
            cmd.add(HostThreads.class.getName());
            if (o.tagOutput()) {
                cmd.add("--tag-output");
            }
            cmd.add(program);
        } else if (secretOnStdin) {
            cmd.add(RankMain.class.getName());
        }
        cmd.add(target.mainClass());
        cmd.addAll(o.args());
        return cmd;
    }

    /**
     * The launch environment of one rank process (names from {@link LaunchEnvironment}): who it is,
     * where the launcher's rendezvous is, and the job secret, in the environment or, with
     * {@code secretOnStdin}, announced there and written by the launcher as the first line of the
     * rank's standard input (a remote shell's command line, which carries the environment, is
     * public). The rank makes the job directory on its own host.
     */
    static void environment(Map<String, String> env, JobDirectory job, int rank, int size, String rendezvous,
                            boolean secretOnStdin) {
        // Inherited from a launcher that itself runs inside a job, these would mislead the rank.
        for (String stale : List.of(LaunchEnvironment.THREADS, LaunchEnvironment.JOB_DIR, LaunchEnvironment.KVS_DIR,
                LaunchEnvironment.SECRET_FILE, LaunchEnvironment.LAUNCHER_PID, LaunchEnvironment.SECRET,
                LaunchEnvironment.SECRET_STDIN, LaunchEnvironment.CLASSES_STDIN)) {
            env.remove(stale);
        }
        env.put(LaunchEnvironment.JOB_ID, job.id());
        env.put(LaunchEnvironment.RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.LOCAL_SIZE, Integer.toString(size));
        env.put(LaunchEnvironment.NODE_ID, "0");
        env.put(LaunchEnvironment.RENDEZVOUS, rendezvous);
        if (secretOnStdin) {
            env.put(LaunchEnvironment.SECRET_STDIN, "1");
        } else {
            env.put(LaunchEnvironment.SECRET, HexFormat.of().formatHex(job.secret()));
        }
    }

    /** The first line of a rank's standard input when {@code secretOnStdin}. */
    static byte[] secretLine(JobDirectory job) {
        return (HexFormat.of().formatHex(job.secret()) + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
