package io.tutti.p2p;

import io.tutti.Config;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersConfig;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.metrics.RailControl;
import io.tutti.os.SingleCopy;
import io.tutti.transport.Fabric;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.wire.MessageHeaderDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The point-to-point engine of one rank: it wires the parts at start-up and is what the layers above
 * call. {@link Matching} pairs messages with receives in MPI's order, the {@link Outbox} writes
 * eager messages and control records into the peers' rings, the {@link Rendezvous} moves messages
 * longer than {@link P2pConfig#eagerLimit()} (single copy, a pipeline through the pair's exchange
 * ring, or DATA over the network), the {@link Inbox} checks and dispatches what arrives, the
 * {@link NetworkPath} connects the rings to the network transport, and {@link Progress} drives them
 * all and runs the waits; offload packets and call announcements have their own parts.
 *
 * <p>Threading: one thread at a time drives an engine (the rank's application thread, or whoever
 * it hands the communicator to with a happens-before edge). With a progress agent, whoever drives
 * it holds the engine's lock. Shared memory is the only thing other processes touch, through the
 * rings' own ordering rules.
 */
public final class Engine implements AutoCloseable {
    /** Wildcard source and tag as seen by the engine. */
    public static final int ANY = -1;

    /** How long close waits for the network to deliver what was sent before it. */
    private static final long CLOSE_FLUSH_NANOS = 10_000_000_000L;

    private final Fabric fabric;
    private final P2pConfig config;
    private final Arena arena = Arena.ofShared();
    private final Links links;
    /**
     * Held by whoever drives the engine when a progress agent shares it; null without an agent.
     * Set once, by the owner, when the agent starts ({@link #startProgressAgent}).
     */
    private ReentrantLock lock;
    private final SingleCopy singleCopy;
    private final RequestTable table = new RequestTable();
    private final Matching matching;
    private final Outbox outbox;
    private final Rendezvous rendezvous;
    private final OffloadPackets offload;
    private final CallBoard calls;
    private final RmaPackets rma;
    private final Revocations revocations;
    private final Inbox inbox;
    private final Progress progress;
    private ProgressAgent agent;
    private final Operation blockingSend;
    private final Operation blockingRecv;
    /** Sends the launcher the counters' last copy and stops copying (a launcher on another host keeps one). */
    private Runnable stopCopies = () -> { };

    /** {@link #Engine(Fabric, P2pConfig, CountersConfig, List)} with the counters on and no collectives named. */
    public Engine(Fabric fabric, P2pConfig config) {
        this(fabric, config, new CountersConfig(CountersConfig.ENABLED_DEFAULT), List.of());
    }

    /**
     * Joins the job through {@code fabric}: creates this rank's counters file (when {@code counting}
     * is on; {@code operations} names the collectives counted there) and inbound ring, waits for
     * every rank, maps the rings of this node's ranks and opens the network transport to the others.
     */
    public Engine(Fabric fabric, P2pConfig config, CountersConfig counting, List<Counters.Operation> operations) {
        this.fabric = fabric;
        this.config = config;
        this.lock = config.progressThread() ? new ReentrantLock() : null;
        int rank = fabric.rank();
        int size = fabric.size();
        RemoteTransport opened = null;
        Links l;
        try {
            MemorySegment ringMemory = fabric.create(InboundRingDescriptor.fileName(rank),
                    InboundRingDescriptor.fileLength(config.ringCapacity()), arena);
            if (Progress.sleeps(config, fabric.localSize())) {
                // before any peer maps the ring: they read it once
                InboundRing.allowSleep(ringMemory);
            }
            l = new Links(fabric, new InboundRing(ringMemory), counters(fabric, counting, operations), arena,
                    InboundRingDescriptor.fileLength(config.ringCapacity()));
            fabric.join();
            boolean anyRemote = false;
            for (int r = 0; r < size; r++) {
                l.remote[r] = r != rank && (config.forceNetwork() || !fabric.sameHost(r));
                anyRemote |= l.remote[r];
                // our outbox to a remote r is made when first written (Links.ring)
                if (!l.remote[r]) {
                    l.rings[r] = r == rank ? l.inbound
                            : new InboundRing(l.mapRequired(InboundRingDescriptor.fileName(r), arena));
                }
                // every ring and outbox has the same capacity as ours
                l.eagerTo[r] = Math.min(config.eagerLimit(l.remote[r]),
                        l.inbound.maxBodyLength() - MessageHeaderDescriptor.LENGTH);
            }
            for (int r = 0; r < size; r++) {
                l.counters.transport(r, l.remote[r]);
            }
            opened = anyRemote ? openNetwork(fabric, l.remote, config.netProvider()) : null;
            if (opened != null) {
                opened.attach(l.counters);
            }
            // every rank fences here, with or without a transport: between publishing addresses and
            // reading them; and a rank may close (and remove its ring) only after every rank has
            // mapped every ring
            fabric.fence();
            if (opened != null) {
                opened.connect();
                for (int r = 0; r < size; r++) {
                    if (l.remote[r]) {
                        l.eagerTo[r] = Math.min(l.eagerTo[r],
                                opened.maxRecordLength() - MessageHeaderDescriptor.LENGTH);
                    }
                }
            }
        } catch (TimeoutException e) {
            closeQuietly(opened);
            stopCopies.run();
            arena.close();
            throw new TuttiException.Startup("start-up rendezvous failed: " + e.getMessage(), e);
        } catch (TuttiException e) {
            closeQuietly(opened);
            stopCopies.run();
            arena.close();
            throw e;
        } catch (RuntimeException e) {
            closeQuietly(opened);
            stopCopies.run();
            arena.close();
            throw new TuttiException.Startup("cannot set up shared memory in " + fabric.directory() + ": "
                    + e.getMessage(), e);
        }
        l.transport = opened;
        this.links = l;
        boolean copyOn = config.singleCopy() && SingleCopy.platformSupported();
        if (copyOn) {
            SingleCopy.allowPeers();
        }
        this.singleCopy = copyOn ? new SingleCopy() : null;
        this.matching = new Matching(l.inbound.maxBodyLength());
        this.outbox = new Outbox(l, copyOn);
        this.rendezvous = new Rendezvous(l, outbox, table, arena, config, singleCopy);
        this.offload = new OffloadPackets(l, outbox);
        this.calls = new CallBoard(outbox, size);
        this.rma = new RmaPackets(l, outbox);
        this.revocations = new Revocations(outbox, rank);
        this.inbox = new Inbox(l, matching, rendezvous, offload, calls, rma, this::revoked0);
        NetworkPath network = opened == null ? null : new NetworkPath(l, inbox, rendezvous, rma);
        this.progress = new Progress(l, inbox, outbox, rendezvous, network, rma, config, lock, matching,
                revocations);
        this.blockingSend = new Operation(this);
        this.blockingRecv = new Operation(this);
        if (lock != null) {
            this.agent = new ProgressAgent(progress, "tutti-progress-" + rank);
            agent.start();
        }
        fabric.started();
    }

    /**
     * Starts the progress agent if this engine has none yet ({@link P2pConfig#progressThread()}
     * off): windows across the network need one, since their passive-target operations are served
     * where they arrive, whether or not the target's application calls Tutti. Owner thread, outside
     * any call on this engine; from then on every call takes the engine's lock.
     */
    public void startProgressAgent() {
        if (agent != null) {
            return;
        }
        progress.checkOpen();
        lock = new ReentrantLock();
        progress.shareWith(lock);
        agent = new ProgressAgent(progress, "tutti-progress-" + links.rank);
        agent.start();
    }

    /** How long a rail command forwarded by the launcher may wait for the transport's answer. */
    private static final java.time.Duration FORWARDED_COMMAND_WAIT = java.time.Duration.ofSeconds(30);

    /** This rank's counters: in its file in the job's directory when on, else private and still (no file). */
    private Counters counters(Fabric fabric, CountersConfig counting, List<Counters.Operation> operations) {
        int size = fabric.size();
        String dir = fabric.directory().getFileName().toString();
        String job = dir.startsWith("tutti-") ? dir.substring("tutti-".length()) : dir;
        if (!counting.enabled()) {
            return Counters.off(job, fabric.rank(), size, ProcessHandle.current().pid(), operations);
        }
        String name = CountersDescriptor.fileName(fabric.rank());
        MemorySegment file = fabric.create(name, Counters.fileLength(size, operations), arena);
        Counters c = Counters.format(file, true, job, fabric.rank(), size, ProcessHandle.current().pid(), operations);
        // a command forwarded from the launcher's copy goes through this file, as a local operator's does
        RailControl control = RailControl.of(file);
        stopCopies = fabric.copyToLauncher(name, file, (op, rail) -> control == null ? 0
                : control.carryOut(op, rail, FORWARDED_COMMAND_WAIT));
        return c;
    }

    /** This rank's counters, which the collectives count into; owner thread. */
    public Counters counters() {
        return links.counters;
    }

    /**
     * Opens the network transport; its errors say so (a bad network setting is the program's error,
     * not the shared memory's): a setting out of range is {@link TuttiException.InvalidArgument}.
     */
    private static RemoteTransport openNetwork(Fabric fabric, boolean[] remote, String provider) {
        try {
            return fabric.openNetwork(remote, provider);
        } catch (TuttiException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new TuttiException.InvalidArgument("network rails: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new TuttiException.Startup("cannot open the network rails: " + e.getMessage(), e);
        }
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

    private void enter() {
        if (lock != null) {
            lock.lock();
        }
    }

    private void leave() {
        if (lock != null) {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ what the job looks like

    /** The job id every packet carries. */
    public int wireJobId() {
        return links.wireJobId;
    }

    public int rank() {
        return links.rank;
    }

    public int size() {
        return links.size;
    }

    /** Ranks on this rank's node (by the launcher's count). */
    public int localSize() {
        return fabric.localSize();
    }

    public P2pConfig config() {
        return config;
    }

    /** This rank's inbound ring (tests: the fuzz target writes records into it as a local peer would). */
    InboundRing inboundRing() {
        return links.inbound;
    }

    /** Packets rejected by the decoder since start. */
    public long droppedPackets() {
        return links.dropped();
    }

    /** How many ranks this rank reaches through the network transport (0 when all share its memory). */
    public int remotePeers() {
        return links.remotePeers();
    }

    /** Whether a progress agent drives this engine too. */
    public boolean hasProgressAgent() {
        return agent != null;
    }

    /** The CPU package (socket) a world rank ran on at start-up. */
    public int packageOf(int worldRank) {
        return fabric.packageOf(worldRank);
    }

    /**
     * Node index of a world rank: ranks on one host ({@code TUTTI_HOST}, else the host name) share
     * it, whichever transport connects them; hosts are numbered in the order of their lowest rank.
     */
    public int nodeOf(int worldRank) {
        return fabric.nodeOf(worldRank);
    }

    /** Whether {@code worldRank} is this rank or a peer reached through shared memory (not the network). */
    public boolean sharesMemoryWith(int worldRank) {
        return !links.remote[worldRank];
    }

    /** Whether large messages between off-heap buffers are copied once. */
    public boolean singleCopyEnabled() {
        return singleCopy != null;
    }

    // ------------------------------------------------------------------ shared memory of the layers above

    /**
     * Creates shared-memory file {@code name} of {@code length} zero bytes in the job directory,
     * lets {@code format} write it, and only then gives it its name, so that a peer that maps it by
     * that name never sees it unformatted. The file is removed when this engine closes. Owner thread.
     */
    public MemorySegment createShared(String name, long length, Consumer<MemorySegment> format) {
        return createShared(name, length, format, arena);
    }

    /**
     * {@link #createShared(String, long, Consumer)}, mapped in {@code mapping}: the caller unmaps it by
     * closing that arena, and may remove the file before close with {@link #removeShared}.
     */
    public MemorySegment createShared(String name, long length, Consumer<MemorySegment> format, Arena mapping) {
        return fabric.publish(name, length, format, mapping);
    }

    /** Maps shared-memory file {@code name} of a peer; null while it does not exist yet. */
    public MemorySegment mapShared(String name) {
        return mapShared(name, arena);
    }

    /** {@link #mapShared(String)}, mapped in {@code mapping} (the caller unmaps it by closing that arena). */
    public MemorySegment mapShared(String name, Arena mapping) {
        return fabric.map(name, mapping);
    }

    /**
     * Removes shared-memory file {@code name}, created by {@link #createShared}, before close: peers
     * that mapped it keep their mappings, and no peer can map it any more. Owner thread.
     */
    public void removeShared(String name) {
        fabric.remove(name);
    }

    /**
     * Wakes {@code worldRank} (a peer reached through shared memory) if it sleeps waiting for work,
     * after the caller published something other than a message that it may wait for (see
     * {@link Task#ready()}). Does nothing for peers that never sleep.
     */
    public void wakeLocal(int worldRank) {
        if (worldRank != links.rank && !links.remote[worldRank]) {
            links.rings[worldRank].wakeConsumer();
        }
    }

    // ------------------------------------------------------------------ sends

    /** Starts a send; the returned operation completes when the buffer may be reused. */
    public Operation isend(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                           long length) {
        enter();
        try {
            Operation op = new Operation(this);
            startSend(op, context, dest, tag, array, segment, offset, length, false);
            return op;
        } finally {
            leave();
        }
    }

    /**
     * Starts a synchronous send (MPI_ISSEND): whatever its length it takes the rendezvous, so the
     * operation completes only once the receiver has matched it with a receive.
     */
    public Operation issend(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                            long length) {
        enter();
        try {
            Operation op = new Operation(this);
            op.synchronous = true;
            startSend(op, context, dest, tag, array, segment, offset, length, true);
            return op;
        } finally {
            leave();
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
        enter();
        try {
            startSend(op, context, dest, tag, array, segment, offset, length, false);
        } finally {
            leave();
        }
    }

    /** Blocking send. */
    public void send(int context, int dest, int tag, Object array, MemorySegment segment, long offset, long length) {
        enter();
        try {
            progress.checkOpen();
            checkRevoked(context);
            if (length <= links.eagerTo[dest] && outbox.clear(dest)
                    && outbox.writeEager(dest, context, tag, array, segment, offset, (int) length)) {
                links.counters.sent(dest, length);
                return;
            }
            Operation op = blockingSend;
            startSend(op, context, dest, tag, array, segment, offset, length, false);
            progress.await(op);
        } finally {
            leave();
        }
    }

    /**
     * Starts {@code op}'s send: eager when it fits and is not {@code synchronous}, else by rendezvous.
     * The standard sends pass a constant false, which the JIT folds where it inlines this.
     */
    private void startSend(Operation op, int context, int dest, int tag, Object array, MemorySegment segment,
                           long offset, long length, boolean synchronous) {
        progress.checkOpen();
        checkRevoked(context);
        op.reset(Operation.SEND, context, dest, tag, array, segment, offset, length, null);
        links.counters.sent(dest, length);
        if (length <= links.eagerTo[dest] && !synchronous) {
            if (outbox.clear(dest) && outbox.writeEager(dest, context, tag, array, segment, offset, (int) length)) {
                op.complete(dest, tag, length);
            } else {
                outbox.enqueue(dest, op);
            }
            return;
        }
        links.counters.largeMessage(dest, tag, length, true);
        rendezvous.startSend(op);
    }

    /** A persistent send: inactive until {@link Operation#start()}. */
    public Operation sendInit(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                              long length) {
        progress.checkOpen();
        Operation op = new Operation(this);
        op.reset(0, context, dest, tag, array, segment, offset, length, null);
        op.persist(Operation.SEND, dest, tag, offset, length);
        return op;
    }

    /** A persistent synchronous send (MPI_SSEND_INIT): each start takes the rendezvous, as {@link #issend} does. */
    public Operation ssendInit(int context, int dest, int tag, Object array, MemorySegment segment, long offset,
                               long length) {
        Operation op = sendInit(context, dest, tag, array, segment, offset, length);
        op.synchronous = true;
        return op;
    }

    /** A persistent receive: inactive until {@link Operation#start()}. */
    public Operation recvInit(int context, int source, int tag, Object array, MemorySegment segment, long offset,
                              long length, int[] worldToComm) {
        progress.checkOpen();
        Operation op = new Operation(this);
        op.reset(0, context, source, tag, array, segment, offset, length, worldToComm);
        op.persist(Operation.RECV, source, tag, offset, length);
        return op;
    }

    void restart(Operation op) {
        enter();
        try {
            if (op.persistentKind == Operation.SEND) {
                startSend(op, op.context, op.initPeer, op.initTag, op.array, op.segment, op.initOffset, op.initLength,
                        op.synchronous);
            } else {
                startRecv(op, op.context, op.initPeer, op.initTag, op.array, op.segment, op.initOffset, op.initLength,
                        op.worldToComm());
            }
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------ receives

    /** Starts a receive into the buffer; {@code source} and {@code tag} may be {@link #ANY}. */
    public Operation irecv(int context, int source, int tag, Object array, MemorySegment segment, long offset,
                           long length, int[] worldToComm) {
        enter();
        try {
            Operation op = new Operation(this);
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
            return op;
        } finally {
            leave();
        }
    }

    /** {@link #irecv} into a caller-owned, completed operation. */
    public void irecv(Operation op, int context, int source, int tag, Object array, MemorySegment segment, long offset,
                      long length, int[] worldToComm) {
        enter();
        try {
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
        } finally {
            leave();
        }
    }

    /** Blocking receive; fills {@code status} if it is not null. */
    public void recv(int context, int source, int tag, Object array, MemorySegment segment, long offset, long length,
                     int[] worldToComm, Status status) {
        enter();
        try {
            Operation op = blockingRecv;
            startRecv(op, context, source, tag, array, segment, offset, length, worldToComm);
            progress.await(op);
            op.fill(status);
        } finally {
            leave();
        }
    }

    private void startRecv(Operation op, int context, int source, int tag, Object array, MemorySegment segment,
                           long offset, long length, int[] worldToComm) {
        progress.checkOpen();
        checkRevoked(context);
        op.reset(Operation.RECV, context, source, tag, array, segment, offset, length, worldToComm);
        Matching.Unexpected u = matching.findUnexpected(context, source, tag, true);
        if (u != null) {
            if (u.type == io.tutti.wire.MessageType.EAGER) {
                op.deliver(u.source, u.tag, u.data, 0, u.dataLength);
            } else {
                rendezvous.startRecv(op, u.source, u.tag, u.handle, u.flags, u.address, u.total);
            }
            matching.free(u);
            return;
        }
        // Not there yet: posted, and matched by the next pass of a wait or test. No pass here: one
        // would take what a sender has already written for the receives posted next as unexpected
        // (a copy each) before they are posted (docs/perf/p2p.md, message rate).
        matching.post(op);
    }

    // ------------------------------------------------------------------ probe

    /** Non-blocking probe: fills {@code status} and returns true if a matching message has arrived. */
    public boolean iprobe(int context, int source, int tag, Status status, int[] worldToComm) {
        enter();
        try {
            progress.checkOpen();
            progress.pass();
            checkRevoked(context);
            Matching.Unexpected u = matching.findUnexpected(context, source, tag, false);
            if (u == null) {
                return false;
            }
            if (status != null) {
                status.set(worldToComm == null ? u.source : worldToComm[u.source], u.tag, u.bytes());
            }
            return true;
        } finally {
            leave();
        }
    }

    /** Blocking probe. */
    public void probe(int context, int source, int tag, Status status, int[] worldToComm) {
        enter();
        try {
            int round = 0;
            while (!iprobe(context, source, tag, status, worldToComm)) {
                round = progress.idle(round, source);
            }
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------ progress and waits

    /** Makes progress on everything in flight; returns the amount of work done (0 = idle). */
    public int progress() {
        enter();
        try {
            return progress.passAndTasks();
        } finally {
            leave();
        }
    }

    /**
     * Drives {@code other}, an engine of this process's other job (one it spawned or joined at a
     * port, or the one it was joined from), whenever a wait of this one is past its spin phase: over
     * the rails what that engine queued or must send again moves only when someone drives it, and a
     * rank blocked here would otherwise hold up a peer that waits there (PortsIT over the rails).
     */
    public void alsoDrive(Engine other) {
        progress.alsoDrive(other);
    }

    /** Stops driving {@code other} ({@link #alsoDrive}): it is closing. */
    public void stopDriving(Engine other) {
        progress.stopDriving(other);
    }

    /** Drives progress until {@code op} completes; throws its error. */
    void await(Operation op) {
        enter();
        try {
            progress.await(op);
        } finally {
            leave();
        }
    }

    /** One progress step on behalf of {@link Operation#test()}. */
    void progressFor(Operation op) {
        enter();
        try {
            progress.passFor(op);
        } finally {
            leave();
        }
    }

    /** Drives progress until {@code task} reports it has finished, backing off while idle. */
    public void await(Task task) {
        enter();
        try {
            progress.await(task);
        } finally {
            leave();
        }
    }

    /**
     * Keeps {@code task} (a running nonblocking or persistent collective) advancing until it
     * completes: every wait and test on this engine, and the progress agent if there is one, polls
     * it. Without this, waiting for one collective could starve another that a peer waits for.
     */
    public void track(Task task) {
        // no capturing lambda here: once per start, it allocated until C2 compiled it away, which a
        // loaded machine delays (OffloadedCollectivesTest.backToBackStartsAllocateNothing)
        enter();
        try {
            progress.track(task);
        } finally {
            leave();
        }
    }

    /** Stops polling a task that has finished (its owner is about to reuse it). */
    public void untrack(Task task) {
        enter();
        try {
            progress.untrack(task);
        } finally {
            leave();
        }
    }

    /** One progress pass and one poll of {@code task}, for a test of it; true when it has finished. */
    public boolean test(Task task) {
        enter();
        try {
            return progress.test(task);
        } finally {
            leave();
        }
    }

    /** Runs {@code r} holding the engine, as a wait or the progress agent would. */
    public void locked(Runnable r) {
        enter();
        try {
            r.run();
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------ offload packets

    /**
     * Registers the receiving side of an offloaded collective under (context, tag), and hands it the
     * packets that arrived for it before (a peer may start before this rank has set up).
     */
    public void register(int context, int tag, OffloadEndpoint target) {
        locked(() -> {
            List<byte[]> waiting = offload.register(context, tag, target);
            for (byte[] packet : waiting) {
                inbox.onRecord(MemorySegment.ofArray(packet), 0, packet.length);
            }
        });
    }

    /** Removes an endpoint; packets for it that arrive later are counted and dropped. */
    public void unregister(int context, int tag) {
        locked(() -> offload.unregister(context, tag));
    }

    /** The largest PUT payload to {@code dest} that goes in one packet. */
    public int maxPut(int dest) {
        return offload.maxPut(dest);
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
        return offload.tryPut(dest, context, tag, buffer, offset, src, srcOffset, length, counter, add, epoch);
    }

    /**
     * Adds {@code value} to counter {@code counter} of rank {@code dest}'s endpoint (context, tag);
     * as {@link #tryPut}.
     */
    public boolean tryRemoteAdd(int dest, int context, int tag, int counter, long value, long epoch) {
        return offload.tryRemoteAdd(dest, context, tag, counter, value, epoch);
    }

    // ------------------------------------------------------------------ one-sided operations across the network

    /** Registers window {@code tag} of the communicator on {@code context} for the RMA records addressed to it. */
    public void registerRma(int context, int tag, RmaEndpoint target) {
        locked(() -> rma.register(context, tag, target));
    }

    /** Removes a window's endpoint; records for it that arrive later are counted and dropped. */
    public void unregisterRma(int context, int tag) {
        locked(() -> rma.unregister(context, tag));
    }

    /** The largest payload of one RMA record to {@code dest} (a world rank reached over the network). */
    public int maxRmaPayload(int dest) {
        return rma.maxPayload(dest);
    }

    /**
     * Writes an RMA record to {@code dest} (a world rank reached over the network) if nothing waits
     * for it and its outbox has room now; false, sending nothing, otherwise (progress frees room).
     */
    public boolean trySendRma(int dest, short op, int context, int tag, long handle, long peerHandle, long address,
                              long total, MemorySegment payload, long offset, int length) {
        enter();
        try {
            progress.checkOpen();
            return rma.trySend(dest, op, context, tag, handle, peerHandle, address, total, payload, offset, length);
        } finally {
            leave();
        }
    }

    /**
     * As {@link #trySendRma}, but the transport may send the payload from where it is, also after
     * returning (and to resend it): then the caller keeps it unchanged and valid until
     * {@link #rmaReleased} for {@code dest} reaches the returned mark. -1: nothing sent (no room
     * now); 0: sent, the payload copied. The payload's memory must be reachable from any thread.
     */
    public long trySendRmaInPlace(int dest, short op, int context, int tag, long handle, long peerHandle,
                                  long address, long total, MemorySegment payload, long offset, int length) {
        enter();
        try {
            progress.checkOpen();
            return rma.trySendInPlace(dest, op, context, tag, handle, peerHandle, address, total, payload, offset,
                    length);
        } finally {
            leave();
        }
    }

    /** How far payloads sent in place to {@code dest} ({@link #trySendRmaInPlace}) are released: no mark above is read again. */
    public long rmaReleased(int dest) {
        enter();
        try {
            return rma.released(dest);
        } finally {
            leave();
        }
    }

    /** The eager limit to {@code dest}: the largest message sent to it from a copy rather than from its sender's memory. */
    public int eagerLimit(int dest) {
        return links.eagerTo[dest];
    }

    /**
     * Sends an RMA record to {@code dest} now or, copied, later: never lost, never waits. For the
     * answers an {@link RmaEndpoint} sends from the arrival path (the caller holds the engine).
     */
    public void sendRma(int dest, short op, int context, int tag, long handle, long peerHandle, long address,
                        long total, MemorySegment payload, long offset, int length) {
        enter();
        try {
            rma.send(dest, op, context, tag, handle, peerHandle, address, total, payload, offset, length);
        } finally {
            leave();
        }
    }

    // ------------------------------------------------------------------ diagnosis of stalled collectives

    /**
     * Tells {@code dest} (a world rank) which collective call this rank is waiting in, so that a
     * peer stalled in a different call can see the disagreement. Slow path: sent once per stall.
     *
     * @param sequence the call's number on the communicator; {@code w0..w2} its signature
     */
    public void announceCall(int dest, int context, int sequence, long w0, long w1, long w2) {
        calls.announce(dest, context, sequence, w0, w1, w2);
    }

    /**
     * The latest call {@code source} (a world rank) announced on {@code context}: copies sequence
     * and the three signature words into {@code into[0..3]} and returns true, or returns false when
     * it announced none on this context. Called from within a wait on this engine.
     */
    public boolean announcedCall(int source, int context, long[] into) {
        return calls.announced(source, context, into);
    }

    /**
     * Set in an announced call's first signature word: the call failed on the announcing rank
     * (the other bits: its signature, or 0). Such an announcement is kept apart from the latest
     * ({@link #announcedFailure}), so that the rank's next call does not hide it.
     */
    public static final long CALL_FAILED = 1L << 62;

    /**
     * The latest call {@code source} announced as failed ({@link #CALL_FAILED}) on {@code context},
     * as {@link #announcedCall} gives it; false when none. Called from within a wait on this engine.
     */
    public boolean announcedFailure(int source, int context, long[] into) {
        return calls.failed(source, context, into);
    }

    // ------------------------------------------------------------------ surviving failures (ULFM)

    /**
     * Records the group (world ranks) of the communicator on {@code context}, whose revoke this rank
     * then floods to the group's other members. Every communicator registers once, at creation.
     */
    public void registerGroup(int context, int[] group) {
        locked(() -> revocations.register(context, group, this::failureOf));
    }

    /**
     * Revokes the communicator on {@code context}: operations pending on it, or on its collectives'
     * {@code context + 1}, here and at every other member, fail with {@link TuttiException.Revoked}.
     * Returns at once; the other members learn it through REVOKE records, each forwarding it once.
     */
    public void revoke(int context) {
        locked(() -> revocations.revoke(context, this::failureOf));
    }

    /** Fails a call on a revoked communicator. */
    private void checkRevoked(int context) {
        if (revocations.revoked(context)) {
            throw revokedError("before this call");
        }
    }

    /** The error of an operation on a revoked communicator; {@code when} says when it was revoked (its words follow "revoked"). */
    public static TuttiException.Revoked revokedError(String when) {
        return new TuttiException.Revoked("the communicator was revoked " + when + " (Communicator.revoke, here or"
                + " on another rank): no operation on it can run; use shrink() for a communicator of the survivors");
    }

    private void revoked0(int context) {
        revocations.revoke(context, this::failureOf);
    }

    /** Whether {@code context} is revoked (as of the last progress pass); allocation-free, for every call. */
    public boolean revoked(int context) {
        // the progress agent may be recording a revoke in a pass
        enter();
        try {
            return revocations.revoked(context);
        } finally {
            leave();
        }
    }

    /**
     * Why {@code worldRank} is known to have failed (exited, killed, unreachable), or null while it
     * is not; the same check a blocked wait makes. Slow path: a system call per local peer.
     */
    public String failure(int worldRank) {
        enter();
        try {
            return failureOf(worldRank);
        } finally {
            leave();
        }
    }

    private String failureOf(int worldRank) {
        return progress == null ? null : progress.failure(worldRank, false);
    }

    /**
     * The communicator on {@code context} acknowledges the failure of {@code worldRank}: its receives
     * from any source no longer fail because of it (ULFM's failure_ack).
     */
    public void acknowledge(int context, int worldRank) {
        locked(() -> revocations.acknowledge(context, worldRank));
    }

    /**
     * Takes a receive that has not matched yet out of the posted queue, where it never completes
     * ({@link Operation#cancel()} completes it, cancelled); whether it was there. Owner thread.
     */
    public boolean cancel(Operation op) {
        enter();
        try {
            return matching.remove(op);
        } finally {
            leave();
        }
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
        matching.forEachUnexpected(context, visitor);
    }

    // ------------------------------------------------------------------ close

    /** Fails with {@link TuttiException.NotActive} once this engine is closed: for calls that reach no other check first. */
    public void checkOpen() {
        progress.checkOpen();
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return progress.closed();
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
        enter();
        try {
            if (progress.closed()) {
                return;
            }
            try {
                int round = 0;
                long deadline = System.nanoTime() + CLOSE_FLUSH_NANOS;
                // sends that completed locally must still reach their ranks: flush the outboxes and
                // wait for the network to acknowledge them (bounded). A dead peer stops neither the
                // flush to the others nor holds it up: sending() skips what waits for it.
                while (progress.sending() && fabric.abortReason() == null && System.nanoTime() < deadline) {
                    if (progress.pass() == 0) {
                        // liveness checked for this rank alone: the abort reason, never another's death
                        round = progress.idle(round, fabric.rank());
                    }
                }
            } catch (TuttiException e) {
                // the job is being stopped, or this rank's own transport failed: nothing more can go
            } finally {
                progress.markClosed();
                // local peers whose wildcard receives find this process gone know it ended, not failed
                links.inbound.markClosed();
                closeQuietly(links.transport);
                if (singleCopy != null) {
                    singleCopy.close();
                }
                stopCopies.run();
                arena.close();
                fabric.close();
            }
        } finally {
            leave();
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
         * the call, or clears what a failed peer left in its way (a window lock it held). Slow path;
         * may allocate.
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
         * Slow path, for the counters' blocked call: the world rank the task waits for now (a
         * receive it has posted, else a send), or -1 when it cannot tell or waits on several.
         */
        default int waitsFor() {
            return -1;
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
}
