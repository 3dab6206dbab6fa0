package mpi;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.TuttiException;
import io.tutti.Window;
import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * A window for one-sided communication (MPI_Win) over one of Tutti's {@link Window}s: made over a
 * direct buffer of the program's, or allocated by Tutti (private or shared); its operations are
 * put, get, the accumulates and atomics, inside epochs opened by fence, post/start/complete/wait or
 * lock/unlock. Every operation is complete when it returns (Tutti copies in the call) but a get, and
 * the old values of getAccumulate, fetchAndOp and compareAndSwap, from a rank on another host, whose
 * data may come later, by the next flush or the end of the epoch, as MPI says ({@link #rGet}'s and
 * {@link #rGetAccumulate}'s requests complete when it is there); the other request-returning forms
 * give complete requests. A result unpacked from Tutti's copy (a boolean buffer, a type with gaps)
 * is waited for in the call.
 *
 * <p>Buffers are {@code java.nio} buffers, direct or (unlike the bindings, which refuse them) heap:
 * nothing outlives the call but a get's origin across hosts, which must stay reachable until it
 * completes. A target layout (count, type) is one block, a vector Tutti strides
 * itself, or blocks issued one by one where each lies on a multiple of the target's displacement
 * unit. {@link MPI#PROC_NULL} is a target that takes nothing. Errors go to the window's handler,
 * {@link MPI#ERRORS_ARE_FATAL} until {@link #setErrhandler}, as MPI says.
 */
public final class Win implements Freeable {
    public static final int WIN_NULL = 0;
    public static final int FLAVOR_PRIVATE = 0;
    public static final int FLAVOR_SHARED = 1;

    /** Tutti's accumulate operation per reduction, by the reduction's ordinal: {@code AccumulateOp.of} copies an array per call. */
    private static final AccumulateOp[] ACCUMULATE = new AccumulateOp[io.tutti.ReduceOp.values().length];

    static {
        for (io.tutti.ReduceOp r : io.tutti.ReduceOp.values()) {
            ACCUMULATE[r.ordinal()] = AccumulateOp.of(r);
        }
    }

    private static final int FENCE_ASSERTS = MPI.MODE_NOSTORE | MPI.MODE_NOPUT | MPI.MODE_NOPRECEDE
            | MPI.MODE_NOSUCCEED;

    /** Tutti's window; null once freed. */
    private Window tutti;
    private final boolean shared;
    /** World ranks of the window's group, in its order. */
    private final int[] members;
    /** Every rank's displacement unit in bytes. */
    private final int[] dispUnits;
    Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    private final Attributes attributes = new Attributes();
    private String name = "";
    private Info info;
    /** The passive epochs this rank holds, which the request-returning forms need. */
    private final boolean[] locked;
    private boolean lockedAll;
    private final Region origin = new Region();
    private final Region result = new Region();
    private final Region compare = new Region();
    private final TargetLayout layout = new TargetLayout();

    /**
     * A window over {@code size} elements of {@code base} (MPI_WIN_CREATE), its displacement unit
     * {@code dispUnit} elements; both scaled by the buffer's element size, as in the bindings.
     * Collective over {@code comm}.
     */
    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        this(comm, info, false, create(base, size, dispUnit, comm));
    }

    /**
     * A window of {@code size} elements allocated by Tutti (MPI_WIN_ALLOCATE for
     * {@link #FLAVOR_PRIVATE}, MPI_WIN_ALLOCATE_SHARED for {@link #FLAVOR_SHARED}), elements and
     * displacement unit of {@code base}'s element size. {@code base} only sets that size: Java cannot
     * point a buffer at the new memory, so the bindings' write of its address into it is not done;
     * reach the memory with put/get to this rank, or with {@link #sharedQuery}. Collective.
     */
    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        this(comm, info, flavor == FLAVOR_SHARED, allocate(size, dispUnit, comm, base, flavor));
    }

    /**
     * A dynamic window (MPI_WIN_CREATE_DYNAMIC): fails with {@link MPI#ERR_UNSUPPORTED_OPERATION}, as
     * such a window is addressed by memory addresses and this API's displacements are ints.
     */
    public Win(Info info, Comm comm) throws MPIException {
        this(comm, info, false, dynamic(comm));
    }

    private Win(Comm comm, Info info, boolean shared, Window w) throws MPIException {
        this.tutti = w;
        this.shared = shared;
        this.members = comm.members();
        this.locked = new boolean[w.size()];
        this.info = info == null || info.isNull() ? new Info() : info.dup();
        int[] units = new int[w.size()];
        try {
            comm.live().allgather(new int[] {w.dispUnit()}, units, 1, io.tutti.Datatype.INT);
        } catch (TuttiException e) {
            throw Errors.of(e, "new Win");
        }
        this.dispUnits = units;
    }

    private static Window create(Buffer base, int size, int dispUnit, Comm comm) throws MPIException {
        Communicator c = comm.live();
        int e = elementBytes(base);
        long bytes = sizes(size, dispUnit, e, "new Win");
        MemorySegment all = MemorySegment.ofBuffer(base.duplicate().clear());
        if (bytes > all.byteSize()) {
            throw Errors.error(MPI.ERR_SIZE, "new Win: " + size + " elements do not fit the buffer of "
                    + base.capacity());
        }
        try {
            return c.createWindow(all.asSlice(0, bytes), dispUnit * e);
        } catch (TuttiException x) {
            throw Errors.of(x, "new Win");
        }
    }

    private static Window allocate(int size, int dispUnit, Comm comm, Buffer base, int flavor) throws MPIException {
        Communicator c = comm.live();
        int e = elementBytes(base);
        long bytes = sizes(size, dispUnit, e, "new Win");
        if (flavor != FLAVOR_PRIVATE && flavor != FLAVOR_SHARED) {
            throw Errors.error(MPI.ERR_ARG, "new Win: flavor " + flavor + " is neither Win.FLAVOR_PRIVATE nor"
                    + " Win.FLAVOR_SHARED");
        }
        try {
            return flavor == FLAVOR_SHARED ? c.allocateSharedWindow(bytes, dispUnit * e)
                    : c.allocateWindow(bytes, dispUnit * e);
        } catch (TuttiException x) {
            throw Errors.of(x, "new Win");
        }
    }

    private static Window dynamic(Comm comm) throws MPIException {
        comm.live();
        throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, "new Win(info, comm): dynamic windows"
                + " (MPI_WIN_CREATE_DYNAMIC) are addressed by memory addresses, which this API's int displacements"
                + " cannot hold; allocate a window (new Win(size, dispUnit, info, comm, base, Win.FLAVOR_PRIVATE))"
                + " large enough, or use io.tutti's Communicator.createDynamicWindow (long addresses)");
    }

    private static long sizes(int size, int dispUnit, int e, String call) throws MPIException {
        if (size < 0) {
            throw Errors.error(MPI.ERR_SIZE, call + ": the size " + size + " is negative");
        }
        if (dispUnit <= 0) {
            throw Errors.error(MPI.ERR_DISP, call + ": the displacement unit " + dispUnit + " is not positive");
        }
        return (long) size * e;
    }

    /** Bytes of one element of a direct buffer, which the bindings scale sizes by. */
    private static int elementBytes(Buffer base) {
        if (base == null || !base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return switch (base) {
            case ByteBuffer _ -> 1;
            case CharBuffer _, ShortBuffer _ -> 2;
            case IntBuffer _, FloatBuffer _ -> 4;
            case LongBuffer _, DoubleBuffer _ -> 8;
            default -> throw new IllegalArgumentException("a " + base.getClass().getName() + " is no window memory");
        };
    }

    /** Tutti's window for a call: makes this the object errors go to; freed → {@link MPI#ERR_WIN}. */
    private Window live(String call) throws MPIException {
        MPI.check();
        MPI.raisedOn(this);
        if (tutti == null) {
            throw Errors.error(MPI.ERR_WIN, call + ": the window has been freed");
        }
        return tutti;
    }

    // ------------------------------------------------------------ dynamic windows

    /** Attaches memory to a dynamic window (MPI_WIN_ATTACH): as there are none here, {@link MPI#ERR_UNSUPPORTED_OPERATION}. */
    public void attach(Buffer base, int size) throws MPIException {
        live("Win.attach");
        throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, "Win.attach: this window is not dynamic (dynamic"
                + " windows are refused: their addresses do not fit this API's int displacements)");
    }

    /** Detaches memory from a dynamic window (MPI_WIN_DETACH): as {@link #attach}. */
    public void detach(Buffer base) throws MPIException {
        live("Win.detach");
        throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, "Win.detach: this window is not dynamic (dynamic"
                + " windows are refused: their addresses do not fit this API's int displacements)");
    }

    // ------------------------------------------------------------ group, memory, names, info

    /** The group of the window's ranks (MPI_WIN_GET_GROUP). */
    public Group getGroup() throws MPIException {
        live("Win.getGroup");
        return new Group(members);
    }

    /**
     * Rank {@code rank}'s memory of a {@link #FLAVOR_SHARED} window, for direct loads and stores
     * (MPI_WIN_SHARED_QUERY, which the bindings lack), in native byte order; {@link MPI#PROC_NULL}
     * gives the lowest rank's of nonzero size. Other windows fail with {@link MPI#ERR_WIN}.
     */
    public ByteBuffer sharedQuery(int rank) throws MPIException {
        Window w = live("Win.sharedQuery");
        if (!shared) {
            throw Errors.error(MPI.ERR_WIN, "Win.sharedQuery: the window is not shared: allocate it with"
                    + " Win.FLAVOR_SHARED");
        }
        int r = rank;
        if (r == MPI.PROC_NULL) {
            r = 0;
            while (r < w.size() - 1 && w.byteSize(r) == 0) {
                r++;
            }
        }
        checkTarget(w, r, "Win.sharedQuery");
        try {
            return w.sharedSegment(r).asByteBuffer().order(ByteOrder.nativeOrder());
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.sharedQuery");
        }
    }

    /** Sets the window's name (MPI_WIN_SET_NAME), at most {@link MPI#MAX_OBJECT_NAME} - 1 characters kept. */
    public void setName(String name) throws MPIException {
        live("Win.setName");
        if (name == null) {
            throw Errors.error(MPI.ERR_ARG, "Win.setName: the name is null");
        }
        this.name = name.length() < MPI.MAX_OBJECT_NAME ? name : name.substring(0, MPI.MAX_OBJECT_NAME - 1);
    }

    /** The window's name (MPI_WIN_GET_NAME): "" until set. */
    public String getName() throws MPIException {
        live("Win.getName");
        return name;
    }

    /** A copy of the hints the window was given or set (MPI_WIN_GET_INFO); Tutti uses none. */
    public Info getInfo() throws MPIException {
        live("Win.getInfo");
        return info.dup();
    }

    /** Replaces the window's hints (MPI_WIN_SET_INFO); accepted and kept, none used. */
    public void setInfo(Info info) throws MPIException {
        live("Win.setInfo");
        this.info = info == null || info.isNull() ? new Info() : info.dup();
    }

    // ------------------------------------------------------------ attributes and error handlers

    /** A new keyval for {@link #setAttr} (MPI_WIN_CREATE_KEYVAL). */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    /** Frees a keyval (MPI_WIN_FREE_KEYVAL). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    /** Sets attribute {@code keyval} to a copy of {@code value}, which must be Serializable (MPI_WIN_SET_ATTR). */
    public void setAttr(int keyval, Object value) throws MPIException {
        live("Win.setAttr");
        attributes.set(keyval, value, "Win.setAttr");
    }

    /**
     * The value of attribute {@code keyval}, a copy, or null (MPI_WIN_GET_ATTR). The predefined ones,
     * as the bindings give them: {@link MPI#WIN_BASE} (the address of this rank's memory, a Long),
     * {@link MPI#WIN_SIZE} (its bytes, an Integer), {@link MPI#WIN_DISP_UNIT} (an Integer).
     */
    public Object getAttr(int keyval) throws MPIException {
        Window w = live("Win.getAttr");
        return switch (keyval) {
            case MPI.WIN_BASE -> w.segment().address();
            case MPI.WIN_SIZE -> (int) w.segment().byteSize();
            case MPI.WIN_DISP_UNIT -> w.dispUnit();
            default -> attributes.get(keyval, "Win.getAttr");
        };
    }

    /** Deletes attribute {@code keyval} (MPI_WIN_DELETE_ATTR). */
    public void deleteAttr(int keyval) throws MPIException {
        live("Win.deleteAttr");
        attributes.delete(keyval, "Win.deleteAttr");
    }

    /** Sets what errors on this window do (MPI_WIN_SET_ERRHANDLER); {@link MPI#ERRORS_ARE_FATAL} unless set. */
    public void setErrhandler(Errhandler errhandler) throws MPIException {
        live("Win.setErrhandler");
        if (errhandler == null) {
            throw Errors.error(MPI.ERR_ARG, "Win.setErrhandler: the error handler is null");
        }
        this.errhandler = errhandler;
    }

    /** What errors on this window do (MPI_WIN_GET_ERRHANDLER). */
    public Errhandler getErrhandler() throws MPIException {
        live("Win.getErrhandler");
        return errhandler;
    }

    /** Raises an error of {@code errorCode} on this window (MPI_WIN_CALL_ERRHANDLER). */
    public void callErrhandler(int errorCode) throws MPIException {
        live("Win.callErrhandler");
        throw Errors.error(errorCode, "Win.callErrhandler: error code " + errorCode + " raised by the program");
    }

    /** Frees the window, collectively (MPI_WIN_FREE); no epoch may be open. */
    @Override
    public void free() throws MPIException {
        Window w = live("Win.free");
        try {
            w.close();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.free");
        }
        attributes.deleteAll();
        tutti = null;
    }

    // ------------------------------------------------------------ put, get, accumulate

    /**
     * Writes {@code orgCount} items of {@code orgType} to {@code targetCount} items of
     * {@code targetType} at displacement {@code targetDisp} of rank {@code targetRank}'s window (MPI_PUT).
     */
    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        transfer(Kind.PUT, origin, orgCount, orgType, null, 0, null, targetRank, targetDisp, targetCount, targetType,
                null, false, "Win.put");
    }

    /** Reads {@code targetCount} items of the target's window into {@code origin} (MPI_GET). */
    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
                    Datatype targetType) throws MPIException {
        transfer(Kind.GET, origin, orgCount, orgType, null, 0, null, targetRank, targetDisp, targetCount, targetType,
                null, false, "Win.get");
    }

    /**
     * Combines the origin's items into the target's: target = target op origin, atomically per
     * element (MPI_ACCUMULATE); {@code op} a predefined operation, {@link MPI#REPLACE} or {@link MPI#NO_OP}.
     */
    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                           int targetCount, Datatype targetType, Op op) throws MPIException {
        transfer(Kind.ACC, origin, orgCount, orgType, null, 0, null, targetRank, targetDisp, targetCount, targetType,
                op, false, "Win.accumulate");
    }

    /**
     * Accumulate that returns the target's items as they were into {@code resultAddr}
     * (MPI_GET_ACCUMULATE); with {@link MPI#NO_OP} an atomic get ({@code origin} may be null).
     */
    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                              Datatype resultType, int targetRank, int targetDisp, int targetCount,
                              Datatype targetType, Op op) throws MPIException {
        transfer(Kind.GET_ACC, origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank, targetDisp,
                targetCount, targetType, op, false, "Win.getAccumulate");
    }

    /** {@link #put} returning a request, complete as the put is (MPI_RPUT); in a passive epoch only. */
    public final Request rPut(Buffer origin_addr, int origin_count, Datatype origin_datatype, int target_rank,
                              int target_disp, int target_count, Datatype target_datatype) throws MPIException {
        return transfer(Kind.PUT, origin_addr, origin_count, origin_datatype, null, 0, null, target_rank, target_disp,
                target_count, target_datatype, null, true, "Win.rPut");
    }

    /** {@link #get} returning a request, complete as the get is (MPI_RGET); in a passive epoch only. */
    public final Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                              int targetCount, Datatype targetType) throws MPIException {
        return transfer(Kind.GET, origin, orgCount, orgType, null, 0, null, targetRank, targetDisp, targetCount,
                targetType, null, true, "Win.rGet");
    }

    /** {@link #accumulate} returning a request (MPI_RACCUMULATE); in a passive epoch only. */
    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
                               int targetCount, Datatype targetType, Op op) throws MPIException {
        return transfer(Kind.ACC, origin, orgCount, orgType, null, 0, null, targetRank, targetDisp, targetCount,
                targetType, op, true, "Win.rAccumulate");
    }

    /**
     * {@link #getAccumulate} returning a request (MPI_RGET_ACCUMULATE) that completes when the old
     * values are in {@code resultAddr}; in a passive epoch only.
     */
    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
                                  Datatype resultType, int targetRank, int targetDisp, int targetCount,
                                  Datatype targetType, Op op) throws MPIException {
        return transfer(Kind.GET_ACC, origin, orgCount, orgType, resultAddr, resultCount, resultType, targetRank,
                targetDisp, targetCount, targetType, op, true, "Win.rGetAccumulate");
    }

    /** One-element {@link #getAccumulate} of a predefined type (MPI_FETCH_AND_OP). */
    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp,
                           Op op) throws MPIException {
        live("Win.fetchAndOp");
        predefined(dataType, "Win.fetchAndOp");
        transfer(Kind.GET_ACC, origin, 1, dataType, resultAddr, 1, dataType, targetRank, targetDisp, 1, dataType, op,
                false, "Win.fetchAndOp");
    }

    /**
     * If the target's element equals {@code compareAddr}'s first, replaces it with {@code origin}'s;
     * {@code resultAddr} gets the old value either way (MPI_COMPARE_AND_SWAP). A predefined type.
     */
    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType,
                               int targetRank, int targetDisp) throws MPIException {
        String call = "Win.compareAndSwap";
        Window w = live(call);
        predefined(targetType, call);
        if (targetRank == MPI.PROC_NULL) {
            return;
        }
        checkTarget(w, targetRank, call);
        checkDisp(w, targetRank, targetDisp, 0, targetType.extent, call);
        this.origin.resolve(needBuffer(origin, call), 1, targetType, false, call);
        compare.resolve(needBuffer(compareAddr, call), 1, targetType, false, call);
        result.resolve(needBuffer(resultAddr, call), 1, targetType, true, call);
        io.tutti.Datatype t = targetType.coll;
        try {
            w.compareAndSwap(this.origin.forCollective(t), compare.forCollective(t), result.forCollective(t), t,
                    targetRank, targetDisp);
            if (result.staged()) {
                w.awaitResults(targetRank); // unpacked when this returns
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        result.received(targetType.extent);
    }

    private enum Kind { PUT, GET, ACC, GET_ACC }

    /**
     * Every data operation: checks the arguments with MPI's error classes, resolves the origin (and
     * result) buffers, and issues the target layout as Tutti's contiguous, vector or block-by-block
     * operations. With {@code request}, a passive epoch to the target is required and a request
     * returned, complete but for the data of a get or getAccumulate that comes later.
     */
    private Request transfer(Kind kind, Buffer originBuf, int orgCount, Datatype orgType, Buffer resultBuf,
                             int resCount, Datatype resType, int target, int disp, int tCount, Datatype tType,
                             Op op, boolean request, String call) throws MPIException {
        Window w = live(call);
        boolean noOrigin = kind == Kind.GET_ACC && op == MPI.NO_OP;
        checkType(tType, call);
        if (!noOrigin || orgType != null) {
            checkType(orgType, call);
            if (orgType.base.kind != tType.base.kind) {
                throw new IllegalArgumentException("Both datatype arguments must be constructed from the same"
                        + " predefined datatype.");
            }
        }
        if (kind == Kind.GET_ACC) {
            checkType(resType, call);
        }
        checkCount(orgCount, call);
        checkCount(tCount, call);
        checkCount(resCount, call);
        AccumulateOp acc = kind == Kind.ACC || kind == Kind.GET_ACC ? accumulateOp(op, tType, call) : null;
        if (target == MPI.PROC_NULL) {
            return request ? doneRequest() : null;
        }
        checkTarget(w, target, call);
        if (request && !lockedAll && !locked[target]) {
            throw Errors.error(MPI.ERR_RMA_SYNC, call + " to rank " + target + " outside a passive-target epoch:"
                    + " the request-returning operations need lock(" + target + ") or lockAll first");
        }
        TargetLayout t = layout.of(tCount, tType);
        long at = checkDisp(w, target, disp, t.first, t.end, call);
        long bytes = t.bytes;
        if (!noOrigin) {
            origin.resolve(needBuffer(originBuf, call), orgCount, orgType, kind == Kind.GET, call);
            checkSame(origin.byteCount(), bytes, "origin", call);
        }
        if (kind == Kind.GET_ACC) {
            result.resolve(needBuffer(resultBuf, call), resCount, resType, true, call);
            checkSame(result.byteCount(), bytes, "result", call);
        }
        io.tutti.Datatype e = tType.base.coll;
        int unit = dispUnits[target];
        // a get into a buffer staged here (booleans, a type with gaps) is unpacked when this returns,
        // so it must have its data by then: an atomic get, waited for below
        boolean staged = kind == Kind.GET && origin.staged();
        io.tutti.Request pending = null;
        try {
            if (t.blocks <= 1 && t.first % unit == 0) {
                long d = (at + t.first) / unit;
                int n = (int) (bytes / e.extent());
                Object o = noOrigin ? null : origin.forCollective(e);
                switch (kind) {
                    case PUT -> w.put(o, n, e, target, d);
                    case GET -> {
                        if (staged) {
                            w.getAccumulate(null, o, n, e, target, d, AccumulateOp.NO_OP);
                        } else if (request) {
                            pending = w.rget(o, n, e, target, d);
                        } else {
                            w.get(o, n, e, target, d);
                        }
                    }
                    case ACC -> w.accumulate(o, n, e, target, d, acc);
                    case GET_ACC -> {
                        if (request) {
                            pending = w.rgetAccumulate(o, result.forCollective(e), n, e, target, d, acc);
                        } else {
                            w.getAccumulate(o, result.forCollective(e), n, e, target, d, acc);
                        }
                    }
                }
            } else if (kind != Kind.GET_ACC && !staged && t.vector != null && t.first % unit == 0) {
                long d = (at + t.first) / unit;
                Window.Vector whole = new Window.Vector(1, (int) (bytes / e.extent()), 0);
                Object o = origin.forCollective(e);
                switch (kind) {
                    case PUT -> w.put(o, e, whole, target, d, t.vector);
                    case GET -> w.get(o, e, whole, target, d, t.vector);
                    default -> w.accumulate(o, e, whole, target, d, t.vector, acc);
                }
            } else {
                blocks(w, kind, noOrigin, staged, t, e, target, at, unit, acc, call);
            }
            if (request && (kind == Kind.GET || kind == Kind.GET_ACC) && pending == null) {
                // gets of several parts: their data is here once the flush returns
                w.flushLocal(target);
            }
            if (staged || kind == Kind.GET_ACC && result.staged()) {
                // unpacked when this returns: the data must be here by then
                w.awaitResults(target);
            }
        } catch (TuttiException x) {
            throw Errors.of(x, call);
        }
        if (kind == Kind.GET) {
            origin.received(bytes);
        } else if (kind == Kind.GET_ACC) {
            result.received(bytes);
        }
        if (pending != null && !pending.isDone()) {
            return new Request(pending);
        }
        return request ? doneRequest() : null;
    }

    /** A layout Tutti cannot stride: one contiguous operation per block, each at a displacement of its own. */
    private void blocks(Window w, Kind kind, boolean noOrigin, boolean staged, TargetLayout t, io.tutti.Datatype e,
                        int target, long at, int unit, AccumulateOp acc, String call) throws MPIException {
        for (int b = 0; b < t.blocks; b++) {
            if ((at + t.map[2 * b]) % unit != 0) {
                throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": a block of the target type lies at byte "
                        + (at + t.map[2 * b]) + " of rank " + target + "'s window, not a multiple of its displacement"
                        + " unit " + unit + ", and the layout is no vector: Tutti addresses windows in displacement"
                        + " units; create the window with a displacement unit of 1");
            }
        }
        MemorySegment o = noOrigin ? null : origin.segment();
        MemorySegment r = kind == Kind.GET_ACC ? result.segment() : null;
        long done = 0;
        for (int b = 0; b < t.blocks; b++) {
            long len = t.map[2 * b + 1];
            long d = (at + t.map[2 * b]) / unit;
            int n = (int) (len / e.extent());
            MemorySegment ob = o == null ? null : o.asSlice(done, len);
            switch (kind) {
                case PUT -> w.put(ob, n, e, target, d);
                case GET -> {
                    if (staged) {
                        w.getAccumulate(null, ob, n, e, target, d, AccumulateOp.NO_OP);
                    } else {
                        w.get(ob, n, e, target, d);
                    }
                }
                case ACC -> w.accumulate(ob, n, e, target, d, acc);
                case GET_ACC -> w.getAccumulate(ob, r.asSlice(done, len), n, e, target, d, acc);
            }
            done += len;
        }
    }

    private static Request doneRequest() {
        return Request.done(new Status().set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0));
    }

    /** Tutti's accumulate operation for {@code op} on {@code type}: REPLACE, NO_OP or a predefined reduction. */
    private static AccumulateOp accumulateOp(Op op, Datatype type, String call) throws MPIException {
        if (op == MPI.REPLACE) {
            return AccumulateOp.REPLACE;
        }
        if (op == MPI.NO_OP) {
            return AccumulateOp.NO_OP;
        }
        if (op != null && op.user != null) {
            throw Errors.error(MPI.ERR_OP, call + ": user operations cannot accumulate (MPI allows predefined"
                    + " operations only)");
        }
        if (!(Comm.reduction(op, type, call) instanceof io.tutti.ReduceOp predefined)) {
            throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": " + op + " on " + type + " cannot"
                    + " accumulate: a window runs Tutti's predefined operations only, which multiply complex numbers'"
                    + " parts one by one and take MAXLOC and MINLOC on MPI.INT2 alone");
        }
        AccumulateOp a = ACCUMULATE[predefined.ordinal()];
        try {
            a.check(type.coll);
        } catch (TuttiException e) {
            throw Errors.error(MPI.ERR_OP, call + ": " + op + " does not apply to " + type + ": " + e.getMessage());
        }
        return a;
    }

    private static Buffer needBuffer(Buffer b, String call) throws MPIException {
        if (b == null) {
            throw Errors.error(MPI.ERR_BUFFER, call + ": the buffer is null");
        }
        return b;
    }

    private static void checkType(Datatype type, String call) throws MPIException {
        if (type == null) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the datatype is null");
        }
        type.checkUsable(call);
    }

    private static void predefined(Datatype type, String call) throws MPIException {
        checkType(type, call);
        if (type.base != type) {
            throw Errors.error(MPI.ERR_TYPE, call + ": works on one element of a predefined type, not " + type);
        }
    }

    private static void checkCount(int count, String call) throws MPIException {
        if (count < 0) {
            throw Errors.error(MPI.ERR_COUNT, call + ": invalid count " + count + ": it is 0 or more");
        }
    }

    private static void checkSame(long buffer, long target, String which, String call) throws MPIException {
        if (buffer != target) {
            throw Errors.error(MPI.ERR_COUNT, call + ": the " + which + " buffer's items are " + buffer + " bytes, the"
                    + " target's " + target + ": their type signatures must agree");
        }
    }

    private static void checkTarget(Window w, int target, String call) throws MPIException {
        if (target < 0 || target >= w.size()) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid target rank " + target + ": the window has "
                    + w.size() + " ranks (0.." + (w.size() - 1) + "), or MPI.PROC_NULL");
        }
    }

    /**
     * Checks that bytes {@code first} to {@code end} from displacement {@code disp} lie in the
     * target's window ({@link MPI#ERR_DISP}); returns the byte offset of {@code disp}.
     */
    private long checkDisp(Window w, int target, int disp, long first, long end, String call) throws MPIException {
        long unit = dispUnits[target];
        long at = disp * unit;
        long size = w.byteSize(target);
        if (disp < 0 || at + first < 0 || at + end > size) {
            throw Errors.error(MPI.ERR_DISP, call + ": displacement " + disp + " (byte " + at + ", bytes " + (at + first)
                    + " to " + (at + end) + ") lies outside rank " + target + "'s window of " + size + " bytes"
                    + " (displacement unit " + unit + ")");
        }
        return at;
    }

    // ------------------------------------------------------------ synchronisation

    /**
     * Collective: completes the epoch that ends and opens the next (MPI_WIN_FENCE); the assertions
     * {@link MPI#MODE_NOPRECEDE}, {@link MPI#MODE_NOSUCCEED} (which closes the fence epochs),
     * {@link MPI#MODE_NOSTORE} and {@link MPI#MODE_NOPUT}.
     */
    public void fence(int assertion) throws MPIException {
        Window w = live("Win.fence");
        checkAssert(assertion, FENCE_ASSERTS, "Win.fence");
        int mode = ((assertion & MPI.MODE_NOPRECEDE) != 0 ? Window.MODE_NOPRECEDE : 0)
                | ((assertion & MPI.MODE_NOSUCCEED) != 0 ? Window.MODE_NOSUCCEED : 0);
        try {
            w.fence(mode);
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.fence");
        }
    }

    /** Opens an access epoch to the ranks of {@code group}, once each has posted (MPI_WIN_START). */
    public void start(Group group, int assertion) throws MPIException {
        Window w = live("Win.start");
        checkAssert(assertion, MPI.MODE_NOCHECK, "Win.start");
        int[] ranks = ranks(group, "Win.start");
        try {
            w.start(ranks);
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.start");
        }
    }

    /** Closes the access epoch of {@link #start}: its operations are complete at the targets (MPI_WIN_COMPLETE). */
    public void complete() throws MPIException {
        Window w = live("Win.complete");
        try {
            w.complete();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.complete");
        }
    }

    /** Opens an exposure epoch to the ranks of {@code group} (MPI_WIN_POST). */
    public void post(Group group, int assertion) throws MPIException {
        Window w = live("Win.post");
        checkAssert(assertion, MPI.MODE_NOCHECK | MPI.MODE_NOSTORE | MPI.MODE_NOPUT, "Win.post");
        int[] ranks = ranks(group, "Win.post");
        try {
            w.post(ranks);
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.post");
        }
    }

    /** Closes the exposure epoch once every origin has completed (MPI_WIN_WAIT). */
    public void waitFor() throws MPIException {
        Window w = live("Win.waitFor");
        try {
            w.waitExposure();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.waitFor");
        }
    }

    /** Whether every origin has completed, closing the exposure epoch then (MPI_WIN_TEST). */
    public boolean test() throws MPIException {
        Window w = live("Win.test");
        try {
            return w.testExposure();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.test");
        }
    }

    /**
     * Opens a passive epoch to {@code rank} with a lock of {@code lockType} ({@link MPI#LOCK_SHARED}
     * or {@link MPI#LOCK_EXCLUSIVE}) (MPI_WIN_LOCK). Returns once the lock is held.
     */
    public void lock(int lockType, int rank, int assertion) throws MPIException {
        Window w = live("Win.lock");
        if (lockType != MPI.LOCK_SHARED && lockType != MPI.LOCK_EXCLUSIVE) {
            throw Errors.error(MPI.ERR_LOCKTYPE, "Win.lock: lock type " + lockType + " is neither MPI.LOCK_SHARED"
                    + " nor MPI.LOCK_EXCLUSIVE");
        }
        checkAssert(assertion, MPI.MODE_NOCHECK, "Win.lock");
        if (rank == MPI.PROC_NULL) {
            return;
        }
        checkTarget(w, rank, "Win.lock");
        try {
            w.lock(lockType == MPI.LOCK_SHARED ? Window.LockType.SHARED : Window.LockType.EXCLUSIVE, rank);
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.lock");
        }
        locked[rank] = true;
    }

    /** Closes the passive epoch to {@code rank}: its operations are complete there (MPI_WIN_UNLOCK). */
    public void unlock(int rank) throws MPIException {
        Window w = live("Win.unlock");
        if (rank == MPI.PROC_NULL) {
            return;
        }
        checkTarget(w, rank, "Win.unlock");
        try {
            w.unlock(rank);
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.unlock");
        }
        locked[rank] = false;
    }

    /** A shared lock on every rank (MPI_WIN_LOCK_ALL). */
    public void lockAll(int assertion) throws MPIException {
        Window w = live("Win.lockAll");
        checkAssert(assertion, MPI.MODE_NOCHECK, "Win.lockAll");
        try {
            w.lockAll();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.lockAll");
        }
        lockedAll = true;
    }

    /** Releases the locks of {@link #lockAll} (MPI_WIN_UNLOCK_ALL). */
    public void unlockAll() throws MPIException {
        Window w = live("Win.unlockAll");
        try {
            w.unlockAll();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.unlockAll");
        }
        lockedAll = false;
    }

    /** Orders this rank's loads and stores to window memory with its peers' (MPI_WIN_SYNC). */
    public void sync() throws MPIException {
        Window w = live("Win.sync");
        try {
            w.sync();
        } catch (TuttiException e) {
            throw Errors.of(e, "Win.sync");
        }
    }

    /** Completes the operations to {@code targetRank} at the target (MPI_WIN_FLUSH); in a passive epoch. */
    public void flush(int targetRank) throws MPIException {
        flush(targetRank, false, "Win.flush");
    }

    /** Completes the operations to {@code targetRank} at this rank (MPI_WIN_FLUSH_LOCAL); in a passive epoch. */
    public void flushLocal(int targetRank) throws MPIException {
        flush(targetRank, true, "Win.flushLocal");
    }

    /** {@link #flush} to every rank this rank has locked (MPI_WIN_FLUSH_ALL). */
    public void flushAll() throws MPIException {
        flushAll(false, "Win.flushAll");
    }

    /** {@link #flushLocal} to every rank this rank has locked (MPI_WIN_FLUSH_LOCAL_ALL). */
    public void flushLocalAll() throws MPIException {
        flushAll(true, "Win.flushLocalAll");
    }

    private void flush(int target, boolean local, String call) throws MPIException {
        Window w = live(call);
        if (target == MPI.PROC_NULL) {
            return;
        }
        checkTarget(w, target, call);
        try {
            if (local) {
                w.flushLocal(target);
            } else {
                w.flush(target);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    private void flushAll(boolean local, String call) throws MPIException {
        Window w = live(call);
        try {
            if (local) {
                w.flushLocalAll();
            } else {
                w.flushAll();
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    private static void checkAssert(int assertion, int allowed, String call) throws MPIException {
        if ((assertion & ~allowed) != 0) {
            throw Errors.error(MPI.ERR_ASSERT, call + ": assertion " + assertion + " has bits this call does not take"
                    + " (it takes " + allowed + ")");
        }
    }

    /** The window ranks of {@code group}'s members: each must be one ({@link MPI#ERR_GROUP}). */
    private int[] ranks(Group group, String call) throws MPIException {
        if (group == null) {
            throw Errors.error(MPI.ERR_GROUP, call + ": the group is null");
        }
        int[] world;
        try {
            world = group.members();
        } finally {
            MPI.raisedOn(this);
        }
        int[] out = new int[world.length];
        for (int i = 0; i < out.length; i++) {
            int r = Group.indexOf(members, world[i]);
            if (r == MPI.UNDEFINED) {
                throw Errors.error(MPI.ERR_GROUP, call + ": member " + i + " of the group (world rank " + world[i]
                        + ") is not a rank of the window");
            }
            out[i] = r;
        }
        return out;
    }

    @Override
    public String toString() {
        return name.isEmpty() ? "a window of " + members.length + " ranks" : name;
    }

    /**
     * Where {@code count} items of a type lie from a displacement: its data blocks as (byte offset,
     * length) pairs, adjacent ones merged, their first and end byte, and the vector Tutti can stride
     * them as, if they are equal blocks at equal distances. Kept for the last (count, type), so that
     * a loop over one derived type computes it once.
     */
    private static final class TargetLayout {
        private Datatype type;
        private int count = -1;
        long[] map = new long[2];
        int blocks;
        long first;
        long end;
        long bytes;
        Window.Vector vector;

        TargetLayout of(int count, Datatype type) throws MPIException {
            if (type == this.type && count == this.count) {
                return this;
            }
            blocks = 0;
            bytes = 0;
            if (type.base == type || type.dense) {
                long n = type.base == type ? type.bytes(count) : (long) count * type.size;
                if (n > 0) {
                    add(0, n);
                }
            } else {
                for (int i = 0; i < count; i++) {
                    long item = (long) i * type.extent;
                    for (int k = 0; k < type.map.length; k += 2) {
                        if (type.map[k + 1] > 0) {
                            add(item + type.map[k], type.map[k + 1]);
                        }
                    }
                }
            }
            if (bytes > Integer.MAX_VALUE) {
                throw Errors.error(MPI.ERR_COUNT, count + " items of " + type + " are more than one call moves");
            }
            first = Long.MAX_VALUE;
            end = 0;
            for (int b = 0; b < blocks; b++) {
                first = Math.min(first, map[2 * b]);
                end = Math.max(end, map[2 * b] + map[2 * b + 1]);
            }
            if (blocks == 0) {
                first = 0;
                end = 0;
            }
            vector = vector(type.base.coll.extent());
            this.type = type;
            this.count = count;
            return this;
        }

        private void add(long at, long len) {
            if (blocks > 0 && map[2 * blocks - 2] + map[2 * blocks - 1] == at) {
                map[2 * blocks - 1] += len;
            } else {
                if (2 * blocks == map.length) {
                    map = java.util.Arrays.copyOf(map, 2 * map.length);
                }
                map[2 * blocks] = at;
                map[2 * blocks + 1] = len;
                blocks++;
            }
            bytes += len;
        }

        /** The blocks as a vector from the first, in elements of {@code e} bytes, or null if they are not one. */
        private Window.Vector vector(int e) {
            if (blocks < 2) {
                return null;
            }
            long len = map[1];
            long stride = map[2] - map[0];
            if (len % e != 0 || stride % e != 0 || stride < len) {
                return null;
            }
            for (int b = 1; b < blocks; b++) {
                if (map[2 * b + 1] != len || map[2 * b] - map[2 * b - 2] != stride) {
                    return null;
                }
            }
            return new Window.Vector(blocks, (int) (len / e), (int) (stride / e));
        }
    }
}
