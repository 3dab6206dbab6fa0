package io.tutti.bootstrap;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.os.CpuTopology;
import io.tutti.transport.Fabric;
import io.tutti.transport.KeyValueStore;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One rank's place in its job, wired from what the launcher said ({@link JobInfo}) and the job's
 * settings: the rendezvous store, the node's shared-memory directory and the files this rank
 * creates in it, the facts every rank publishes at start-up (pid, CPU package, and what places it on
 * a node: boot id, job directory's device and inode, host name), and the way to the network
 * transport. Under {@code tutti run} the store is the launcher's ({@link RendezvousClient}), whose
 * connection also tells the rank when its launcher has died. The engine uses it through
 * {@link Fabric} and never sees this class.
 */
public final class Node implements Fabric {
    private final JobInfo job;
    private final Config settings;
    private final String host;
    private final KeyValueStore kvs;
    /** This rank's record in its host's job directory; null for thread jobs, whose launcher owns it. */
    private final HostJobDirectory here;
    /** What tells ranks on one node from the others: boot id, job directory's device and inode, host name. */
    private final String nodeKey;
    private int localSize;
    /** The PMI-2 job this rank joined through its launcher, or null. */
    private final PmiJob pmi;
    private final Duration rendezvous;
    /** Files created through this node, removed at close. */
    private final List<String> created = new ArrayList<>();
    private int[] pids;
    private int[] packages;
    private int[] nodes;
    private boolean[] sameHost;
    /** Looked up once: ProcessHandle.of allocates, isAlive on a held handle does not. */
    private ProcessHandle[] processes;

    /**
     * @param settings   the job's settings: what the network transport reads its own from
     * @param rendezvous how long start-up waits for every rank to arrive
     */
    public Node(JobInfo job, Config settings, Duration rendezvous) {
        this.job = job;
        this.settings = settings;
        this.host = hostName();
        this.localSize = job.localSize();
        this.rendezvous = rendezvous;
        // Ranks record themselves in their host's job directory, and the last one removes it: under
        // tutti run's rendezvous and under foreign launchers; a thread job's launcher or a singleton owns it.
        boolean owned = job.threads() || job.launcher() == JobInfo.Launcher.SINGLETON
                || (job.launcher() == JobInfo.Launcher.TUTTI && job.rendezvous().isEmpty());
        if (owned) {
            ShmFiles.createJobDirectory(job.jobDir());
            this.here = null;
        } else {
            this.here = HostJobDirectory.join(job.jobDir(), job.rank());
            // a foreign launcher's rank may end without closing Tutti: its record goes with the JVM
            Runtime.getRuntime().addShutdownHook(new Thread(here::leave, "tutti-job-directory"));
        }
        this.nodeKey = nodeKey(job.jobDir(), host);
        this.pmi = job.rendezvous().isEmpty() ? PmiJob.of(job) : null;
        if (pmi != null) {
            this.kvs = pmi.store(rendezvous);
        } else if (job.rendezvous().isEmpty()) {
            this.kvs = new FileKeyValueStore(job.kvsDir(), job.rank(), job.size(), rendezvous,
                    () -> JobControl.abortReason() != null);
        } else {
            try {
                this.kvs = RendezvousClient.connect(job.rendezvous(), job.jobId(), job.rank(), job.secret(),
                        rendezvous, this::launcherLost);
            } catch (IOException e) {
                if (here != null) {
                    here.leave();
                }
                throw new TuttiException.Startup("rank " + job.rank() + " cannot join job " + job.jobId() + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /** Binds this thread as the job's binding says, first, so that the package it reports is the bound one. */
    private void bind() {
        Binding binding = Binding.from(settings);
        if (binding == Binding.NONE || job.threads()) {
            return;
        }
        if (binding.apply(job.localRank(), job.localSize()).isEmpty() && job.localRank() == 0) {
            System.err.println("tutti: " + Binding.PROPERTY + "=" + binding.name().toLowerCase(java.util.Locale.ROOT)
                    + " not applied on " + host + ": " + job.localSize() + " ranks here and "
                    + io.tutti.os.Affinity.allowed().size() + " processors allowed (ranks run unbound when they"
                    + " outnumber the cores, as with mpirun)");
        }
    }

    /**
     * Ranks share memory only when they share a kernel boot and the very same job directory (device
     * and inode), so hosts with a /dev/shm of their own never do; the launcher's host name may only
     * separate ranks further (network namespaces of one kernel standing for hosts).
     */
    private static String nodeKey(Path dir, String host) {
        String dev = "?";
        String ino = "?";
        try {
            dev = String.valueOf(Files.getAttribute(dir, "unix:dev"));
            ino = String.valueOf(Files.getAttribute(dir, "unix:ino"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // no unix view: the host name alone decides
        }
        return (HostJobDirectory.bootId() + "/" + dev + "/" + ino + "/" + host).replace(' ', '_');
    }

    /**
     * The launcher's connection ended without its goodbye: the launcher (or its host) has died, so
     * nobody would stop this rank. Its files go first, then the process, as a killed launcher's ranks
     * always have; thread jobs abort instead (their launcher is this JVM).
     */
    private void launcherLost(String why) {
        String message = "rank " + job.rank() + " stops: its launcher has died (" + why + ")";
        if (job.threads()) {
            JobControl.abort(message);
            return;
        }
        try {
            close();
        } catch (RuntimeException ignored) {
            // stopping anyway
        }
        HostJobDirectory.leaveAll(); // the other ranks of this JVM, when they are a host's threads
        System.err.println("tutti: " + message);
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    /**
     * The host this rank runs on, which decides who shares memory with whom: the launcher's name for
     * it ({@code TUTTI_HOST}, set for each host of a multi-host run, whose hosts may share one
     * kernel's host name, as network namespaces do), else the machine's host name.
     */
    private static String hostName() {
        String named = LaunchEnvironment.current().get(LaunchEnvironment.HOST);
        if (named != null && !named.isBlank()) {
            return named.trim().replace(' ', '_');
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /**
     * This host's address toward the job's other hosts, the rails' default: under tutti run the one
     * its rendezvous found; under srun, mpiexec or mpirun the address this host's name resolves to,
     * as cluster host names do, when it is one of this host's own and not a loopback; else null.
     */
    private String facing() {
        if (kvs instanceof RendezvousClient c) {
            return c.networkAddress();
        }
        if (job.launcher() == JobInfo.Launcher.TUTTI || job.launcher() == JobInfo.Launcher.SINGLETON) {
            return null;
        }
        try {
            InetAddress a = InetAddress.getByName(host);
            boolean own = java.net.NetworkInterface.getByInetAddress(a) != null;
            return own && !a.isLoopbackAddress() && !a.isAnyLocalAddress() ? a.getHostAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** What the launcher said about this job. */
    public JobInfo job() {
        return job;
    }

    @Override
    public int rank() {
        return job.rank();
    }

    @Override
    public int size() {
        return job.size();
    }

    @Override
    public int localSize() {
        return localSize;
    }

    @Override
    public int wireJobId() {
        return job.wireJobId();
    }

    @Override
    public Path directory() {
        return job.jobDir();
    }

    @Override
    public boolean threads() {
        return job.threads();
    }

    @Override
    public MemorySegment create(String name, long length, Arena mapping) {
        Path file = job.jobDir().resolve(name);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace " + file + ": " + e.getMessage(), e);
        }
        MemorySegment s = ShmFiles.createAndMap(file, length, mapping);
        remember(name);
        return s;
    }

    @Override
    public MemorySegment publish(String name, long length, Consumer<MemorySegment> format, Arena mapping) {
        Path file = job.jobDir().resolve(name);
        Path fresh = job.jobDir().resolve(name + ".new");
        MemorySegment s = ShmFiles.createAndMap(fresh, length, mapping);
        format.accept(s);
        try {
            Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot publish shared-memory file " + file + ": " + e.getMessage(), e);
        }
        remember(name);
        return s;
    }

    private void remember(String name) {
        synchronized (created) {
            created.add(name);
        }
    }

    /** Copies go over the rendezvous connection when the launcher is in another pid space (another host). */
    @Override
    public Runnable copyToLauncher(String name, MemorySegment file, java.util.function.IntBinaryOperator railCommands) {
        if (kvs instanceof RendezvousClient c && job.launcherPid() < 0) {
            return c.copy(name, file, railCommands);
        }
        return () -> { };
    }

    /**
     * Asks the launcher to start the processes of a spawned job ({@link RendezvousClient#spawn}) and
     * returns its answer; an UnsupportedOperationException says why not where this job's launcher cannot,
     * an IllegalStateException the launcher's reason.
     */
    public String spawn(List<io.tutti.Communicator.Program> programs, int parents) throws TimeoutException {
        return launcher("spawning processes").spawn(programs, parents, rendezvous);
    }

    /**
     * Asks the launcher for port or name operation {@code operation} ({@link RendezvousClient#port});
     * an accept or connect waits as long as it takes the other side to come, the others the rendezvous
     * bound. An UnsupportedOperationException says why not where this job's launcher cannot, an
     * IllegalStateException the launcher's reason.
     */
    public String port(String operation, String... args) throws TimeoutException {
        boolean meeting = operation.equals("accept") || operation.equals("connect");
        return launcher("ports and published names").port(operation, meeting ? MEETING : rendezvous, args);
    }

    /** How long an accept or connect waits for its other side: until the job's own timeout ends it. */
    private static final Duration MEETING = Duration.ofDays(365);

    /** The launcher's connection, for what only tutti run with a JVM per rank can do ({@code what}). */
    private RendezvousClient launcher(String what) {
        if (job.threads()) {
            throw new UnsupportedOperationException(what + " needs a JVM per rank, and this job's ranks are"
                    + " threads (tutti run --threads); run it without --threads");
        }
        if (!(kvs instanceof RendezvousClient launcher)) {
            throw new UnsupportedOperationException(what + " needs tutti run; this job was"
                    + " started by " + (job.launcher() == JobInfo.Launcher.SINGLETON ? "no launcher (a rank alone)"
                    : job.launcher().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')));
        }
        return launcher;
    }

    @Override
    public void started() {
        if (kvs instanceof RendezvousClient c) {
            c.started();
        }
    }

    @Override
    public MemorySegment map(String name, Arena mapping) {
        return ShmFiles.mapExisting(job.jobDir().resolve(name), mapping);
    }

    @Override
    public void remove(String name) {
        synchronized (created) {
            created.remove(name);
        }
        try {
            Files.deleteIfExists(job.jobDir().resolve(name));
        } catch (IOException e) {
            // close or the launcher removes the job directory anyway
        }
    }

    @Override
    public void join() throws TimeoutException {
        int size = job.size();
        bind();
        kvs.put("rank", ProcessHandle.current().pid() + " " + CpuTopology.currentPackage() + " "
                + nodeKey);
        kvs.fence();
        int[] p = new int[size];
        int[] pkg = new int[size];
        int[] n = new int[size];
        boolean[] same = new boolean[size];
        ProcessHandle[] handles = new ProcessHandle[size];
        Map<String, Integer> keys = new HashMap<>();
        int local = 0;
        for (int r = 0; r < size; r++) {
            String[] info = kvs.get(r, "rank").split(" ", 3);
            p[r] = Integer.parseInt(info[0]);
            pkg[r] = Integer.parseInt(info[1]);
            n[r] = keys.computeIfAbsent(info[2], h -> keys.size());
            same[r] = info[2].equals(nodeKey);
            if (same[r]) {
                local++;
            }
            if (same[r] && r != job.rank()) {
                handles[r] = ProcessHandle.of(p[r]).orElse(null);
            }
        }
        this.pids = p;
        this.packages = pkg;
        this.nodes = n;
        this.sameHost = same;
        this.processes = handles;
        this.localSize = local;
    }

    @Override
    public void fence() throws TimeoutException {
        kvs.fence();
    }

    @Override
    public int pid(int r) {
        return pids[r];
    }

    @Override
    public int packageOf(int r) {
        return packages[r];
    }

    @Override
    public int nodeOf(int r) {
        return nodes[r];
    }

    @Override
    public boolean sameHost(int r) {
        return sameHost[r];
    }

    @Override
    public boolean alive(int r) {
        return processes[r] != null && processes[r].isAlive();
    }

    @Override
    public RemoteTransport openNetwork(boolean[] remote, String provider) {
        List<String> found = new ArrayList<>();
        for (RemoteTransportProvider p : ServiceLoader.load(RemoteTransportProvider.class)) {
            found.add(p.name());
            if (provider.isEmpty() || provider.equals(p.name())) {
                return p.open(new RemoteTransportProvider.Context(job.rank(), job.size(), remote.clone(),
                        job.wireJobId(), secret(), host, kvs, settings.asMap(), job.jobDir(),
                        facing(), kvs instanceof RendezvousClient));
            }
        }
        throw new TuttiException.Startup(found.isEmpty()
                ? "some ranks run on other hosts (or TUTTI_TRANSPORT=net), but no network transport is installed:"
                        + " put tutti-net on the class path (the tutti command does)"
                : "no network transport named '" + provider + "' (TUTTI_NET_PROVIDER); installed: "
                        + String.join(", ", found), null);
    }

    private byte[] secret() {
        if (job.secret() != null) {
            return job.secret().clone();
        }
        if (job.secretFile() == null && pmi != null) {
            try {
                return pmi.secret(rendezvous);
            } catch (TimeoutException e) {
                throw new TuttiException.Startup("the job secret did not arrive through PMI: " + e.getMessage(), e);
            }
        }
        if (job.secretFile() == null) {
            return new byte[0];
        }
        try {
            return Files.readAllBytes(job.secretFile());
        } catch (IOException e) {
            throw new TuttiException.Startup("cannot read the job secret " + job.secretFile() + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public String abortReason() {
        return JobControl.abortReason();
    }

    @Override
    public String reportedFailure(int r) {
        return kvs instanceof RendezvousClient launcher ? launcher.failure(r) : null;
    }


    @Override
    public void close() {
        try {
            synchronized (created) {
                for (String name : created) {
                    Files.deleteIfExists(job.jobDir().resolve(name));
                }
                created.clear();
            }
            if (job.launcher() == JobInfo.Launcher.SINGLETON) {
                ShmFiles.deleteTree(job.jobDir());
            }
        } catch (IOException ignored) {
            // the launcher removes the whole job directory at the end anyway
        }
        if (kvs instanceof RendezvousClient c) {
            c.close();
        }
        if (here != null) {
            here.leave();
        }
    }
}
