package io.tutti;

import java.util.ServiceLoader;

/**
 * Entry point: {@code Tutti.init(args)} joins the job the process (or thread) was started in, and
 * {@link #close()} leaves it (MPI_Init and MPI_Finalize). Works under {@code tutti run}, Slurm's
 * {@code srun}, Open MPI's {@code mpirun} and MPICH's {@code mpiexec}, or alone as a job of one rank.
 *
 * <pre>{@code
 * try (Tutti tutti = Tutti.init(args)) {
 *     Communicator world = tutti.world();
 *     ...
 * }
 * }</pre>
 *
 * <p>The runtime behind it ({@code io.tutti.runtime}, in the same library) is found with
 * {@link ServiceLoader}, so that this package, which every layer imports, imports none of them.
 */
public abstract class Tutti implements AutoCloseable {
    /** For the runtime; programs get an instance from {@link #init}. */
    protected Tutti() {
    }

    /** Joins the job with the settings of the environment and the system properties. */
    public static Tutti init(String[] args) {
        return init(Config.defaults());
    }

    /**
     * Joins the job with {@code config}'s settings over those of the environment ({@code TUTTI_*})
     * and the system properties ({@code tutti.*}).
     */
    public static Tutti init(Config config) {
        return provider().start(config);
    }

    /** All ranks of the job. */
    public abstract Communicator world();

    /**
     * In a process started by {@link Communicator#spawn}: the intercommunicator to the ranks that
     * spawned it (its remote group), whose local group is {@link #world()}; null in any other process
     * (MPI_COMM_GET_PARENT).
     */
    public abstract Intercommunicator parent();

    /**
     * Opens a port (MPI_OPEN_PORT): a name that {@link Communicator#accept} and
     * {@link Communicator#connect} meet at, for a job of this {@code tutti run} (its ranks and the
     * jobs they spawned or joined). Needs {@code tutti run} with a JVM per rank.
     *
     * @throws TuttiException.Unsupported where this job's launcher cannot serve ports
     */
    public abstract String openPort();

    /** Closes {@code port} (MPI_CLOSE_PORT): an accept or connect still waiting on it fails. */
    public abstract void closePort(String port);

    /**
     * Publishes {@code port} under {@code service} (MPI_PUBLISH_NAME), for {@link #lookupName} in
     * any job of this {@code tutti run}.
     *
     * @throws TuttiException.InvalidArgument when {@code service} is published already
     */
    public abstract void publishName(String service, String port);

    /**
     * The port published under {@code service} (MPI_LOOKUP_NAME).
     *
     * @throws TuttiException.InvalidArgument when none is
     */
    public abstract String lookupName(String service);

    /** Withdraws {@code service}, published as {@code port} (MPI_UNPUBLISH_NAME). */
    public abstract void unpublishName(String service, String port);

    /** Drives communication once without blocking; useful in compute loops with requests in flight. */
    public abstract int progress();

    /**
     * A snapshot of this rank's counters: messages and bytes by transport and peer, collectives,
     * rails, errors, and the call it is blocked in (none, from its own thread). The same values
     * {@code tutti status} reads from outside while the job runs. Allocates; not for a hot loop.
     */
    public abstract Metrics metrics();

    /** Leaves the job: flushes queued messages, unmaps and removes this rank's shared memory. */
    @Override
    public abstract void close();

    /** The same as {@link #close()}, under MPI's name. */
    public final void finish() {
        close();
    }

    /** Whether {@link #close()} has run. */
    public abstract boolean isClosed();

    /**
     * Ends this rank with exit status {@code status}, and with it the job (MPI_ABORT): the launcher
     * names the rank and stops the others, as when a rank's JVM exits with that status. A rank JVM
     * exits; a rank that is a thread ({@code tutti run --threads}) stops where it is and its launcher
     * ends the job, so that its exit does not take the JVM's other ranks down unreported. Never returns.
     */
    public abstract void abort(int status);

    /** What {@link #init} starts a rank with: the runtime, found with {@link ServiceLoader}. */
    public interface Provider {
        /** Joins the job with {@code program}'s settings over those of the environment and system properties. */
        Tutti start(Config program);
    }

    private static volatile Provider provider;

    /** The provider, looked up once, in the class loader that loaded this API. */
    private static Provider provider() {
        Provider p = provider;
        if (p == null) {
            for (Provider found : ServiceLoader.load(Provider.class, Tutti.class.getClassLoader())) {
                provider = p = found;
                break;
            }
            if (p == null) {
                throw new TuttiException.Startup("no Tutti runtime was found next to the API: the tutti-core jar on"
                        + " the class path is incomplete (it carries META-INF/services/io.tutti.Tutti$Provider)", null);
            }
        }
        return p;
    }
}
