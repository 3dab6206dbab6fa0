package io.tutti;

import io.tutti.bootstrap.Bootstrap;
import io.tutti.bootstrap.JobInfo;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.p2p.Engine;

/**
 * Entry point: {@code Tutti.init(args)} joins the job the process (or thread) was started in, and
 * {@link #close()} leaves it (MPI_Init and MPI_Finalize). Works under {@code tutti run}, Slurm,
 * Open MPI's and MPICH's launchers (with {@code TUTTI_KVS_DIR}), or alone as a job of one rank.
 *
 * <pre>{@code
 * try (Tutti tutti = Tutti.init(args)) {
 *     Communicator world = tutti.world();
 *     ...
 * }
 * }</pre>
 */
public final class Tutti implements AutoCloseable {
    private final Engine engine;
    private final Communicator world;
    private final JobInfo job;
    private final io.tutti.coll.Selector algorithms;
    private int nextContext = 2;

    private Tutti(JobInfo job, Config config) {
        this.job = job;
        this.algorithms = new io.tutti.coll.Selector(java.util.Map.copyOf(LaunchEnvironment.current()));
        io.tutti.p2p.P2pConfig p2p = io.tutti.p2p.P2pConfig.from(config);
        this.engine = new Engine(new io.tutti.bootstrap.Node(job, config, java.time.Duration.ofSeconds(p2p.rendezvousSeconds())),
                p2p);
        int[] all = new int[job.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        this.world = new Communicator(this, engine, 0, all);
    }

    /** Joins the job with the configuration from the environment and system properties. */
    public static Tutti init(String[] args) {
        return init(Config.defaults());
    }

    /**
     * Joins the job with {@code config}'s settings over those of the environment and the system
     * properties.
     */
    public static Tutti init(Config config) {
        config = Config.from(LaunchEnvironment.current(), System.getProperties()).with(config);
        JobInfo job;
        try {
            job = Bootstrap.detect(LaunchEnvironment.current());
        } catch (IllegalStateException e) {
            throw new TuttiException.Startup(e.getMessage(), e);
        }
        Tutti tutti = new Tutti(job, config);
        watchLauncher(job);
        return tutti;
    }

    /**
     * A rank whose launcher has died (killed with SIGKILL, so it could not stop its ranks) ends
     * itself: nobody else would, and its peers are being stopped or are gone already.
     */
    private static void watchLauncher(JobInfo job) {
        if (job.threads() || job.launcherPid() <= 0) {
            return;
        }
        ProcessHandle.of(job.launcherPid()).ifPresentOrElse(
                launcher -> launcher.onExit().thenRun(() -> orphaned(job)),
                () -> orphaned(job));
    }

    private static void orphaned(JobInfo job) {
        System.err.println("tutti: rank " + job.rank() + " stops: its launcher (pid " + job.launcherPid()
                + ") has died");
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    /** All ranks of the job. */
    public Communicator world() {
        checkOpen();
        return world;
    }

    /** What the launcher said about this job (rank, size, node, launcher kind). */
    public JobInfo job() {
        return job;
    }

    /** Drives communication once without blocking; useful in compute loops with requests in flight. */
    public int progress() {
        checkOpen();
        return engine.progress();
    }

    /** Leaves the job: flushes queued messages, unmaps and removes this rank's shared memory. */
    @Override
    public void close() {
        if (!engine.isClosed()) {
            io.tutti.coll.inc.InNetworkGroup.releaseAll(engine);
        }
        engine.close();
    }

    /** The same as {@link #close()}, under MPI's name. */
    public void finish() {
        close();
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return engine.isClosed();
    }

    /** The engine, for the benchmark and test harnesses. */
    public Engine engine() {
        return engine;
    }

    io.tutti.coll.Selector algorithms() {
        return algorithms;
    }

    /** Pretends each run of this many consecutive world ranks is a node (tests, benchmarks); 0 = by host. */
    public static final String TOPOLOGY_NODE_SIZE = "TUTTI_TOPOLOGY_NODE_SIZE";
    /** Pretends each node has this many sockets, its ranks split evenly in rank order; 0 = from /sys. */
    public static final String TOPOLOGY_SOCKETS = "TUTTI_TOPOLOGY_SOCKETS";

    /** Where the ranks of {@code group} (world ranks) run, with the overrides above applied. */
    io.tutti.coll.schedule.Topology topologyOf(int[] group) {
        java.util.Map<String, String> env = LaunchEnvironment.current();
        int nodeSize = setting(env, TOPOLOGY_NODE_SIZE);
        int sockets = setting(env, TOPOLOGY_SOCKETS);
        int[] node = new int[group.length];
        int[] socket = new int[group.length];
        for (int i = 0; i < group.length; i++) {
            int w = group[i];
            node[i] = nodeSize > 0 ? w / nodeSize : engine.nodeOf(w);
            if (sockets > 0) {
                int perNode = nodeSize > 0 ? Math.min(nodeSize, job.size() - node[i] * nodeSize) : job.localSize();
                int local = nodeSize > 0 ? w % nodeSize : w % Math.max(1, job.localSize());
                socket[i] = local * sockets / Math.max(1, perNode);
            } else {
                socket[i] = engine.packageOf(w);
            }
        }
        int perNode = nodeSize > 0 ? nodeSize : job.localSize();
        boolean sharedMemory = true;
        for (int w : group) {
            sharedMemory &= engine.sharesMemoryWith(w);
        }
        return new io.tutti.coll.schedule.Topology(node, socket, perNode > Runtime.getRuntime().availableProcessors(),
                sharedMemory);
    }

    private static int setting(java.util.Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return 0;
        }
        try {
            int x = Integer.parseInt(v.trim());
            if (x >= 0) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new TuttiException.InvalidArgument(name + " must be a whole number >= 0, got '" + v + "'");
    }

    int nextContext() {
        return nextContext;
    }

    void contextUsed(int context) {
        nextContext = Math.max(nextContext, context + 2);
    }

    private void checkOpen() {
        if (engine.isClosed()) {
            throw new TuttiException.NotActive("Tutti has been closed on rank " + job.rank()
                    + "; create a new instance with Tutti.init to communicate again");
        }
    }

}
