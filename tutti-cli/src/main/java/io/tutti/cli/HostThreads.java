package io.tutti.cli;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ShippedClasses;
import io.tutti.bootstrap.StdinSecret;
import io.tutti.bootstrap.ThreadLauncher;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The main class of the JVM that runs one host's ranks as threads ({@code tutti run --threads} with
 * hosts): started by the launcher as a rank JVM would be, it runs the {@code TUTTI_THREAD_RANKS}
 * ranks from {@code TUTTI_RANK} on ({@link RankThreads}), and each meets the job's rendezvous with
 * the environment a rank JVM of its own would have had. So the JVM and its JIT start once per host.
 *
 * <p>Its exit code is the job's word for its ranks: 0 when all returned; 1 as soon as one threw
 * (named on standard error; the host's other ranks end with the JVM, as a rank JVM ends with its
 * uncaught exception); a rank's own {@code System.exit} code, which ends every rank of the host, or
 * the status a rank gave {@code Tutti.abort} (named on standard error). Arguments:
 * {@code [--tag-output] CLASSPATH MAIN_CLASS [ARGS...]}, the class path the program's own.
 */
public final class HostThreads {
    private HostThreads() {
    }

    public static void main(String[] args) {
        PrintStream err = System.err;
        try {
            System.exit(run(args, LaunchEnvironment.current(), err));
        } catch (RuntimeException e) {
            err.println("tutti run: the ranks of this host could not start: " + e.getMessage());
            System.exit(Launcher.EXIT_FAILURE);
        }
    }

    static int run(String[] args, Map<String, String> env, PrintStream err) {
        boolean tag = args.length > 0 && args[0].equals("--tag-output");
        int at = tag ? 1 : 0;
        if (args.length < at + 2) {
            throw new IllegalArgumentException("HostThreads takes [--tag-output] CLASSPATH MAIN_CLASS [ARGS...]; it is"
                    + " started by tutti run --threads");
        }
        int first = number(env, LaunchEnvironment.RANK);
        int count = number(env, LaunchEnvironment.THREAD_RANKS);
        int localFirst = Integer.parseInt(env.getOrDefault(LaunchEnvironment.LOCAL_RANK, "0"));
        Map<String, String> common = new HashMap<>(env);
        common.remove(LaunchEnvironment.THREAD_RANKS);
        // Standard input first: the secret, then the classes of a program compiled on the launcher's host.
        if ("1".equals(env.get(LaunchEnvironment.SECRET_STDIN))) {
            common.remove(LaunchEnvironment.SECRET_STDIN);
            common.put(LaunchEnvironment.SECRET, HexFormat.of().formatHex(StdinSecret.get()));
        }
        UnaryOperator<ClassLoader> parentOf = UnaryOperator.identity();
        String shipped = common.remove(LaunchEnvironment.CLASSES_STDIN);
        if (shipped != null) {
            parentOf = ShippedClasses.perRankFromStdin(Long.parseLong(shipped.strip()));
        }
        int[] ranks = new int[count];
        Arrays.setAll(ranks, i -> first + i);
        try (RankThreads threads = new RankThreads(System.out, err, tag, false)) {
            ThreadLauncher.RankBody program = threads.body(JobTarget.urls(args[at], null),
                    HostThreads.class.getClassLoader(), parentOf, args[at + 1],
                    Arrays.copyOfRange(args, at + 2, args.length));
            // a rank that throws ends its host's JVM at once, as it would end a rank JVM of its own
            ThreadLauncher.RankBody body = rank -> {
                try {
                    program.run(rank);
                } catch (Throwable t) {
                    failed(rank, t, err);
                }
            };
            ThreadLauncher.Outcome outcome = ThreadLauncher.run(ranks, null, body, rank -> {
                Map<String, String> own = new HashMap<>(common);
                own.put(LaunchEnvironment.RANK, Integer.toString(rank));
                own.put(LaunchEnvironment.LOCAL_RANK, Integer.toString(localFirst + rank - first));
                return own;
            });
            // a rank that ended the job with a status (Tutti.abort) ends its host's JVM with it
            ThreadLauncher.RankResult f = outcome.firstFailure();
            if (f != null && f.failure() instanceof ThreadLauncher.Exited exited) {
                err.println("tutti run: rank " + f.rank() + " " + RankProcesses.describeExit(exited.status()));
                err.flush();
                return exited.status();
            }
        }
        return 0;
    }

    /** Names the first rank that threw, with its stack, and ends the JVM with 1: its other ranks go with it. */
    private static synchronized void failed(int rank, Throwable error, PrintStream err) {
        err.println("tutti run: rank " + rank + " failed: " + error);
        error.printStackTrace(err);
        err.flush();
        System.exit(Launcher.EXIT_FAILURE);
    }

    private static int number(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null) {
            throw new IllegalArgumentException(name + " is not set; HostThreads is started by tutti run --threads");
        }
        return Integer.parseInt(v.strip());
    }
}
