package io.tutti.p2p;

import io.tutti.os.TimerSlack;
import static io.tutti.wire.MessageHeaderDescriptor.*;

import io.tutti.Config;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.os.CpuTopology;
import io.tutti.bootstrap.FileKeyValueStore;
import io.tutti.bootstrap.JobControl;
import io.tutti.bootstrap.JobInfo;
import io.tutti.transport.KeyValueStore;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.transport.Placement;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import io.tutti.transport.shm.CompactRecordDescriptor;
import io.tutti.transport.shm.ExchangeRing;
import io.tutti.transport.shm.ExchangeRingDescriptor;
import io.tutti.os.Futex;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.os.SingleCopy;
import io.tutti.wire.MessageHeaderDescriptor;
import io.tutti.wire.MessageType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ServiceLoader;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The point-to-point engine of one rank: matching of (context, source, tag) with MPI's
 * non-overtaking order, the eager and rendezvous protocols over shared memory, and progress.
 *
 * <p>Threading: one thread at a time drives an engine (the rank's application thread, or whoever
 * it hands the communicator to with a happens-before edge). Everything here runs on that thread;
 * shared memory is the only thing other processes touch, through the rings' own ordering rules.
 *
 * <p>Protocols. A message of at most {@link P2pConfig#eagerLimit()} bytes goes whole into the
 * receiver's inbound ring (EAGER) and is copied out into the posted buffer or, if none is posted
 * yet, into a pooled buffer (unexpected). A longer one sends an RTS; when the receive is matched the
 * receiver either copies the data once straight from the sender (the sender's buffer is off-heap:
 * RTS carries its address, the receiver answers FIN), asks the sender to write it once into its own
 * off-heap buffer (CTS with the address, the sender answers FIN), or asks for the two-copy pipeline
 * through the pair's exchange ring (CTS), which both sides fill and drain at the same time.
 */
public final class Engine implements AutoCloseable {
    /** Wildcard source and tag as seen by the engine. */
    public static final int ANY = -1;

    private static final int READ_BATCH = 64;
    /** How long close waits for the network to deliver what was sent before it. */
    private static final long CLOSE_FLUSH_NANOS = 10_000_000_000L;

    private final JobInfo job;
    private final P2pConfig config;
    private final int rank;
    private final int size;
    private final int wireJobId;
    private final Arena arena = Arena.ofShared();
    private final InboundRing inbound;
    private final InboundRing[] peers;
    private final ExchangeRing[] outExchange;
    private final ExchangeRing[] inExchange;
    private final int[] pids;
    /** Held by whoever drives the engine when a progress agent shares it; null without an agent. */
    private final java.util.concurrent.locks.ReentrantLock lock;
    private final ProgressAgent agent;
    private final java.util.ArrayList<Task> tasks = new java.util.ArrayList<>();
    private final int[] packages;
    /** Node index of each world rank: hosts numbered in the order of their lowest rank. */
    private final int[] nodes;
    /** Looked up once: ProcessHandle.of allocates, isAlive on a held handle does not. */
    private final ProcessHandle[] peerProcesses;
    private final SingleCopy singleCopy;
    private final boolean singleCopyOn;
    private final RequestTable table = new RequestTable();
    private final int spinTries;
    /**
     * Where a wait starts counting idle rounds for a task that does not {@linkplain Task#spinPays
     * gain from spinning}: past the spin phase when ranks outnumber cores and the budget is automatic.
     */
    private final int noSpinStart;
    private final int yieldTries;
    /**
     * Ranks outnumber cores: a blocked rank sleeps on its ring's doorbell (a futex) instead of
     * parking, and the peer that sends to it wakes it at once.
     */
    private final boolean sleeps;
    /** Shared-memory files created through {@link #createShared}, removed at close. */
    private final java.util.List<String> sharedFiles = new java.util.ArrayList<>();
    /** Before sleeping: whether the awaited task has something to do that no message announces. */
    private final java.util.function.BooleanSupplier awaitedReady = () -> this.awaited != null && this.awaited.ready();
    /** Per destination: our eager limit, capped by what the destination's ring can hold. */
    private final int[] eagerTo;
    private final KeyValueStore kvs;
    /** Per rank: reached through the network transport (its ring in {@link #peers} is our outbox to it). */
    private final boolean[] remote;
    /** The network rails, or null when every peer shares memory with this rank. */
    private final RemoteTransport transport;
    private final RemoteTransport.Sink deposit = new RemoteTransport.Sink() {
        @Override
        public boolean accept(int source, MemorySegment record, long offset, int length) {
            return deposit(source, record, offset, length);
        }

        @Override
        public boolean place(int source, MemorySegment record, long offset, int available, int length,
                             Placement into) {
            return Engine.this.place(source, record, offset, available, length, into);
        }

        @Override
        public void placed(int source, MemorySegment record, long offset, int header) {
            onData(source, handle(record, offset), address(record, offset), null, 0, payloadLength(record, offset));
        }
    };
    /** The header of a DATA record sent straight from a user's buffer ({@link #writeDataPackets}). */
    private final MemorySegment dataHeader = arena.allocate(MessageHeaderDescriptor.LENGTH, 8);
    private final InboundRing.RecordHandler forward = this::forward;
    /** The destination whose outbox {@link #forward} is draining. */
    private int forwardDest;

    // posted receives in posting order
    private Operation postedHead;
    private Operation postedTail;
    // unexpected messages in arrival order
    private Unexpected unexpectedHead;
    private Unexpected unexpectedTail;
    private Unexpected unexpectedFree;
    private final ArrayDeque<MemorySegment>[] bufferPool;

    // per destination: packets that found the ring full, in order; and pipelined sends in CTS order
    private final ArrayDeque<Object>[] pendingOut;
    private int pendingOutCount;
    private final ArrayDeque<Operation>[] pipelineOut;
    /**
     * Per remote destination: pipelined sends whose data has all gone but that the transport still
     * reads (sent in place, not yet acknowledged); counted in {@link #pipelineOutCount}.
     */
    private final ArrayDeque<Operation>[] releasing;
    private int pipelineOutCount;
    private final int[] pipelineIn;
    private int pipelineInCount;
    private final ArrayDeque<Control> controlFree = new ArrayDeque<>();
    /** Offloaded collectives' endpoints by (context, tag); few, so a list beats a map (no boxing). */
    private final java.util.ArrayList<Endpoint> endpoints = new java.util.ArrayList<>();
    /** PUT and CNTR_ADD packets that came before their endpoint was registered, in arrival order. */
    private final java.util.ArrayList<byte[]> early = new java.util.ArrayList<>();
    /**
     * Endpoints that were registered and are gone: a late packet for one is dropped, not kept for
     * a registration that will never come (8 bytes per freed collective).
     */
    private final java.util.HashSet<Long> retired = new java.util.HashSet<>();

    private final Operation blockingSend;
    private final Operation blockingRecv;
    private final InboundRing.RecordHandler handler = new InboundRing.RecordHandler() {
        @Override
        public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
            Engine.this.onRecord(segment, bodyOffset, bodyLength);
        }

        @Override
        public void onCompact(int type, MemorySegment segment, long bodyOffset, int bodyLength) {
            Engine.this.onCompact(type, segment, bodyOffset, bodyLength);
        }
    };

    private long droppedPackets;
    private long lastLivenessNanos = System.nanoTime();
    /** The task a wait is blocked on, asked to {@link Task#diagnose()} itself now and then. */
    private Task awaited;
    /** The latest CALL announcement of each source: context, sequence, three signature words; null until one comes. */
    private long[] calls;
    private boolean closed;

    @SuppressWarnings("unchecked")
    public Engine(JobInfo job, P2pConfig config) {
        this.job = job;
        this.config = config;
        this.rank = job.rank();
        this.size = job.size();
        this.wireJobId = job.wireJobId();
        this.spinTries = config.effectiveSpinTries(job.localSize());
        this.noSpinStart = config.spinTries() < 0 && job.localSize() > Runtime.getRuntime().availableProcessors()
                ? spinTries : 0;
        this.yieldTries = config.effectiveYieldTries(job.localSize());
        this.sleeps = config.idleSleep() && job.localSize() > Runtime.getRuntime().availableProcessors()
                && Futex.available();
        this.peers = new InboundRing[size];
        this.outExchange = new ExchangeRing[size];
        this.inExchange = new ExchangeRing[size];
        this.pids = new int[size];
        this.packages = new int[size];
        this.nodes = new int[size];
        this.peerProcesses = new ProcessHandle[size];
        this.eagerTo = new int[size];
        this.remote = new boolean[size];
        this.pendingOut = new ArrayDeque[size];
        this.pipelineOut = new ArrayDeque[size];
        this.releasing = new ArrayDeque[size];
        this.pipelineIn = new int[size];
        for (int i = 0; i < size; i++) {
            pendingOut[i] = new ArrayDeque<>();
            pipelineOut[i] = new ArrayDeque<>();
            releasing[i] = new ArrayDeque<>();
        }
        this.blockingSend = new Operation(this);
        this.blockingRecv = new Operation(this);
        this.lock = config.progressThread() ? new java.util.concurrent.locks.ReentrantLock() : null;

        RemoteTransport opened = null;
        try {
            ShmFiles.createJobDirectory(job.jobDir());
            Path ringFile = job.jobDir().resolve(ShmFiles.inboundRingName(rank));
            Files.deleteIfExists(ringFile);
            MemorySegment ringMemory = ShmFiles.createAndMap(ringFile,
                    InboundRingDescriptor.fileLength(config.ringCapacity()), arena);
            if (sleeps) {
                // before any peer maps the ring: they read it once
                InboundRing.allowSleep(ringMemory);
            }
            this.inbound = new InboundRing(ringMemory);
            // sized by what can arrive, not by our own eager limit: a peer may be configured otherwise
            int classes = poolClass(inbound.maxBodyLength()) + 1;
            this.bufferPool = new ArrayDeque[classes];
            for (int i = 0; i < classes; i++) {
                bufferPool[i] = new ArrayDeque<>();
            }
            this.kvs = new FileKeyValueStore(job.kvsDir(), rank, size,
                    Duration.ofSeconds(config.rendezvousSeconds()), () -> JobControl.abortReason() != null);
            String host = hostName();
            kvs.put("rank-" + rank, ProcessHandle.current().pid() + " " + CpuTopology.currentPackage() + " " + host);
            kvs.fence();
            boolean anyRemote = false;
            java.util.Map<String, Integer> hosts = new java.util.HashMap<>();
            for (int r = 0; r < size; r++) {
                String[] info = kvs.get("rank-" + r).split(" ", 3);
                pids[r] = Integer.parseInt(info[0]);
                packages[r] = Integer.parseInt(info[1]);
                nodes[r] = hosts.computeIfAbsent(info[2], h -> hosts.size());
                remote[r] = r != rank && (config.forceNetwork() || !info[2].equals(host));
                anyRemote |= remote[r];
                if (remote[r]) {
                    // our outbox to r: private memory that the transport drains, written like r's ring
                    peers[r] = new InboundRing(arena.allocate(InboundRingDescriptor.fileLength(config.ringCapacity()),
                            64));
                } else {
                    peers[r] = r == rank ? inbound : new InboundRing(mapRequired(ShmFiles.inboundRingName(r)));
                    peerProcesses[r] = ProcessHandle.of(pids[r]).orElse(null);
                }
                eagerTo[r] = Math.min(config.eagerLimit(), peers[r].maxBodyLength() - MessageHeaderDescriptor.LENGTH);
            }
            opened = anyRemote ? openTransport(host, kvs) : null;
            // every rank fences here, with or without a transport: between publishing addresses and
            // reading them; and a rank may close (and remove its ring) only after every rank has
            // mapped every ring
            kvs.fence();
            if (opened != null) {
                opened.connect();
                for (int r = 0; r < size; r++) {
                    if (remote[r]) {
                        eagerTo[r] = Math.min(eagerTo[r], opened.maxRecordLength() - MessageHeaderDescriptor.LENGTH);
                    }
                }
            }
        } catch (TimeoutException e) {
            closeQuietly(opened);
            arena.close();
            throw new TuttiException.Startup("start-up rendezvous failed: " + e.getMessage(), e);
        } catch (TuttiException e) {
            closeQuietly(opened);
            arena.close();
            throw e;
        } catch (RuntimeException | java.io.IOException e) {
            closeQuietly(opened);
            arena.close();
            throw new TuttiException.Startup("cannot set up shared memory in " + job.jobDir() + ": " + e.getMessage(), e);
        }
        this.transport = opened;
        boolean copyOn = config.singleCopy() && SingleCopy.platformSupported();
        SingleCopy sc = null;
        if (copyOn) {
            SingleCopy.allowPeers();
            sc = new SingleCopy();
        }
        this.singleCopy = sc;
        this.singleCopyOn = copyOn;
        this.agent = lock == null ? null : new ProgressAgent(this, "tutti-progress-" + rank);
        if (agent != null) {
            agent.start();
        }
    }

    // ------------------------------------------------------------------ progress agent

    /** How many ranks this rank reaches through the network transport (0 when all share its memory). */
    public int remotePeers() {
        int n = 0;
        for (boolean r : remote) {
            n += r ? 1 : 0;
        }
        return n;
    }

    /** Whether a progress agent drives this engine too. */
    public boolean hasProgressAgent() {
        return agent != null;
    }

    /**
     * Keeps {@code task} (a running nonblocking or persistent collective) advancing until it
     * completes: every wait and test on this engine, and the progress agent if there is one, polls
     * it. Without this, waiting for one collective could starve another that a peer waits for.
     */
    public void track(Task task) {
        if (lock == null) {
            tasks.add(task);
            return;
        }
        lock.lock();
        try {
            tasks.add(task);
        } finally {
            lock.unlock();
        }
    }

    /** Stops polling a task that has finished (its owner is about to reuse it). */
    public void untrack(Task task) {
        if (lock == null) {
            tasks.remove(task);
            return;
        }
        lock.lock();
        try {
            tasks.remove(task);
        } finally {
            lock.unlock();
        }
    }

    /** One progress pass and one poll of {@code task}, for a test of it; true when it has finished. */
    public boolean test(Task task) {
        if (lock == null) {
            checkOpen();
            progress0();
            pollTasks();
            return task.poll();
        }
        lock.lock();
        try {
            checkOpen();
            progress0();
            pollTasks();
            return task.poll();
        } finally {
            lock.unlock();
        }
    }

    /** One duty cycle of the agent: nothing if the owner holds the engine, else progress and tasks. */
    int agentDutyCycle() {
        if (closed || !lock.tryLock()) {
            return 0;
        }
        try {
            if (closed) {
                return 0;
            }
            return progress0() + pollTasks(Thread.currentThread());
        } catch (TuttiException e) {
            // a failed peer: the owner sees it on its next call; keep the agent quiet until then
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Polls the tracked tasks, forgetting finished ones; a task's failure is kept for its owner. */
    private int pollTasks() {
        return tasks.isEmpty() ? 0 : pollTasks(null);
    }

    /**
     * As {@link #pollTasks()}; {@code agent} is the progress agent's thread when it polls, and then
     * tasks whose buffers only their owner may touch (a confined arena's segments) are left to it.
     */
    private int pollTasks(Thread agent) {
        if (tasks.isEmpty()) {
            return 0;
        }
        int work = 0;
        for (int i = tasks.size() - 1; i >= 0; i--) {
            Task t = tasks.get(i);
            // the task a wait is for is polled by that wait's own loop: twice per pass would only
            // lengthen the pass in which its last packet lands
            if (agent != null ? !t.accessibleBy(agent) : t == awaited) {
                continue;
            }
            boolean finished;
            try {
                finished = t.poll();
            } catch (TuttiException e) {
                t.fail(e);
                finished = true;
            } catch (RuntimeException e) {
                t.fail(new TuttiException("a collective failed in the progress agent: " + e, e));
                finished = true;
            }
            if (finished) {
                tasks.remove(i);
                work++;
            }
        }
        return work;
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
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** Finds the network transport (module tutti-net, or one a test installs) and opens it. */
    private RemoteTransport openTransport(String host, KeyValueStore store) {
        String wanted = config.netProvider();
        java.util.List<String> found = new java.util.ArrayList<>();
        for (RemoteTransportProvider p
                : ServiceLoader.load(RemoteTransportProvider.class)) {
            found.add(p.name());
            if (wanted.isEmpty() || wanted.equals(p.name())) {
                return p.open(new RemoteTransportProvider.Context(rank, size, remote.clone(),
                        wireJobId, secret(), host, store, settings(), job.jobDir()));
            }
        }
        throw new TuttiException.Startup(found.isEmpty()
                ? "some ranks run on other hosts (or " + Config.envName(P2pConfig.TRANSPORT) + "=net), but no network"
                        + " transport is installed: put tutti-net on the class path (the tutti command does)"
                : "no network transport named '" + wanted + "' (" + Config.envName(P2pConfig.NET_PROVIDER)
                        + "); installed: " + String.join(", ", found), null);
    }

    private byte[] secret() {
        if (job.secretFile() == null) {
            return new byte[0];
        }
        try {
            return Files.readAllBytes(job.secretFile());
        } catch (java.io.IOException e) {
            throw new TuttiException.Startup("cannot read the job secret " + job.secretFile() + ": " + e.getMessage(),
                    e);
        }
    }

    /** The rank's environment with the {@code tutti.*} system properties over it, as TUTTI_* names. */
    private static java.util.Map<String, String> settings() {
        java.util.Map<String, String> all = new java.util.HashMap<>(LaunchEnvironment.current());
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("tutti.")) {
                all.put(Config.envName(name), System.getProperty(name));
            }
        }
        return java.util.Map.copyOf(all);
    }

    private static void closeQuietly(RemoteTransport t) {
        if (t != null) {
            try {
                t.close();
            } catch (RuntimeException ignored) {
                // start-up has failed already; that error is the one to report
            }
        }
    }

    private MemorySegment mapRequired(String name) {
        MemorySegment s = ShmFiles.mapExisting(job.jobDir().resolve(name), arena);
        if (s == null) {
            throw new TuttiException.Startup("shared-memory file " + name + " is missing in " + job.jobDir()
                    + " although its owner has passed the start-up fence", null);
        }
        return s;
    }

    /** The job id every packet carries. */
    public int wireJobId() {
        return wireJobId;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public JobInfo job() {
        return job;
    }

    public P2pConfig config() {
        return config;
    }

    /** Packets rejected by the decoder since start. */
    public long droppedPackets() {
        return droppedPackets;
    }

    /** The CPU package (socket) a world rank ran on at start-up. */
    public int packageOf(int worldRank) {
        return packages[worldRank];
    }

    /**
     * Node index of a world rank: ranks on one host ({@code TUTTI_HOST}, else the host name) share
     * it, whichever transport connects them; hosts are numbered in the order of their lowest rank.
     */
    public int nodeOf(int worldRank) {
        return nodes[worldRank];
    }

    /** Whether {@code worldRank} is this rank or a peer reached through shared memory (not the network). */
    public boolean sharesMemoryWith(int worldRank) {
        return !remote[worldRank];
    }

    /**
     * Creates shared-memory file {@code name} of {@code length} zero bytes in the job directory,
     * lets {@code format} write it, and only then gives it its name, so that a peer that maps it by
     * that name never sees it unformatted. The file is removed when this engine closes. Owner thread.
     */
    public MemorySegment createShared(String name, long length, java.util.function.Consumer<MemorySegment> format) {
        return createShared(name, length, format, arena);
    }

    /**
     * {@link #createShared(String, long, java.util.function.Consumer)}, mapped in {@code mapping}: the
     * caller unmaps it by closing that arena, and may remove the file before close with
     * {@link #removeShared}.
     */
    public MemorySegment createShared(String name, long length, java.util.function.Consumer<MemorySegment> format,
                                      java.lang.foreign.Arena mapping) {
        Path file = job.jobDir().resolve(name);
        Path fresh = job.jobDir().resolve(name + ".new");
        MemorySegment s = ShmFiles.createAndMap(fresh, length, mapping);
        format.accept(s);
        try {
            Files.move(fresh, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot publish shared-memory file " + file + ": " + e.getMessage(), e);
        }
        synchronized (sharedFiles) {
            sharedFiles.add(name);
        }
        return s;
    }

    /** Maps shared-memory file {@code name} of a peer; null while it does not exist yet. */
    public MemorySegment mapShared(String name) {
        return mapShared(name, arena);
    }

    /** {@link #mapShared(String)}, mapped in {@code mapping} (the caller unmaps it by closing that arena). */
    public MemorySegment mapShared(String name, java.lang.foreign.Arena mapping) {
        return ShmFiles.mapExisting(job.jobDir().resolve(name), mapping);
    }

    /**
     * Removes shared-memory file {@code name}, created by {@link #createShared}, before close: peers
     * that mapped it keep their mappings, and no peer can map it any more. Owner thread.
     */
    public void removeShared(String name) {
        synchronized (sharedFiles) {
            sharedFiles.remove(name);
        }
        try {
            Files.deleteIfExists(job.jobDir().resolve(name));
        } catch (java.io.IOException e) {
            // the engine's close or the launcher removes the job directory anyway
        }
    }

    /**
     * Wakes {@code worldRank} (a peer reached through shared memory) if it sleeps waiting for work,
     * after the caller published something other than a message that it may wait for (see
     * {@link Task#ready()}). Does nothing for peers that never sleep.
     */
    public void wakeLocal(int worldRank) {
        if (worldRank != rank && !remote[worldRank]) {
            peers[worldRank].wakeConsumer();
        }
    }

    /** Whether large messages between off-heap buffers are copied once. */
    public boolean singleCopyEnabled() {
        return singleCopyOn;
    }

    // ------------------------------------------------------------------ sends

    /** Starts a send; the returned operation completes when the buffer may be reused. */
    public Operation isend(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                           long length) {
        if (lock != null) {
            lock.lock();
        }
        try {
            Operation op = new Operation(this);
            startSend(op, context, dest, tag, array, segment, offset, length);
            return op;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /**
     * A reusable operation for {@link #isend(Operation, int, int, int, Object, MemorySegment, long, long)}
     * and {@link #irecv(Operation, int, int, int, Object, MemorySegment, long, long, int[])}: a caller
     * that repeats the same exchanges (a collective's schedule) keeps one per step and allocates
     * nothing per message. An operation may be started again only once it has completed.
     */
    public Operation operation() {
        return new Operation(this);
    }

    /** {@link #isend} into a caller-owned, completed operation. */
    public void isend(Operation op, int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                      long length) {
        if (lock != null) {
            lock.lock();
        }
        try {
            startSend(op, context, dest, tag, array, segment, offset, length);
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** {@link #irecv} into a caller-owned, completed operation. */
    public void irecv(Operation op, int context, int source, int tag, Object array, MemorySegment segment, long offset,
                      long length, int[] worldToComm) {
        if (lock != null) {
            lock.lock();
        }
        try {
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** Blocking send. */
    public void send(int context, int dest, int tag, Object array, MemorySegment segment, long offset, long length) {
        if (lock != null) {
            lock.lock();
        }
        try {
            checkOpen();
            if (length <= eagerTo[dest] && pendingOut[dest].isEmpty()
                    && writeEager(dest, context, tag, array, segment, offset, (int) length)) {
                return;
            }
            Operation op = blockingSend;
            startSend(op, context, dest, tag, array, segment, offset, length);
            await(op);
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private void startSend(Operation op, int context, int dest, int tag, Object array, MemorySegment segment,
                           long offset, long length) {
        checkOpen();
        op.reset(Operation.SEND, context, dest, tag, array, segment, offset, length, null);
        if (length <= eagerTo[dest]) {
            if (pendingOut[dest].isEmpty() && writeEager(dest, context, tag, array, segment, offset, (int) length)) {
                op.complete(dest, tag, length);
            } else {
                enqueue(dest, op);
            }
            return;
        }
        if (outExchange[dest] == null && !remote[dest]) {
            outExchange[dest] = createExchange(dest);
        }
        op.handle = table.register(op);
        if (pendingOut[dest].isEmpty() && writeRts(op)) {
            return;
        }
        enqueue(dest, op);
    }

    private ExchangeRing createExchange(int dest) {
        Path file = job.jobDir().resolve(ShmFiles.exchangeRingName(rank, dest));
        try {
            Files.deleteIfExists(file);
        } catch (java.io.IOException e) {
            throw new TuttiException("cannot replace " + file + ": " + e.getMessage(), e);
        }
        MemorySegment s = ShmFiles.createAndMap(file,
                ExchangeRingDescriptor.fileLength(config.exchangeSlots(), config.exchangeChunk()), arena);
        ExchangeRing.format(s, config.exchangeSlots(), config.exchangeChunk());
        return new ExchangeRing(s);
    }

    private boolean writeEager(int dest, int context, int tag, Object array, MemorySegment segment, long offset,
                               int length) {
        InboundRing ring = peers[dest];
        if (!remote[dest]) {
            // a rank of this node: the compact record, one cache line for a short message
            long position = ring.tryClaim(CompactRecordDescriptor.EAGER_LENGTH + length, InboundRingDescriptor.TYPE_EAGER);
            if (position < 0) {
                return false;
            }
            MemorySegment s = ring.via();
            long at = ring.bodyAt(position);
            CompactRecordDescriptor.write(s, at, context, rank, tag, length);
            Buffers.copyOut(array, segment, offset, s, at + CompactRecordDescriptor.EAGER_LENGTH, length);
            ring.commit(position);
            return true;
        }
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + length);
        if (position < 0) {
            return false;
        }
        MemorySegment s = ring.via();
        long at = ring.bodyAt(position);
        MessageHeaderDescriptor.write(s, at, MessageType.EAGER, (short) 0, wireJobId, context, rank, dest, tag, length,
                0, 0, 0, length);
        Buffers.copyOut(array, segment, offset, s, at + MessageHeaderDescriptor.LENGTH, length);
        ring.commit(position);
        return true;
    }

    private boolean writeRts(Operation op) {
        boolean address = singleCopyOn && !remote[op.peer] && op.isNative();
        return writeControl(op.peer, MessageType.RTS, address ? FLAG_HAS_ADDRESS : 0, op.context, op.tag, op.handle,
                0, address ? op.segment.address() + op.offset : 0, op.length);
    }

    private boolean writeControl(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle,
                                 long address, long total) {
        InboundRing ring = peers[dest];
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH);
        if (position < 0) {
            return false;
        }
        MessageHeaderDescriptor.write(ring.via(), ring.bodyAt(position), type, flags, wireJobId, context, rank,
                dest, tag, 0, handle, peerHandle, address, total);
        ring.commit(position);
        return true;
    }

    private void control(int dest, byte type, short flags, int context, int tag, long handle, long peerHandle,
                         long address, long total) {
        if (pendingOut[dest].isEmpty() && writeControl(dest, type, flags, context, tag, handle, peerHandle, address,
                total)) {
            return;
        }
        Control c = controlFree.isEmpty() ? new Control() : controlFree.poll();
        c.set(type, flags, context, tag, handle, peerHandle, address, total);
        enqueue(dest, c);
    }

    private void enqueue(int dest, Object item) {
        pendingOut[dest].add(item);
        pendingOutCount++;
    }

    private int drivePendingOut() {
        int work = 0;
        for (int dest = 0; dest < size && pendingOutCount > 0; dest++) {
            ArrayDeque<Object> q = pendingOut[dest];
            Object item;
            while ((item = q.peek()) != null) {
                boolean written;
                if (item instanceof Operation op) {
                    if (op.length <= eagerTo[dest]) {
                        written = writeEager(dest, op.context, op.tag, op.array, op.segment, op.offset, (int) op.length);
                        if (written) {
                            op.complete(dest, op.tag, op.length);
                        }
                    } else {
                        written = writeRts(op);
                    }
                } else {
                    Control c = (Control) item;
                    written = writeControl(dest, c.type, c.flags, c.context, c.tag, c.handle, c.peerHandle, c.address,
                            c.total);
                    if (written) {
                        controlFree.add(c);
                    }
                }
                if (!written) {
                    break;
                }
                q.poll();
                pendingOutCount--;
                work++;
            }
        }
        return work;
    }

    /** A persistent send: inactive until {@link Operation#start()}. */
    public Operation sendInit(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                              long length) {
        checkOpen();
        Operation op = new Operation(this);
        op.reset(0, context, dest, tag, array, segment, offset, length, null);
        persist(op, Operation.SEND, dest, tag, offset, length);
        return op;
    }

    /** A persistent receive: inactive until {@link Operation#start()}. */
    public Operation recvInit(int context, int source, int tag, Object array, MemorySegment segment, long offset,
                              long length, int[] worldToComm) {
        checkOpen();
        Operation op = new Operation(this);
        op.reset(0, context, source, tag, array, segment, offset, length, worldToComm);
        persist(op, Operation.RECV, source, tag, offset, length);
        return op;
    }

    private static void persist(Operation op, int kind, int peer, int tag, long offset, long length) {
        op.persistent = true;
        op.initPeer = peer;
        op.initTag = tag;
        op.initOffset = offset;
        op.initLength = length;
        op.persistentKind = kind;
        op.done = true;
    }

    void restart(Operation op) {
        if (lock != null) {
            lock.lock();
        }
        try {
            if (op.persistentKind == Operation.SEND) {
                startSend(op, op.context, op.initPeer, op.initTag, op.array, op.segment, op.initOffset, op.initLength);
            } else {
                startRecv(op, op.context, op.initPeer, op.initTag, op.array, op.segment, op.initOffset, op.initLength,
                        op.worldToComm());
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------ receives

    /** Starts a receive into the buffer; {@code source} and {@code tag} may be {@link #ANY}. */
    public Operation irecv(int context, int source, int tag, Object array, MemorySegment segment, long offset,
                           long length, int[] worldToComm) {
        if (lock != null) {
            lock.lock();
        }
        try {
            Operation op = new Operation(this);
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
            return op;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** Blocking receive; fills {@code status} if it is not null. */
    public void recv(int context, int source, int tag, Object array, MemorySegment segment, long offset, long length,
                     int[] worldToComm, Status status) {
        if (lock != null) {
            lock.lock();
        }
        try {
            Operation op = blockingRecv;
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
            await(op);
            op.fill(status);
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private void startRecv(Operation op, int context, int source, int tag, Object array, MemorySegment segment,
                           long offset, long length, int[] worldToComm) {
        checkOpen();
        op.reset(Operation.RECV, context, source, tag, array, segment, offset, length, worldToComm);
        Unexpected u = findUnexpected(context, source, tag, true);
        if (u != null) {
            if (u.type == MessageType.EAGER) {
                deliverEager(op, u.source, u.tag, u.data, 0, u.dataLength);
                freeUnexpected(u);
            } else {
                startRendezvousRecv(op, u.source, u.tag, u.handle, u.flags, u.address, u.total);
                freeUnexpected(u);
            }
            return;
        }
        // not there yet: post it, then look once more at what has arrived
        if (postedTail == null) {
            postedHead = op;
        } else {
            postedTail.next = op;
            op.prev = postedTail;
        }
        postedTail = op;
        progress0();
    }

    private Operation matchPosted(int context, int source, int tag) {
        for (Operation op = postedHead; op != null; op = op.next) {
            if (op.context == context && (op.peer == ANY || op.peer == source) && (op.tag == ANY || op.tag == tag)) {
                Operation p = op.prev;
                Operation n = op.next;
                if (p == null) {
                    postedHead = n;
                } else {
                    p.next = n;
                }
                if (n == null) {
                    postedTail = p;
                } else {
                    n.prev = p;
                }
                op.next = null;
                op.prev = null;
                return op;
            }
        }
        return null;
    }

    private void deliverEager(Operation op, int source, int tag, MemorySegment from, long at, int length) {
        if (length > op.length) {
            truncated(op, source, tag, length);
            return;
        }
        Buffers.copyIn(from, at, op.array, op.segment, op.offset, length);
        op.complete(source, tag, length);
    }

    /** Fails a receive whose message is longer than its buffer (MPI_ERR_TRUNCATE), keeping the status. */
    private static void truncated(Operation op, int source, int tag, long length) {
        op.statusSource = source;
        op.statusTag = tag;
        op.statusBytes = length;
        op.fail(new TuttiException.Truncation("message of " + length + " bytes from rank " + op.commRank(source)
                + " (tag " + tag + ") does not fit the receive buffer of " + op.length
                + " bytes: post a larger buffer, or probe first to learn the size"));
    }

    private void startRendezvousRecv(Operation op, int source, int tag, long senderHandle, short flags, long address,
                                     long total) {
        op.statusSource = source;
        op.statusTag = tag;
        op.statusBytes = total;
        if (total > op.length) {
            control(source, MessageType.CTS, FLAG_TRUNCATED, op.context, tag, senderHandle, 0, 0, total);
            truncated(op, source, tag, total);
            return;
        }
        op.total = total;
        if (remote[source]) {
            op.handle = table.register(op);
            op.transferred = 0;
            control(source, MessageType.CTS, FLAG_PACKETS, op.context, tag, senderHandle, op.handle, 0, total);
            return;
        }
        if ((flags & FLAG_HAS_ADDRESS) != 0 && singleCopyOn) {
            int errno = singleCopy.read(pids[source], address, op.base(), op.offset, total);
            if (errno != 0) {
                throw singleCopyFailed(errno, source);
            }
            control(source, MessageType.FIN, (short) 0, op.context, tag, senderHandle, 0, 0, total);
            op.complete(source, tag, total);
            return;
        }
        op.handle = table.register(op);
        if (singleCopyOn && op.isNative()) {
            control(source, MessageType.CTS, FLAG_SENDER_WRITES, op.context, tag, senderHandle, op.handle,
                    op.segment.address() + op.offset, total);
            return;
        }
        if (inExchange[source] == null) {
            inExchange[source] = new ExchangeRing(mapRequired(ShmFiles.exchangeRingName(source, rank)));
        }
        if (pipelineIn[source]++ == 0) {
            pipelineInCount++;
        }
        control(source, MessageType.CTS, FLAG_PIPELINE, op.context, tag, senderHandle, op.handle, 0, total);
    }

    private TuttiException singleCopyFailed(int errno, int peer) {
        return new TuttiException("single copy with rank " + peer + " (pid " + pids[peer] + ") failed with errno "
                + errno + " (the kernel refused access to the peer's memory); set TUTTI_SHM_SINGLE_COPY=false"
                + " to use the two-copy path");
    }

    // ------------------------------------------------------------------ probe

    /** Non-blocking probe: fills {@code status} and returns true if a matching message has arrived. */
    public boolean iprobe(int context, int source, int tag, Status status, int[] worldToComm) {
        if (lock != null) {
            lock.lock();
        }
        try {
            checkOpen();
            progress0();
            Unexpected u = findUnexpected(context, source, tag, false);
            if (u == null) {
                return false;
            }
            if (status != null) {
                int s = worldToComm == null ? u.source : worldToComm[u.source];
                status.set(s, u.tag, u.type == MessageType.EAGER ? u.dataLength : u.total);
            }
            return true;
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** Blocking probe. */
    public void probe(int context, int source, int tag, Status status, int[] worldToComm) {
        if (lock != null) {
            lock.lock();
        }
        try {
            int round = 0;
            while (!iprobe(context, source, tag, status, worldToComm)) {
                round = idle(round, source);
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private Unexpected findUnexpected(int context, int source, int tag, boolean remove) {
        Unexpected prev = null;
        for (Unexpected u = unexpectedHead; u != null; prev = u, u = u.next) {
            if (u.context == context && (source == ANY || u.source == source) && (tag == ANY || u.tag == tag)) {
                if (remove) {
                    if (prev == null) {
                        unexpectedHead = u.next;
                    } else {
                        prev.next = u.next;
                    }
                    if (unexpectedTail == u) {
                        unexpectedTail = prev;
                    }
                    u.next = null;
                }
                return u;
            }
        }
        return null;
    }

    private Unexpected newUnexpected() {
        Unexpected u = unexpectedFree;
        if (u != null) {
            unexpectedFree = u.next;
            u.next = null;
            return u;
        }
        return new Unexpected();
    }

    private void appendUnexpected(Unexpected u) {
        if (unexpectedTail == null) {
            unexpectedHead = u;
        } else {
            unexpectedTail.next = u;
        }
        unexpectedTail = u;
    }

    private void freeUnexpected(Unexpected u) {
        if (u.data != null) {
            bufferPool[poolClass(u.data.byteSize())].add(u.data);
            u.data = null;
        }
        u.next = unexpectedFree;
        unexpectedFree = u;
    }

    private static int poolClass(long capacity) {
        return 64 - Long.numberOfLeadingZeros(Math.max(64, capacity) - 1);
    }

    private MemorySegment pooledBuffer(int length) {
        int cls = poolClass(length);
        MemorySegment s = bufferPool[cls].poll();
        return s != null ? s : MemorySegment.ofArray(new byte[1 << cls]);
    }

    // ------------------------------------------------------------------ progress

    /** Makes progress on everything in flight; returns the amount of work done (0 = idle). */
    public int progress() {
        if (lock == null) {
            return progress0() + pollTasks();
        }
        lock.lock();
        try {
            return progress0() + pollTasks();
        } finally {
            lock.unlock();
        }
    }

    private int progress0() {
        int work = transport == null ? 0 : pumpNetwork();
        work += inbound.read(handler, READ_BATCH);
        if (work == 0) {
            // nothing arrived: a good moment to hand consumed ring space back to the producers
            inbound.release();
        }
        if (pendingOutCount > 0) {
            work += drivePendingOut();
        }
        if (pipelineOutCount > 0) {
            work += drivePipelineOut();
        }
        if (pipelineInCount > 0) {
            work += drivePipelineIn();
        }
        return work;
    }

    /** Hands what the outboxes hold to the transport, and lets it do its I/O and deliver. */
    private int pumpNetwork() {
        int work = 0;
        for (int dest = 0; dest < size; dest++) {
            if (!remote[dest]) {
                continue;
            }
            InboundRing outbox = peers[dest];
            forwardDest = dest;
            int n = 0;
            while (outbox.hasRecord() && transport.canSend(dest) && outbox.read(forward, 1) > 0) {
                n++;
            }
            if (n > 0) {
                outbox.release();
                work += n;
            }
        }
        return work + transport.poll(deposit);
    }

    private void forward(MemorySegment s, long at, int length) {
        transport.send(forwardDest, s, at, length);
    }

    /**
     * Takes a record that arrived from the network: a DATA record straight into its receive's
     * buffer, any other into our inbound ring, where local peers' records arrive too. A DATA record
     * names the receive it belongs to and follows the CTS that matched it, so it takes no part in
     * matching and may overtake records still in the ring; passing through the ring would cost
     * two more passes over its bytes (the copy in, and clearing the space on release).
     */
    private boolean deposit(int source, MemorySegment s, long at, int length) {
        if (length >= MessageHeaderDescriptor.LENGTH && type(s, at) == MessageType.DATA) {
            onRecord(s, at, length);
            return true;
        }
        if (length > inbound.maxBodyLength()) {
            droppedPackets++;
            return true;
        }
        long position = inbound.tryClaim(length);
        if (position < 0) {
            return false;
        }
        MemorySegment.copy(s, at, inbound.segment(), inbound.bodyOffset(position), length);
        inbound.commit(position);
        return true;
    }

    /** A compact record from a rank of this node ({@link CompactRecordDescriptor}). */
    private void onCompact(int type, MemorySegment s, long at, int length) {
        int header = type == InboundRingDescriptor.TYPE_EAGER ? CompactRecordDescriptor.EAGER_LENGTH
                : CompactRecordDescriptor.OFFLOAD_LENGTH;
        int source = length < header ? -1 : CompactRecordDescriptor.source(s, at);
        int payload = length < header ? -1 : CompactRecordDescriptor.payloadLength(s, at);
        if (source < 0 || source >= size || remote[source] || payload < 0 || payload > length - header) {
            droppedPackets++;
            return;
        }
        int context = CompactRecordDescriptor.context(s, at);
        int tag = CompactRecordDescriptor.tag(s, at);
        if (type == InboundRingDescriptor.TYPE_EAGER) {
            onEager(context, source, tag, s, at + header, payload);
            return;
        }
        byte kind = CompactRecordDescriptor.kind(s, at);
        if (kind != MessageType.PUT && kind != MessageType.CNTR_ADD) {
            droppedPackets++;
            return;
        }
        onOffload(kind, context, tag, source, CompactRecordDescriptor.buffer(s, at), CompactRecordDescriptor.counter(s, at),
                CompactRecordDescriptor.value(s, at), CompactRecordDescriptor.offset(s, at),
                CompactRecordDescriptor.epoch(s, at), s, at + header, payload);
    }

    /** An eager message, whichever record carried it: to its posted receive, or kept as unexpected. */
    private void onEager(int context, int source, int tag, MemorySegment s, long data, int payload) {
        Operation op = matchPosted(context, source, tag);
        if (op != null) {
            deliverEager(op, source, tag, s, data, payload);
        } else {
            Unexpected u = newUnexpected();
            u.set(MessageType.EAGER, context, source, tag, (short) 0, 0, 0, payload);
            u.data = pooledBuffer(payload);
            u.dataLength = payload;
            MemorySegment.copy(s, data, u.data, 0, payload);
            appendUnexpected(u);
        }
    }

    private void onRecord(MemorySegment s, long at, int length) {
        if (length < MessageHeaderDescriptor.LENGTH || version(s, at) != CURRENT_VERSION || jobId(s, at) != wireJobId
                || dest(s, at) != rank) {
            droppedPackets++;
            return;
        }
        byte type = type(s, at);
        int source = source(s, at);
        int payload = payloadLength(s, at);
        if (source < 0 || source >= size || payload < 0 || payload > length - MessageHeaderDescriptor.LENGTH
                || type < MessageType.EAGER || type > MessageType.MAX) {
            droppedPackets++;
            return;
        }
        int context = context(s, at);
        int tag = tag(s, at);
        switch (type) {
            case MessageType.EAGER -> onEager(context, source, tag, s, at + MessageHeaderDescriptor.LENGTH, payload);
            case MessageType.RTS -> {
                long total = totalLength(s, at);
                if (total <= 0) {
                    droppedPackets++;
                    return;
                }
                Operation op = matchPosted(context, source, tag);
                if (op != null) {
                    startRendezvousRecv(op, source, tag, handle(s, at), flags(s, at), address(s, at), total);
                } else {
                    Unexpected u = newUnexpected();
                    u.set(MessageType.RTS, context, source, tag, flags(s, at), handle(s, at), address(s, at), total);
                    appendUnexpected(u);
                }
            }
            case MessageType.PUT, MessageType.CNTR_ADD -> onOffload(type, context, tag, source, (int) flags(s, at),
                    handle(s, at), peerHandle(s, at), address(s, at), totalLength(s, at), s,
                    at + MessageHeaderDescriptor.LENGTH, payload);
            case MessageType.CTS -> onCts(source, flags(s, at), handle(s, at), peerHandle(s, at), address(s, at));
            case MessageType.DATA -> onData(source, handle(s, at), address(s, at), s, at + MessageHeaderDescriptor.LENGTH,
                    payload);
            case MessageType.CALL -> onCall(source, context, tag, handle(s, at), peerHandle(s, at), address(s, at));
            case MessageType.FIN -> {
                Operation op = table.lookup(handle(s, at));
                if (op == null) {
                    droppedPackets++;
                    return;
                }
                table.release(op.handle);
                op.complete(op.kind == Operation.SEND ? op.peer : source, op.kind == Operation.SEND ? op.tag : tag,
                        op.kind == Operation.SEND ? op.length : op.total);
            }
            default -> droppedPackets++;
        }
    }

    private void onCts(int source, short flags, long handle, long receiverHandle, long address) {
        Operation op = table.lookup(handle);
        if (op == null || op.kind != Operation.SEND || op.peer != source) {
            droppedPackets++;
            return;
        }
        if ((flags & FLAG_TRUNCATED) != 0) {
            table.release(handle);
            op.complete(op.peer, op.tag, op.length);
        } else if ((flags & FLAG_SENDER_WRITES) != 0) {
            int errno = singleCopy.write(pids[source], address, op.base(), op.offset, op.length);
            if (errno != 0) {
                throw singleCopyFailed(errno, source);
            }
            control(source, MessageType.FIN, (short) 0, op.context, op.tag, receiverHandle, 0, 0, op.length);
            table.release(handle);
            op.complete(op.peer, op.tag, op.length);
        } else {
            table.release(handle);
            op.peerHandle = receiverHandle;
            op.transferred = 0;
            pipelineOut[source].add(op);
            pipelineOutCount++;
        }
    }

    // ------------------------------------------------------------------ offload packets

    private record Endpoint(int context, int tag, OffloadEndpoint target) {
    }

    /**
     * Registers the receiving side of an offloaded collective under (context, tag), and hands it the
     * packets that arrived for it before (a peer may start before this rank has set up).
     */
    public void register(int context, int tag, OffloadEndpoint target) {
        locked(() -> {
            for (Endpoint e : endpoints) {
                if (e.context() == context && e.tag() == tag) {
                    throw new IllegalStateException("an offload endpoint is registered already for context " + context
                            + ", tag " + tag);
                }
            }
            endpoints.add(new Endpoint(context, tag, target));
            java.util.List<byte[]> waiting = new java.util.ArrayList<>(early);
            early.clear();
            for (byte[] packet : waiting) {
                onRecord(MemorySegment.ofArray(packet), 0, packet.length);
            }
        });
    }

    /** Removes an endpoint; packets for it that arrive later are counted and dropped. */
    public void unregister(int context, int tag) {
        locked(() -> {
            if (endpoints.removeIf(e -> e.context() == context && e.tag() == tag)) {
                retired.add(endpointKey(context, tag));
            }
        });
    }

    private static long endpointKey(int context, int tag) {
        return ((long) context << 32) | (tag & 0xFFFFFFFFL);
    }

    /** Runs {@code r} holding the engine, as a wait or the progress agent would. */
    public void locked(Runnable r) {
        if (lock != null) {
            lock.lock();
        }
        try {
            r.run();
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    private OffloadEndpoint endpoint(int context, int tag) {
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get(i);
            if (e.context() == context && e.tag() == tag) {
                return e.target();
            }
        }
        return null;
    }

    /**
     * A PUT (data into a buffer of an offloaded collective, then a counter add) or a remote counter
     * add. Header use: flags = buffer, handle = counter, peer handle = value added, offset = where
     * the data goes, total length = the sender's run (epoch).
     */
    /** A PUT or counter add for an offload endpoint, whichever record carried it; {@code data} is its payload. */
    private void onOffload(byte type, int context, int tag, int source, int buffer, long counter, long value,
                           long offset, long epoch, MemorySegment s, long data, int payload) {
        OffloadEndpoint ep = endpoint(context, tag);
        if (ep == null) {
            if (!retired.isEmpty() && retired.contains(endpointKey(context, tag))) {
                droppedPackets++;
                return;
            }
            // kept as a whole wire message until its endpoint registers (slow path)
            byte[] copy = new byte[MessageHeaderDescriptor.LENGTH + payload];
            MemorySegment c = MemorySegment.ofArray(copy);
            MessageHeaderDescriptor.write(c, 0, type, (short) buffer, wireJobId, context, source, rank, tag, payload,
                    counter, value, offset, epoch);
            MemorySegment.copy(s, data, c, MessageHeaderDescriptor.LENGTH, payload);
            early.add(copy);
            return;
        }
        if (counter < 0 || counter > Integer.MAX_VALUE) {
            droppedPackets++;
            return;
        }
        boolean ok = type == MessageType.PUT
                ? ep.onPut(source, buffer, offset, s, data, payload, (int) counter, value, epoch)
                : ep.onAdd(source, (int) counter, value, epoch);
        if (!ok) {
            droppedPackets++;
        }
    }

    /** The largest PUT payload to {@code dest} that goes in one packet. */
    public int maxPut(int dest) {
        return eagerTo[dest];
    }

    /**
     * Sends {@code length} bytes of {@code src} into buffer {@code buffer} at {@code offset} of rank
     * {@code dest}'s endpoint (context, tag), whose counter {@code counter} then grows by
     * {@code add}; {@code epoch} tells the receiver which run it belongs to. Returns false, sending
     * nothing, when the destination's ring has no room now: the caller (the offload executor)
     * retries later, so a triggered operation is never lost.
     */
    public boolean tryPut(int dest, int context, int tag, int buffer, long offset, MemorySegment src, long srcOffset,
                          int length, int counter, long add, long epoch) {
        if (length > eagerTo[dest]) {
            throw new IllegalArgumentException("a PUT of " + length + " bytes exceeds " + eagerTo[dest]
                    + " to rank " + dest + ": split it");
        }
        if (!pendingOut[dest].isEmpty()) {
            return false;
        }
        if (compactOffload(dest, buffer, counter, epoch)) {
            return writeCompactOffload(dest, MessageType.PUT, context, tag, buffer, offset, src, srcOffset, length,
                    counter, add, (int) epoch);
        }
        InboundRing ring = peers[dest];
        long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + length);
        if (position < 0) {
            return false;
        }
        long at = ring.bodyOffset(position);
        MessageHeaderDescriptor.write(ring.segment(), at, MessageType.PUT, (short) buffer, wireJobId, context, rank,
                dest, tag, length, counter, add, offset, epoch);
        if (length > 0) {
            MemorySegment.copy(src, srcOffset, ring.segment(), at + MessageHeaderDescriptor.LENGTH, length);
        }
        ring.commit(position);
        return true;
    }

    /** Adds {@code value} to counter {@code counter} of rank {@code dest}'s endpoint (context, tag); as {@link #tryPut}. */
    public boolean tryRemoteAdd(int dest, int context, int tag, int counter, long value, long epoch) {
        if (!pendingOut[dest].isEmpty()) {
            return false;
        }
        if (compactOffload(dest, 0, counter, epoch)) {
            return writeCompactOffload(dest, MessageType.CNTR_ADD, context, tag, 0, 0, MemorySegment.NULL, 0, 0, counter,
                    value, (int) epoch);
        }
        return writeControl(dest, MessageType.CNTR_ADD, (short) 0, context, tag, counter, value, 0, epoch);
    }

    /** Whether an offload packet to {@code dest} fits a compact record: a rank of this node, and small fields. */
    private boolean compactOffload(int dest, int buffer, int counter, long epoch) {
        return !remote[dest] && buffer >= 0 && buffer <= 0xFF && counter >= 0
                && counter <= CompactRecordDescriptor.MAX_COUNTER && epoch == (int) epoch;
    }

    private boolean writeCompactOffload(int dest, byte kind, int context, int tag, int buffer, long offset,
                                        MemorySegment src, long srcOffset, int length, int counter, long value,
                                        int epoch) {
        InboundRing ring = peers[dest];
        long position = ring.tryClaim(CompactRecordDescriptor.OFFLOAD_LENGTH + length,
                InboundRingDescriptor.TYPE_OFFLOAD);
        if (position < 0) {
            return false;
        }
        MemorySegment s = ring.segment();
        long at = ring.bodyOffset(position);
        CompactRecordDescriptor.write(s, at, context, rank, tag, length);
        CompactRecordDescriptor.writeOffload(s, at, kind, buffer, counter, epoch, value, offset);
        if (length > 0) {
            MemorySegment.copy(src, srcOffset, s, at + CompactRecordDescriptor.OFFLOAD_LENGTH, length);
        }
        ring.commit(position);
        return true;
    }

    /**
     * A fragment of a large message from a remote rank (the network path of the rendezvous); none
     * to copy ({@code s} null) when the transport received it in place.
     */
    private void onData(int source, long handle, long at, MemorySegment s, long from, int n) {
        Operation op = table.lookup(handle);
        if (op == null || op.kind != Operation.RECV || op.statusSource != source || at < 0 || n <= 0
                || at + n > op.total || !remote[source]) {
            droppedPackets++;
            return;
        }
        if (s != null) {
            Buffers.copyIn(s, from, op.array, op.segment, op.offset + at, n);
        }
        op.transferred += n;
        if (op.transferred == op.total) {
            table.release(op.handle);
            op.complete(op.statusSource, op.statusTag, op.total);
        }
    }

    /**
     * Whether the DATA record of {@code length} bytes from {@code source}, whose header is at
     * {@code s}/{@code at}, may be received straight into its receive's buffer, and where: only the
     * next bytes the receive waits for (DATA of a receive arrive in order), so memory that no one
     * reads before they are there, and only off-heap memory, the kernel's to write into. A receive
     * makes its buffer view on its first placed record (one object per receive, not per record).
     */
    private boolean place(int source, MemorySegment s, long at, int available, int length, Placement into) {
        if (available < MessageHeaderDescriptor.LENGTH || type(s, at) != MessageType.DATA
                || version(s, at) != CURRENT_VERSION || jobId(s, at) != wireJobId || dest(s, at) != rank
                || source(s, at) != source) {
            return false;
        }
        int n = payloadLength(s, at);
        long from = address(s, at);
        Operation op = table.lookup(handle(s, at));
        if (n <= 0 || n != length - MessageHeaderDescriptor.LENGTH || op == null || op.kind != Operation.RECV
                || op.statusSource != source || !remote[source] || op.array != null || from != op.transferred
                || from + n > op.total || op.length > Integer.MAX_VALUE || !op.segment.isNative()) {
            return false;
        }
        if (op.view == null) {
            // the posted buffer, which a persistent receive keeps from one start to the next
            op.view = op.segment.asSlice(op.offset, op.length).asByteBuffer();
        }
        op.view.limit((int) (from + n)).position((int) from);
        into.set(MessageHeaderDescriptor.LENGTH, op.segment.address() + op.offset + from, op.view);
        return true;
    }

    /**
     * Sends the data of a remote rank's rendezvous as DATA packets through the outbox, as far as it
     * has room.
     */
    private int writeDataPackets(int dest, ArrayDeque<Operation> q) {
        int work = 0;
        InboundRing ring = peers[dest];
        // as large as one frame carries, when that is more than the eager limit: fewer frames and
        // system calls per byte, each still handed on without reassembly (the receiver takes DATA
        // straight into the posted buffer, so its ring does not bound them)
        int chunk = Math.max(eagerTo[dest],
                Math.min(ring.maxBodyLength(), transport.frameRecordLength()) - MessageHeaderDescriptor.LENGTH);
        Operation op = q.peek();
        while (op != null) {
            int n = (int) Math.min(chunk, op.length - op.transferred);
            long from = op.offset + op.transferred;
            if (op.array == null && !ring.hasRecord()) {
                // nothing waits in the outbox before it: straight from the user's memory to the
                // transport, which sends it from there if it can (the send then completes once
                // the transport releases it), without the pass through the outbox; when the
                // transport's window is full the data waits where it is, not in the outbox
                if (!transport.canSend(dest)) {
                    break;
                }
                writeDataHeader(dataHeader, 0, op, dest, n);
                long mark = transport.sendInPlace(dest, dataHeader, 0, MessageHeaderDescriptor.LENGTH, op.segment,
                        from, n);
                op.mark = Math.max(op.mark, mark);
            } else {
                long position = ring.tryClaim(MessageHeaderDescriptor.LENGTH + n);
                if (position < 0) {
                    break;
                }
                long at = ring.bodyOffset(position);
                writeDataHeader(ring.segment(), at, op, dest, n);
                Buffers.copyOut(op.array, op.segment, from, ring.segment(), at + MessageHeaderDescriptor.LENGTH, n);
                ring.commit(position);
            }
            work++;
            op = sent(q, op, n);
        }
        return work;
    }

    /** The header of the DATA record that carries the next {@code n} bytes of {@code op} to {@code dest}. */
    private void writeDataHeader(MemorySegment s, long at, Operation op, int dest, int n) {
        MessageHeaderDescriptor.write(s, at, MessageType.DATA, (short) 0, wireJobId, op.context, rank, dest, op.tag, n,
                op.peerHandle, 0, op.transferred, op.length);
    }

    /** Counts {@code n} more bytes of the pipelined send at the head of {@code q}; returns the head then. */
    private Operation sent(ArrayDeque<Operation> q, Operation op, long n) {
        op.transferred += n;
        if (op.transferred < op.length) {
            return op;
        }
        q.poll();
        if (op.mark > 0 && op.mark > transport.released(op.peer)) {
            // the transport still reads the user's memory: done when it lets go
            releasing[op.peer].add(op);
        } else {
            pipelineOutCount--;
            op.complete(op.peer, op.tag, op.length);
        }
        return q.peek();
    }

    /** Completes the sends to {@code dest} whose data the transport has released, in order. */
    private int release(int dest) {
        ArrayDeque<Operation> q = releasing[dest];
        if (q.isEmpty()) {
            return 0;
        }
        long released = transport.released(dest);
        int work = 0;
        for (Operation op = q.peek(); op != null && op.mark <= released; op = q.peek()) {
            q.poll();
            pipelineOutCount--;
            op.complete(op.peer, op.tag, op.length);
            work++;
        }
        return work;
    }

    private int drivePipelineOut() {
        int work = 0;
        for (int dest = 0; dest < size; dest++) {
            ArrayDeque<Operation> q = pipelineOut[dest];
            if (remote[dest]) {
                work += release(dest);
            }
            Operation op = q.peek();
            if (op == null) {
                continue;
            }
            if (remote[dest]) {
                work += writeDataPackets(dest, q);
                continue;
            }
            ExchangeRing ring = outExchange[dest];
            int chunk = ring.chunk();
            long slot;
            while ((slot = ring.tryAcquireSlot()) >= 0) {
                long n = Math.min(chunk, op.length - op.transferred);
                Buffers.copyOut(op.array, op.segment, op.offset + op.transferred, ring.segment(),
                        ExchangeRing.dataOffset(slot), n);
                ring.publish(slot, op.peerHandle, op.transferred, (int) n);
                work++;
                op = sent(q, op, n);
                if (op == null) {
                    break;
                }
            }
        }
        return work;
    }

    private int drivePipelineIn() {
        int work = 0;
        for (int source = 0; source < size; source++) {
            if (pipelineIn[source] == 0) {
                continue;
            }
            ExchangeRing ring = inExchange[source];
            long slot;
            while ((slot = ring.peekSlot()) >= 0) {
                Operation op = table.lookup(ring.slotHandle(slot));
                long at = ring.slotOffset(slot);
                int n = ring.slotDataLength(slot);
                if (op == null || op.kind != Operation.RECV || at < 0 || n < 0 || at + n > op.total) {
                    ring.release();
                    droppedPackets++;
                    continue;
                }
                Buffers.copyIn(ring.segment(), ExchangeRing.dataOffset(slot), op.array, op.segment, op.offset + at, n);
                ring.release();
                op.transferred += n;
                work++;
                if (op.transferred == op.total) {
                    table.release(op.handle);
                    op.complete(op.statusSource, op.statusTag, op.total);
                    if (--pipelineIn[source] == 0) {
                        pipelineInCount--;
                        break;
                    }
                }
            }
        }
        return work;
    }

    // ------------------------------------------------------------------ waiting

    /** Drives progress until {@code op} completes; throws its error. */
    void await(Operation op) {
        if (lock != null) {
            lock.lock();
        }
        try {
            int round = 0;
            while (!op.done) {
                if (progress0() + pollTasks() > 0) {
                    round = 0;
                    continue;
                }
                if (op.done) {
                    break;
                }
                round = idle(round, op.peer);
            }
            if (op.error != null) {
                throw op.error;
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** Work that advances as messages complete, such as a running collective schedule. */
    public interface Task {
        /** Advances what it can; true when the task has finished. Throws the task's error. */
        boolean poll();

        /** Records an error met while the progress agent advanced the task; the next poll throws it. */
        void fail(TuttiException error);

        /** Whether {@code agent} may advance the task (its buffers are not confined to the owner). */
        default boolean accessibleBy(Thread agent) {
            return true;
        }

        /**
         * Called once per liveness interval while a wait for this task idles: throws when the task
         * can tell it will never finish, e.g. a message has arrived that shows the ranks disagree on
         * the call. Slow path; may allocate.
         */
        default void diagnose() {
        }

        /**
         * Slow path: whether the task may still need {@code worldRank} to take part (send it something,
         * or take something from it). A wait checks only those peers' liveness, so that a peer that has
         * finished its part and ended, as it may, does not fail the ranks still working. True unless
         * the task knows better.
         */
        default boolean needs(int worldRank) {
            return true;
        }

        /**
         * Read-only: whether {@link #poll()} would find work that no message announces (a peer's
         * slot published in shared memory). A rank about to sleep asks it after arming its
         * doorbell; the peer that publishes wakes it with {@link #wakeLocal}. Must not allocate.
         */
        default boolean ready() {
            return false;
        }

        /**
         * Whether a wait for this task should spin before it yields. False for a task that waits on
         * every rank of the node at once (a shared-memory slot exchange): with more ranks than cores
         * one of them is surely off its core, and spinning only keeps it off longer.
         */
        default boolean spinPays() {
            return true;
        }
    }

    /**
     * Tells {@code dest} (a world rank) which collective call this rank is waiting in, so that a
     * peer stalled in a different call can see the disagreement. Slow path: sent once per stall.
     *
     * @param sequence the call's number on the communicator; {@code w0..w2} its signature
     */
    public void announceCall(int dest, int context, int sequence, long w0, long w1, long w2) {
        control(dest, MessageType.CALL, (short) 0, context, sequence, w0, w1, w2, 0);
    }

    /**
     * The latest call {@code source} (a world rank) announced on {@code context}: copies sequence
     * and the three signature words into {@code into[0..3]} and returns true, or returns false when
     * it announced none on this context. Called from within a wait on this engine.
     */
    public boolean announcedCall(int source, int context, long[] into) {
        if (calls == null || calls[source * 5] != ((long) context << 1 | 1)) {
            return false;
        }
        System.arraycopy(calls, source * 5 + 1, into, 0, 4);
        return true;
    }

    private void onCall(int source, int context, int sequence, long w0, long w1, long w2) {
        if (calls == null) {
            calls = new long[size * 5];
        }
        int at = source * 5;
        calls[at] = (long) context << 1 | 1;
        calls[at + 1] = sequence;
        calls[at + 2] = w0;
        calls[at + 3] = w1;
        calls[at + 4] = w2;
    }

    /** What {@link #forEachUnexpected} reports of a message that arrived before its receive was posted. */
    @FunctionalInterface
    public interface UnexpectedVisitor {
        /** {@code source} is a world rank; {@code bytes} the message's whole length. */
        void visit(int source, int tag, long bytes);
    }

    /**
     * Visits every unexpected message of {@code context}, in arrival order. Slow path for
     * diagnosis: the caller is inside a wait on this engine (it holds the engine).
     */
    public void forEachUnexpected(int context, UnexpectedVisitor visitor) {
        for (Unexpected u = unexpectedHead; u != null; u = u.next) {
            if (u.context == context) {
                visitor.visit(u.source, u.tag, u.type == MessageType.EAGER ? u.dataLength : u.total);
            }
        }
    }

    /** Drives progress until {@code task} reports it has finished, backing off while idle. */
    public void await(Task task) {
        if (lock != null) {
            lock.lock();
        }
        Task outer = awaited;
        awaited = task;
        try {
            checkOpen();
            int round = 0;
            while (!task.poll()) {
                if (progress0() + pollTasks() > 0) {
                    round = 0;
                    continue;
                }
                if (round < noSpinStart && !task.spinPays()) {
                    round = noSpinStart;
                }
                round = idle(round, ANY);
            }
        } finally {
            awaited = outer;
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** One progress step on behalf of {@link Operation#test()}. */
    void progressFor(Operation op) {
        if (lock != null) {
            lock.lock();
        }
        try {
            checkOpen();
            if (progress0() + pollTasks() == 0 && !op.done) {
                long now = System.nanoTime();
                if (now - lastLivenessNanos > config.livenessMillis() * 1_000_000L) {
                    lastLivenessNanos = now;
                    checkLiveness(op.peer);
                }
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /**
     * Backs off while nothing happens: spin, then yield the core, then park for growing periods, so
     * that more ranks than cores still make progress. Checks peer liveness now and then.
     *
     * @return the next round number
     */
    private int idle(int round, int peer) {
        if (round < spinTries) {
            Thread.onSpinWait();
            return round + 1;
        }
        long now = System.nanoTime();
        if (now - lastLivenessNanos > config.livenessMillis() * 1_000_000L) {
            lastLivenessNanos = now;
            checkLiveness(peer);
            if (awaited != null) {
                awaited.diagnose();
            }
        }
        // with a progress agent, let it in while this thread gives up the core
        int holds = lock == null ? 0 : lock.getHoldCount();
        for (int i = 0; i < holds; i++) {
            lock.unlock();
        }
        try {
            if (round < spinTries + yieldTries) {
                Thread.yield();
                return round + 1;
            }
            TimerSlack.tighten();
            int exponent = Math.min(round - spinTries - yieldTries, 20);
            long park = Math.min(1_000L << exponent, config.maxParkMicros() * 1_000L);
            if (sleeps) {
                // a message wakes it; the time limit covers the other events (exchange rings, the network)
                inbound.sleep(Math.max(park, 50_000L), awaitedReady);
            } else {
                LockSupport.parkNanos(park);
            }
            return round + 1;
        } finally {
            for (int i = 0; i < holds; i++) {
                lock.lock();
            }
        }
    }

    private void checkLiveness(int peer) {
        String abort = JobControl.abortReason();
        if (abort != null) {
            throw new TuttiException.PeerFailed("the job is being stopped: " + abort);
        }
        if (job.threads()) {
            return;
        }
        if (peer >= 0) {
            checkAlive(peer);
        } else {
            for (int r = 0; r < size; r++) {
                if (awaited == null || awaited.needs(r)) {
                    checkAlive(r);
                }
            }
        }
    }

    private void checkAlive(int r) {
        if (r == rank) {
            return;
        }
        if (remote[r]) {
            String why = transport.failure(r);
            if (why != null) {
                throw new TuttiException.PeerFailed("rank " + r + " cannot be reached: " + why);
            }
            return;
        }
        boolean alive = peerProcesses[r] != null && peerProcesses[r].isAlive();
        if (!alive) {
            throw new TuttiException.PeerFailed("rank " + r + " (pid " + pids[r] + ") has exited or was killed;"
                    + " communication with it is impossible (the launcher reports why it ended)");
        }
    }

    private boolean networkFlushed() {
        if (transport == null) {
            return true;
        }
        for (int r = 0; r < size; r++) {
            if (remote[r] && peers[r].hasRecord()) {
                return false;
            }
        }
        return transport.quiescent();
    }

    private void checkOpen() {
        if (closed) {
            throw new TuttiException.NotActive("Tutti has been closed (finalized) on rank " + rank
                    + "; no communication is possible after close()");
        }
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Flushes what is queued for other ranks, then unmaps and removes this rank's files. Sends that
     * were started but never waited for are completed first when their receivers are alive.
     */
    @Override
    public void close() {
        if (agent != null) {
            agent.stop();
        }
        if (lock != null) {
            lock.lock();
        }
        try {
            if (closed) {
                return;
            }
            try {
                int round = 0;
                long deadline = System.nanoTime() + CLOSE_FLUSH_NANOS;
                // sends that completed locally must still reach their ranks: flush the outboxes and
                // wait for the network to acknowledge them (bounded, in case a peer is gone)
                while ((pendingOutCount > 0 || pipelineOutCount > 0 || !networkFlushed())
                        && JobControl.abortReason() == null && System.nanoTime() < deadline) {
                    if (progress0() == 0) {
                        round = idle(round, ANY);
                    }
                }
            } catch (TuttiException e) {
                // a peer is gone: nothing more can be delivered to it
            } finally {
                closed = true;
                closeQuietly(transport);
                if (singleCopy != null) {
                    singleCopy.close();
                }
                arena.close();
                try {
                    Files.deleteIfExists(job.jobDir().resolve(ShmFiles.inboundRingName(rank)));
                    synchronized (sharedFiles) {
                        for (String name : sharedFiles) {
                            Files.deleteIfExists(job.jobDir().resolve(name));
                        }
                    }
                    for (int d = 0; d < size; d++) {
                        Files.deleteIfExists(job.jobDir().resolve(ShmFiles.exchangeRingName(rank, d)));
                    }
                    if (job.launcher() == JobInfo.Launcher.SINGLETON) {
                        ShmFiles.deleteTree(job.jobDir());
                    }
                } catch (java.io.IOException ignored) {
                    // the launcher removes the whole job directory at the end anyway
                }
            }
        } finally {
            if (lock != null) {
                lock.unlock();
            }
        }
    }

    /** A control packet (CTS, FIN) that found its receiver's ring full. */
    private static final class Control {
        byte type;
        short flags;
        int context;
        int tag;
        long handle;
        long peerHandle;
        long address;
        long total;

        void set(byte type, short flags, int context, int tag, long handle, long peerHandle, long address, long total) {
            this.type = type;
            this.flags = flags;
            this.context = context;
            this.tag = tag;
            this.handle = handle;
            this.peerHandle = peerHandle;
            this.address = address;
            this.total = total;
        }
    }

    /** A message that arrived before its receive was posted: an eager payload copy, or an RTS. */
    private static final class Unexpected {
        byte type;
        int context;
        int source;
        int tag;
        short flags;
        long handle;
        long address;
        long total;
        MemorySegment data;
        int dataLength;
        Unexpected next;

        void set(byte type, int context, int source, int tag, short flags, long handle, long address, long total) {
            this.type = type;
            this.context = context;
            this.source = source;
            this.tag = tag;
            this.flags = flags;
            this.handle = handle;
            this.address = address;
            this.total = total;
        }
    }
}
