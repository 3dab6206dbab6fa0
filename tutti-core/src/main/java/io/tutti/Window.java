package io.tutti;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.Objects;

/**
 * A window for one-sided communication (MPI's RMA): every rank of a communicator exposes a region of
 * memory, and any rank may put into, get from and accumulate into a peer's region without the peer
 * taking part, inside an epoch opened by {@link #fence}, {@link #start}/{@link #complete} (the peer
 * {@link #post}s and {@link #waitExposure}s) or {@link #lock}/{@link #unlock}. Created collectively
 * by {@link Communicator#createWindow}, {@link Communicator#allocateWindow},
 * {@link Communicator#allocateSharedWindow} or {@link Communicator#createDynamicWindow} (memory
 * {@link #attach}ed later, addressed by its address); freed collectively by {@link #close()}.
 *
 * <p>Window memory is off-heap only: a {@link MemorySegment} that is native (from an {@code Arena}
 * or a mapping), a direct {@link java.nio.ByteBuffer}, or memory Tutti allocates. Java arrays cannot
 * be window memory, because the garbage collector moves them while peers address them. Origin and
 * result buffers are local and may be arrays of the datatype's primitive type or segments.
 *
 * <p>A displacement counts units of the target's displacement unit; counts count elements of the
 * datatype ({@link Datatype#extent()} bytes). Accumulates of one type to one location are atomic per
 * element, and those from one origin to one target take effect in the order they were issued. The
 * same one-thread-at-a-time rule applies as for the communicator.
 *
 * <p>As in MPI, a {@link #get}'s data and the old values of {@link #getAccumulate}, {@link #fetchAndOp}
 * and {@link #compareAndSwap} are defined only once the synchronisation (flush, unlock, complete,
 * fence) or their request returns: from another host they come after the call, many at once; from a
 * rank sharing memory they are there at once, which a program must not rely on.
 */
public abstract class Window implements AutoCloseable {
    /** Fence assertion: no one-sided operation precedes this fence, so it has none to complete. */
    public static final int MODE_NOPRECEDE = 1;
    /** Fence assertion: no one-sided operation follows this fence; it closes the fence epochs. */
    public static final int MODE_NOSUCCEED = 2;

    /** Passive-target lock kinds: shared locks coexist, an exclusive one excludes every other. */
    public enum LockType { SHARED, EXCLUSIVE }

    /**
     * A strided (vector) layout: {@code count} blocks of {@code blocklength} elements, whose starts
     * lie {@code stride} elements apart (MPI_Type_vector). {@code stride} may be smaller than
     * {@code blocklength} only in an origin layout; blocks of a target layout must not overlap.
     */
    public record Vector(int count, int blocklength, int stride) {
        public Vector {
            if (count < 0 || blocklength < 0 || stride < 0) {
                throw new TuttiException.InvalidArgument("vector count, blocklength and stride must not be"
                        + " negative, got (" + count + ", " + blocklength + ", " + stride + ")");
            }
        }

        /** Elements the layout holds. */
        public long elements() {
            return (long) count * blocklength;
        }

        /** Elements from the first to past the last one the layout touches. */
        public long span() {
            return count == 0 || blocklength == 0 ? 0 : (long) (count - 1) * stride + blocklength;
        }
    }

    private static final Request DONE = new Request() {
        @Override
        public Status waitFor() {
            return new Status();
        }

        @Override
        public void waitFor(Status into) {
        }

        @Override
        public boolean test() {
            return true;
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Status status() {
            return new Status();
        }
    };

    private static final byte NONE = 0;
    private static final byte SHARED = 1;
    private static final byte EXCLUSIVE = 2;

    private final int rank;
    private final int size;
    /** Per target: the passive lock this rank holds on it (NONE, SHARED, EXCLUSIVE). */
    private final byte[] locked;
    /** Per target: whether the access epoch {@link #start} opened includes it. */
    private final boolean[] started;
    private int[] startGroup;
    private int[] postGroup;
    private int lockedTargets;
    private boolean lockedAll;
    private boolean fenceOpen;
    /** Operations issued since the last fence: a fence epoch that saw none may end implicitly. */
    private long fenceOps;
    private boolean closed;
    private final boolean dynamic;

    /**
     * For the runtime.
     *
     * @param rank this rank in the window's communicator
     * @param size ranks of the communicator
     */
    protected Window(int rank, int size) {
        this(rank, size, false);
    }

    /**
     * For the runtime.
     *
     * @param dynamic whether the window is dynamic: displacements are addresses in regions the
     *                target attached ({@link #attach}), checked by {@link #checkAttached}
     */
    protected Window(int rank, int size, boolean dynamic) {
        this.rank = rank;
        this.size = size;
        this.locked = new byte[size];
        this.started = new boolean[size];
        this.dynamic = dynamic;
    }

    /** {@link Communicator#createDynamicWindow()} of {@code comm} (MPI_Win_create_dynamic). Collective. */
    public static Window createDynamic(Communicator comm) {
        Objects.requireNonNull(comm, "communicator");
        return comm.createDynamicWindow();
    }

    /** This rank in the window's communicator. */
    public final int rank() {
        return rank;
    }

    /** Ranks of the window's communicator. */
    public final int size() {
        return size;
    }

    /** This rank's window memory ({@link MemorySegment#NULL} for a dynamic window: see {@link #attach}). */
    public abstract MemorySegment segment();

    /** Whether this window is dynamic ({@link Communicator#createDynamicWindow}). */
    public final boolean isDynamic() {
        return dynamic;
    }

    /**
     * Exposes {@code memory} through this dynamic window (MPI_Win_attach), at once and on this rank
     * only. Peers address it by its address: {@code memory.address()} (MPI_Get_address), plus an
     * offset, which this rank sends them. Attached regions must not overlap; the memory must stay
     * alive until {@link #detach}ed.
     */
    public final void attach(MemorySegment memory) {
        checkOpen();
        requireDynamic("attach");
        if (memory == null || !memory.isNative() || memory.byteSize() == 0) {
            throw new TuttiException.InvalidArgument("attach on rank " + rank + " takes a native, non-empty"
                    + " MemorySegment (from an Arena), not " + (memory == null ? "null" : memory.isNative()
                    ? "an empty one" : "a heap segment: the garbage collector moves arrays while peers address them"));
        }
        attachImpl(memory);
    }

    /**
     * Withdraws memory {@link #attach}ed before (MPI_Win_detach): the segment that starts where an
     * attached one starts. Peers must have finished their accesses to it (an epoch ended).
     */
    public final void detach(MemorySegment memory) {
        checkOpen();
        requireDynamic("detach");
        Objects.requireNonNull(memory, "memory to detach");
        detachImpl(memory);
    }

    /** This rank's displacement unit in bytes. */
    public final int dispUnit() {
        return targetDispUnit(rank);
    }

    /** Bytes of {@code target}'s window (MPI_Win_shared_query's size, for any window kind). */
    public final long byteSize(int target) {
        checkTarget(target);
        return targetBytes(target);
    }

    /**
     * Rank {@code target}'s window memory mapped into this process, for direct loads and stores
     * (MPI_Win_shared_query): only for windows from {@link Communicator#allocateSharedWindow}.
     * Accesses through it follow the same epochs as the calls; use {@link #sync()} to order them.
     */
    public final MemorySegment sharedSegment(int target) {
        checkOpen();
        checkTarget(target);
        return sharedSegmentOf(target);
    }

    // ------------------------------------------------------------ put and get

    /**
     * Writes {@code count} elements of {@code origin} to {@code target}'s window at {@code disp}.
     * {@code origin} may change once this returns, except for a put larger than the eager limit to
     * a rank on another host from off-heap memory, sent from {@code origin} itself: until
     * {@link #flushLocal}, {@link #flush} or the end of the epoch.
     */
    public final void put(Object origin, int count, Datatype type, int target, long disp) {
        MemorySegment o = buffer(origin, count, type, "origin");
        long at = access("put", target, disp, count, type);
        putBytes(o, 0, target, at, (long) count * type.extent());
    }

    /** Strided put: the elements of {@code originLayout} to the places of {@code targetLayout} from {@code disp}. */
    public final void put(Object origin, Datatype type, Vector originLayout, int target, long disp,
                          Vector targetLayout) {
        MemorySegment o = strided(origin, type, originLayout, targetLayout, "origin");
        long at = access("put", target, disp, targetLayout.span(), type);
        forBlocks(type, originLayout, targetLayout, (oOff, tOff, n) -> putBytes(o, oOff, target, at + tOff,
                n * type.extent()));
    }

    /**
     * Reads {@code count} elements of {@code target}'s window at {@code disp} into {@code origin}.
     * The data is there once this returns for a target that shares memory with this rank; from a
     * rank on another host it may come later, and is there at the latest at {@link #flush},
     * {@link #flushLocal} (and their {@code All} forms), {@link #unlock}, {@link #complete} or
     * {@link #fence}, as MPI says: read {@code origin} only after one of them (or use {@link #rget}).
     */
    public final void get(Object origin, int count, Datatype type, int target, long disp) {
        MemorySegment o = buffer(origin, count, type, "origin");
        long at = access("get", target, disp, count, type);
        getBytes(o, 0, target, at, (long) count * type.extent());
    }

    /** Strided get: the elements at the places of {@code targetLayout} into those of {@code originLayout}. */
    public final void get(Object origin, Datatype type, Vector originLayout, int target, long disp,
                          Vector targetLayout) {
        MemorySegment o = strided(origin, type, originLayout, targetLayout, "origin");
        long at = access("get", target, disp, targetLayout.span(), type);
        forBlocks(type, originLayout, targetLayout, (oOff, tOff, n) -> getBytes(o, oOff, target, at + tOff,
                n * type.extent()));
    }

    // ------------------------------------------------------------ accumulates and atomics

    /** Combines {@code count} elements of {@code origin} into {@code target}'s window at {@code disp}: target = target op origin. */
    public final void accumulate(Object origin, int count, Datatype type, int target, long disp, AccumulateOp op) {
        checkOp(op, type);
        MemorySegment o = op == AccumulateOp.NO_OP ? MemorySegment.NULL : buffer(origin, count, type, "origin");
        long at = access("accumulate", target, disp, count, type);
        accumulateElements(o, 0, null, 0, count, type, target, at, op);
    }

    /** Strided accumulate, element by element as the layouts pair them. */
    public final void accumulate(Object origin, Datatype type, Vector originLayout, int target, long disp,
                                 Vector targetLayout, AccumulateOp op) {
        checkOp(op, type);
        MemorySegment o = strided(origin, type, originLayout, targetLayout, "origin");
        long at = access("accumulate", target, disp, targetLayout.span(), type);
        forBlocks(type, originLayout, targetLayout, (oOff, tOff, n) -> accumulateElements(o, oOff, null, 0, n, type,
                target, at + tOff, op));
    }

    /**
     * Accumulate that also returns the target's elements as they were before, into {@code result}
     * (MPI_Get_accumulate); with {@link AccumulateOp#NO_OP} an atomic get, {@code origin} unused.
     * {@code origin} may change once this returns; {@code result} holds the old values at the next
     * synchronisation (flush, unlock, complete, fence), as a get's data does: read it only after one.
     */
    public final void getAccumulate(Object origin, Object result, int count, Datatype type, int target, long disp,
                                    AccumulateOp op) {
        checkOp(op, type);
        MemorySegment o = op == AccumulateOp.NO_OP ? MemorySegment.NULL : buffer(origin, count, type, "origin");
        MemorySegment r = buffer(result, count, type, "result");
        long at = access("getAccumulate", target, disp, count, type);
        accumulateElements(o, 0, r, 0, count, type, target, at, op);
    }

    /**
     * One-element getAccumulate (MPI_Fetch_and_op): {@code result[0]} gets the old value, defined at
     * the next synchronisation (a counter's draw: fetchAndOp, then {@code flush(target)}).
     */
    public final void fetchAndOp(Object origin, Object result, Datatype type, int target, long disp,
                                 AccumulateOp op) {
        getAccumulate(origin, result, 1, type, target, disp, op);
    }

    /**
     * If {@code target}'s element at {@code disp} equals {@code compare[0]} (bit for bit), replaces it
     * with {@code origin[0]}; {@code result[0]} gets the old value either way, defined at the next
     * synchronisation as {@link #fetchAndOp}'s. On non-pair types.
     */
    public final void compareAndSwap(Object origin, Object compare, Object result, Datatype type, int target,
                                     long disp) {
        if (type != null && type.isPair()) {
            throw new TuttiException.InvalidArgument("compareAndSwap works on single elements, not the pair type "
                    + type + "; use " + type.base());
        }
        MemorySegment o = buffer(origin, 1, type, "origin");
        MemorySegment c = buffer(compare, 1, type, "compare");
        MemorySegment r = buffer(result, 1, type, "result");
        long at = access("compareAndSwap", target, disp, 1, type);
        compareAndSwapElement(o, c, r, type, target, at);
    }

    // ------------------------------------------------------------ request-returning forms

    /**
     * Put returning a request that completes when {@code origin} may be reused (MPI_Rput); in a
     * passive epoch only. Complete at once unless the put left from {@code origin} itself (a large
     * one across the network): then when the transport lets go of it.
     */
    public final Request rput(Object origin, int count, Datatype type, int target, long disp) {
        requirePassive("rput", target);
        put(origin, count, type, target, disp);
        Request held = putCompletion(target);
        return held != null ? held : DONE;
    }

    /**
     * Get returning a request that completes when {@code origin} holds the data (MPI_Rget); in a
     * passive epoch only. A refusal of the target (outside its window) fails the request's wait.
     */
    public final Request rget(Object origin, int count, Datatype type, int target, long disp) {
        requirePassive("rget", target);
        get(origin, count, type, target, disp);
        Request pending = getCompletion(target, "rget");
        return pending != null ? pending : DONE;
    }

    /** Accumulate returning a request that completes when {@code origin} may be reused; in a passive epoch only. */
    public final Request raccumulate(Object origin, int count, Datatype type, int target, long disp,
                                     AccumulateOp op) {
        requirePassive("raccumulate", target);
        accumulate(origin, count, type, target, disp, op);
        return DONE;
    }

    /**
     * getAccumulate returning a request that completes when {@code result} holds the old values
     * (MPI_Rget_accumulate); passive epoch only. A refusal of the target fails the request's wait.
     */
    public final Request rgetAccumulate(Object origin, Object result, int count, Datatype type, int target, long disp,
                                        AccumulateOp op) {
        requirePassive("rgetAccumulate", target);
        getAccumulate(origin, result, count, type, target, disp, op);
        Request pending = count == 0 ? null : getCompletion(target, "rgetAccumulate");
        return pending != null ? pending : DONE;
    }

    // ------------------------------------------------------------ active target: fence

    /** {@link #fence(int)} without assertions. */
    public final void fence() {
        fence(0);
    }

    /**
     * Collective over the window's ranks: completes every operation of the epoch that ends, for
     * origins and targets, and opens the next epoch unless {@code mode} has {@link #MODE_NOSUCCEED}.
     */
    public final void fence(int mode) {
        checkOpen();
        if (startGroup != null || postGroup != null || lockedTargets > 0 || lockedAll) {
            throw new TuttiException.Synchronization("fence on rank " + rank + " while a " + openEpoch()
                    + " epoch is open; close it first");
        }
        fenceImpl();
        fenceOpen = (mode & MODE_NOSUCCEED) == 0;
        fenceOps = 0;
    }

    // ------------------------------------------------------------ active target: post, start, complete, wait

    /** Opens an exposure epoch for the origins in {@code group} (ranks of the communicator). */
    public final void post(int... group) {
        checkOpen();
        if (postGroup != null) {
            throw new TuttiException.Synchronization("post on rank " + rank + " while its exposure epoch is open;"
                    + " call waitExposure first");
        }
        int[] g = group(group, "post");
        postImpl(g);
        postGroup = g;
    }

    /** Opens an access epoch to the targets in {@code group}, once each has posted to this rank. */
    public final void start(int... group) {
        checkOpen();
        endQuietFence("start");
        if (startGroup != null || lockedTargets > 0 || lockedAll) {
            throw new TuttiException.Synchronization("start on rank " + rank + " while a " + openEpoch()
                    + " epoch is open; close it first");
        }
        int[] g = group(group, "start");
        startImpl(g);
        for (int t : g) {
            started[t] = true;
        }
        startGroup = g;
    }

    /** Closes the access epoch {@link #start} opened: its operations are complete at the targets. */
    public final void complete() {
        checkOpen();
        if (startGroup == null) {
            throw new TuttiException.Synchronization("complete on rank " + rank + " without start");
        }
        try {
            completeImpl(startGroup);
        } finally {
            // the epoch ends even when an operation of it failed: the error says which
            for (int t : startGroup) {
                started[t] = false;
            }
            startGroup = null;
        }
    }

    /** Closes the exposure epoch (MPI_Win_wait): returns once every origin of it has completed. */
    public final void waitExposure() {
        checkOpen();
        if (postGroup == null) {
            throw new TuttiException.Synchronization("waitExposure on rank " + rank + " without post");
        }
        waitImpl(postGroup);
        postGroup = null;
    }

    /** Nonblocking {@link #waitExposure()} (MPI_Win_test): true, and the epoch closed, once every origin completed. */
    public final boolean testExposure() {
        checkOpen();
        if (postGroup == null) {
            throw new TuttiException.Synchronization("testExposure on rank " + rank + " without post");
        }
        if (testImpl(postGroup)) {
            postGroup = null;
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------ passive target

    /**
     * Opens a passive access epoch to {@code target}, waiting for the lock (not lazily, as MPI
     * would allow): a rank that holds locks on several targets takes them in rank order.
     */
    public final void lock(LockType type, int target) {
        checkOpen();
        checkTarget(target);
        Objects.requireNonNull(type, "lock type");
        endQuietFence("lock");
        if (locked[target] != NONE || lockedAll) {
            throw new TuttiException.Synchronization("rank " + rank + " already holds a lock on rank " + target);
        }
        if (startGroup != null) {
            throw new TuttiException.Synchronization("lock on rank " + rank + " inside a start epoch; complete it first");
        }
        lockImpl(type, target);
        locked[target] = type == LockType.SHARED ? SHARED : EXCLUSIVE;
        lockedTargets++;
    }

    /** Closes the passive epoch to {@code target}: its operations are complete there, and the lock released. */
    public final void unlock(int target) {
        checkOpen();
        checkTarget(target);
        if (locked[target] == NONE) {
            throw new TuttiException.Synchronization("unlock of rank " + target + " on rank " + rank
                    + ", which holds no lock on it" + (lockedAll ? " of its own (use unlockAll after lockAll)" : ""));
        }
        try {
            unlockImpl(target, locked[target] == EXCLUSIVE ? LockType.EXCLUSIVE : LockType.SHARED);
        } finally {
            // the epoch ends even when an operation of it failed: the error says which
            locked[target] = NONE;
            lockedTargets--;
        }
    }

    /** A shared lock on every rank of the window (MPI_Win_lock_all). */
    public final void lockAll() {
        checkOpen();
        endQuietFence("lockAll");
        if (lockedTargets > 0 || lockedAll || startGroup != null) {
            throw new TuttiException.Synchronization("lockAll on rank " + rank + " while a " + openEpoch()
                    + " epoch is open; close it first");
        }
        for (int t = 0; t < size; t++) {
            lockImpl(LockType.SHARED, t);
        }
        lockedAll = true;
    }

    /** Releases what {@link #lockAll()} took, after completing every operation. */
    public final void unlockAll() {
        checkOpen();
        if (!lockedAll) {
            throw new TuttiException.Synchronization("unlockAll on rank " + rank + " without lockAll");
        }
        // every target's lock is released even when an operation to one of them failed
        TuttiException failed = null;
        for (int t = 0; t < size; t++) {
            try {
                unlockImpl(t, LockType.SHARED);
            } catch (TuttiException e) {
                failed = failed == null ? e : failed;
            }
        }
        lockedAll = false;
        if (failed != null) {
            throw failed;
        }
    }

    /** Completes every operation to {@code target} at the target, inside a passive epoch. */
    public final void flush(int target) {
        requirePassive("flush", target);
        flushImpl(target);
    }

    /**
     * Completes every operation to {@code target} at this rank (origin buffers reusable). Origin
     * buffers are reusable when each call returns already, except those of puts larger than the
     * eager limit across the network, which the transport sends from where they are until this;
     * across the network this also sends what waits in the batch of small operations, waits for
     * the data of the gets and the old values of the fetching operations and, for now, for the
     * target's answer, as {@link #flush} does.
     */
    public final void flushLocal(int target) {
        requirePassive("flushLocal", target);
        flushImpl(target);
    }

    /** {@link #flush} to every target this rank has locked. */
    public final void flushAll() {
        requireAnyPassive("flushAll");
        for (int t = 0; t < size; t++) {
            if (lockedAll || locked[t] != NONE) {
                flushImpl(t);
            }
        }
    }

    /** {@link #flushLocal} to every target this rank has locked. */
    public final void flushLocalAll() {
        flushAll();
    }

    /**
     * Waits until the data of this rank's gets and the old values of its fetching operations to
     * {@code target} are in their buffers, in any epoch (not in MPI); their other effects complete at
     * the synchronisation as ever. For a caller that must read a result before the epoch ends, as
     * the MPI bindings do to unpack one into a layout with gaps. From a rank sharing memory they are
     * there already. Fails as a flush would if the target refused one.
     */
    public final void awaitResults(int target) {
        checkOpen();
        checkTarget(target);
        awaitResultsImpl(target);
    }

    /** Orders this rank's loads and stores to window memory with the peers' (MPI_Win_sync). */
    public final void sync() {
        checkOpen();
        syncImpl();
    }

    /**
     * Frees the window, collectively: waits for every rank, then releases the memory Tutti allocated
     * (not memory the caller passed in). No epoch may be open.
     */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        if (startGroup != null || postGroup != null || lockedTargets > 0 || lockedAll) {
            throw new TuttiException.Synchronization("closing the window on rank " + rank + " while a " + openEpoch()
                    + " epoch is open; close it first");
        }
        closed = true;
        freeImpl();
    }

    // ------------------------------------------------------------ for the implementation

    /** Bytes of {@code target}'s window. */
    protected abstract long targetBytes(int target);

    /**
     * What completes the last put to {@code target} at this rank, when its origin buffer is not
     * free when the call returns; null when it is. This default: null.
     */
    protected Request putCompletion(int target) {
        return null;
    }

    /**
     * What completes the last get or fetching operation to {@code target}, when its data may come
     * after the call returns, its errors naming {@code what}; null when it came in the call. This
     * default: null.
     */
    protected Request getCompletion(int target, String what) {
        return null;
    }

    /** {@link #awaitResults}: this default has every result in when its call returns. */
    protected void awaitResultsImpl(int target) {
    }

    /** Displacement unit of {@code target}'s window. */
    protected abstract int targetDispUnit(int target);

    /** Target's memory for direct access, or an error saying the window is not a shared one. */
    protected abstract MemorySegment sharedSegmentOf(int target);

    /** Copies {@code bytes} from {@code src} to {@code target}'s window at byte {@code at} (checked). */
    protected abstract void putBytes(MemorySegment src, long srcOffset, int target, long at, long bytes);

    /** Copies {@code bytes} of {@code target}'s window at byte {@code at} (checked) to {@code dst}. */
    protected abstract void getBytes(MemorySegment dst, long dstOffset, int target, long at, long bytes);

    /**
     * Atomically per element: {@code result} (if not null) gets {@code count} elements of the target at
     * byte {@code at}, which then become {@code target op origin}. {@code op} was checked against {@code type}.
     */
    protected abstract void accumulateElements(MemorySegment origin, long originOffset, MemorySegment result,
                                               long resultOffset, long count, Datatype type, int target, long at,
                                               AccumulateOp op);

    /** Atomically: result = target; if target == compare then target = origin (one element, bit-wise). */
    protected abstract void compareAndSwapElement(MemorySegment origin, MemorySegment compare, MemorySegment result,
                                                  Datatype type, int target, long at);

    protected abstract void fenceImpl();

    protected abstract void postImpl(int[] group);

    protected abstract void startImpl(int[] group);

    protected abstract void completeImpl(int[] group);

    protected abstract void waitImpl(int[] group);

    protected abstract boolean testImpl(int[] group);

    protected abstract void lockImpl(LockType type, int target);

    protected abstract void unlockImpl(int target, LockType type);

    protected abstract void flushImpl(int target);

    protected abstract void syncImpl();

    protected abstract void freeImpl();

    /** Attaches {@code memory} (native, not empty) to this dynamic window, or throws saying why it cannot. */
    protected void attachImpl(MemorySegment memory) {
        throw new UnsupportedOperationException("dynamic windows are not implemented here");
    }

    /** Detaches the region that starts at {@code memory}'s address, or throws naming it when none does. */
    protected void detachImpl(MemorySegment memory) {
        throw new UnsupportedOperationException("dynamic windows are not implemented here");
    }

    /**
     * Throws {@link TuttiException.InvalidArgument}, naming the ranks and the address, unless
     * {@code bytes} from {@code address} lie in one region {@code target} has attached.
     */
    protected void checkAttached(String what, int target, long address, long bytes) {
        throw new UnsupportedOperationException("dynamic windows are not implemented here");
    }

    // ------------------------------------------------------------ checks

    private void checkOpen() {
        if (closed) {
            throw new TuttiException.InvalidArgument("the window was closed; create a new one");
        }
    }

    private void checkTarget(int target) {
        if (target < 0 || target >= size) {
            throw new TuttiException.InvalidArgument("target rank " + target + " is not a rank of the window's"
                    + " communicator (0.." + (size - 1) + ")");
        }
    }

    private static void checkOp(AccumulateOp op, Datatype type) {
        Objects.requireNonNull(op, "accumulate operation");
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        op.check(type);
    }

    /**
     * Checks that {@code target} is in an access epoch and that {@code span} elements from {@code disp}
     * lie in its window; returns their byte offset there.
     */
    private long access(String what, int target, long disp, long span, Datatype type) {
        checkOpen();
        checkTarget(target);
        if (!fenceOpen && !started[target] && locked[target] == NONE && !lockedAll) {
            throw new TuttiException.Synchronization(what + " from rank " + rank + " to rank " + target + " at"
                    + " displacement " + disp + " outside an access epoch: open one with fence, start (after the"
                    + " target's post), lock or lockAll");
        }
        long bytes = span * type.extent();
        if (dynamic) {
            // the displacement is an address in a region the target attached
            checkAttached(what, target, disp, bytes);
            fenceOps++;
            return disp;
        }
        long unit = targetDispUnit(target);
        long limit = targetBytes(target);
        if (disp < 0 || disp > limit / unit || disp * unit > limit - bytes) {
            throw new TuttiException.InvalidArgument(what + " from rank " + rank + " to rank " + target
                    + " at displacement " + disp + " (byte offset " + (disp * unit) + ", " + bytes + " bytes of "
                    + type + ") lies outside rank " + target + "'s window of " + limit + " bytes (displacement unit "
                    + unit + ")");
        }
        fenceOps++;
        return disp * unit;
    }

    private void requireDynamic(String what) {
        if (!dynamic) {
            throw new TuttiException.InvalidArgument(what + " on rank " + rank + ": only dynamic windows"
                    + " (Communicator.createDynamicWindow) take memory after creation; this one's was given when it"
                    + " was created");
        }
    }

    private void requirePassive(String what, int target) {
        checkOpen();
        checkTarget(target);
        if (locked[target] == NONE && !lockedAll) {
            throw new TuttiException.Synchronization(what + " to rank " + target + " on rank " + rank
                    + " outside a passive-target epoch: call lock(" + target + ") or lockAll first");
        }
    }

    private void requireAnyPassive(String what) {
        checkOpen();
        if (lockedTargets == 0 && !lockedAll) {
            throw new TuttiException.Synchronization(what + " on rank " + rank + " outside a passive-target epoch:"
                    + " call lock or lockAll first");
        }
    }

    /** A fence not followed by operations opened no epoch (MPI 4.1 §12.5.1), so another may start. */
    private void endQuietFence(String what) {
        if (fenceOpen && fenceOps > 0) {
            throw new TuttiException.Synchronization(what + " on rank " + rank + " inside a fence epoch with"
                    + " operations; end it with fence(Window.MODE_NOSUCCEED) first");
        }
        fenceOpen = false;
    }

    private String openEpoch() {
        return startGroup != null ? "start" : postGroup != null ? "post" : lockedAll ? "lockAll" : "lock";
    }

    private int[] group(int[] group, String what) {
        Objects.requireNonNull(group, "group");
        boolean[] seen = new boolean[size];
        for (int t : group) {
            checkTarget(t);
            if (seen[t]) {
                throw new TuttiException.InvalidArgument(what + " group names rank " + t + " twice");
            }
            seen[t] = true;
        }
        return group.clone();
    }

    /** The origin or result buffer as a segment of at least {@code count} elements of {@code type}. */
    private static MemorySegment buffer(Object buf, long count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        MemorySegment s = switch (buf) {
            case null -> throw new TuttiException.InvalidArgument(what + " buffer is null");
            case MemorySegment m -> m;
            case byte[] a when type.base() == Datatype.BYTE -> MemorySegment.ofArray(a);
            case short[] a when type.base() == Datatype.SHORT -> MemorySegment.ofArray(a);
            case char[] a when type.base() == Datatype.CHAR -> MemorySegment.ofArray(a);
            case int[] a when type.base() == Datatype.INT -> MemorySegment.ofArray(a);
            case long[] a when type.base() == Datatype.LONG -> MemorySegment.ofArray(a);
            case float[] a when type.base() == Datatype.FLOAT -> MemorySegment.ofArray(a);
            case double[] a when type.base() == Datatype.DOUBLE -> MemorySegment.ofArray(a);
            default -> throw new TuttiException.InvalidArgument(what + " buffer of type "
                    + buf.getClass().getSimpleName() + " does not hold " + type + " elements (use a "
                    + type.base().name().toLowerCase(Locale.ROOT) + "[] or a MemorySegment)");
        };
        long bytes = count * type.extent();
        if (s.byteSize() < bytes) {
            throw new TuttiException.InvalidArgument(what + " buffer holds " + s.byteSize() + " bytes, fewer than the "
                    + count + " " + type + " elements (" + bytes + " bytes) of this call");
        }
        return s;
    }

    private static MemorySegment strided(Object buf, Datatype type, Vector originLayout, Vector targetLayout,
                                         String what) {
        Objects.requireNonNull(originLayout, "origin layout");
        Objects.requireNonNull(targetLayout, "target layout");
        if (originLayout.elements() != targetLayout.elements()) {
            throw new TuttiException.InvalidArgument("the origin layout holds " + originLayout.elements()
                    + " elements and the target layout " + targetLayout.elements() + "; they must hold as many");
        }
        if (targetLayout.count() > 1 && targetLayout.stride() < targetLayout.blocklength()) {
            throw new TuttiException.InvalidArgument("the target layout's blocks overlap (stride "
                    + targetLayout.stride() + " < blocklength " + targetLayout.blocklength() + ")");
        }
        return buffer(buf, originLayout.span(), type, what);
    }

    /** Runs of consecutive elements of both layouts: byte offsets into origin and target, and their length. */
    private interface Run {
        void run(long originOffset, long targetOffset, long elements);
    }

    /** Walks both layouts at once, calling {@code run} once per stretch contiguous on both sides. */
    private static void forBlocks(Datatype type, Vector o, Vector t, Run run) {
        long total = o.elements();
        long done = 0;
        int ob = 0;
        int tb = 0;
        long oIn = 0;
        long tIn = 0;
        int extent = type.extent();
        while (done < total) {
            long n = Math.min(o.blocklength() - oIn, t.blocklength() - tIn);
            run.run(((long) ob * o.stride() + oIn) * extent, ((long) tb * t.stride() + tIn) * extent, n);
            done += n;
            oIn += n;
            tIn += n;
            if (oIn == o.blocklength()) {
                ob++;
                oIn = 0;
            }
            if (tIn == t.blocklength()) {
                tb++;
                tIn = 0;
            }
        }
    }
}
