package io.tutti.bootstrap;

import java.util.Map;

/**
 * The environment variables {@code tutti run} hands to every rank, and the one place that reads the
 * environment: ranks started as threads of one JVM see their own variables through a scoped binding.
 */
public final class LaunchEnvironment {
    /**
     * The positive whole number setting {@code name} of {@code settings}, or {@code fallback} when
     * it is absent or blank; anything else fails with a message that names the setting and says it
     * must be {@code what} (e.g. "a positive whole number").
     */
    public static long positive(Map<String, String> settings, String name, long fallback, String what) {
        String v = settings.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            long x = Long.parseLong(v.trim());
            if (x > 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new io.tutti.TuttiException.InvalidArgument(name + " must be " + what + ", got '" + v + "'");
    }

    public static final String JOB_ID = "TUTTI_JOB_ID";
    public static final String RANK = "TUTTI_RANK";
    public static final String SIZE = "TUTTI_SIZE";
    public static final String LOCAL_RANK = "TUTTI_LOCAL_RANK";
    public static final String LOCAL_SIZE = "TUTTI_LOCAL_SIZE";
    public static final String NODE_ID = "TUTTI_NODE_ID";
    public static final String JOB_DIR = "TUTTI_JOB_DIR";
    public static final String KVS_DIR = "TUTTI_KVS_DIR";
    public static final String SECRET_FILE = "TUTTI_SECRET_FILE";
    public static final String LAUNCHER_PID = "TUTTI_LAUNCHER_PID";
    /** Where the launcher serves the rendezvous: {@code unix:/path} and/or {@code tcp:host:port}, comma separated. */
    public static final String RENDEZVOUS = "TUTTI_RENDEZVOUS";
    /** The job secret in hex, for ranks started with the launcher's environment (never on a command line). */
    public static final String SECRET = "TUTTI_SECRET";
    /** "1" when the job secret comes as the first line of standard input (ranks started through a remote shell). */
    public static final String SECRET_STDIN = "TUTTI_SECRET_STDIN";
    /**
     * The length of a jar of the program's classes that follows the secret on standard input: a
     * program {@code tutti run} compiled from a source file, for a rank on another host.
     */
    public static final String CLASSES_STDIN = "TUTTI_CLASSES_STDIN";
    /**
     * Set for the ranks of a spawned job ({@code Communicator.spawn}): how many of its ranks, from 0,
     * are the spawning parents, which joined it from their own job; the ranks after them are the
     * new processes, whose world they are.
     */
    public static final String PARENTS = "TUTTI_PARENTS";
    /** The launcher's name for the host a rank runs on; ranks with the same name share memory. */
    public static final String HOST = "TUTTI_HOST";
    /** Set by the launcher when ranks run as threads of its JVM. */
    public static final String THREADS = "TUTTI_THREADS";
    /**
     * Set by the launcher for the JVM that runs one host's ranks as threads ({@code tutti run --threads}
     * across hosts): how many consecutive ranks, from {@code TUTTI_RANK} on, it runs. Each thread then
     * sees the environment a rank JVM of its own would have had.
     */
    public static final String THREAD_RANKS = "TUTTI_THREAD_RANKS";
    /** The PMIx client library to load under a PMIx launcher (Open MPI's mpirun), when not {@code libpmix.so.2}. */
    public static final String PMIX_LIBRARY = "TUTTI_PMIX_LIBRARY";
    /** Read by the launcher: options for every rank JVM, split on spaces, before its {@code --jvm-opt}s. */
    public static final String JVM_OPTS = "TUTTI_JVM_OPTS";

    /** Per-rank environment for ranks that run as threads; unbound in ordinary processes. */
    public static final ScopedValue<Map<String, String>> RANK_ENVIRONMENT = ScopedValue.newInstance();

    /**
     * The environment of the {@link ThreadLauncher} rank thread a thread is, or was started from
     * (inherited, where a scoped value is not), so a thread the rank starts joins as that rank; null elsewhere.
     */
    private static final InheritableThreadLocal<Map<String, String>> OF_RANK_THREAD = new InheritableThreadLocal<>();

    private LaunchEnvironment() {
    }

    /**
     * The settings the environment and the system properties give the calling rank ({@code TUTTI_*}
     * variables, {@code tutti.*} properties over them); a program's own go over these.
     */
    public static io.tutti.Config settings() {
        return io.tutti.Config.from(current(), System.getProperties());
    }

    /** The environment of the calling rank. */
    public static Map<String, String> current() {
        if (RANK_ENVIRONMENT.isBound()) {
            return RANK_ENVIRONMENT.get();
        }
        Map<String, String> inherited = OF_RANK_THREAD.get();
        return inherited != null ? inherited : System.getenv();
    }

    /** Makes the calling thread a rank thread with {@code env}, for the threads it starts too ({@link ThreadLauncher}). */
    static void enterRankThread(Map<String, String> env) {
        OF_RANK_THREAD.set(env);
    }

    /** Whether the calling thread is a {@link ThreadLauncher} rank thread, or was started by one. */
    public static boolean inRankThread() {
        return OF_RANK_THREAD.get() != null;
    }
}
