package mpi;

import io.tutti.Communicator;
import io.tutti.Intercommunicator;
import io.tutti.TuttiException;
import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

/**
 * A communicator: a group of ranks with its own message space, over one of Tutti's
 * {@link Communicator}s. {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are the predefined ones;
 * {@link #dup} and {@link Intracomm}'s {@code split}, {@code create} and topologies make others.
 * Each has its attributes, its name and its error handler, which every error of a call on it goes
 * to ({@link MPI#ERRORS_ARE_FATAL} unless set).
 *
 * <p>Buffers are Java primitive arrays or {@code java.nio} buffers (heap or direct), counted in items
 * of the {@link Datatype} given: an array from its first element, a heap buffer from its array
 * offset, a direct buffer from its first element; the position is ignored, as the bindings do, so
 * an offset is given with {@link MPI#slice}. Ranks are those of this communicator; {@link MPI#PROC_NULL}
 * is a rank that sends and receives nothing, {@link MPI#ANY_SOURCE} and {@link MPI#ANY_TAG} match
 * anything on receives.
 *
 * <p>The blocking calls on {@code byte[] short[] int[] long[] float[] double[]} arrays, on heap
 * buffers of those and on direct buffers the program reuses allocate nothing but the {@link Status}
 * a receive returns. A communicator is used by one thread at a time ({@link MPI#THREAD_SERIALIZED}).
 */
public class Comm implements Freeable, Cloneable {
    /** The kind of {@link Intracomm#splitType}: the ranks on one host (MPI_COMM_TYPE_SHARED). */
    public static final int TYPE_SHARED = 0;

    /** How messages name it ({@code MPI.COMM_WORLD}); predefined communicators only, else null. */
    private final String label;
    /** The name {@link #getName} reports (MPI_COMM_SET_NAME). */
    private String name;
    /** Tutti's communicator, from {@link MPI#Init} on; null once freed, or for a rank left out. */
    private Communicator tutti;
    private boolean freed;
    /** The members' world ranks, in this communicator's order, made on first use. */
    private int[] members;
    /** The attributes set on it, by keyval (step 5). */
    final Attributes attributes = new Attributes();
    /** What an error does: ends the job ({@link MPI#ERRORS_ARE_FATAL}) or is thrown. */
    Errhandler errhandler;
    /** The Cartesian or graph topology, for {@link CartComm} and {@link GraphComm}; null for none. */
    Topology topology;
    private final Region region = new Region();
    private final Region other = new Region();
    private final io.tutti.Status found = new io.tutti.Status();
    /** The received half of a sendRecvReplace, before it is copied over the buffer. */
    private byte[] replace = new byte[0];
    private MemorySegment replaceSegment = MemorySegment.ofArray(replace);
    /** Zeros, one per rank: see {@link #notRead}. */
    private int[] notRead;

    /** A predefined communicator, bound at {@link MPI#Init}. */
    Comm(String label, String name) {
        this.label = label;
        this.name = name;
    }

    /** A communicator over {@code c}, made from {@code parent} (null for a rank left out: the null communicator). */
    Comm(Communicator c, Comm parent) {
        this.label = null;
        this.name = "";
        this.tutti = c;
        this.freed = c == null;
        this.errhandler = parent.errhandler;
    }

    /** Binds this communicator to Tutti's, at {@link MPI#Init}. */
    final void bind(Communicator communicator) {
        this.tutti = communicator;
        this.errhandler = MPI.ERRORS_ARE_FATAL;
    }

    /**
     * Tutti's communicator, once MPI is initialized and until it is finalized; makes this the
     * communicator whose error handler the call's errors go to.
     */
    final Communicator live() throws MPIException {
        MPI.check();
        MPI.raisedOn(this);
        if (tutti == null) {
            throw Errors.error(MPI.ERR_COMM, (freed && label == null ? "the communicator has been freed or is null"
                    : "the communicator is null") + ": use one of this rank's communicators");
        }
        return tutti;
    }

    /** Whether this is predefined ({@link MPI#COMM_WORLD}, {@link MPI#COMM_SELF}). */
    final boolean predefined() {
        return label != null;
    }

    // ------------------------------------------------------------ size, rank, group, name

    /** Number of ranks in the communicator (MPI_COMM_SIZE). */
    public final int getSize() throws MPIException {
        return live().size();
    }

    /** This rank's number in the communicator, 0 to {@code getSize() - 1} (MPI_COMM_RANK). */
    public final int getRank() throws MPIException {
        return live().rank();
    }

    /** This process's rank in {@link MPI#COMM_WORLD}. */
    final int getWorldRank() throws MPIException {
        Communicator c = live();
        return c.worldRank(c.rank());
    }

    /** The members' world ranks, in this communicator's order. */
    final int[] members() throws MPIException {
        Communicator c = live();
        if (members == null) {
            int[] m = new int[c.size()];
            for (int i = 0; i < m.length; i++) {
                m[i] = c.worldRank(i);
            }
            members = m;
        }
        return members;
    }

    /** The group of the communicator's processes, in rank order (MPI_COMM_GROUP). */
    public final Group getGroup() throws MPIException {
        return new Group(members());
    }

    /** Whether this is an intercommunicator (MPI_COMM_TEST_INTER). */
    public final boolean isInter() throws MPIException {
        return live().isInter();
    }

    /**
     * {@link MPI#IDENT} for the same communicator, {@link MPI#CONGRUENT} for two with the same
     * members in the same order (a {@link #dup}), {@link MPI#SIMILAR} in another order, else
     * {@link MPI#UNEQUAL} (MPI_COMM_COMPARE).
     */
    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        Communicator c1 = comm1.live();
        Communicator c2 = comm2.live();
        if (c1 == c2) {
            return MPI.IDENT;
        }
        if (c1.isInter() != c2.isInter()) {
            return MPI.UNEQUAL;
        }
        int g = Group.compare(comm1.members(), comm2.members());
        if (c1.isInter()) {
            // both groups count, each with its own order
            int remote = Group.compare(((Intercomm) comm1).remoteMembers(), ((Intercomm) comm2).remoteMembers());
            g = g == MPI.UNEQUAL || remote == MPI.UNEQUAL ? MPI.UNEQUAL : Math.max(g, remote);
        }
        return g == MPI.IDENT ? MPI.CONGRUENT : g;
    }

    /** Whether this is a null communicator: one freed, or a rank's result of a create or split that left it out. */
    public final boolean isNull() {
        return freed;
    }

    /**
     * Frees the communicator (MPI_COMM_FREE): it is null afterwards. Collective in MPI; here local, as
     * Tutti's communicators hold nothing to give back. The predefined communicators cannot be freed:
     * MPI refuses, and so does this, with {@link MPI#ERR_COMM}.
     */
    @Override
    public final void free() throws MPIException {
        MPI.check();
        if (predefined()) {
            throw Errors.error(MPI.ERR_COMM, "Comm.free: " + label + " is predefined and cannot be freed");
        }
        live();
        attributes.deleteAll();
        tutti = null;
        freed = true;
    }

    /** Sets the communicator's name (MPI_COMM_SET_NAME), at most {@link MPI#MAX_OBJECT_NAME} - 1 characters kept. */
    public final void setName(String name) throws MPIException {
        live();
        if (name == null) {
            throw Errors.error(MPI.ERR_ARG, "Comm.setName: the name is null");
        }
        this.name = name.length() < MPI.MAX_OBJECT_NAME ? name : name.substring(0, MPI.MAX_OBJECT_NAME - 1);
    }

    /** The communicator's name (MPI_COMM_GET_NAME): {@code MPI_COMM_WORLD}, {@code MPI_COMM_SELF}, or "" until set. */
    public final String getName() throws MPIException {
        live();
        return name;
    }

    /** The topology of the communicator (MPI_TOPO_TEST): {@link MPI#CART}, {@link MPI#GRAPH}, {@link MPI#DIST_GRAPH} or {@link MPI#UNDEFINED}. */
    public final int getTopology() throws MPIException {
        live();
        return topology == null ? MPI.UNDEFINED : topology.kind;
    }

    /** The topology, which the call needs: else {@link MPI#ERR_TOPOLOGY}. */
    final Topology topology() throws MPIException {
        live();
        if (topology == null) {
            throw Errors.error(MPI.ERR_TOPOLOGY, this + " has no topology: make one with createCart, createGraph or"
                    + " createDistGraph");
        }
        return topology;
    }

    // ------------------------------------------------------------ new communicators

    /**
     * A new communicator with the same ranks and a message space of its own (MPI_COMM_DUP), with
     * this one's attributes copied as their keyvals say and its error handler. Collective.
     */
    public Comm dup() throws MPIException {
        return new Comm(dupTutti("dup"), this).copyAttributes(this);
    }

    /**
     * Duplicates as {@link #dup} does, nonblocking in MPI (MPI_COMM_IDUP). Tutti has no nonblocking
     * split, so this duplicates at once; {@link #getRequest} is then already complete.
     */
    public Comm iDup() throws MPIException {
        return dup();
    }

    /** Duplicates as {@link #dup} does; the info is not kept (MPI_COMM_DUP_WITH_INFO). */
    public Comm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    /** The request of an {@link #iDup}: complete, as the duplicate is made at once. */
    public final Request getRequest() {
        return Request.done(new Status().set(MPI.ANY_SOURCE, MPI.ANY_TAG, 0));
    }

    /** Tutti's duplicate of this communicator. */
    final Communicator dupTutti(String call) throws MPIException {
        Communicator c = live();
        try {
            return c.dup();
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /** Copies {@code from}'s attributes whose keyval says to, then returns this. */
    @SuppressWarnings("unchecked")
    final <C extends Comm> C copyAttributes(Comm from) throws MPIException {
        from.attributes.copyTo(this);
        return (C) this;
    }

    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    /**
     * An intercommunicator between the ranks of {@code localComm} and another, disjoint group
     * (MPI_INTERCOMM_CREATE), called on the peer communicator: the leaders ({@code localLeader} of
     * {@code localComm}, {@code remoteLeader} of this one) reach each other over it, so this
     * communicator is read at the local leader only (elsewhere it may be null). Both groups must pass
     * the same {@code tag} (else both fail with {@link MPI#ERR_ARG}). Collective over both groups;
     * errors go to {@code localComm}'s handler.
     */
    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader, int tag)
            throws MPIException {
        MPI.check();
        if (localComm == null) {
            throw Errors.error(MPI.ERR_COMM, "createIntercomm: the local communicator is null");
        }
        Communicator local = localComm.live();
        if (local.isInter()) {
            throw Errors.error(MPI.ERR_COMM, "createIntercomm: the local communicator is an intercommunicator; it"
                    + " must be an intracommunicator of the local group");
        }
        if (localLeader < 0 || localLeader >= local.size()) {
            throw Errors.error(MPI.ERR_RANK, "createIntercomm: invalid local leader " + localLeader + ": the local"
                    + " communicator has " + local.size() + " ranks (0.." + (local.size() - 1) + ")");
        }
        // the peer is read at the leader only: a null or freed one there is Tutti's error, told to the whole group
        Communicator peer = local.rank() == localLeader ? tutti : null;
        try {
            return new Intercomm(local.createIntercomm(localLeader, peer, remoteLeader, tag), localComm);
        } catch (TuttiException e) {
            throw Errors.of(e, "createIntercomm");
        }
    }

    // ------------------------------------------------------------ neighbourhood collectives

    /**
     * Every rank sends {@code sendbuf} to each out-neighbour of the topology and receives a block of
     * {@code recvcount} items from each in-neighbour, in neighbour order (MPI_NEIGHBOR_ALLGATHER);
     * {@link MPI#PROC_NULL} neighbours (a grid's edges) leave their block alone. Point-to-point
     * messages on a communicator of the topology's own.
     */
    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
                                        int recvcount, Datatype recvtype) throws MPIException {
        neighbors(sendbuf, null, null, sendcount, sendtype, false, recvbuf, null, null, recvcount, recvtype, false,
                "neighborAllGather");
    }

    /** Starts a {@link #neighborAllGather} of direct buffers (MPI_INEIGHBOR_ALLGATHER). */
    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
                                            int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return neighbors(sendbuf, null, null, sendcount, sendtype, false, recvbuf, null, null, recvcount, recvtype,
                true, "iNeighborAllGather");
    }

    /** As {@link #neighborAllGather}, in-neighbour i's {@code recvcount[i]} items at item {@code displs[i]} (MPI_NEIGHBOR_ALLGATHERV). */
    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
                                         int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        neighbors(sendbuf, null, null, sendcount, sendtype, false, recvbuf, recvcount, displs, 0, recvtype, false,
                "neighborAllGatherv");
    }

    /** Starts a {@link #neighborAllGatherv} of direct buffers (MPI_INEIGHBOR_ALLGATHERV). */
    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
                                             int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return neighbors(sendbuf, null, null, sendcount, sendtype, false, recvbuf, recvcount, displs, 0, recvtype,
                true, "iNeighborAllGatherv");
    }

    /** Block j of {@code sendbuf} to out-neighbour j, block i of {@code recvbuf} from in-neighbour i (MPI_NEIGHBOR_ALLTOALL). */
    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
                                       int recvcount, Datatype recvtype) throws MPIException {
        neighbors(sendbuf, null, null, sendcount, sendtype, true, recvbuf, null, null, recvcount, recvtype, false,
                "neighborAllToAll");
    }

    /** Starts a {@link #neighborAllToAll} of direct buffers (MPI_INEIGHBOR_ALLTOALL). */
    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
                                           int recvcount, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return neighbors(sendbuf, null, null, sendcount, sendtype, true, recvbuf, null, null, recvcount, recvtype,
                true, "iNeighborAllToAll");
    }

    /** As {@link #neighborAllToAll} with a count and displacement per neighbour (MPI_NEIGHBOR_ALLTOALLV). */
    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                        Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        neighbors(sendbuf, sendcount, sdispls, 0, sendtype, true, recvbuf, recvcount, rdispls, 0, recvtype, false,
                "neighborAllToAllv");
    }

    /** Starts a {@link #neighborAllToAllv} of direct buffers (MPI_INEIGHBOR_ALLTOALLV). */
    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return neighbors(sendbuf, sendcount, sdispls, 0, sendtype, true, recvbuf, recvcount, rdispls, 0, recvtype,
                true, "iNeighborAllToAllv");
    }

    /**
     * A neighbourhood collective: to out-neighbour j the send block j ({@code count} items at item j *
     * count, or the v-arrays' block; block 0 for all when not {@code perDest}), from in-neighbour i
     * into receive block i; all at once with Tutti's nonblocking point-to-point.
     */
    private Request neighbors(Object sendbuf, int[] sendCounts, int[] sdispls, int sendcount, Datatype sendtype,
                              boolean perDest, Object recvbuf, int[] recvCounts, int[] rdispls, int recvcount,
                              Datatype recvtype, boolean nb, String call) throws MPIException {
        Topology t = topology();
        checkCount(sendcount, sendtype, call);
        checkCount(recvcount, recvtype, call);
        if (sendtype.coll != recvtype.coll) {
            sameKind(sendtype, recvtype, call);
        }
        int[] sOff = blocks(t.out.length, sendCounts, sdispls, sendcount, perDest, true, call);
        int[] rOff = blocks(t.in.length, recvCounts, rdispls, recvcount, true, false, call);
        Region s = region;
        Region r = other;
        s.resolve(sendbuf, span(sOff), sendtype, false, call);
        r.resolve(recvbuf, span(rOff), recvtype, false, call);
        MemorySegment sendSeg = s.segment();
        MemorySegment recvSeg = r.segment();
        long sItem = sendtype.packedBytes(1);
        long rItem = recvtype.packedBytes(1);
        io.tutti.Request[] parts = new io.tutti.Request[t.in.length + t.out.length];
        try {
            for (int i = 0; i < t.in.length; i++) {
                if (t.in[i] != MPI.PROC_NULL) {
                    parts[i] = t.traffic.irecv(recvSeg.asSlice(rOff[2 * i] * rItem, rOff[2 * i + 1] * rItem), t.in[i],
                            t.inTags[i]);
                }
            }
            for (int j = 0; j < t.out.length; j++) {
                if (t.out[j] != MPI.PROC_NULL) {
                    parts[t.in.length + j] = t.traffic.isend(sendSeg.asSlice(sOff[2 * j] * sItem,
                            sOff[2 * j + 1] * sItem), t.out[j], t.outTags[j]);
                }
            }
            if (nb) {
                Request q = new Request(new AllOf(parts));
                q.sendBuf = (Buffer) sendbuf;
                q.recvBuf = (Buffer) recvbuf;
                q.staging = r.staging == null ? null : r.staging.unpackOnCompletion();
                return q;
            }
            io.tutti.Request.waitAll(parts);
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        r.receivedAll();
        return null;
    }

    /** Offset and count of each of {@code n} blocks, in items: from the v-arrays, or {@code count} each. */
    private static int[] blocks(int n, int[] counts, int[] displs, int count, boolean spread, boolean send,
                                String call) throws MPIException {
        int[] b = new int[2 * n];
        if (counts != null) {
            if (displs == null || counts.length < n || displs.length < n) {
                throw Errors.error(MPI.ERR_COUNT, call + ": a " + (send ? "send" : "receive") + " count and"
                        + " displacement per neighbour (" + n + ") are needed");
            }
            for (int i = 0; i < n; i++) {
                if (counts[i] < 0 || displs[i] < 0) {
                    throw Errors.error(MPI.ERR_COUNT, call + ": count " + counts[i] + " and displacement " + displs[i]
                            + " of neighbour " + i + " must be 0 or more");
                }
                b[2 * i] = displs[i];
                b[2 * i + 1] = counts[i];
            }
        } else {
            for (int i = 0; i < n; i++) {
                b[2 * i] = spread ? i * count : 0;
                b[2 * i + 1] = count;
            }
        }
        return b;
    }

    private static int span(int[] blocks) throws MPIException {
        long end = 0;
        for (int i = 0; i < blocks.length; i += 2) {
            if (blocks[i + 1] > 0) {
                end = Math.max(end, (long) blocks[i] + blocks[i + 1]);
            }
        }
        if (end > Integer.MAX_VALUE) {
            throw Errors.error(MPI.ERR_COUNT, "the blocks span more items than one call moves");
        }
        return (int) end;
    }

    // ------------------------------------------------------------ packing

    /**
     * Packs {@code incount} items of {@code type} from {@code inbuf} into {@code outbuf} from byte
     * {@code position} (MPI_PACK); returns the position after them. Too little room fails with
     * {@link MPI#ERR_TRUNCATE}. The packed bytes are what a send of the items carries: send them as
     * {@link MPI#PACKED}.
     */
    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position) throws MPIException {
        live();
        checkCount(incount, type, "pack");
        Region r = region;
        r.resolve(inbuf, incount, type, false, "pack");
        long n = r.byteCount();
        checkPacked(outbuf, position, n, "pack");
        r.copyOut(MemorySegment.ofArray(outbuf), position);
        return (int) (position + n);
    }

    /**
     * Unpacks {@code outcount} items of {@code type} from {@code inbuf} at byte {@code position} into
     * {@code outbuf} (MPI_UNPACK); returns the position after them.
     */
    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount, Datatype type)
            throws MPIException {
        live();
        checkCount(outcount, type, "unpack");
        Region r = region;
        r.resolve(outbuf, outcount, type, true, "unpack");
        long n = r.byteCount();
        checkPacked(inbuf, position, n, "unpack");
        r.copyIn(MemorySegment.ofArray(inbuf).asSlice(position, n), n);
        return (int) (position + n);
    }

    /** Bytes that {@link #pack} of {@code incount} items of {@code type} takes (MPI_PACK_SIZE). */
    public final int packSize(int incount, Datatype type) throws MPIException {
        live();
        checkCount(incount, type, "packSize");
        return (int) type.packedBytes(incount);
    }

    private static void checkPacked(byte[] buf, int position, long n, String call) throws MPIException {
        if (buf == null) {
            throw Errors.error(MPI.ERR_BUFFER, call + ": the packed buffer is null");
        }
        if (position < 0 || position + n > buf.length) {
            throw Errors.error(MPI.ERR_TRUNCATE, call + ": " + n + " bytes from position " + position
                    + " do not fit the packed buffer of " + buf.length);
        }
    }

    // ------------------------------------------------------------ attributes, error handlers, abort

    /** A new keyval for {@link #setAttr} (MPI_COMM_CREATE_KEYVAL); {@link #dup} copies its attributes. */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval();
    }

    /** Frees a keyval (MPI_COMM_FREE_KEYVAL); the predefined ones and unknown ones fail with {@link MPI#ERR_KEYVAL}. */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(keyval);
    }

    /** Sets the attribute {@code keyval} to a copy of {@code value}, which must be Serializable (MPI_COMM_SET_ATTR). */
    public final void setAttr(int keyval, Object value) throws MPIException {
        live();
        attributes.set(keyval, value, "Comm.setAttr");
    }

    /**
     * The value of attribute {@code keyval}, a copy, or null if it is not set (MPI_COMM_GET_ATTR).
     * The predefined ones: {@link MPI#TAG_UB} (an Integer), {@link MPI#HOST} ({@link MPI#PROC_NULL}),
     * {@link MPI#IO} ({@link MPI#ANY_SOURCE}: every rank can do I/O), {@link MPI#APPNUM} (0),
     * {@link MPI#LASTUSEDCODE}, {@link MPI#UNIVERSE_SIZE} (the world's size), {@link MPI#WTIME_IS_GLOBAL}
     * (Boolean false).
     */
    public final Object getAttr(int keyval) throws MPIException {
        Object p = Attributes.predefined(keyval);
        live();     // after the world's size, so that an error here goes to this communicator's handler
        return p != null ? p : attributes.get(keyval, "Comm.getAttr");
    }

    /** Deletes attribute {@code keyval} (MPI_COMM_DELETE_ATTR). */
    public final void deleteAttr(int keyval) throws MPIException {
        live();
        attributes.delete(keyval, "Comm.deleteAttr");
    }

    /**
     * Ends the whole job with exit status {@code errorcode} (MPI_ABORT), after a line on standard error
     * naming this rank and the communicator; the launcher stops the other ranks.
     */
    public final void abort(int errorcode) throws MPIException {
        live();
        MPI.end(errorcode, "MPI_ABORT was called on rank " + MPI.COMM_WORLD.getRank() + " in communicator "
                + this + " with error code " + errorcode);
    }

    /** Sets what errors on this communicator do (MPI_COMM_SET_ERRHANDLER): see {@link Errhandler}. */
    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        live();
        if (errhandler == null) {
            throw Errors.error(MPI.ERR_ARG, "Comm.setErrhandler: the error handler is null");
        }
        this.errhandler = errhandler;
    }

    /** What errors on this communicator do (MPI_COMM_GET_ERRHANDLER); {@link MPI#ERRORS_ARE_FATAL} unless set. */
    public final Errhandler getErrhandler() throws MPIException {
        live();
        return errhandler;
    }

    /**
     * Raises an error of {@code errorCode} on this communicator (MPI_COMM_CALL_ERRHANDLER): the job
     * ends under {@link MPI#ERRORS_ARE_FATAL}; under {@link MPI#ERRORS_RETURN} this throws it.
     */
    public void callErrhandler(int errorCode) throws MPIException {
        live();
        throw Errors.error(errorCode, "Comm.callErrhandler: error code " + errorCode + " raised by the program");
    }

    // ------------------------------------------------------------ blocking point-to-point

    /**
     * Sends {@code count} items of {@code type} from {@code buf} to {@code dest} (MPI_SEND); returns
     * when the buffer may be reused.
     */
    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        standardSend(buf, count, type, dest, tag, "send");
    }

    /** A standard send, for {@code call} (send and rSend), or a synchronous one (sSend). */
    private void standardSend(Object buf, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, call);
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, call);
        try {
            if (call.equals("sSend")) {
                c.ssend(r.data, r.offset, r.count, dest, tag);    // an array in elements, a segment in bytes
            } else {
                send(c, r, dest, tag);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
    }

    /**
     * Sends in buffered mode (MPI_BSEND): the message is copied into the buffer attached with
     * {@link MPI#attachBuffer}, and the call returns at once; it fails with {@link MPI#ERR_BUFFER}
     * if the attached buffer has no room for it ({@code count} items plus
     * {@link MPI#BSEND_OVERHEAD} bytes, beside the buffered sends still in flight).
     */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, tag, "bSend");
        if (dest == MPI.PROC_NULL) {
            return;
        }
        Region r = region;
        r.resolve(buf, count, type, false, "bSend");
        try {
            MPI.bsendBuffer().send(c, r, dest, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "bSend");
        }
    }

    /**
     * Sends in synchronous mode (MPI_SSEND): returns once the matching receive has started, whatever
     * the message's length (Tutti's {@code ssend}, which always takes the rendezvous).
     */
    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        standardSend(buf, count, type, dest, tag, "sSend");
    }

    /**
     * Sends in ready mode (MPI_RSEND): the matching receive must already be posted. A standard
     * send, which MPI allows for ready mode, is what this does.
     */
    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        standardSend(buf, count, type, dest, tag, "rSend");
    }

    /**
     * Receives up to {@code count} items of {@code type} into {@code buf} from {@code source} (or
     * {@link MPI#ANY_SOURCE}) with {@code tag} (or {@link MPI#ANY_TAG}) (MPI_RECV). A longer message
     * fails with {@link MPI#ERR_TRUNCATE}. From {@link MPI#PROC_NULL} it returns at once, with
     * nothing received.
     */
    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        checkRecv(c, count, type, source, tag, "recv");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        Region r = region;
        r.resolve(buf, count, type, true, "recv");
        io.tutti.Status s = found;
        try {
            recv(c, r, source, tag, s);
        } catch (TuttiException e) {
            throw Errors.of(e, "recv");
        }
        r.received(s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Sends one buffer and receives into another at once (MPI_SENDRECV), without deadlock whatever
     * the other ranks do; either rank may be {@link MPI#PROC_NULL}. Returns the receive's status.
     */
    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
                                 Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag)
            throws MPIException {
        Communicator c = live();
        checkSend(c, sendcount, sendtype, dest, sendtag, "sendRecv");
        checkRecv(c, recvcount, recvtype, source, recvtag, "sendRecv");
        if (source == MPI.PROC_NULL) {
            send(sendbuf, sendcount, sendtype, dest, sendtag);
            return new Status().setProcNull();
        }
        if (dest == MPI.PROC_NULL) {
            return recv(recvbuf, recvcount, recvtype, source, recvtag);
        }
        Region out = region;
        Region in = other;
        out.resolve(sendbuf, sendcount, sendtype, false, "sendRecv");
        in.resolve(recvbuf, recvcount, recvtype, true, "sendRecv");
        io.tutti.Status s;
        try {
            s = c.sendrecv(out.data, out.offset, out.count, dest, sendtag, in.data, in.offset, in.count, source,
                    recvtag);
        } catch (TuttiException e) {
            throw Errors.of(e, "sendRecv");
        }
        in.received(s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Sends {@code buf} and receives into the same buffer (MPI_SENDRECV_REPLACE): up to {@code count}
     * items; a longer message fails with {@link MPI#ERR_TRUNCATE}. The received message is kept
     * apart (in memory of this communicator's, reused) until the send is done, then copied over.
     */
    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source,
                                        int recvtag) throws MPIException {
        Communicator c = live();
        checkSend(c, count, type, dest, sendtag, "sendRecvReplace");
        checkRecv(c, count, type, source, recvtag, "sendRecvReplace");
        if (source == MPI.PROC_NULL) {
            send(buf, count, type, dest, sendtag);
            return new Status().setProcNull();
        }
        if (dest == MPI.PROC_NULL) {
            return recv(buf, count, type, source, recvtag);
        }
        Region r = region;
        r.resolve(buf, count, type, false, "sendRecvReplace");
        int n = (int) r.byteCount();
        if (replace.length < n) {
            replace = new byte[Math.max(n, 2 * replace.length)];
            replaceSegment = MemorySegment.ofArray(replace);
        }
        io.tutti.Status s;
        try {
            s = c.sendrecv(r.data, r.offset, r.count, dest, sendtag, replace, 0, n, source, recvtag);
        } catch (TuttiException e) {
            throw Errors.of(e, "sendRecvReplace");
        }
        r.copyIn(replaceSegment, s.bytes());
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * Waits until a message from {@code source} with {@code tag} (wildcards allowed) can be received
     * and returns its status, without receiving it (MPI_PROBE); from {@link MPI#PROC_NULL}, at once.
     */
    public final Status probe(int source, int tag) throws MPIException {
        Communicator c = live();
        checkSource(c, source, "probe");
        checkRecvTag(tag, "probe");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        io.tutti.Status s;
        try {
            s = c.probe(source, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "probe");
        }
        return new Status().set(s.source(), s.tag(), s.bytes());
    }

    /**
     * The status of a message from {@code source} with {@code tag} that can be received now, or null
     * if there is none (MPI_IPROBE); from {@link MPI#PROC_NULL}, a status at once.
     */
    public final Status iProbe(int source, int tag) throws MPIException {
        Communicator c = live();
        checkSource(c, source, "iProbe");
        checkRecvTag(tag, "iProbe");
        if (source == MPI.PROC_NULL) {
            return new Status().setProcNull();
        }
        io.tutti.Status s;
        try {
            s = c.iprobe(source, tag);
        } catch (TuttiException e) {
            throw Errors.of(e, "iProbe");
        }
        return s == null ? null : new Status().set(s.source(), s.tag(), s.bytes());
    }

    // ------------------------------------------------------------ nonblocking point-to-point (direct buffers)

    /** Starts a standard-mode send of a direct buffer (MPI_ISEND); complete it with the request. */
    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "iSend");
    }

    /**
     * Starts a buffered-mode send (MPI_IBSEND): the message is copied into the attached buffer at
     * once, so the request is complete when returned (see {@link #bSend}).
     */
    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, "ibSend");
        if (dest != MPI.PROC_NULL) {
            Region r = region;
            r.resolve(buf, count, type, false, "ibSend");
            try {
                MPI.bsendBuffer().send(c, r, dest, tag);
            } catch (TuttiException e) {
                throw Errors.of(e, "ibSend");
            }
        }
        return Request.done(new Status().set(dest, tag, 0));
    }

    /** Starts a synchronous-mode send (MPI_ISSEND): its request completes once the matching receive has started. */
    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "isSend");
    }

    /** Starts a ready-mode send (MPI_IRSEND): a standard-mode send, which MPI allows. */
    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return startSend(buf, count, type, dest, tag, "irSend");
    }

    private Request startSend(Buffer buf, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, call);
        if (dest == MPI.PROC_NULL) {
            return Request.done(new Status().setProcNull());
        }
        Region r = region;
        r.resolve(buf, count, type, false, call);
        Request request;
        try {
            request = new Request(call.equals("isSend") ? c.issend(r.slice, 0, (int) r.slice.byteSize(), dest, tag)
                    : c.isend(r.slice, dest, tag));
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        request.sendBuf = buf;
        request.staging = r.staging;
        return request;
    }

    /**
     * Starts a receive into a direct buffer (MPI_IRECV); its wait returns the status, and fails with
     * {@link MPI#ERR_TRUNCATE} if the message is longer than the buffer.
     */
    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkRecv(c, count, type, source, tag, "iRecv");
        if (source == MPI.PROC_NULL) {
            return Request.done(new Status().setProcNull());
        }
        Region r = region;
        r.resolve(buf, count, type, true, "iRecv");
        Request request;
        try {
            request = new Request(c.irecv(r.slice, source, tag));
        } catch (TuttiException e) {
            throw Errors.of(e, "iRecv");
        }
        request.recvBuf = buf;
        request.staging = r.staging;
        return request;
    }

    // ------------------------------------------------------------ persistent point-to-point (direct buffers)

    /** A persistent standard-mode send of a direct buffer (MPI_SEND_INIT): {@link Prequest#start()} sends it. */
    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "sendInit");
    }

    /**
     * A persistent buffered-mode send (MPI_BSEND_INIT): each start copies the buffer's contents into
     * the attached buffer, which completes it (see {@link #bSend}).
     */
    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, "bSendInit");
        Region own = new Region();
        Prequest p = new Prequest(() -> {
            if (dest != MPI.PROC_NULL) {
                own.resolve(buf, count, type, false, "Prequest.start");
                try {
                    MPI.bsendBuffer().send(c, own, dest, tag);
                } catch (TuttiException e) {
                    throw Errors.of(e, "Prequest.start");
                }
            }
        });
        p.early = new Status().set(dest, tag, 0);
        p.sendBuf = buf;
        return p;
    }

    /** A persistent synchronous-mode send (MPI_SSEND_INIT): each start completes once its receive has started. */
    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "sSendInit");
    }

    /** A persistent ready-mode send (MPI_RSEND_INIT): a persistent standard-mode send, which MPI allows. */
    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend(buf, count, type, dest, tag, "rSendInit");
    }

    private Prequest persistentSend(Buffer buf, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkSend(c, count, type, dest, tag, call);
        Prequest p;
        if (dest == MPI.PROC_NULL) {
            p = new Prequest((io.tutti.Request) null);
            p.early = new Status().setProcNull();
        } else {
            Region r = region;
            r.resolve(buf, count, type, false, call);
            try {
                p = new Prequest(call.equals("sSendInit") ? c.ssendInit(r.slice, 0, (int) r.slice.byteSize(), dest, tag)
                        : c.sendInit(r.slice, dest, tag));
            } catch (TuttiException e) {
                throw Errors.of(e, call);
            }
            p.staging = r.staging;
        }
        p.sendBuf = buf;
        return p;
    }

    /** A persistent receive into a direct buffer (MPI_RECV_INIT): {@link Prequest#start()} posts it. */
    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live();
        MPI.assertDirectBuffer(buf);
        checkRecv(c, count, type, source, tag, "recvInit");
        Prequest p;
        if (source == MPI.PROC_NULL) {
            p = new Prequest((io.tutti.Request) null);
            p.early = new Status().setProcNull();
        } else {
            Region r = region;
            r.resolve(buf, count, type, true, "recvInit");
            try {
                p = new Prequest(c.recvInit(r.slice, source, tag));
            } catch (TuttiException e) {
                throw Errors.of(e, "recvInit");
            }
            p.staging = r.staging;
        }
        p.recvBuf = buf;
        return p;
    }

    // ------------------------------------------------------------ collectives
    //
    // Each collective has a blocking form on arrays and buffers, an in-place form where the
    // bindings have one, and a nonblocking form on direct buffers; all run Tutti's collective of the
    // same name (blocking or nonblocking) on the buffers as Tutti takes them (see Region).

    /** Waits until every rank of the communicator has entered the barrier (MPI_BARRIER). */
    public final void barrier() throws MPIException {
        Communicator c = live();
        try {
            c.barrier();
        } catch (TuttiException e) {
            throw Errors.of(e, "barrier");
        }
    }

    /** Starts a barrier (MPI_IBARRIER); it completes once every rank has entered it. */
    public final Request iBarrier() throws MPIException {
        Communicator c = live();
        try {
            return new Request(c.ibarrier());
        } catch (TuttiException e) {
            throw Errors.of(e, "iBarrier");
        }
    }

    /** Sends {@code count} items of {@code buf} from {@code root} to every rank's {@code buf} (MPI_BCAST). */
    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        bcast(buf, count, type, root, false, "bcast");
    }

    /** Starts a broadcast of a direct buffer (MPI_IBCAST). */
    public final Request iBcast(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return bcast(buf, count, type, root, true, "iBcast");
    }

    private Request bcast(Object buf, int count, Datatype type, int root, boolean nb, String call)
            throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        root = checkRoot(c, root, call);
        Object b = view(other, buf, count, type, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.ibcast(b, count * type.collPer, type.coll, root);
            } else {
                c.bcast(b, count * type.collPer, type.coll, root);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    // gather

    /**
     * Collects {@code sendcount} items from every rank into the root's {@code recvbuf}, rank r's at
     * item {@code r * recvcount} (MPI_GATHER); {@code recvbuf} is read at the root only.
     */
    public final void gather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                             Datatype recvtype, int root) throws MPIException {
        gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, "gather");
    }

    /**
     * Gather in place (MPI_IN_PLACE as the root's send buffer): {@code buf} is the root's receive
     * buffer, whose block of the root stays where it is, and the others' send buffer.
     */
    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        gatherInPlace(buf, count, type, root, false, "gather");
    }

    /** Starts a gather of direct buffers (MPI_IGATHER). */
    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
                                 Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        if (recvbuf != null) {
            MPI.assertDirectBuffer(recvbuf);
        }
        return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, true, "iGather");
    }

    /** Starts a gather in place (see {@link #gather(Object, int, Datatype, int)}) (MPI_IGATHER). */
    public final Request iGather(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return gatherInPlace(buf, count, type, root, true, "iGather");
    }

    private Request gather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                           Datatype recvtype, int root, boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(sendcount, sendtype, call);
        root = checkRoot(c, root, call);
        Object send = view(region, sendbuf, sendcount, sendtype, call);
        Object recv = null;
        if (isRoot(c, root)) {
            checkCount(recvcount, recvtype, call);
            sameSignature(sendcount, sendtype, recvcount, recvtype, call);
            recv = view(other, recvbuf, (long) recvcount * peers(c), recvtype, call);
        }
        return gatherRun(c, send, recv, sendcount, sendtype, root, nb, call);
    }

    private Request gatherInPlace(Object buf, int count, Datatype type, int root, boolean nb, String call)
            throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        root = checkRoot(c, root, call);
        Object send;
        Object recv = null;
        if (isRoot(c, root)) {
            send = Communicator.IN_PLACE;
            recv = view(other, buf, (long) count * peers(c), type, call);
        } else {
            send = view(region, buf, count, type, call);
        }
        return gatherRun(c, send, recv, count, type, root, nb, call);
    }

    private Request gatherRun(Communicator c, Object send, Object recv, int count, Datatype type, int root,
                              boolean nb, String call) throws MPIException {
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.igather(send, recv, count * type.collPer, type.coll, root);
            } else {
                c.gather(send, recv, count * type.collPer, type.coll, root);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, isRoot(c, root) ? other : null);
    }

    /**
     * Gather of uneven blocks (MPI_GATHERV): rank r's {@code recvcount[r]} items land at item
     * {@code displs[r]} of the root's {@code recvbuf}; both arrays and {@code recvbuf} are read at
     * the root only.
     */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
                              int[] displs, Datatype recvtype, int root) throws MPIException {
        gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false, "gatherv");
    }

    /** Gatherv at the root in place (MPI_IN_PLACE as its send buffer): the root's form. */
    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        gatherv(Communicator.IN_PLACE, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, false, "gatherv");
    }

    /** Gatherv in place, the other ranks' form: sends {@code sendcount} items to the root. */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        gatherv(sendbuf, sendcount, sendtype, null, null, null, sendtype, root, false, "gatherv");
    }

    /** Starts a gatherv of direct buffers (MPI_IGATHERV). */
    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount,
                                  int[] displs, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, true, "iGatherv");
    }

    /** Starts a gatherv in place, the root's form (MPI_IGATHERV). */
    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return gatherv(Communicator.IN_PLACE, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, true,
                "iGatherv");
    }

    /** Starts a gatherv in place, the other ranks' form (MPI_IGATHERV). */
    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return gatherv(sendbuf, sendcount, sendtype, null, null, null, sendtype, root, true, "iGatherv");
    }

    private Request gatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
                            int[] displs, Datatype recvtype, int root, boolean nb, String call) throws MPIException {
        Communicator c = live();
        root = checkRoot(c, root, call);
        boolean inPlace = sendbuf == Communicator.IN_PLACE;
        Object send = Communicator.IN_PLACE;
        if (!inPlace) {
            checkCount(sendcount, sendtype, call);
            send = view(region, sendbuf, sendcount, sendtype, call);
        }
        Object recv = null;
        int[] counts = null;
        int[] offsets = null;
        Datatype type = sendtype;
        if (isRoot(c, root)) {
            checkCount(0, recvtype, call);
            if (!inPlace) {
                sameKind(sendtype, recvtype, call);
            }
            checkCounts(c, recvcount, displs, call);
            type = recvtype;
            recv = view(other, recvbuf, span(recvcount, displs), recvtype, call);
            counts = scaled(recvcount, recvtype.collPer);
            offsets = scaled(displs, recvtype.collPer);
        } else if (inPlace) {
            throw Errors.error(MPI.ERR_ARG, call + ": the in-place form with receive counts is the root's; the other"
                    + " ranks call gatherv(sendbuf, sendcount, sendtype, root)");
        }
        if (counts == null) {
            // not read away from the root (Tutti reads a v-call's layout at the root only); a cached array of zeros
            counts = offsets = notRead(c);
        }
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.igatherv(send, sendcount * type.collPer, recv, counts, offsets, type.coll, root);
            } else {
                c.gatherv(send, sendcount * type.collPer, recv, counts, offsets, type.coll, root);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, isRoot(c, root) ? other : null);
    }

    // scatter

    /**
     * Sends block r ({@code sendcount} items from item {@code r * sendcount}) of the root's
     * {@code sendbuf} to rank r's {@code recvbuf} (MPI_SCATTER); {@code sendbuf} is read at the root only.
     */
    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                              Datatype recvtype, int root) throws MPIException {
        scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, "scatter");
    }

    /**
     * Scatter in place (MPI_IN_PLACE as the root's receive buffer): {@code buf} is the root's send
     * buffer, whose own block stays where it is, and the others' receive buffer.
     */
    public final void scatter(Object buf, int count, Datatype type, int root) throws MPIException {
        scatterInPlace(buf, count, type, root, false, "scatter");
    }

    /** Starts a scatter of direct buffers (MPI_ISCATTER). */
    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
                                  Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, true, "iScatter");
    }

    /** Starts a scatter in place (MPI_ISCATTER). */
    public final Request iScatter(Buffer buf, int count, Datatype type, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return scatterInPlace(buf, count, type, root, true, "iScatter");
    }

    private Request scatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                            Datatype recvtype, int root, boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(recvcount, recvtype, call);
        root = checkRoot(c, root, call);
        Object send = null;
        if (isRoot(c, root)) {
            checkCount(sendcount, sendtype, call);
            sameSignature(sendcount, sendtype, recvcount, recvtype, call);
            send = view(region, sendbuf, (long) sendcount * peers(c), sendtype, call);
        }
        Object recv = view(other, recvbuf, recvcount, recvtype, call);
        return scatterRun(c, send, recv, recvcount, recvtype, root, nb, call);
    }

    private Request scatterInPlace(Object buf, int count, Datatype type, int root, boolean nb, String call)
            throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        root = checkRoot(c, root, call);
        Object send = null;
        Object recv;
        if (isRoot(c, root)) {
            send = view(region, buf, (long) count * peers(c), type, call);
            recv = Communicator.IN_PLACE;
        } else {
            recv = view(other, buf, count, type, call);
        }
        return scatterRun(c, send, recv, count, type, root, nb, call);
    }

    private Request scatterRun(Communicator c, Object send, Object recv, int count, Datatype type, int root,
                               boolean nb, String call) throws MPIException {
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.iscatter(send, recv, count * type.collPer, type.coll, root);
            } else {
                c.scatter(send, recv, count * type.collPer, type.coll, root);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, recv == Communicator.IN_PLACE ? null : other);
    }

    /**
     * Scatter of uneven blocks (MPI_SCATTERV): block r is {@code sendcount[r]} items at item
     * {@code displs[r]} of the root's {@code sendbuf} (read at the root only).
     */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf,
                               int recvcount, Datatype recvtype, int root) throws MPIException {
        scatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false, "scatterv");
    }

    /** Scatterv at the root in place (MPI_IN_PLACE as its receive buffer): the root's form. */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        scatterv(sendbuf, sendcount, displs, sendtype, Communicator.IN_PLACE, 0, sendtype, root, false, "scatterv");
    }

    /** Scatterv in place, the other ranks' form: receives {@code recvcount} items from the root. */
    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        scatterv(null, null, null, recvtype, recvbuf, recvcount, recvtype, root, false, "scatterv");
    }

    /** Starts a scatterv of direct buffers (MPI_ISCATTERV). */
    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Buffer recvbuf,
                                   int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return scatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, true, "iScatterv");
    }

    /** Starts a scatterv in place, the root's form (MPI_ISCATTERV). */
    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return scatterv(sendbuf, sendcount, displs, sendtype, Communicator.IN_PLACE, 0, sendtype, root, true,
                "iScatterv");
    }

    /** Starts a scatterv in place, the other ranks' form (MPI_ISCATTERV). */
    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        MPI.assertDirectBuffer(recvbuf);
        return scatterv(null, null, null, recvtype, recvbuf, recvcount, recvtype, root, true, "iScatterv");
    }

    private Request scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf,
                             int recvcount, Datatype recvtype, int root, boolean nb, String call) throws MPIException {
        Communicator c = live();
        root = checkRoot(c, root, call);
        boolean inPlace = recvbuf == Communicator.IN_PLACE;
        Object recv = Communicator.IN_PLACE;
        Datatype type = recvtype;
        if (!inPlace) {
            checkCount(recvcount, recvtype, call);
            recv = view(other, recvbuf, recvcount, recvtype, call);
        }
        Object send = null;
        int[] counts = null;
        int[] offsets = null;
        if (isRoot(c, root)) {
            checkCount(0, sendtype, call);
            if (!inPlace) {
                sameKind(sendtype, recvtype, call);
            }
            checkCounts(c, sendcount, displs, call);
            type = sendtype;
            send = view(region, sendbuf, span(sendcount, displs), sendtype, call);
            counts = scaled(sendcount, sendtype.collPer);
            offsets = scaled(displs, sendtype.collPer);
        } else if (inPlace) {
            throw Errors.error(MPI.ERR_ARG, call + ": the in-place form with send counts is the root's; the other"
                    + " ranks call scatterv(recvbuf, recvcount, recvtype, root)");
        }
        if (counts == null) {
            counts = offsets = notRead(c);      // as in gatherv
        }
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.iscatterv(send, counts, offsets, recv, recvcount * type.collPer, type.coll, root);
            } else {
                c.scatterv(send, counts, offsets, recv, recvcount * type.collPer, type.coll, root);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, inPlace ? null : other);
    }

    // allgather

    /** Every rank gets every rank's {@code sendcount} items, rank r's at item {@code r * recvcount} (MPI_ALLGATHER). */
    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                                Datatype recvtype) throws MPIException {
        allGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, "allGather");
    }

    /** Allgather in place (MPI_IN_PLACE): each rank's block is already at its place in {@code buf}. */
    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        allGather(Communicator.IN_PLACE, count, type, buf, count, type, false, "allGather");
    }

    /** Starts an allgather of direct buffers (MPI_IALLGATHER). */
    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
                                    Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return allGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true, "iAllGather");
    }

    /** Starts an allgather in place (MPI_IALLGATHER). */
    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return allGather(Communicator.IN_PLACE, count, type, buf, count, type, true, "iAllGather");
    }

    private Request allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                              Datatype recvtype, boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(recvcount, recvtype, call);
        Object send = Communicator.IN_PLACE;
        if (sendbuf != Communicator.IN_PLACE) {
            checkCount(sendcount, sendtype, call);
            sameSignature(sendcount, sendtype, recvcount, recvtype, call);
            send = view(region, sendbuf, sendcount, sendtype, call);
        }
        Object recv = view(other, recvbuf, (long) recvcount * peers(c), recvtype, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.iallgather(send, recv, recvcount * recvtype.collPer, recvtype.coll);
            } else {
                c.allgather(send, recv, recvcount * recvtype.collPer, recvtype.coll);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /** Allgather of uneven blocks (MPI_ALLGATHERV): rank r's {@code recvcount[r]} items at item {@code displs[r]}. */
    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
                                 int[] displs, Datatype recvtype) throws MPIException {
        allGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false, "allGatherv");
    }

    /** Allgatherv in place (MPI_IN_PLACE): each rank's block is already at its place in {@code recvbuf}. */
    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype)
            throws MPIException {
        allGatherv(Communicator.IN_PLACE, 0, recvtype, recvbuf, recvcount, displs, recvtype, false, "allGatherv");
    }

    /** Starts an allgatherv of direct buffers (MPI_IALLGATHERV). */
    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
                                     int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return allGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, true, "iAllGatherv");
    }

    /** Starts an allgatherv in place (MPI_IALLGATHERV). */
    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return allGatherv(Communicator.IN_PLACE, 0, type, buf, count, displs, type, true, "iAllGatherv");
    }

    private Request allGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
                               int[] displs, Datatype recvtype, boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(0, recvtype, call);
        checkCounts(c, recvcount, displs, call);
        Object send = Communicator.IN_PLACE;
        // in place, this rank's own block is the one it sends (an intercommunicator refuses in place)
        int sent = sendbuf == Communicator.IN_PLACE && !c.isInter() ? recvcount[c.rank()] : 0;
        if (sendbuf != Communicator.IN_PLACE) {
            checkCount(sendcount, sendtype, call);
            sameKind(sendtype, recvtype, call);
            send = view(region, sendbuf, sendcount, sendtype, call);
            sent = sendcount;
        }
        Object recv = view(other, recvbuf, span(recvcount, displs), recvtype, call);
        int[] counts = scaled(recvcount, recvtype.collPer);
        int[] offsets = scaled(displs, recvtype.collPer);
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.iallgatherv(send, sent * recvtype.collPer, recv, counts, offsets, recvtype.coll);
            } else {
                c.allgatherv(send, sent * recvtype.collPer, recv, counts, offsets, recvtype.coll);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    // all-to-all

    /** Block r of each rank's {@code sendbuf} goes to rank r, landing at block s of its {@code recvbuf} (MPI_ALLTOALL). */
    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                               Datatype recvtype) throws MPIException {
        allToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, "allToAll");
    }

    /** Starts an all-to-all of direct buffers (MPI_IALLTOALL). */
    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
                                   Datatype recvtype) throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return allToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true, "iAllToAll");
    }

    private Request allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                             Datatype recvtype, boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(sendcount, sendtype, call);
        checkCount(recvcount, recvtype, call);
        sameSignature(sendcount, sendtype, recvcount, recvtype, call);
        Object send = view(region, sendbuf, (long) sendcount * peers(c), sendtype, call);
        Object recv = view(other, recvbuf, (long) recvcount * peers(c), recvtype, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.ialltoall(send, recv, recvcount * recvtype.collPer, recvtype.coll);
            } else {
                c.alltoall(send, recv, recvcount * recvtype.collPer, recvtype.coll);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /**
     * All-to-all of uneven blocks (MPI_ALLTOALLV): {@code sendcount[r]} items from item
     * {@code sdispls[r]} go to rank r, landing at item {@code rdispls[s]} of its {@code recvbuf}.
     */
    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf,
                                int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        allToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false, "allToAllv");
    }

    /** Starts an all-to-all of uneven blocks of direct buffers (MPI_IALLTOALLV). */
    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                    Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return allToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, true,
                "iAllToAllv");
    }

    private Request allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf,
                              int[] recvcount, int[] rdispls, Datatype recvtype, boolean nb, String call)
            throws MPIException {
        Communicator c = live();
        checkCount(0, sendtype, call);
        checkCount(0, recvtype, call);
        sameKind(sendtype, recvtype, call);
        checkCounts(c, sendcount, sdispls, call);
        checkCounts(c, recvcount, rdispls, call);
        Object send = view(region, sendbuf, span(sendcount, sdispls), sendtype, call);
        Object recv = view(other, recvbuf, span(recvcount, rdispls), recvtype, call);
        int per = recvtype.collPer;
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.ialltoallv(send, scaled(sendcount, per), scaled(sdispls, per), recv, scaled(recvcount, per),
                        scaled(rdispls, per), recvtype.coll);
            } else {
                c.alltoallv(send, scaled(sendcount, per), scaled(sdispls, per), recv, scaled(recvcount, per),
                        scaled(rdispls, per), recvtype.coll);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /**
     * All-to-all with a type per block and displacements in bytes (MPI_ALLTOALLW). Runs as Tutti's
     * all-to-all of uneven blocks of bytes, so each block's bytes travel as they lie in memory.
     */
    public final void allToAllw(Object sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes, Object recvBuf,
                                int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        allToAllw(sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes, false, "allToAllw");
    }

    /** Starts an all-to-all with a type per block, of direct buffers (MPI_IALLTOALLW). */
    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                                    Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes)
            throws MPIException {
        MPI.assertDirectBuffer(sendBuf);
        MPI.assertDirectBuffer(recvBuf);
        return allToAllw(sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes, true,
                "iAllToAllw");
    }

    private Request allToAllw(Object sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes, Object recvBuf,
                              int[] recvCount, int[] rDispls, Datatype[] recvTypes, boolean nb, String call)
            throws MPIException {
        Communicator c = live();
        int n = peers(c);
        checkCounts(c, sendCount, sDispls, call);
        checkCounts(c, recvCount, rDispls, call);
        if (sendTypes == null || recvTypes == null || sendTypes.length < n || recvTypes.length < n) {
            throw Errors.error(MPI.ERR_ARG, call + ": a send and a receive type per rank (" + n + ") are needed");
        }
        int[] sendBytes = new int[n];
        int[] recvBytes = new int[n];
        long sendSpan = 0;
        long recvSpan = 0;
        for (int i = 0; i < n; i++) {
            checkCount(sendCount[i], sendTypes[i], call);
            checkCount(recvCount[i], recvTypes[i], call);
            sendBytes[i] = Math.toIntExact(sendTypes[i].bytes(sendCount[i]));
            recvBytes[i] = Math.toIntExact(recvTypes[i].bytes(recvCount[i]));
            sendSpan = Math.max(sendSpan, (long) sDispls[i] + sendBytes[i]);
            recvSpan = Math.max(recvSpan, (long) rDispls[i] + recvBytes[i]);
        }
        Object send = bytesView(region, sendBuf, sendSpan, sendTypes[0], call);
        Object recv = bytesView(other, recvBuf, recvSpan, recvTypes[0], call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                r = c.ialltoallv(send, sendBytes, sDispls, recv, recvBytes, rDispls, io.tutti.Datatype.BYTE);
            } else {
                c.alltoallv(send, sendBytes, sDispls, recv, recvBytes, rDispls, io.tutti.Datatype.BYTE);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    // reductions

    /**
     * Combines every rank's {@code sendbuf} item by item with {@code op} into the root's
     * {@code recvbuf} (MPI_REDUCE); {@code recvbuf} is written at the root only.
     */
    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        reduce(sendbuf, recvbuf, count, type, op, root, false, "reduce");
    }

    /**
     * Reduce in place (MPI_IN_PLACE as the root's send buffer): {@code buf} is the root's input and
     * result, and the others' input.
     */
    public final void reduce(Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        Communicator c = live();
        if (isRoot(c, checkRoot(c, root, "reduce"))) {
            reduce(Communicator.IN_PLACE, buf, count, type, op, root, false, "reduce");
        } else {
            reduce(buf, null, count, type, op, root, false, "reduce");
        }
    }

    /** Starts a reduce of direct buffers (MPI_IREDUCE). */
    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        return reduce(sendbuf, recvbuf, count, type, op, root, true, "iReduce");
    }

    /** Starts a reduce in place (MPI_IREDUCE). */
    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root) throws MPIException {
        MPI.assertDirectBuffer(buf);
        Communicator c = live();
        return isRoot(c, checkRoot(c, root, "iReduce")) ? reduce(Communicator.IN_PLACE, buf, count, type, op, root,
                true, "iReduce")
                : reduce(buf, null, count, type, op, root, true, "iReduce");
    }

    private Request reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root, boolean nb,
                           String call) throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        root = checkRoot(c, root, call);
        Object o = reduction(op, type, call);
        boolean inPlace = sendbuf == Communicator.IN_PLACE;
        Object recv = null;
        if (isRoot(c, root)) {
            recv = view(other, recvbuf, count, type, call);
        }
        Object send = inPlace ? Communicator.IN_PLACE : view(region, sendbuf, count, type, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                if (o instanceof io.tutti.UserOp u) {
                    r = c.ireduce(send, recv, count * type.collPer, type.coll, u, root);
                } else {
                    r = c.ireduce(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o, root);
                }
            } else {
                if (o instanceof io.tutti.UserOp u) {
                    c.reduce(send, recv, count * type.collPer, type.coll, u, root);
                } else {
                    c.reduce(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o, root);
                }
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, isRoot(c, root) ? other : null);
    }

    /** Combines every rank's {@code sendbuf} item by item with {@code op} into every {@code recvbuf} (MPI_ALLREDUCE). */
    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        allReduce(sendbuf, recvbuf, count, type, op, false, "allReduce");
    }

    /** Allreduce in place (MPI_IN_PLACE): {@code buf} is each rank's input and result. */
    public final void allReduce(Object buf, int count, Datatype type, Op op) throws MPIException {
        allReduce(Communicator.IN_PLACE, buf, count, type, op, false, "allReduce");
    }

    /** Starts an allreduce of direct buffers (MPI_IALLREDUCE). */
    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return allReduce(sendbuf, recvbuf, count, type, op, true, "iAllReduce");
    }

    /** Starts an allreduce in place (MPI_IALLREDUCE). */
    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return allReduce(Communicator.IN_PLACE, buf, count, type, op, true, "iAllReduce");
    }

    private Request allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, boolean nb,
                              String call) throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        Object o = reduction(op, type, call);
        Object recv = view(other, recvbuf, count, type, call);
        Object send = sendbuf == Communicator.IN_PLACE ? Communicator.IN_PLACE
                : view(region, sendbuf, count, type, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                if (o instanceof io.tutti.UserOp u) {
                    r = c.iallreduce(send, recv, count * type.collPer, type.coll, u);
                } else {
                    r = c.iallreduce(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            } else {
                if (o instanceof io.tutti.UserOp u) {
                    c.allreduce(send, recv, count * type.collPer, type.coll, u);
                } else {
                    c.allreduce(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /**
     * Combines every rank's {@code sendbuf} item by item with {@code op} and scatters the result:
     * rank r gets {@code recvcounts[r]} items, in rank order (MPI_REDUCE_SCATTER).
     */
    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        reduceScatter(sendbuf, recvbuf, recvcounts, type, op, false, "reduceScatter");
    }

    /** Reduce-scatter in place (MPI_IN_PLACE): {@code buf} holds the whole input, and this rank's part of the result at its start. */
    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op) throws MPIException {
        reduceScatter(Communicator.IN_PLACE, buf, counts, type, op, false, "reduceScatter");
    }

    /** Starts a reduce-scatter of direct buffers (MPI_IREDUCE_SCATTER). */
    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return reduceScatter(sendbuf, recvbuf, recvcounts, type, op, true, "iReduceScatter");
    }

    /** Starts a reduce-scatter in place (MPI_IREDUCE_SCATTER). */
    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return reduceScatter(Communicator.IN_PLACE, buf, counts, type, op, true, "iReduceScatter");
    }

    private Request reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op, boolean nb,
                                  String call) throws MPIException {
        Communicator c = live();
        checkCount(0, type, call);
        Object o = reduction(op, type, call);
        if (recvcounts == null || recvcounts.length < c.size()) {
            throw Errors.error(MPI.ERR_COUNT, call + ": one count per rank (" + c.size() + ") is needed");
        }
        long total = 0;
        for (int i = 0; i < c.size(); i++) {
            checkCount(recvcounts[i], type, call);
            total += recvcounts[i];
        }
        boolean inPlace = sendbuf == Communicator.IN_PLACE;
        Object recv = view(other, recvbuf, inPlace ? total : recvcounts[c.rank()], type, call);
        Object send = inPlace ? Communicator.IN_PLACE : view(region, sendbuf, total, type, call);
        int[] counts = scaled(recvcounts, type.collPer);
        io.tutti.Request r = null;
        try {
            if (nb) {
                if (o instanceof io.tutti.UserOp u) {
                    r = c.ireduceScatter(send, recv, counts, type.coll, u);
                } else {
                    r = c.ireduceScatter(send, recv, counts, type.coll, (io.tutti.ReduceOp) o);
                }
            } else {
                if (o instanceof io.tutti.UserOp u) {
                    c.reduceScatter(send, recv, counts, type.coll, u);
                } else {
                    c.reduceScatter(send, recv, counts, type.coll, (io.tutti.ReduceOp) o);
                }
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /** Reduce-scatter of equal blocks (MPI_REDUCE_SCATTER_BLOCK): rank r gets items {@code r * recvcount} on. */
    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        reduceScatterBlock(sendbuf, recvbuf, recvcount, type, op, false, "reduceScatterBlock");
    }

    /** Reduce-scatter of equal blocks in place (MPI_IN_PLACE): {@code buf} holds the whole input. */
    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op) throws MPIException {
        reduceScatterBlock(Communicator.IN_PLACE, buf, count, type, op, false, "reduceScatterBlock");
    }

    /** Starts a reduce-scatter of equal blocks of direct buffers (MPI_IREDUCE_SCATTER_BLOCK). */
    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        MPI.assertDirectBuffer(sendbuf);
        MPI.assertDirectBuffer(recvbuf);
        return reduceScatterBlock(sendbuf, recvbuf, recvcount, type, op, true, "iReduceScatterBlock");
    }

    /** Starts a reduce-scatter of equal blocks in place (MPI_IREDUCE_SCATTER_BLOCK). */
    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        MPI.assertDirectBuffer(buf);
        return reduceScatterBlock(Communicator.IN_PLACE, buf, count, type, op, true, "iReduceScatterBlock");
    }

    private Request reduceScatterBlock(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, boolean nb,
                                       String call) throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        Object o = reduction(op, type, call);
        boolean inPlace = sendbuf == Communicator.IN_PLACE;
        long total = (long) count * c.size();
        Object recv = view(other, recvbuf, inPlace ? total : count, type, call);
        Object send = inPlace ? Communicator.IN_PLACE : view(region, sendbuf, total, type, call);
        io.tutti.Request r = null;
        try {
            if (nb) {
                if (o instanceof io.tutti.UserOp u) {
                    r = c.ireduceScatterBlock(send, recv, count * type.collPer, type.coll, u);
                } else {
                    r = c.ireduceScatterBlock(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            } else {
                if (o instanceof io.tutti.UserOp u) {
                    c.reduceScatterBlock(send, recv, count * type.collPer, type.coll, u);
                } else {
                    c.reduceScatterBlock(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    /**
     * Combines {@code inBuf} into {@code inOutBuf} item by item with {@code op}, locally
     * (MPI_REDUCE_LOCAL): {@code inOut = in op inOut}, with Tutti's reduction kernels
     * ({@link Communicator#reduceLocal}) and nothing sent.
     */
    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op)
            throws MPIException {
        String call = "reduceLocal";
        Communicator c = MPI.COMM_SELF.live();
        MPI.raisedOn(MPI.COMM_WORLD);   // a call on no communicator, as MPI.check() has it
        checkCount(count, type, call);
        Object o = reduction(op, type, call);
        Region out = new Region();
        Object inOut = view(out, inOutBuf, count, type, call);
        Object in = view(new Region(), inBuf, count, type, call);
        try {
            if (o instanceof io.tutti.UserOp u) {
                c.reduceLocal(in, inOut, count * type.collPer, type.coll, u);
            } else {
                c.reduceLocal(in, inOut, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        out.receivedAll();
    }

    // scans, used by Intracomm

    final Request scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, boolean exclusive,
                       boolean nb, String call) throws MPIException {
        Communicator c = live();
        checkCount(count, type, call);
        Object o = reduction(op, type, call);
        Object recv = view(other, recvbuf, count, type, call);
        Object send = sendbuf == Communicator.IN_PLACE ? Communicator.IN_PLACE
                : view(region, sendbuf, count, type, call);
        io.tutti.Request r = null;
        try {
            if (exclusive) {
                if (nb) {
                    if (o instanceof io.tutti.UserOp u) {
                        r = c.iexscan(send, recv, count * type.collPer, type.coll, u);
                    } else {
                        r = c.iexscan(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                    }
                } else {
                    if (o instanceof io.tutti.UserOp u) {
                        c.exscan(send, recv, count * type.collPer, type.coll, u);
                    } else {
                        c.exscan(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                    }
                }
            } else if (nb) {
                if (o instanceof io.tutti.UserOp u) {
                    r = c.iscan(send, recv, count * type.collPer, type.coll, u);
                } else {
                    r = c.iscan(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            } else {
                if (o instanceof io.tutti.UserOp u) {
                    c.scan(send, recv, count * type.collPer, type.coll, u);
                } else {
                    c.scan(send, recv, count * type.collPer, type.coll, (io.tutti.ReduceOp) o);
                }
            }
        } catch (TuttiException e) {
            throw Errors.of(e, call);
        }
        return finish(r, other);
    }

    // ------------------------------------------------------------ collective helpers

    /** Tutti's view of {@code items} items of {@code type} in {@code buf} (null stays null), resolved in {@code r}. */
    private static Object view(Region r, Object buf, long items, Datatype type, String call) throws MPIException {
        if (buf == Communicator.IN_PLACE) {
            return buf;
        }
        if (items > Integer.MAX_VALUE) {
            throw Errors.error(MPI.ERR_COUNT, call + ": " + items + " items are more than one call moves");
        }
        if (r.own(buf, (int) items, type)) {
            return buf;
        }
        r.resolve(buf, (int) items, type, false, call);
        return r.forCollective(type.coll);
    }

    /** The same for a buffer of {@code bytes} bytes, always as bytes (a segment unless a byte[] from 0). */
    private static Object bytesView(Region r, Object buf, long bytes, Datatype some, String call)
            throws MPIException {
        long items = (bytes + some.extent - 1) / Math.max(1, some.extent);
        r.resolve(buf, (int) Math.min(items, Integer.MAX_VALUE), some, false, call);
        return r.forCollective(io.tutti.Datatype.BYTE);
    }

    /**
     * The request of a nonblocking call, which unpacks the received region's packed copy (a derived
     * type with gaps) when it completes; after a blocking one, the received data handed over.
     */
    private static Request finish(io.tutti.Request r, Region received) {
        if (r != null) {
            Request q = new Request(r);
            if (received != null && received.staging != null) {
                q.staging = received.staging.unpackOnCompletion();
            }
            return q;
        }
        if (received != null) {
            received.receivedAll();
        }
        return null;
    }

    /**
     * Checks a collective's root and returns it as Tutti takes it: on an intercommunicator,
     * {@link MPI#ROOT} and {@link MPI#PROC_NULL} become {@link Intercommunicator#ROOT} and
     * {@link Intercommunicator#PROC_NULL}, and a rank names the remote group.
     */
    private static int checkRoot(Communicator c, int root, String call) throws MPIException {
        if (c.isInter() && root == MPI.ROOT) {
            return Intercommunicator.ROOT;
        }
        if (c.isInter() && root == MPI.PROC_NULL) {
            return Intercommunicator.PROC_NULL;
        }
        if (root < 0 || root >= peers(c)) {
            throw Errors.error(MPI.ERR_ROOT, call + ": invalid root " + root + ": " + ranksNamed(c)
                    + (c.isInter() ? ", MPI.ROOT at the root, or MPI.PROC_NULL in the root's group" : ""));
        }
        return root;
    }

    /** Whether this rank is the root named by {@code root}, as {@link #checkRoot} returns it. */
    private static boolean isRoot(Communicator c, int root) {
        return c.isInter() ? root == Intercommunicator.ROOT : c.rank() == root;
    }

    /** The ranks the calls of {@code c} address: its own, or the remote group's of an intercommunicator. */
    static int peers(Communicator c) {
        return c instanceof Intercommunicator ic ? ic.remoteSize() : c.size();
    }

    /** The ranks a rank argument may name, for an error message. */
    private static String ranksNamed(Communicator c) {
        int n = peers(c);
        return (c.isInter() ? "the remote group has " : "this communicator has ") + n + " ranks (0.." + (n - 1) + ")";
    }

    /** A count and a displacement per rank the calls address (the remote group's, on an intercommunicator). */
    private static void checkCounts(Communicator c, int[] counts, int[] displs, String call) throws MPIException {
        int n = peers(c);
        if (counts == null || displs == null || counts.length < n || displs.length < n) {
            throw Errors.error(MPI.ERR_COUNT, call + ": a count and a displacement per rank (" + n + ") are needed");
        }
        for (int i = 0; i < n; i++) {
            if (counts[i] < 0 || displs[i] < 0) {
                throw Errors.error(MPI.ERR_COUNT, call + ": count " + counts[i] + " and displacement " + displs[i]
                        + " of rank " + i + " must be 0 or more");
            }
        }
    }

    /** Counts and displacements of a rooted v-call away from the root, where Tutti does not read them. */
    private int[] notRead(Communicator c) {
        if (notRead == null || notRead.length != c.size()) {
            notRead = new int[c.size()];
        }
        return notRead;
    }

    /** Items from the buffer's start to the end of its last block. */
    private static long span(int[] counts, int[] displs) {
        long end = 0;
        for (int i = 0; i < counts.length && i < displs.length; i++) {
            if (counts[i] > 0) {
                end = Math.max(end, (long) displs[i] + counts[i]);
            }
        }
        return end;
    }

    private static int[] scaled(int[] values, int per) {
        if (values == null || per == 1) {
            return values;
        }
        int[] out = new int[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = values[i] * per;
        }
        return out;
    }

    /** Send and receive types must be of one kind of element, in the same number per item (v-calls, allToAll). */
    private static void sameKind(Datatype send, Datatype recv, String call) throws MPIException {
        if (send.coll != recv.coll || send.collPer != recv.collPer) {
            throw Errors.error(MPI.ERR_TYPE, call + ": send type " + send + " and receive type " + recv + " differ;"
                    + " the two sides take the same elements in the same number per item here");
        }
    }

    private static void sameSignature(int sendcount, Datatype sendtype, int recvcount, Datatype recvtype,
                                      String call) throws MPIException {
        if (sendtype.coll != recvtype.coll) {
            sameKind(sendtype, recvtype, call);
        }
        if ((long) sendcount * sendtype.collPer != (long) recvcount * recvtype.collPer) {
            throw Errors.error(MPI.ERR_COUNT, call + ": " + sendcount + " items sent per rank but " + recvcount
                    + " received: with the same type they must agree");
        }
    }

    /** Tutti's operation for {@code op} on {@code type}, or MPI's error where there is none. */
    static Object reduction(Op op, Datatype type, String call) throws MPIException {
        if (op != null && op.user != null) {
            if (op.isNull()) {
                throw Errors.error(MPI.ERR_OP, call + ": the operation has been freed");
            }
            op.user.type = type;
            return op.user;
        }
        if (op == null || op.tutti == null) {
            throw Errors.error(MPI.ERR_OP, call + ": " + op + " is not a reduction (REPLACE and NO_OP are for"
                    + " one-sided accumulates)");
        }
        boolean loc = op.tutti == io.tutti.ReduceOp.MAXLOC || op.tutti == io.tutti.ReduceOp.MINLOC;
        boolean pair = type.kind >= Datatype.INT2 && type.kind <= Datatype.DOUBLE_INT;
        if (loc != pair) {
            throw Errors.error(MPI.ERR_OP, call + ": " + op + " does not apply to " + type
                    + (loc ? ": MAXLOC and MINLOC take the (value, index) types" : ""));
        }
        if (loc && type.kind != Datatype.INT2) {
            // a (value, int index) struct of another value type: Tutti's pairs hold two of one type
            if (type.base != type) {
                throw Errors.error(MPI.ERR_UNSUPPORTED_OPERATION, call + ": " + op + " on " + type + " is not"
                        + " supported: pass " + type.base + " itself with a count of pairs");
            }
            return PairLocation.of(type.kind, op.tutti == io.tutti.ReduceOp.MAXLOC);
        }
        if ((type.kind == Datatype.FLOAT_COMPLEX || type.kind == Datatype.DOUBLE_COMPLEX)
                && op.tutti != io.tutti.ReduceOp.SUM) {
            if (op.tutti == io.tutti.ReduceOp.PROD) {
                return ComplexProduct.INSTANCE;    // the parts multiplied as complex numbers, not one by one
            }
            throw Errors.error(MPI.ERR_OP, call + ": " + op + " does not apply to " + type
                    + ": complex numbers take SUM and PROD");
        }
        return op.tutti;
    }

    // ------------------------------------------------------------ Tutti's calls for a region

    private static void send(Communicator c, Region r, int dest, int tag) {
        switch (r.data) {
            case byte[] a -> c.send(a, r.offset, r.count, dest, tag);
            case int[] a -> c.send(a, r.offset, r.count, dest, tag);
            case double[] a -> c.send(a, r.offset, r.count, dest, tag);
            case long[] a -> c.send(a, r.offset, r.count, dest, tag);
            case float[] a -> c.send(a, r.offset, r.count, dest, tag);
            case short[] a -> c.send(a, r.offset, r.count, dest, tag);
            default -> c.send(r.slice, dest, tag);
        }
    }

    private static void recv(Communicator c, Region r, int source, int tag, io.tutti.Status s) {
        switch (r.data) {
            case byte[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case int[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case double[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case long[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case float[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            case short[] a -> c.recv(a, r.offset, r.count, source, tag, s);
            default -> c.recv(r.slice, source, tag, s);
        }
    }

    // ------------------------------------------------------------ argument checks, with MPI's error classes

    private static void checkSend(Communicator c, int count, Datatype type, int dest, int tag, String call)
            throws MPIException {
        checkCount(count, type, call);
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= peers(c))) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid destination rank " + dest + ": " + ranksNamed(c)
                    + ", or MPI.PROC_NULL");
        }
        if (tag < 0) {
            throw Errors.error(MPI.ERR_TAG, call + ": invalid tag " + tag + ": a send's tag is 0 or more"
                    + " (MPI.ANY_TAG is for receives)");
        }
    }

    private static void checkRecv(Communicator c, int count, Datatype type, int source, int tag, String call)
            throws MPIException {
        checkCount(count, type, call);
        checkSource(c, source, call);
        checkRecvTag(tag, call);
    }

    private static void checkCount(int count, Datatype type, String call) throws MPIException {
        if (count < 0) {
            throw Errors.error(MPI.ERR_COUNT, call + ": invalid count " + count + ": it is 0 or more");
        }
        if (type == null) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the datatype is null");
        }
        type.checkUsable(call);
    }

    private static void checkSource(Communicator c, int source, String call) throws MPIException {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= peers(c))) {
            throw Errors.error(MPI.ERR_RANK, call + ": invalid source rank " + source + ": " + ranksNamed(c)
                    + ", MPI.ANY_SOURCE or MPI.PROC_NULL");
        }
    }

    private static void checkRecvTag(int tag, String call) throws MPIException {
        if (tag < 0 && tag != MPI.ANY_TAG) {
            throw Errors.error(MPI.ERR_TAG, call + ": invalid tag " + tag + ": 0 or more, or MPI.ANY_TAG");
        }
    }

    @Override
    public String toString() {
        return label != null ? label : name.isEmpty() ? "a communicator of " + (tutti == null ? 0 : tutti.size())
                + " ranks" : name;
    }
}
