package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.TuttiException;
import io.tutti.Window;
import io.tutti.os.SingleCopy;
import io.tutti.p2p.Engine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.IntPredicate;

/**
 * A window whose ranks all share memory with this one. Each rank publishes a {@link WindowArea}
 * file, and every rank maps all of them at creation. Puts and gets are one copy into or out of the
 * target's memory: a plain copy when it is mapped here (memory Tutti allocated, or the caller's
 * memory of a rank in this process), else one copy through the kernel ({@link SingleCopy}) into the
 * caller's memory of another process (whatever {@code tutti.shm.single.copy} says, which is about
 * messages: windows have no other way). No operation needs the target's CPU, so every operation is
 * complete when its call returns, and flush only orders memory. Ranks on other hosts are reached
 * through {@link RemoteAccess}, where a get completes at the flush.
 *
 * <p>Accumulates take the target's accumulate lock (a CAS word) around the reduction. Why a lock and
 * not atomic instructions: it covers every operation on every type (byte, char, MAXLOC pairs,
 * unaligned elements, products of floats), with the same kernels as the collectives, and memory
 * reached only through the kernel; one lock acquisition also covers a whole vector. Hardware atomics
 * would win for single aligned int/long fetchAndOp under contention: to be measured, then both may
 * not be mixed on one window. Waits go through the engine, which checks that the ranks waited for
 * still live; a lock whose holder has died is released by the rank that waits for it.
 */
public final class ShmWindow extends Window {
    private static final int KIND_CREATE = 0;
    private static final int KIND_ALLOCATE = 1;
    private static final int KIND_SHARED = 2;
    private static final int KIND_DYNAMIC = 3;
    /** All of this process's memory: a dynamic window's target in this process is reached at its addresses. */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final int EPERM = 1;
    private static final int ESRCH = 3;

    private final Engine engine;
    private final int[] group;
    private final int me;
    private final int n;
    private final boolean shared;
    private final Runnable barrier;
    private final Arena arena;
    private final String fileName;
    private final WindowArea[] areas;
    private final WindowArea own;
    /** Per target: its window memory mapped here, or null when only the kernel reaches it. */
    private final MemorySegment[] data;
    private final long[] bytes;
    private final int[] dispUnits;
    private final int[] pids;
    private final long[] addresses;
    private final SingleCopy copier;
    private final MemorySegment ownData;
    /** Per rank, for a dynamic window: the regions it attached; null otherwise. */
    private final RegionTable[] regions;
    private final Wait wait = new Wait();
    /** Whether a window rank is known to have died (exited, killed, unreachable): a slow path. */
    private final IntPredicate dead;
    /** Per peer: posts sent to it, posts from it consumed, completes sent to it, completes from it consumed. */
    private final long[] postsSent;
    private final long[] postsTaken;
    private final long[] completesSent;
    private final long[] completesTaken;
    private long fences;
    /** Staging for accumulates into memory only the kernel reaches. */
    private MemorySegment scratch = MemorySegment.NULL;
    /** The ranks reached over the network and this rank's side of their operations; null when none. */
    private final RemoteAccess net;

    private ShmWindow(Engine engine, int[] group, int rank, boolean shared, Runnable barrier, Arena arena,
                      String fileName, WindowArea[] areas, MemorySegment[] data, long[] bytes, int[] dispUnits,
                      int[] pids, long[] addresses, SingleCopy copier, MemorySegment ownData, RegionTable[] regions,
                      RemoteAccess net) {
        super(rank, group.length, regions != null);
        this.engine = engine;
        this.group = group;
        this.me = rank;
        this.n = group.length;
        this.shared = shared;
        this.barrier = barrier;
        this.arena = arena;
        this.fileName = fileName;
        this.areas = areas;
        this.own = areas[rank];
        this.data = data;
        this.bytes = bytes;
        this.dispUnits = dispUnits;
        this.pids = pids;
        this.addresses = addresses;
        this.copier = copier;
        this.ownData = ownData;
        this.regions = regions;
        this.net = net;
        this.dead = r -> engine.failure(group[r]) != null;
        this.postsSent = new long[n];
        this.postsTaken = new long[n];
        this.completesSent = new long[n];
        this.completesTaken = new long[n];
    }

    /**
     * Creates this rank's part of a window, collectively: publishes its area, waits at
     * {@code barrier} for every rank's, and maps them.
     *
     * @param memory   the caller's memory (native), or null for memory Tutti allocates
     * @param shared   whether peers get each other's memory through {@link #sharedSegment(int)}
     * @param sequence the window's number on its communicator (the same on every rank)
     * @param sizes    when some ranks are reached over the network, every rank's window bytes and
     *                 displacement unit (two longs per rank); null when all share this rank's memory
     * @param config   the one-sided settings (how small operations to a remote rank are batched)
     */
    public static ShmWindow open(Engine engine, int context, int sequence, int[] group, int rank, MemorySegment memory,
                                 long windowBytes, int dispUnit, boolean shared, Runnable barrier, long[] sizes,
                                 RmaConfig config) {
        int kind = memory != null ? KIND_CREATE : shared ? KIND_SHARED : KIND_ALLOCATE;
        if (sizes != null && shared) {
            throw new TuttiException("allocateSharedWindow needs every rank of the communicator on one host, where"
                    + " each can map the others' memory; rank " + rank + " reaches some over the network: use"
                    + " allocateWindow and put/get, or a communicator of one host's ranks (split by host)");
        }
        return open(engine, context, sequence, group, rank, memory, windowBytes, dispUnit, kind, barrier, sizes,
                config);
    }

    /**
     * Creates this rank's part of a dynamic window, collectively: its area holds the table of the
     * regions it attaches ({@link RegionTable}), and displacements are addresses in them.
     */
    public static ShmWindow openDynamic(Engine engine, int context, int sequence, int[] group, int rank,
                                        Runnable barrier, long[] sizes, RmaConfig config) {
        return open(engine, context, sequence, group, rank, null, 0, 1, KIND_DYNAMIC, barrier, sizes, config);
    }

    private static ShmWindow open(Engine engine, int context, int sequence, int[] group, int rank, MemorySegment memory,
                                  long windowBytes, int dispUnit, int kind, Runnable barrier, long[] sizes,
                                  RmaConfig config) {
        int n = group.length;
        boolean dynamic = kind == KIND_DYNAMIC;
        long dataBytes = dynamic ? WindowAreaDescriptor.REGION_TABLE_BYTES : memory != null ? 0 : windowBytes;
        long pid = ProcessHandle.current().pid();
        String name = WindowAreaDescriptor.fileName(context, sequence, group[rank]);
        if ((memory != null || dynamic) && SingleCopy.platformSupported()) {
            // peers of other processes reach the caller's memory only through the kernel
            SingleCopy.allowPeers();
        }
        Arena arena = Arena.ofShared();
        boolean ok = false;
        RemoteAccess net = null;
        try {
            MemorySegment mine = engine.createShared(name, WindowAreaDescriptor.fileLength(n, dataBytes), s -> {
                s.set(ValueLayout.JAVA_INT, WindowAreaDescriptor.RANKS_OFFSET, n);
                s.set(ValueLayout.JAVA_INT, WindowAreaDescriptor.DISP_UNIT_OFFSET, dispUnit);
                s.set(ValueLayout.JAVA_INT, WindowAreaDescriptor.KIND_OFFSET, kind);
                s.set(ValueLayout.JAVA_LONG, WindowAreaDescriptor.BYTES_OFFSET, windowBytes);
                s.set(ValueLayout.JAVA_LONG, WindowAreaDescriptor.PID_OFFSET, pid);
                s.set(ValueLayout.JAVA_LONG, WindowAreaDescriptor.ADDRESS_OFFSET, memory != null ? memory.address() : 0);
                s.set(ValueLayout.JAVA_INT, WindowAreaDescriptor.MAGIC_OFFSET, WindowAreaDescriptor.MAGIC);
            }, arena);
            boolean[] remote = new boolean[n];
            if (sizes != null) {
                for (int r = 0; r < n; r++) {
                    remote[r] = !engine.sharesMemoryWith(group[r]);
                }
                // served where records arrive, whether or not this rank's application calls Tutti
                engine.startProgressAgent();
                // a dynamic window's records land at the addresses of the regions this rank attaches
                MemorySegment reachable = dynamic ? EVERYTHING : memory != null
                        ? MemorySegment.ofAddress(memory.address()).reinterpret(windowBytes)
                        : mine.asSlice(WindowAreaDescriptor.dataOffset(n), windowBytes);
                Extent extent = dynamic ? Extent.attached(new RegionTable(mine.asSlice(WindowAreaDescriptor.dataOffset(n),
                        WindowAreaDescriptor.REGION_TABLE_BYTES))) : Extent.of(reachable.byteSize());
                net = new RemoteAccess(engine, context, sequence, group, rank, remote, new WindowArea(mine), reachable,
                        extent, config.batchBytes(), config.replies());
                net.open();
            }
            barrier.run();
            WindowArea[] areas = new WindowArea[n];
            MemorySegment[] data = new MemorySegment[n];
            long[] bytes = new long[n];
            int[] dispUnits = new int[n];
            int[] pids = new int[n];
            long[] addresses = new long[n];
            RegionTable[] regions = dynamic ? new RegionTable[n] : null;
            boolean needsKernel = false;
            for (int r = 0; r < n; r++) {
                if (remote[r]) {
                    // reached over the network: its sizes came with the creation, its memory through net
                    bytes[r] = sizes[2 * r];
                    dispUnits[r] = (int) sizes[2 * r + 1];
                    continue;
                }
                MemorySegment s = r == rank ? mine
                        : engine.mapShared(WindowAreaDescriptor.fileName(context, sequence, group[r]), arena);
                if (s == null || s.byteSize() < WindowAreaDescriptor.dataOffset(n)
                        || s.get(ValueLayout.JAVA_INT, WindowAreaDescriptor.MAGIC_OFFSET) != WindowAreaDescriptor.MAGIC
                        || s.get(ValueLayout.JAVA_INT, WindowAreaDescriptor.RANKS_OFFSET) != n) {
                    throw new TuttiException("rank " + r + "'s window area is missing or malformed after every rank"
                            + " created its own; were the windows of this communicator created in the same order"
                            + " on every rank?");
                }
                if ((s.get(ValueLayout.JAVA_INT, WindowAreaDescriptor.KIND_OFFSET) == KIND_DYNAMIC) != dynamic) {
                    throw new TuttiException("rank " + r + " created " + (dynamic ? "a window with memory" : "a dynamic"
                            + " window") + " where rank " + rank + " created " + (dynamic ? "a dynamic one" : "one with"
                            + " memory") + "; every rank must create the same kind of window in the same order");
                }
                areas[r] = new WindowArea(s);
                bytes[r] = s.get(ValueLayout.JAVA_LONG, WindowAreaDescriptor.BYTES_OFFSET);
                dispUnits[r] = s.get(ValueLayout.JAVA_INT, WindowAreaDescriptor.DISP_UNIT_OFFSET);
                pids[r] = (int) s.get(ValueLayout.JAVA_LONG, WindowAreaDescriptor.PID_OFFSET);
                addresses[r] = s.get(ValueLayout.JAVA_LONG, WindowAreaDescriptor.ADDRESS_OFFSET);
                if (dynamic) {
                    regions[r] = new RegionTable(s.asSlice(WindowAreaDescriptor.dataOffset(n),
                            WindowAreaDescriptor.REGION_TABLE_BYTES));
                    // a rank of this process is reached at its addresses, another process's through the kernel
                    data[r] = pids[r] == pid ? EVERYTHING : null;
                    needsKernel |= pids[r] != pid;
                } else if (r == rank && memory != null) {
                    data[r] = memory;
                } else if (addresses[r] == 0) {
                    data[r] = s.asSlice(WindowAreaDescriptor.dataOffset(n), bytes[r]);
                } else if (pids[r] == pid) {
                    // a rank of this process (ranks as threads): its memory is addressable here
                    data[r] = MemorySegment.ofAddress(addresses[r]).reinterpret(bytes[r]);
                } else {
                    needsKernel = true;
                }
            }
            SingleCopy copier = null;
            if (needsKernel) {
                if (!SingleCopy.platformSupported()) {
                    throw new TuttiException("a window over the caller's memory (created or dynamic) needs the"
                            + " kernel's copy between processes (process_vm_readv/writev), which this platform lacks; use allocateWindow"
                            + " or allocateSharedWindow, whose memory every rank maps");
                }
                copier = new SingleCopy();
            }
            ShmWindow w = new ShmWindow(engine, group, rank, kind == KIND_SHARED, barrier, arena, name, areas, data,
                    bytes, dispUnits, pids, addresses, copier, dynamic ? MemorySegment.NULL : data[rank], regions, net);
            ok = true;
            return w;
        } finally {
            if (!ok) {
                if (net != null) {
                    net.close();
                }
                arena.close();
                engine.removeShared(name);
            }
        }
    }

    /** This rank's side of the operations with ranks across the network, or null: for the tests, which bypass the origin's checks. */
    RemoteAccess network() {
        return net;
    }

    // ------------------------------------------------------------ queries

    @Override
    public MemorySegment segment() {
        return ownData;
    }

    @Override
    protected long targetBytes(int target) {
        return bytes[target];
    }

    @Override
    protected int targetDispUnit(int target) {
        return dispUnits[target];
    }

    @Override
    protected MemorySegment sharedSegmentOf(int target) {
        if (!shared) {
            throw new TuttiException.InvalidArgument("sharedSegment is for windows from allocateSharedWindow; use"
                    + " get and put on this one");
        }
        return data[target];
    }

    // ------------------------------------------------------------ data movement

    @Override
    protected void putBytes(MemorySegment src, long srcOffset, int target, long at, long length) {
        if (net != null && net.remote(target)) {
            net.put(src, srcOffset, target, at, length);
            return;
        }
        MemorySegment d = data[target];
        if (d != null) {
            MemorySegment.copy(src, srcOffset, d, at, length);
        } else {
            kernelResult(copier.write(pids[target], addresses[target] + at, src, srcOffset, length), "put", target, at);
        }
    }

    @Override
    protected Request putCompletion(int target) {
        return net != null && net.remote(target) ? net.localCompletion(target) : null;
    }

    @Override
    protected Request getCompletion(int target, String what) {
        return net != null && net.remote(target) ? net.getCompletion(target, what) : null;
    }

    @Override
    protected void awaitResultsImpl(int target) {
        if (net != null && net.remote(target)) {
            net.awaitResults(target);
        }
    }

    @Override
    protected void getBytes(MemorySegment dst, long dstOffset, int target, long at, long length) {
        if (net != null && net.remote(target)) {
            net.get(dst, dstOffset, target, at, length);
            return;
        }
        MemorySegment d = data[target];
        if (d != null) {
            MemorySegment.copy(d, at, dst, dstOffset, length);
        } else {
            kernelResult(copier.read(pids[target], addresses[target] + at, dst, dstOffset, length), "get", target, at);
        }
    }

    @Override
    protected void accumulateElements(MemorySegment origin, long originOffset, MemorySegment result, long resultOffset,
                                      long count, Datatype type, int target, long at, AccumulateOp op) {
        long length = count * type.extent();
        if (length == 0) {
            return;
        }
        if (net != null && net.remote(target)) {
            net.accumulate(origin, originOffset, result, resultOffset, count, type, target, at, op);
            return;
        }
        lockAccumulate(target);
        try {
            MemorySegment d = data[target];
            long dAt = at;
            if (d == null) {
                d = scratch(length);
                dAt = 0;
                getBytes(d, 0, target, at, length);
            }
            Accumulation.apply(d, dAt, origin, originOffset, result, resultOffset, count, type, op);
            if (data[target] == null && op != AccumulateOp.NO_OP) {
                putBytes(d, 0, target, at, length);
            }
        } finally {
            areas[target].unlockAccumulate();
        }
    }

    @Override
    protected void compareAndSwapElement(MemorySegment origin, MemorySegment compare, MemorySegment result,
                                         Datatype type, int target, long at) {
        int length = type.extent();
        if (net != null && net.remote(target)) {
            net.compareAndSwap(origin, compare, result, type, target, at);
            return;
        }
        lockAccumulate(target);
        try {
            getBytes(result, 0, target, at, length);
            if (MemorySegment.mismatch(result, 0, length, compare, 0, length) < 0) {
                putBytes(origin, 0, target, at, length);
            }
        } finally {
            areas[target].unlockAccumulate();
        }
    }

    private MemorySegment scratch(long length) {
        if (scratch.byteSize() < length) {
            scratch = Arena.ofAuto().allocate(Math.max(length, 4096), 64);
        }
        return scratch;
    }

    private void kernelResult(int errno, String what, int target, long at) {
        if (errno == 0) {
            return;
        }
        String where = regions != null ? "address 0x" + Long.toHexString(at) : "byte " + at;
        if (errno == ESRCH) {
            throw new TuttiException.PeerFailed(what + " to rank " + target + " (world rank " + group[target]
                    + ", pid " + pids[target] + ") at " + where + " of its window failed: the process has exited");
        }
        if (errno == EPERM) {
            throw new TuttiException(what + " to rank " + target + " at " + where + " of its window: the kernel"
                    + " refused the copy between processes (ptrace restrictions, errno 1); use allocateWindow, whose"
                    + " memory every rank maps");
        }
        throw new TuttiException(what + " to rank " + target + " at " + where + " of its window failed with errno "
                + errno + " in the kernel's cross-process copy");
    }

    // ------------------------------------------------------------ dynamic windows

    @Override
    protected void attachImpl(MemorySegment memory) {
        RegionTable own = regions[me];
        long at = memory.address();
        long length = memory.byteSize();
        int o = own.overlapping(at, length);
        if (o >= 0) {
            throw new TuttiException.InvalidArgument("attach on rank " + me + " of " + region(at, length)
                    + " overlaps " + region(own.base(o), own.length(o)) + ", attached before: attached regions must"
                    + " not overlap (detach that one first)");
        }
        if (!own.add(at, length)) {
            throw new TuttiException.InvalidArgument("attach on rank " + me + ": " + WindowAreaDescriptor.REGIONS
                    + " regions are attached to this dynamic window, the most it holds; detach one first");
        }
    }

    @Override
    protected void detachImpl(MemorySegment memory) {
        if (!regions[me].remove(memory.address())) {
            throw new TuttiException.InvalidArgument("detach on rank " + me + " of memory at address 0x"
                    + Long.toHexString(memory.address()) + ", where no region attached to this dynamic window starts"
                    + attached(me));
        }
    }

    @Override
    protected void checkAttached(String what, int target, long address, long length) {
        // a target across the network checks its own regions: a refusal fails the flush (Extent)
        if (length > 0 && regions[target] != null && regions[target].find(address, length) < 0) {
            throw new TuttiException.InvalidArgument(what + " from rank " + me + " to rank " + target + " at address 0x"
                    + Long.toHexString(address) + " (" + length + " bytes) lies outside every region rank " + target
                    + " has attached to the dynamic window" + attached(target) + "; attach the memory on rank "
                    + target + " first and address it by its segment's address()");
        }
    }

    private static String region(long at, long length) {
        return "[0x" + Long.toHexString(at) + ", +" + length + ")";
    }

    /** The regions {@code rank} has attached, for a message: the first few. */
    private String attached(int rank) {
        RegionTable t = regions[rank];
        int count = Math.min(t.count(), WindowAreaDescriptor.REGIONS);
        if (count == 0) {
            return " (it has none attached)";
        }
        StringBuilder b = new StringBuilder(" (attached: ");
        for (int i = 0; i < Math.min(count, 4); i++) {
            b.append(i > 0 ? ", " : "").append(region(t.base(i), t.length(i)));
        }
        return b.append(count > 4 ? " and " + (count - 4) + " more)" : ")").toString();
    }

    // ------------------------------------------------------------ locks

    private void lockAccumulate(int target) {
        // held for one reduction: a short spin, then the engine's wait with its liveness checks
        WindowArea a = areas[target];
        for (int i = 0; i < 64; i++) {
            if (a.tryLockAccumulate(me)) {
                return;
            }
            Thread.onSpinWait();
        }
        await(Wait.ACCUMULATE_LOCK, target, null);
    }

    @Override
    protected void lockImpl(LockType type, int target) {
        if (net != null && net.remote(target)) {
            net.lock(type == LockType.EXCLUSIVE, target);
            return;
        }
        WindowArea a = areas[target];
        if (type == LockType.EXCLUSIVE) {
            if (!a.tryLockExclusive(me)) {
                await(Wait.EXCLUSIVE_TAKEN, target, null);
            }
            if (a.sharedHolder(n) >= 0) {
                await(Wait.NO_SHARED, target, null);
            }
            return;
        }
        await(Wait.SHARED_TAKEN, target, null);
    }

    @Override
    protected void unlockImpl(int target, LockType type) {
        if (net != null && net.remote(target)) {
            net.unlock(type == LockType.EXCLUSIVE, target);
            return;
        }
        // every operation of the epoch is complete: they were done in their calls
        if (type == LockType.EXCLUSIVE) {
            areas[target].unlockExclusive();
        } else {
            areas[target].lowerShared(me);
        }
        // a waiter for this lock may sleep: ranks that outnumber cores do
        wakeAll(null);
    }

    @Override
    protected void flushImpl(int target) {
        if (net != null && net.remote(target)) {
            net.flush(target);
            return;
        }
        VarHandle.fullFence();
    }

    @Override
    protected void syncImpl() {
        VarHandle.fullFence();
    }

    // ------------------------------------------------------------ fence, post, start, complete, wait

    @Override
    protected void fenceImpl() {
        if (net != null) {
            // every origin's operations are applied once it passes the barrier: local ones in their
            // calls, remote ones when answered; a refusal fails the fence after the barrier, which
            // the others must not wait for in vain
            net.settleAll();
            barrier.run();
            net.failIfRefused("fence");
            return;
        }
        fences++;
        own.publishFences(fences);
        wakeAll(null);
        await(Wait.FENCE, -1, null);
    }

    @Override
    protected void postImpl(int[] origins) {
        for (int o : origins) {
            ++postsSent[o];
            if (net != null && net.remote(o)) {
                net.post(o);
            } else {
                areas[o].publishPosts(me, postsSent[o]);
            }
        }
        wakeAll(origins);
    }

    @Override
    protected void startImpl(int[] targets) {
        await(Wait.POSTED, -1, targets);
        for (int t : targets) {
            postsTaken[t]++;
        }
    }

    @Override
    protected void completeImpl(int[] targets) {
        // every target hears of the end of the epoch, even when one of them failed an operation
        TuttiException failed = null;
        for (int t : targets) {
            ++completesSent[t];
            if (net != null && net.remote(t)) {
                try {
                    net.complete(t);
                } catch (TuttiException e) {
                    failed = failed == null ? e : failed;
                }
            } else {
                areas[t].publishCompletes(me, completesSent[t]);
            }
        }
        wakeAll(targets);
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    protected void waitImpl(int[] origins) {
        await(Wait.COMPLETED, -1, origins);
        takeCompletes(origins);
    }

    @Override
    protected boolean testImpl(int[] origins) {
        engine.progress();
        wait.set(Wait.COMPLETED, -1, origins);
        if (wait.poll()) {
            takeCompletes(origins);
            return true;
        }
        return false;
    }

    /** Exposure epochs rank {@code r} has posted to this one, through the area or the network. */
    private long postsFrom(int r) {
        return net != null && net.remote(r) ? net.posts(r) : own.posts(r);
    }

    /** Access epochs rank {@code r} has completed on this one, through the area or the network. */
    private long completesFrom(int r) {
        return net != null && net.remote(r) ? net.completes(r) : own.completes(r);
    }

    private void takeCompletes(int[] origins) {
        for (int o : origins) {
            completesTaken[o]++;
        }
    }

    private void wakeAll(int[] ranks) {
        int count = ranks == null ? n : ranks.length;
        for (int i = 0; i < count; i++) {
            int r = ranks == null ? i : ranks[i];
            if (r != me) {
                engine.wakeLocal(group[r]);
            }
        }
    }

    @Override
    protected void freeImpl() {
        // no rank may still access this rank's memory when it goes
        if (net != null) {
            try {
                net.drainAll();
            } catch (TuttiException.PeerFailed e) {
                // operations to a rank that has died, outside any epoch: nothing waits for them
            }
        }
        barrier.run();
        if (net != null) {
            net.close();
        }
        if (copier != null) {
            copier.close();
        }
        arena.close();
        engine.removeShared(fileName);
    }

    private void await(int kind, int target, int[] ranks) {
        wait.set(kind, target, ranks);
        if (!wait.poll()) {
            engine.await(wait);
        }
    }

    /** The one wait of this window, reused: what it waits for is set before each use. */
    private final class Wait implements Engine.Task {
        static final int FENCE = 0;
        static final int POSTED = 1;
        static final int COMPLETED = 2;
        /** This and the kinds after it wait for a lock word of the target's area. */
        static final int ACCUMULATE_LOCK = 3;
        static final int EXCLUSIVE_TAKEN = 4;
        static final int NO_SHARED = 5;
        static final int SHARED_TAKEN = 6;

        private int kind;
        private int target;
        private int[] ranks;
        private TuttiException error;

        void set(int kind, int target, int[] ranks) {
            this.kind = kind;
            this.target = target;
            this.ranks = ranks;
            this.error = null;
        }

        @Override
        public boolean poll() {
            if (error != null) {
                throw error;
            }
            return switch (kind) {
                case FENCE -> missingFence() < 0;
                case POSTED -> missing(true) < 0;
                case COMPLETED -> missing(false) < 0;
                case ACCUMULATE_LOCK -> areas[target].tryLockAccumulate(me);
                case EXCLUSIVE_TAKEN -> areas[target].tryLockExclusive(me);
                case NO_SHARED -> areas[target].sharedHolder(n) < 0;
                case SHARED_TAKEN -> tryShared(areas[target]);
                default -> throw new AssertionError(kind);
            };
        }

        private boolean tryShared(WindowArea a) {
            a.raiseShared(me);
            if (a.exclusiveHolder() < 0) {
                return true;
            }
            a.lowerShared(me);
            return false;
        }

        /** The first rank that has not entered this fence, or -1. */
        private int missingFence() {
            for (int r = 0; r < n; r++) {
                if (areas[r].fences() < fences) {
                    return r;
                }
            }
            return -1;
        }

        /** The first rank of the group whose post (or complete) has not arrived, or -1. */
        private int missing(boolean posts) {
            for (int r : ranks) {
                if (posts ? postsFrom(r) <= postsTaken[r] : completesFrom(r) <= completesTaken[r]) {
                    return r;
                }
            }
            return -1;
        }

        @Override
        public void fail(TuttiException e) {
            error = e;
        }

        @Override
        public boolean accessibleBy(Thread agent) {
            return false; // the lock and counter state is the owner's
        }

        @Override
        public boolean needs(int worldRank) {
            int r = commRank(worldRank);
            if (r < 0) {
                return false;
            }
            return switch (kind) {
                case FENCE -> areas[r].fences() < fences;
                case POSTED -> contains(r) && postsFrom(r) <= postsTaken[r];
                case COMPLETED -> contains(r) && completesFrom(r) <= completesTaken[r];
                // the target only: a holder that dies has its lock released (diagnose), not this wait failed
                case ACCUMULATE_LOCK, EXCLUSIVE_TAKEN, SHARED_TAKEN, NO_SHARED -> r == target;
                default -> true;
            };
        }

        /**
         * Once per liveness interval of a lock wait: releases what ranks known to have died hold at
         * the target (the live target's own records of them are the same words), so the wait goes on
         * to take the lock. A dead target is left to the liveness check, which fails the wait.
         */
        @Override
        public void diagnose() {
            if (kind >= ACCUMULATE_LOCK && !dead.test(target) && areas[target].releaseDead(n, dead) > 0) {
                wakeAll(null);
            }
        }

        @Override
        public boolean ready() {
            return switch (kind) {
                case FENCE -> missingFence() < 0;
                case POSTED -> missing(true) < 0;
                case COMPLETED -> missing(false) < 0;
                case ACCUMULATE_LOCK -> areas[target].accumulateHolder() < 0;
                case EXCLUSIVE_TAKEN, SHARED_TAKEN -> areas[target].exclusiveHolder() < 0;
                case NO_SHARED -> areas[target].sharedHolder(n) < 0;
                default -> true;
            };
        }

        private boolean contains(int r) {
            for (int x : ranks) {
                if (x == r) {
                    return true;
                }
            }
            return false;
        }

        private int commRank(int worldRank) {
            for (int r = 0; r < n; r++) {
                if (group[r] == worldRank) {
                    return r;
                }
            }
            return -1;
        }
    }
}
