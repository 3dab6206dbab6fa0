package io.tutti.runtime;

import io.tutti.Communicator;
import io.tutti.Intercommunicator;
import io.tutti.Config;
import io.tutti.Metrics;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.JobControl;
import io.tutti.bootstrap.JobInfo;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.Node;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.coll.CollConfig;
import io.tutti.coll.Selector;
import io.tutti.coll.inc.InNetworkGroup;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Topology;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersConfig;
import io.tutti.offload.OffloadConfig;
import io.tutti.p2p.Engine;
import io.tutti.p2p.P2pConfig;
import io.tutti.rma.RmaConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One rank of a job under the API: its {@link Node} (the job's wiring), {@link Engine} and
 * collective {@link Selector}, built once from the job's settings, and the world communicator.
 * {@link #of(Tutti)} gives the benchmark and test harnesses the engine and the job behind a
 * {@code Tutti}. A spawned job ({@link JobInfo#parents()}) is one engine for parents and new
 * processes alike: the world of each side is its own group, and {@link #bridge} joins the two; a
 * parent's rank in it lives beside the parent's own job, which closes it ({@link #spawnJob}).
 */
public final class Rank extends Tutti {
    private final JobInfo job;
    private final Config settings;
    private final Engine engine;
    private final CollConfig coll;
    private final OffloadConfig offload;
    private final RmaConfig rma;
    private final Selector selector;
    private final Communicator world;
    /** In a spawned job, the intercommunicator from this side's world to the other's; else null. */
    private final Intercommunicator bridge;
    private final Node node;
    /** The ranks this one holds in jobs it spawned or joined at a port, closed before it ({@link #join}). */
    private final List<Rank> spawned = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Whether this rank is a thread of a JVM that runs several ({@link ThreadLauncher}); fixed at init. */
    private final boolean rankThread = LaunchEnvironment.inRankThread();
    private int nextContext = 2;

    Rank(JobInfo job, Config settings) {
        this.job = job;
        this.settings = settings;
        this.coll = CollConfig.from(settings);
        this.offload = OffloadConfig.from(settings);
        this.rma = RmaConfig.from(settings);
        this.selector = new Selector(coll);
        P2pConfig p2p = P2pConfig.from(settings);
        List<Counters.Operation> operations = new ArrayList<>();
        for (CollectiveCall.Kind k : CollectiveCall.Kind.values()) {
            operations.add(new Counters.Operation(k.settingName(), Selector.counted(k)));
        }
        this.node = new Node(job, settings, Duration.ofSeconds(p2p.rendezvousSeconds()));
        try {
            this.engine = new Engine(node, p2p, CountersConfig.from(settings), operations);
        } catch (RuntimeException | Error e) {
            // says goodbye to the launcher: a spawning rank whose join failed goes on in its own job
            node.close();
            throw e;
        }
        int parents = job.parents();
        if (parents == 0) {
            this.world = new RankCommunicator(this, engine, 0, range(0, job.size()));
            this.bridge = null;
        } else {
            int[] mine = job.spawned() ? range(parents, job.size()) : range(0, parents);
            int[] theirs = job.spawned() ? range(0, parents) : range(parents, job.size());
            this.world = new RankCommunicator(this, engine, 0, mine);
            this.bridge = new RankIntercommunicator(this, engine, BRIDGE_CONTEXT, mine, theirs);
            contextUsed(BRIDGE_CONTEXT + 2); // and the context of its local group
        }
    }

    /** How often a rank joining a spawned or joined job drives its own engine: the join takes a JVM's start-up. */
    private static final long JOIN_POLL_NANOS = 200_000;

    /** The context of a spawned job's intercommunicator between parents and new processes. */
    private static final int BRIDGE_CONTEXT = 2;

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    /**
     * Asks the launcher for the processes of {@code programs}, in a job with {@code parents}
     * spawning ranks: the launcher's answer (job id, a newline, addresses), or "!" and why it could not.
     */
    String requestSpawn(List<Communicator.Program> programs, int parents) {
        try {
            return node.spawn(programs, parents);
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            return "!" + e.getMessage();
        }
    }

    /**
     * Joins the job the launcher spawned ({@code answer} from {@link #requestSpawn}) as its rank
     * {@code rank} of {@code parents}, and returns the intercommunicator to its new processes.
     */
    Intercommunicator spawnJob(String answer, int rank, int parents, int count) {
        int newline = answer.indexOf('\n');
        String id = answer.substring(0, newline);
        return join(id, answer.substring(newline + 1), io.tutti.bootstrap.RendezvousWire.spawnSecret(job.secret(), id),
                rank, parents, parents + count);
    }

    /**
     * Asks the launcher for port or name operation {@code operation}: its answer; "?" and why when
     * the launcher refused it (a wrong port or name), "!" and why when this job cannot ask.
     */
    String requestPort(String operation, String... args) {
        try {
            return node.port(operation, args);
        } catch (UnsupportedOperationException | java.util.concurrent.TimeoutException e) {
            return "!" + e.getMessage();
        } catch (RuntimeException e) {
            return "?" + e.getMessage();
        }
    }

    /** {@link #requestPort} for a call of this rank alone: the answer, or the exception it stands for. */
    private String port(String operation, String... args) {
        checkOpen();
        String answer = requestPort(operation, args);
        if (answer.startsWith("!")) {
            throw new TuttiException.Unsupported(operation + " failed: " + answer.substring(1));
        }
        if (answer.startsWith("?")) {
            throw new TuttiException.InvalidArgument(answer.substring(1));
        }
        return answer;
    }

    @Override
    public String openPort() {
        return port("open");
    }

    @Override
    public void closePort(String port) {
        port("close", java.util.Objects.requireNonNull(port, "port"));
    }

    @Override
    public void publishName(String service, String port) {
        port("publish", java.util.Objects.requireNonNull(service, "service"), java.util.Objects.requireNonNull(port, "port"));
    }

    @Override
    public String lookupName(String service) {
        return port("lookup", java.util.Objects.requireNonNull(service, "service"));
    }

    @Override
    public void unpublishName(String service, String port) {
        port("unpublish", java.util.Objects.requireNonNull(service, "service"), java.util.Objects.requireNonNull(port, "port"));
    }

    /**
     * Joins the job where an accept and a connect met ({@code answer} from {@link #requestPort}: its
     * id, addresses, secret sealed with this job's, and the two groups' sizes, accepting first) as
     * the rank of its group's rank {@code rank}; returns the intercommunicator to the other group.
     */
    Intercommunicator joinPort(String answer, int rank, boolean accepting) {
        io.tutti.bootstrap.RendezvousWire.Meeting m;
        try {
            m = io.tutti.bootstrap.RendezvousWire.Meeting.parse(answer);
        } catch (IllegalArgumentException e) {
            throw new TuttiException.Startup("the launcher's answer to a port's meeting is malformed", e);
        }
        return join(m.id(), m.addresses(), m.secret(job.secret()), accepting ? rank : m.acceptors() + rank,
                m.acceptors(), m.acceptors() + m.connectors());
    }

    /**
     * Joins job {@code id} at {@code addresses} as its rank {@code rank} of {@code size}, whose first
     * {@code parents} ranks are one side, bound to nothing (this process is bound already), and returns
     * the intercommunicator to the other side. The rank lives until this one closes. It joins on a
     * thread of its own while this one drives this rank's engine: over the rails the answer this rank
     * sent the others may still be on its way, and nobody else would send it.
     */
    private Intercommunicator join(String id, String addresses, byte[] secret, int rank, int parents, int size) {
        java.nio.file.Path dir = io.tutti.bootstrap.ShmFiles.defaultRoot().resolve("tutti-" + id);
        JobInfo joined = new JobInfo(JobInfo.Launcher.TUTTI, id, rank, size, rank, size,
                job.nodeId(), dir, dir.resolve("kvs"), null, job.launcherPid(), false, List.of(addresses.split(",")),
                secret, parents);
        java.util.concurrent.FutureTask<Rank> joining = new java.util.concurrent.FutureTask<>(
                () -> new Rank(joined, settings.with(io.tutti.bootstrap.Binding.PROPERTY, "none")));
        Thread.ofPlatform().daemon().name("tutti-join").start(joining);
        while (!joining.isDone()) {
            engine.progress();
            java.util.concurrent.locks.LockSupport.parkNanos(JOIN_POLL_NANOS);
        }
        Rank r;
        try {
            r = joining.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re
                    : new TuttiException.Startup("rank " + rank + " cannot join job " + id + ": "
                    + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TuttiException.Startup("interrupted while joining job " + id, e);
        }
        spawned.add(r);
        // each job's waits drive the other's engine: over the rails nobody else moves what it queued
        engine.alsoDrive(r.engine);
        r.engine.alsoDrive(engine);
        return r.bridge;
    }

    @Override
    public Intercommunicator parent() {
        checkOpen();
        return job.spawned() ? bridge : null;
    }

    /** The rank behind {@code tutti} (every {@code Tutti} is one). */
    public static Rank of(Tutti tutti) {
        return (Rank) tutti;
    }

    @Override
    public Communicator world() {
        checkOpen();
        return world;
    }

    /** What the launcher said about this job (rank, size, node, launcher kind, secret). */
    public JobInfo job() {
        return job;
    }

    /** The point-to-point engine, for the benchmark and test harnesses. */
    public Engine engine() {
        return engine;
    }

    /** The job's settings, as read at init. */
    public Config settings() {
        return settings;
    }

    @Override
    public Metrics metrics() {
        checkOpen();
        return engine.counters().snapshot();
    }

    @Override
    public int progress() {
        checkOpen();
        return engine.progress();
    }

    @Override
    public void close() {
        for (Rank r : spawned) {
            engine.stopDriving(r.engine);
            r.engine.stopDriving(engine);
            r.close();
        }
        if (!engine.isClosed()) {
            InNetworkGroup.releaseAll(engine);
        }
        engine.close();
        RankProvider.closed(job);
    }

    @Override
    public boolean isClosed() {
        return engine.isClosed();
    }

    @Override
    public void abort(int status) {
        System.out.flush();
        System.err.flush();
        if (rankThread) {
            // System.exit would end the JVM's other ranks with it, before their launcher could say why
            JobControl.exit(job.rank(), status);
        }
        System.exit(status);
    }

    /** The collectives' settings. */
    CollConfig collConfig() {
        return coll;
    }

    Selector selector() {
        return selector;
    }

    /** Where the ranks of {@code group} (world ranks) run, with the topology overrides of {@link CollConfig} applied. */
    Topology topologyOf(int[] group) {
        int nodeSize = coll.nodeSize();
        int sockets = coll.sockets();
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
        return new Topology(node, socket, perNode > Runtime.getRuntime().availableProcessors(), sharedMemory);
    }

    /** The offloaded collectives' settings. */
    OffloadConfig offloadConfig() {
        return offload;
    }

    /** The one-sided settings. */
    RmaConfig rmaConfig() {
        return rma;
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
                    + "; no communication is possible after close(), and Tutti.init is refused after it");
        }
    }
}
