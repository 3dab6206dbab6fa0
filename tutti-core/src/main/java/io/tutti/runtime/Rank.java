package io.tutti.runtime;

import io.tutti.Communicator;
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
 * {@code Tutti}.
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
        this.engine = new Engine(new Node(job, settings, Duration.ofSeconds(p2p.rendezvousSeconds())), p2p,
                CountersConfig.from(settings), operations);
        int[] all = new int[job.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        this.world = new RankCommunicator(this, engine, 0, all);
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
