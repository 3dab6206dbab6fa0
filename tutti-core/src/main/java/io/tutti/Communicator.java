package io.tutti;

import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.Collectives;
import io.tutti.p2p.Engine;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A group of ranks with its own message space (context): messages sent on one communicator are
 * received only on the same communicator. Point-to-point calls take Java primitive arrays (offset
 * and count in elements), off-heap {@link MemorySegment}s, or direct {@link ByteBuffer}s
 * (position to limit). Ranks and tags are those of this communicator; {@link #ANY_SOURCE} and
 * {@link #ANY_TAG} match anything on receives. Messages between a pair of ranks on one communicator
 * are matched in the order they were sent (MPI's non-overtaking rule).
 *
 * <p>A communicator is used by one thread at a time (MPI_THREAD_SERIALIZED).
 */
public final class Communicator {
    /** Receive from any rank. */
    public static final int ANY_SOURCE = -1;
    /** Receive with any tag. */
    public static final int ANY_TAG = -1;
    /** The largest tag a message may carry. */
    public static final int MAX_TAG = Integer.MAX_VALUE;

    /** Stands for the receive buffer as the send buffer of a collective (MPI_IN_PLACE). */
    public static final Object IN_PLACE = new Object() {
        @Override
        public String toString() {
            return "IN_PLACE";
        }
    };

    /** Above every collective's wire tags (see {@link io.tutti.coll.HostExecutor}). */
    private static final int INTERNAL_TAG_SPLIT = 1 << 30;

    private final Tutti tutti;
    private final Engine engine;
    private final int context;
    private final int rank;
    private final int[] group;
    private final int[] worldToComm;
    private final Collectives collectives;
    /** Segments over the arrays of recent collective calls: a loop on the same arrays allocates nothing. */
    private final io.tutti.p2p.ArrayViews arrayViews = new io.tutti.p2p.ArrayViews();
    /** Offloaded collectives created on this communicator so far: the next one's endpoint tag. */
    private int offloadedInits;
    private ByteBuffer lastBuffer;
    private MemorySegment lastBufferSegment;
    private int lastPosition;
    private int lastLimit;

    Communicator(Tutti tutti, Engine engine, int context, int[] group) {
        this.tutti = tutti;
        this.engine = engine;
        this.context = context;
        this.group = group;
        this.worldToComm = new int[engine.size()];
        Arrays.fill(worldToComm, -1);
        for (int i = 0; i < group.length; i++) {
            worldToComm[group[i]] = i;
        }
        this.rank = worldToComm[engine.rank()];
        this.collectives = new Collectives(engine, context + 1, group, rank, tutti.algorithms(),
                () -> tutti.topologyOf(group));
        this.scratchBlocks = new long[group.length];
        this.scratchDispls = new long[group.length];
        this.scratchBlocks2 = new long[group.length];
        this.scratchDispls2 = new long[group.length];
    }

    /** This rank's number in the communicator, from 0 to {@code size() - 1}. */
    public int rank() {
        return rank;
    }

    /** Number of ranks in the communicator. */
    public int size() {
        return group.length;
    }

    /** The world rank of a rank of this communicator. */
    public int worldRank(int rank) {
        checkRank(rank, "rank");
        return group[rank];
    }

    /** The context id that separates this communicator's messages from all others. */
    public int context() {
        return context;
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 0, (long) count << 0);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(byte[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(byte[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 0,
                (long) count << 0);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 0,
                (long) count << 0);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(byte[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(byte[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 1, (long) count << 1);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(short[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(short[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 1,
                (long) count << 1);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 1,
                (long) count << 1);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(short[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(short[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2, (long) count << 2);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(int[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(int[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(int[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(int[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3, (long) count << 3);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(long[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(long[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(long[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(long[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2, (long) count << 2);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(float[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(float[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(float[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(float[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        engine.send(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3, (long) count << 3);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public Status recv(double[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public void recv(double[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf.length, offset, count);
        engine.recv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public Request isend(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public Request sendInit(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.sendInit(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public Request recvInit(double[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Nonblocking receive. */
    public Request irecv(double[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf.length, offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    // ------------------------------------------------------------ off-heap buffers

    /** Blocking send of the whole segment. */
    public void send(MemorySegment buf, int dest, int tag) {
        engine.send(context, worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    /** Blocking receive into the segment (its size is the capacity). */
    public Status recv(MemorySegment buf, int source, int tag) {
        Status s = new Status();
        recv(buf, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null). */
    public void recv(MemorySegment buf, int source, int tag, Status status) {
        engine.recv(context, worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0, buf.byteSize(),
                worldToComm, status);
    }

    public Request isend(MemorySegment buf, int dest, int tag) {
        return engine.isend(context, worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    public Request irecv(MemorySegment buf, int source, int tag) {
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0,
                buf.byteSize(), worldToComm);
    }

    /** A persistent send of the whole segment. */
    public Request sendInit(MemorySegment buf, int dest, int tag) {
        return engine.sendInit(context, worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    /** A persistent receive into the segment. */
    public Request recvInit(MemorySegment buf, int source, int tag) {
        return engine.recvInit(context, worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0,
                buf.byteSize(), worldToComm);
    }

    /** Blocking send of the bytes between the buffer's position and limit (position unchanged). */
    public void send(ByteBuffer buf, int dest, int tag) {
        send(segmentOf(buf), dest, tag);
    }

    /** Blocking receive into the bytes between position and limit (position unchanged). */
    public Status recv(ByteBuffer buf, int source, int tag) {
        return recv(segmentOf(buf), source, tag);
    }

    public Request isend(ByteBuffer buf, int dest, int tag) {
        return isend(segmentOf(buf), dest, tag);
    }

    public Request irecv(ByteBuffer buf, int source, int tag) {
        return irecv(segmentOf(buf), source, tag);
    }

    // ------------------------------------------------------------ combined and probe

    /**
     * Sends one buffer and receives into another at once, without deadlock whatever the peers do.
     * Buffers are primitive arrays (offsets and counts in elements) or {@link MemorySegment}s
     * (offsets and counts in bytes).
     */
    public Status sendrecv(Object sendBuf, int sendOffset, int sendCount, int dest, int sendTag,
                           Object recvBuf, int recvOffset, int recvCount, int source, int recvTag) {
        Request r = irecvAny(recvBuf, recvOffset, recvCount, source, recvTag);
        Request s = isendAny(sendBuf, sendOffset, sendCount, dest, sendTag);
        s.waitFor();
        return r.waitFor();
    }

    private Request isendAny(Object buf, int offset, int count, int dest, int tag) {
        if (buf instanceof MemorySegment seg) {
            checkRegion(seg.byteSize(), offset, count);
            return engine.isend(context, worldDest(dest), checkTag(tag), null, seg, offset, count);
        }
        int shift = shiftOf(buf);
        checkArray(buf, java.lang.reflect.Array.getLength(buf), offset, count);
        return engine.isend(context, worldDest(dest), checkTag(tag), buf, null, (long) offset << shift,
                (long) count << shift);
    }

    private Request irecvAny(Object buf, int offset, int count, int source, int tag) {
        if (buf instanceof MemorySegment seg) {
            checkRegion(seg.byteSize(), offset, count);
            return engine.irecv(context, worldSource(source), checkRecvTag(tag), null, seg, offset, count,
                    worldToComm);
        }
        int shift = shiftOf(buf);
        checkArray(buf, java.lang.reflect.Array.getLength(buf), offset, count);
        return engine.irecv(context, worldSource(source), checkRecvTag(tag), buf, null, (long) offset << shift,
                (long) count << shift, worldToComm);
    }

    private static int shiftOf(Object buf) {
        return switch (buf) {
            case byte[] a -> 0;
            case short[] a -> 1;
            case char[] a -> 1;
            case int[] a -> 2;
            case float[] a -> 2;
            case long[] a -> 3;
            case double[] a -> 3;
            case null -> throw new TuttiException.InvalidArgument("buffer is null");
            default -> throw new TuttiException.InvalidArgument("a buffer must be a primitive array or a"
                    + " MemorySegment, not " + buf.getClass().getName());
        };
    }

    /** Waits until a matching message has arrived and returns its status, without receiving it. */
    public Status probe(int source, int tag) {
        Status s = new Status();
        engine.probe(context, worldSource(source), checkRecvTag(tag), s, worldToComm);
        return s;
    }

    /** Returns the status of a matching message that has arrived, or null if there is none yet. */
    public Status iprobe(int source, int tag) {
        Status s = new Status();
        return engine.iprobe(context, worldSource(source), checkRecvTag(tag), s, worldToComm) ? s : null;
    }

    // ------------------------------------------------------------ collectives
    //
    // Buffers are a primitive array matching the datatype (int[] for INT and INT2, ...) or a
    // MemorySegment; counts are in elements (pairs for the pair types). Every rank of the
    // communicator must call the same collectives in the same order.

    /** Returns once every rank of the communicator has entered the barrier. */
    public void barrier() {
        barrier(Collectives.Mode.BLOCKING);
    }

    /** Nonblocking barrier: returns at once; complete the request with wait or test. */
    public Request ibarrier() {
        return barrier(Collectives.Mode.NONBLOCKING);
    }

    /** Persistent barrier: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request barrierInit() {
        return barrier(Collectives.Mode.PERSISTENT);
    }

    /** Sends {@code count} elements of {@code buf} from {@code root} to every rank's {@code buf}. */
    public void bcast(Object buf, int count, Datatype type, int root) {
        bcast(Collectives.Mode.BLOCKING, buf, count, type, root);
    }

    /** Nonblocking broadcast: returns at once; complete the request with wait or test. */
    public Request ibcast(Object buf, int count, Datatype type, int root) {
        return bcast(Collectives.Mode.NONBLOCKING, buf, count, type, root);
    }

    /** Persistent broadcast: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request bcastInit(Object buf, int count, Datatype type, int root) {
        return bcast(Collectives.Mode.PERSISTENT, buf, count, type, root);
    }

    /** Sends block r ({@code count} elements from element {@code r * count}) of the root's {@code send} to rank r's {@code recv}; {@code send} is ignored elsewhere. {@code recv} may be {@link #IN_PLACE} at the root. */
    public void scatter(Object send, Object recv, int count, Datatype type, int root) {
        scatter(Collectives.Mode.BLOCKING, send, null, null, recv, count, type, root);
    }

    /** Nonblocking scatter: returns at once; complete the request with wait or test. */
    public Request iscatter(Object send, Object recv, int count, Datatype type, int root) {
        return scatter(Collectives.Mode.NONBLOCKING, send, null, null, recv, count, type, root);
    }

    /** Persistent scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request scatterInit(Object send, Object recv, int count, Datatype type, int root) {
        return scatter(Collectives.Mode.PERSISTENT, send, null, null, recv, count, type, root);
    }

    /** Scatter of uneven blocks: block r is {@code counts[r]} elements at element {@code displs[r]} of the root's {@code send} (both arrays read at the root only). */
    public void scatterv(Object send, int[] counts, int[] displs, Object recv, int recvCount, Datatype type, int root) {
        scatter(Collectives.Mode.BLOCKING, send, counts, displs, recv, recvCount, type, root);
    }

    /** Nonblocking scatterv: returns at once; complete the request with wait or test. */
    public Request iscatterv(Object send, int[] counts, int[] displs, Object recv, int recvCount, Datatype type, int root) {
        return scatter(Collectives.Mode.NONBLOCKING, send, counts, displs, recv, recvCount, type, root);
    }

    /** Persistent scatterv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request scattervInit(Object send, int[] counts, int[] displs, Object recv, int recvCount, Datatype type, int root) {
        return scatter(Collectives.Mode.PERSISTENT, send, counts, displs, recv, recvCount, type, root);
    }

    /** Collects {@code count} elements from every rank into the root's {@code recv}, rank r's at element {@code r * count}; {@code recv} is ignored elsewhere. {@code send} may be {@link #IN_PLACE} at the root. */
    public void gather(Object send, Object recv, int count, Datatype type, int root) {
        gather(Collectives.Mode.BLOCKING, send, count, recv, null, null, type, root);
    }

    /** Nonblocking gather: returns at once; complete the request with wait or test. */
    public Request igather(Object send, Object recv, int count, Datatype type, int root) {
        return gather(Collectives.Mode.NONBLOCKING, send, count, recv, null, null, type, root);
    }

    /** Persistent gather: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request gatherInit(Object send, Object recv, int count, Datatype type, int root) {
        return gather(Collectives.Mode.PERSISTENT, send, count, recv, null, null, type, root);
    }

    /** Gather of uneven blocks: rank r's {@code counts[r]} elements land at element {@code displs[r]} of the root's {@code recv} (both arrays read at the root only). */
    public void gatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type, int root) {
        gather(Collectives.Mode.BLOCKING, send, sendCount, recv, counts, displs, type, root);
    }

    /** Nonblocking gatherv: returns at once; complete the request with wait or test. */
    public Request igatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type, int root) {
        return gather(Collectives.Mode.NONBLOCKING, send, sendCount, recv, counts, displs, type, root);
    }

    /** Persistent gatherv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request gathervInit(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type, int root) {
        return gather(Collectives.Mode.PERSISTENT, send, sendCount, recv, counts, displs, type, root);
    }

    /** Every rank gets every rank's {@code count} elements, rank r's at element {@code r * count} of {@code recv}. {@code send} may be {@link #IN_PLACE}. */
    public void allgather(Object send, Object recv, int count, Datatype type) {
        allgather(Collectives.Mode.BLOCKING, send, count, recv, null, null, type);
    }

    /** Nonblocking allgather: returns at once; complete the request with wait or test. */
    public Request iallgather(Object send, Object recv, int count, Datatype type) {
        return allgather(Collectives.Mode.NONBLOCKING, send, count, recv, null, null, type);
    }

    /** Persistent allgather: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request allgatherInit(Object send, Object recv, int count, Datatype type) {
        return allgather(Collectives.Mode.PERSISTENT, send, count, recv, null, null, type);
    }

    /** Allgather of uneven blocks: rank r's {@code counts[r]} elements land at element {@code displs[r]} of every {@code recv}. */
    public void allgatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type) {
        allgather(Collectives.Mode.BLOCKING, send, sendCount, recv, counts, displs, type);
    }

    /** Nonblocking allgatherv: returns at once; complete the request with wait or test. */
    public Request iallgatherv(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type) {
        return allgather(Collectives.Mode.NONBLOCKING, send, sendCount, recv, counts, displs, type);
    }

    /** Persistent allgatherv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request allgathervInit(Object send, int sendCount, Object recv, int[] counts, int[] displs, Datatype type) {
        return allgather(Collectives.Mode.PERSISTENT, send, sendCount, recv, counts, displs, type);
    }

    /** Every rank sends block q ({@code count} elements at element {@code q * count} of {@code send}) to rank q, which stores it as block r of {@code recv}. {@code send} may be {@link #IN_PLACE}. */
    public void alltoall(Object send, Object recv, int count, Datatype type) {
        alltoall(Collectives.Mode.BLOCKING, send, null, null, recv, null, null, count, type);
    }

    /** Nonblocking alltoall: returns at once; complete the request with wait or test. */
    public Request ialltoall(Object send, Object recv, int count, Datatype type) {
        return alltoall(Collectives.Mode.NONBLOCKING, send, null, null, recv, null, null, count, type);
    }

    /** Persistent alltoall: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request alltoallInit(Object send, Object recv, int count, Datatype type) {
        return alltoall(Collectives.Mode.PERSISTENT, send, null, null, recv, null, null, count, type);
    }

    /** Alltoall of uneven blocks, with element counts and displacements per peer on both sides. */
    public void alltoallv(Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts, int[] recvDispls, Datatype type) {
        alltoall(Collectives.Mode.BLOCKING, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /** Nonblocking alltoallv: returns at once; complete the request with wait or test. */
    public Request ialltoallv(Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts, int[] recvDispls, Datatype type) {
        return alltoall(Collectives.Mode.NONBLOCKING, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /** Persistent alltoallv: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request alltoallvInit(Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts, int[] recvDispls, Datatype type) {
        return alltoall(Collectives.Mode.PERSISTENT, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, 0, type);
    }

    /** Combines {@code count} elements from every rank with {@code op} into {@code recv} at {@code root} ({@code recv} is ignored elsewhere and may be null). {@code send} may be {@link #IN_PLACE} at the root. */
    public void reduce(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op, int root) {
        reduce(Collectives.Mode.BLOCKING, send, recv, count, type, op, null, root);
    }

    /** Nonblocking reduce: returns at once; complete the request with wait or test. */
    public Request ireduce(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op, int root) {
        return reduce(Collectives.Mode.NONBLOCKING, send, recv, count, type, op, null, root);
    }

    /** Persistent reduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op, int root) {
        return reduce(Collectives.Mode.PERSISTENT, send, recv, count, type, op, null, root);
    }

    /** Combines {@code count} elements from every rank with {@code op} into {@code recv} at {@code root} ({@code recv} is ignored elsewhere and may be null). {@code send} may be {@link #IN_PLACE} at the root. With a user-defined operation. */
    public void reduce(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op, int root) {
        reduce(Collectives.Mode.BLOCKING, send, recv, count, type, null, op, root);
    }

    /** Nonblocking reduce: returns at once; complete the request with wait or test. */
    public Request ireduce(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op, int root) {
        return reduce(Collectives.Mode.NONBLOCKING, send, recv, count, type, null, op, root);
    }

    /** Persistent reduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceInit(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op, int root) {
        return reduce(Collectives.Mode.PERSISTENT, send, recv, count, type, null, op, root);
    }

    /** Combines {@code count} elements from every rank with {@code op} into every rank's {@code recv}. {@code send} may be {@link #IN_PLACE}. */
    public void allreduce(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        allreduce(Collectives.Mode.BLOCKING, send, recv, count, type, op, null);
    }

    /** Nonblocking allreduce: returns at once; complete the request with wait or test. */
    public Request iallreduce(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return allreduce(Collectives.Mode.NONBLOCKING, send, recv, count, type, op, null);
    }

    /** Persistent allreduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request allreduceInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return allreduce(Collectives.Mode.PERSISTENT, send, recv, count, type, op, null);
    }

    /** Combines {@code count} elements from every rank with {@code op} into every rank's {@code recv}. {@code send} may be {@link #IN_PLACE}. With a user-defined operation. */
    public void allreduce(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        allreduce(Collectives.Mode.BLOCKING, send, recv, count, type, null, op);
    }

    /** Nonblocking allreduce: returns at once; complete the request with wait or test. */
    public Request iallreduce(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return allreduce(Collectives.Mode.NONBLOCKING, send, recv, count, type, null, op);
    }

    /** Persistent allreduce: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request allreduceInit(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return allreduce(Collectives.Mode.PERSISTENT, send, recv, count, type, null, op);
    }

    /** Combines every rank's {@code send} (the sum of {@code counts} elements) with {@code op} and leaves block r ({@code counts[r]} elements, in order) in rank r's {@code recv}. {@code send} may be {@link #IN_PLACE}: the input is then in {@code recv}. */
    public void reduceScatter(Object send, Object recv, int[] counts, Datatype type, io.tutti.ReduceOp op) {
        reduceScatter(Collectives.Mode.BLOCKING, send, recv, counts, 0, type, op, null);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public Request ireduceScatter(Object send, Object recv, int[] counts, Datatype type, io.tutti.ReduceOp op) {
        return reduceScatter(Collectives.Mode.NONBLOCKING, send, recv, counts, 0, type, op, null);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceScatterInit(Object send, Object recv, int[] counts, Datatype type, io.tutti.ReduceOp op) {
        return reduceScatter(Collectives.Mode.PERSISTENT, send, recv, counts, 0, type, op, null);
    }

    /** Combines every rank's {@code send} (the sum of {@code counts} elements) with {@code op} and leaves block r ({@code counts[r]} elements, in order) in rank r's {@code recv}. {@code send} may be {@link #IN_PLACE}: the input is then in {@code recv}. With a user-defined operation. */
    public void reduceScatter(Object send, Object recv, int[] counts, Datatype type, io.tutti.UserOp op) {
        reduceScatter(Collectives.Mode.BLOCKING, send, recv, counts, 0, type, null, op);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public Request ireduceScatter(Object send, Object recv, int[] counts, Datatype type, io.tutti.UserOp op) {
        return reduceScatter(Collectives.Mode.NONBLOCKING, send, recv, counts, 0, type, null, op);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceScatterInit(Object send, Object recv, int[] counts, Datatype type, io.tutti.UserOp op) {
        return reduceScatter(Collectives.Mode.PERSISTENT, send, recv, counts, 0, type, null, op);
    }

    /** Reduce-scatter with {@code count} elements per rank. */
    public void reduceScatterBlock(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        reduceScatter(Collectives.Mode.BLOCKING, send, recv, null, count, type, op, null);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public Request ireduceScatterBlock(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return reduceScatter(Collectives.Mode.NONBLOCKING, send, recv, null, count, type, op, null);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceScatterBlockInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return reduceScatter(Collectives.Mode.PERSISTENT, send, recv, null, count, type, op, null);
    }

    /** Reduce-scatter with {@code count} elements per rank. With a user-defined operation. */
    public void reduceScatterBlock(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        reduceScatter(Collectives.Mode.BLOCKING, send, recv, null, count, type, null, op);
    }

    /** Nonblocking reduce-scatter: returns at once; complete the request with wait or test. */
    public Request ireduceScatterBlock(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return reduceScatter(Collectives.Mode.NONBLOCKING, send, recv, null, count, type, null, op);
    }

    /** Persistent reduce-scatter: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request reduceScatterBlockInit(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return reduceScatter(Collectives.Mode.PERSISTENT, send, recv, null, count, type, null, op);
    }

    /** Inclusive prefix reduction: rank r's {@code recv} gets ranks 0..r combined in rank order. {@code send} may be {@link #IN_PLACE}. */
    public void scan(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        scan(Collectives.Mode.BLOCKING, Kind.SCAN, send, recv, count, type, op, null);
    }

    /** Nonblocking scan: returns at once; complete the request with wait or test. */
    public Request iscan(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return scan(Collectives.Mode.NONBLOCKING, Kind.SCAN, send, recv, count, type, op, null);
    }

    /** Persistent scan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request scanInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return scan(Collectives.Mode.PERSISTENT, Kind.SCAN, send, recv, count, type, op, null);
    }

    /** Inclusive prefix reduction: rank r's {@code recv} gets ranks 0..r combined in rank order. {@code send} may be {@link #IN_PLACE}. With a user-defined operation. */
    public void scan(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        scan(Collectives.Mode.BLOCKING, Kind.SCAN, send, recv, count, type, null, op);
    }

    /** Nonblocking scan: returns at once; complete the request with wait or test. */
    public Request iscan(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return scan(Collectives.Mode.NONBLOCKING, Kind.SCAN, send, recv, count, type, null, op);
    }

    /** Persistent scan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request scanInit(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return scan(Collectives.Mode.PERSISTENT, Kind.SCAN, send, recv, count, type, null, op);
    }

    /** Exclusive prefix reduction: rank r's {@code recv} gets ranks 0..r-1 combined in rank order; rank 0's {@code recv} is not written. {@code send} may be {@link #IN_PLACE}. */
    public void exscan(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        scan(Collectives.Mode.BLOCKING, Kind.EXSCAN, send, recv, count, type, op, null);
    }

    /** Nonblocking exscan: returns at once; complete the request with wait or test. */
    public Request iexscan(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return scan(Collectives.Mode.NONBLOCKING, Kind.EXSCAN, send, recv, count, type, op, null);
    }

    /** Persistent exscan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request exscanInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op) {
        return scan(Collectives.Mode.PERSISTENT, Kind.EXSCAN, send, recv, count, type, op, null);
    }

    /** Exclusive prefix reduction: rank r's {@code recv} gets ranks 0..r-1 combined in rank order; rank 0's {@code recv} is not written. {@code send} may be {@link #IN_PLACE}. With a user-defined operation. */
    public void exscan(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        scan(Collectives.Mode.BLOCKING, Kind.EXSCAN, send, recv, count, type, null, op);
    }

    /** Nonblocking exscan: returns at once; complete the request with wait or test. */
    public Request iexscan(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return scan(Collectives.Mode.NONBLOCKING, Kind.EXSCAN, send, recv, count, type, null, op);
    }

    /** Persistent exscan: {@link Request#start()} runs it, again and again, until {@link Request#free()}. */
    public Request exscanInit(Object send, Object recv, int count, Datatype type, io.tutti.UserOp op) {
        return scan(Collectives.Mode.PERSISTENT, Kind.EXSCAN, send, recv, count, type, null, op);
    }


    /**
     * Forces {@code algorithm} for {@code operation} (barrier, bcast, reduce, allreduce,
     * reducescatter, scan, exscan, gather, scatter, allgather, alltoall) on this communicator, as
     * {@code TUTTI_COLL_<OP>} does for the whole job; null returns to the automatic choice. Every
     * rank must make the same choice. The algorithms are listed in the README.
     */
    public void setAlgorithm(String operation, String algorithm) {
        collectives.setAlgorithm(operation, algorithm);
    }

    private Request barrier(Collectives.Mode mode) {
        return collectives.run(mode, Kind.BARRIER, MemorySegment.NULL, MemorySegment.NULL, Datatype.BYTE, null, null,
                0, 0, false, null, null, null, null, false);
    }

    private Request bcast(Collectives.Mode mode, Object buf, int count, Datatype type, int root) {
        checkRank(root, "root");
        MemorySegment b = view(buf, count, type, "buffer");
        return collectives.run(mode, Kind.BCAST, b, b, type, null, null, bytes(count, type), root, false, null, null, null,
                null, false);
    }

    private Request reduce(Collectives.Mode mode, Object send, Object recv, int count, Datatype type,
                           io.tutti.ReduceOp op, io.tutti.UserOp userOp, int root) {
        checkRank(root, "root");
        checkOp(op, userOp, type);
        boolean inPlace = send == IN_PLACE;
        if (inPlace && rank != root) {
            throw new TuttiException.InvalidArgument("IN_PLACE is the root's send buffer only in reduce");
        }
        MemorySegment r = rank == root ? view(recv, count, type, "receive buffer") : MemorySegment.NULL;
        MemorySegment snd = inPlace ? r : view(send, count, type, "send buffer");
        return collectives.run(mode, Kind.REDUCE, snd, r, type, op, userOp, bytes(count, type), root, inPlace, null, null,
                null, null, false);
    }

    private Request allreduce(Collectives.Mode mode, Object send, Object recv, int count, Datatype type,
                              io.tutti.ReduceOp op, io.tutti.UserOp userOp) {
        checkOp(op, userOp, type);
        boolean inPlace = send == IN_PLACE;
        MemorySegment r = view(recv, count, type, "receive buffer");
        MemorySegment snd = inPlace ? r : view(send, count, type, "send buffer");
        return collectives.run(mode, Kind.ALLREDUCE, snd, r, type, op, userOp, bytes(count, type), 0, inPlace, null, null,
                null, null, false);
    }

    private Request scan(Collectives.Mode mode, Kind kind, Object send, Object recv, int count, Datatype type,
                         io.tutti.ReduceOp op, io.tutti.UserOp userOp) {
        checkOp(op, userOp, type);
        boolean inPlace = send == IN_PLACE;
        MemorySegment r = view(recv, count, type, "receive buffer");
        MemorySegment snd = inPlace ? r : view(send, count, type, "send buffer");
        return collectives.run(mode, kind, snd, r, type, op, userOp, bytes(count, type), 0, inPlace, null, null, null, null,
                false);
    }

    /** {@code counts} null: {@code count} elements per rank. */
    private Request reduceScatter(Collectives.Mode mode, Object send, Object recv, int[] counts, int count,
                                  Datatype type, io.tutti.ReduceOp op, io.tutti.UserOp userOp) {
        checkOp(op, userOp, type);
        long[] blocks = blocks(counts, count, type, "counts");
        long total = prefix(blocks, scratchDispls);
        boolean inPlace = send == IN_PLACE;
        MemorySegment r = inPlace ? viewBytes(recv, total, type, "receive buffer")
                : viewBytes(recv, blocks[rank], type, "receive buffer");
        MemorySegment snd = inPlace ? r : viewBytes(send, total, type, "send buffer");
        return collectives.run(mode, Kind.REDUCE_SCATTER, snd, r, type, op, userOp, total, 0, inPlace, blocks, null,
                null, null, false);
    }

    /** {@code counts} null: {@code recvCount} elements per rank at r * recvCount (scatter), else scatterv. */
    private Request scatter(Collectives.Mode mode, Object send, int[] counts, int[] displs, Object recv, int recvCount,
                            Datatype type, int root) {
        checkRank(root, "root");
        boolean inPlace = recv == IN_PLACE;
        if (inPlace && rank != root) {
            throw new TuttiException.InvalidArgument("IN_PLACE is the root's receive buffer only in scatter");
        }
        boolean irregular = counts != null;
        long[] blocks = rootedBlocks(counts, recvCount, type, root);
        long[] dis = rank == root ? displacements(displs, blocks, recvCount, type, "displs")
                : displacements(null, blocks, 0, type, "displs");
        MemorySegment snd = rank == root ? viewBytes(send, extentOf(blocks, dis), type, "send buffer")
                : MemorySegment.NULL;
        if (rank == root && !inPlace && blocks[rank] != (long) recvCount * type.extent()) {
            throw new TuttiException.InvalidArgument("the root's own block has " + blocks[rank] / type.extent()
                    + " elements but its receive count is " + recvCount);
        }
        MemorySegment r = inPlace ? MemorySegment.NULL : view(recv, recvCount, type, "receive buffer");
        return collectives.run(mode, Kind.SCATTER, snd, r, type, null, null, 0, root, inPlace, blocks, dis, null, null,
                irregular);
    }

    /** {@code counts} null: {@code sendCount} elements per rank at r * sendCount (gather), else gatherv. */
    private Request gather(Collectives.Mode mode, Object send, int sendCount, Object recv, int[] counts, int[] displs,
                           Datatype type, int root) {
        checkRank(root, "root");
        boolean inPlace = send == IN_PLACE;
        if (inPlace && rank != root) {
            throw new TuttiException.InvalidArgument("IN_PLACE is the root's send buffer only in gather");
        }
        boolean irregular = counts != null;
        long[] blocks = rootedBlocks(counts, sendCount, type, root);
        long[] dis = rank == root ? displacements(displs, blocks, sendCount, type, "displs")
                : displacements(null, blocks, 0, type, "displs");
        MemorySegment r = rank == root ? viewBytes(recv, extentOf(blocks, dis), type, "receive buffer")
                : MemorySegment.NULL;
        if (rank == root && !inPlace && blocks[rank] != (long) sendCount * type.extent()) {
            throw new TuttiException.InvalidArgument("the root's own block has " + blocks[rank] / type.extent()
                    + " elements but its send count is " + sendCount);
        }
        MemorySegment snd = inPlace ? MemorySegment.NULL : view(send, sendCount, type, "send buffer");
        return collectives.run(mode, Kind.GATHER, snd, r, type, null, null, 0, root, inPlace, blocks, dis, null, null,
                irregular);
    }

    /**
     * Block sizes of a rooted call: every rank knows them for the regular call; for the v-call only
     * the root does, and the others' schedules (linear) need their own block only, so the unknown
     * entries are zero and the cache key depends on what this rank knows.
     */
    private long[] rootedBlocks(int[] counts, int count, Datatype type, int root) {
        if (counts == null) {
            return uniform(count, type);
        }
        if (rank == root) {
            return blocks(counts, count, type, "counts");
        }
        long[] b = uniform(0, type);
        b[rank] = (long) count * type.extent();
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        return b;
    }

    private Request allgather(Collectives.Mode mode, Object send, int sendCount, Object recv, int[] counts,
                              int[] displs, Datatype type) {
        boolean inPlace = send == IN_PLACE;
        long[] blocks = blocks(counts, sendCount, type, "counts");
        long[] dis = displacements(displs, blocks, sendCount, type, "displs");
        if (!inPlace && blocks[rank] != (long) sendCount * type.extent()) {
            throw new TuttiException.InvalidArgument("counts[" + rank + "] is " + blocks[rank] / type.extent()
                    + " but this rank sends " + sendCount + " elements");
        }
        MemorySegment r = viewBytes(recv, extentOf(blocks, dis), type, "receive buffer");
        MemorySegment snd = inPlace ? r : view(send, (int) (blocks[rank] / type.extent()), type, "send buffer");
        return collectives.run(mode, Kind.ALLGATHER, snd, r, type, null, null, 0, 0, inPlace, blocks, dis, null, null, false);
    }

    private Request alltoall(Collectives.Mode mode, Object send, int[] sendCounts, int[] sendDispls, Object recv,
                             int[] recvCounts, int[] recvDispls, int count, Datatype type) {
        boolean inPlace = send == IN_PLACE;
        long[] rb = blocks(recvCounts, count, type, "recvCounts");
        long[] rd = displacements(recvDispls, rb, count, type, "recvDispls");
        long[] sb = inPlace ? rb : blocks2(sendCounts, count, type, "sendCounts");
        long[] sd = inPlace ? rd : displacements2(sendDispls, sb, count, type, "sendDispls");
        MemorySegment r = viewBytes(recv, extentOf(rb, rd), type, "receive buffer");
        MemorySegment snd = inPlace ? r : viewBytes(send, extentOf(sb, sd), type, "send buffer");
        return collectives.run(mode, Kind.ALLTOALL, snd, r, type, null, null, 0, 0, inPlace, rb, rd, sb, sd,
                sendCounts != null || recvCounts != null);
    }

    // Per-rank byte arrays for the v-calls, reused from call to call so that repeated calls do not
    // allocate; the schedule cache copies them when it keeps them.
    private final long[] scratchBlocks;
    private final long[] scratchDispls;
    private final long[] scratchBlocks2;
    private final long[] scratchDispls2;

    private long[] blocks(int[] counts, int count, Datatype type, String what) {
        return fillBlocks(scratchBlocks, counts, count, type, what);
    }

    private long[] blocks2(int[] counts, int count, Datatype type, String what) {
        return fillBlocks(scratchBlocks2, counts, count, type, what);
    }

    private long[] uniform(int count, Datatype type) {
        return fillBlocks(scratchBlocks, null, count, type, "count");
    }

    private long[] fillBlocks(long[] into, int[] counts, int count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (counts != null && counts.length != size()) {
            throw new TuttiException.InvalidArgument(what + " has " + counts.length + " entries; this communicator has "
                    + size() + " ranks");
        }
        for (int r = 0; r < into.length; r++) {
            int c = counts == null ? count : counts[r];
            if (c < 0) {
                throw new TuttiException.InvalidArgument((counts == null ? "count" : what + "[" + r + "]")
                        + " must not be negative, got " + c);
            }
            into[r] = (long) c * type.extent();
        }
        return into;
    }

    private long[] displacements(int[] displs, long[] blocks, int count, Datatype type, String what) {
        return fillDispls(scratchDispls, displs, blocks, count, type, what);
    }

    private long[] displacements2(int[] displs, long[] blocks, int count, Datatype type, String what) {
        return fillDispls(scratchDispls2, displs, blocks, count, type, what);
    }

    private long[] fillDispls(long[] into, int[] displs, long[] blocks, int count, Datatype type, String what) {
        if (displs == null) {
            prefix(blocks, into);
            return into;
        }
        if (displs.length != size()) {
            throw new TuttiException.InvalidArgument(what + " has " + displs.length + " entries; this communicator has "
                    + size() + " ranks");
        }
        for (int r = 0; r < into.length; r++) {
            if (displs[r] < 0) {
                throw new TuttiException.InvalidArgument(what + "[" + r + "] must not be negative, got " + displs[r]);
            }
            into[r] = (long) displs[r] * type.extent();
        }
        return into;
    }

    /** Exclusive prefix sums of {@code blocks} into {@code into}; returns the total. */
    private static long prefix(long[] blocks, long[] into) {
        long at = 0;
        for (int r = 0; r < blocks.length; r++) {
            into[r] = at;
            at += blocks[r];
        }
        return at;
    }

    /** Bytes a buffer needs to hold every block at its displacement. */
    private static long extentOf(long[] blocks, long[] displs) {
        long end = 0;
        for (int r = 0; r < blocks.length; r++) {
            if (blocks[r] > 0) {
                end = Math.max(end, displs[r] + blocks[r]);
            }
        }
        return end;
    }


    private static void checkOp(io.tutti.ReduceOp op, io.tutti.UserOp userOp, Datatype type) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (op == null && userOp == null) {
            throw new TuttiException.InvalidArgument("reduction operation is null");
        }
        if (op != null) {
            op.check(type);
        }
    }

    /** A byte view of {@code count} elements of {@code type} at the start of {@code buf}. */
    private MemorySegment view(Object buf, long count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        long bytes = count * type.extent();
        MemorySegment s = switch (buf) {
            case null -> throw new TuttiException.InvalidArgument(what + " is null");
            case MemorySegment m -> m;
            case byte[] a when type.base() == Datatype.BYTE -> arrayViews.of(a);
            case short[] a when type.base() == Datatype.SHORT -> arrayViews.of(a);
            case char[] a when type.base() == Datatype.CHAR -> arrayViews.of(a);
            case int[] a when type.base() == Datatype.INT -> arrayViews.of(a);
            case long[] a when type.base() == Datatype.LONG -> arrayViews.of(a);
            case float[] a when type.base() == Datatype.FLOAT -> arrayViews.of(a);
            case double[] a when type.base() == Datatype.DOUBLE -> arrayViews.of(a);
            default -> throw new TuttiException.InvalidArgument(what + " of type " + buf.getClass().getSimpleName()
                    + " does not hold " + type + " elements (use a " + type.base().name().toLowerCase(
                    java.util.Locale.ROOT) + "[] or a MemorySegment)");
        };
        if (s.byteSize() < bytes) {
            throw new TuttiException.InvalidArgument(what + " holds " + s.byteSize() + " bytes, fewer than the "
                    + count + " " + type + " elements (" + bytes + " bytes) of this call");
        }
        // not sliced: a slice is an object per call, and the schedule's regions never pass the byte
        // count checked here
        return s;
    }

    private static long bytes(int count, Datatype type) {
        return (long) count * type.extent();
    }

    /** A view of the first {@code bytes} bytes (whole elements) of {@code buf}. */
    private MemorySegment viewBytes(Object buf, long bytes, Datatype type, String what) {
        return view(buf, bytes / type.extent(), type, what);
    }

    // ------------------------------------------------------------ communicators

    // ------------------------------------------------------------ offloaded persistent collectives

    /** Persistent barrier, on the host or offloaded to the software NIC ({@link Offload}). */
    public Request barrierInit(Offload where) {
        return where == Offload.HOST ? barrierInit()
                : offloaded(io.tutti.offload.OffloadPlans.Coll.BARRIER, MemorySegment.NULL, MemorySegment.NULL, 0, 0,
                        null, null);
    }

    /** Persistent broadcast, on the host or offloaded to the software NIC. */
    public Request bcastInit(Object buf, int count, Datatype type, int root, Offload where) {
        if (where == Offload.HOST) {
            return bcastInit(buf, count, type, root);
        }
        checkRank(root, "root");
        MemorySegment b = view(buf, count, type, "buffer");
        return offloaded(io.tutti.offload.OffloadPlans.Coll.BCAST, MemorySegment.NULL, b, bytes(count, type), root,
                null, null);
    }

    /** Persistent allgather, on the host or offloaded to the software NIC. */
    public Request allgatherInit(Object send, Object recv, int count, Datatype type, Offload where) {
        if (where == Offload.HOST) {
            return allgatherInit(send, recv, count, type);
        }
        notInPlace(send);
        MemorySegment r = view(recv, (long) count * group.length, type, "receive buffer");
        MemorySegment snd = view(send, count, type, "send buffer");
        return offloaded(io.tutti.offload.OffloadPlans.Coll.ALLGATHER, snd, r, bytes(count, type), 0, null, null);
    }

    /** Persistent reduce, on the host or offloaded to the software NIC (its ALU: no PROD, no 8/16-bit types). */
    public Request reduceInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op, int root,
                              Offload where) {
        if (where == Offload.HOST) {
            return reduceInit(send, recv, count, type, op, root);
        }
        checkRank(root, "root");
        notInPlace(send);
        MemorySegment r = rank == root ? view(recv, count, type, "receive buffer") : MemorySegment.NULL;
        MemorySegment snd = view(send, count, type, "send buffer");
        return offloaded(io.tutti.offload.OffloadPlans.Coll.REDUCE, snd, r, bytes(count, type), root, op, type);
    }

    /** Persistent allreduce, on the host or offloaded to the software NIC (its ALU: no PROD, no 8/16-bit types). */
    public Request allreduceInit(Object send, Object recv, int count, Datatype type, io.tutti.ReduceOp op,
                                 Offload where) {
        if (where == Offload.HOST) {
            return allreduceInit(send, recv, count, type, op);
        }
        notInPlace(send);
        MemorySegment r = view(recv, count, type, "receive buffer");
        MemorySegment snd = view(send, count, type, "send buffer");
        return offloaded(io.tutti.offload.OffloadPlans.Coll.ALLREDUCE, snd, r, bytes(count, type), 0, op, type);
    }

    /**
     * How {@code allreduceInit(..., Offload.NIC)} is offloaded, from {@code TUTTI_OFFLOAD_ALLREDUCE}:
     * {@code linear} (one round, every rank's vector to every other), {@code recursive-doubling},
     * {@code nic-tree} (the NIC reduction tree with triggered broadcast), or {@code auto} (default:
     * linear when the ranks share one node, recursive doubling otherwise).
     */
    private String offloadedAllreduce() {
        return offloadScheme("TUTTI_OFFLOAD_ALLREDUCE", "tutti.offload.allreduce", "recursive-doubling",
                "recursive-doubling", "nic-tree", "linear");
    }

    /**
     * How {@code barrierInit(Offload.NIC)} is offloaded, from {@code TUTTI_OFFLOAD_BARRIER}:
     * {@code butterfly}, {@code linear} (one round), or {@code auto} (default: linear when the ranks
     * share one node, the butterfly otherwise).
     */
    private String offloadedBarrier() {
        return offloadScheme("TUTTI_OFFLOAD_BARRIER", "tutti.offload.barrier", "butterfly", "butterfly", "linear");
    }

    /**
     * The scheme {@code variable} (or {@code property}) names, {@code auto} resolved: {@code linear}
     * when every rank shares this rank's node (a signal is then a store into shared memory, so one
     * round of P − 1 signals beats log2 P rounds of one) and the one counter can hold the P − 1
     * arrivals, else {@code otherwise}.
     */
    private String offloadScheme(String variable, String property, String otherwise, String... schemes) {
        String v = io.tutti.bootstrap.LaunchEnvironment.current().get(variable);
        v = System.getProperty(property, v == null ? "auto" : v.trim());
        if (v.equals("auto")) {
            boolean oneNode = group.length - 1 <= io.tutti.offload.OffloadCompiler.MAX_BUCKETS;
            for (int r = 0; r < group.length && oneNode; r++) {
                oneNode = engine.sharesMemoryWith(group[r]);
            }
            return oneNode ? "linear" : otherwise;
        }
        if (!Arrays.asList(schemes).contains(v)) {
            throw new TuttiException.InvalidArgument(variable + " (or " + property + ") must be auto, "
                    + String.join(", ", schemes) + "; got '" + v + "'");
        }
        return v;
    }

    private static void notInPlace(Object send) {
        if (send == IN_PLACE) {
            throw new TuttiException.InvalidArgument("IN_PLACE is not offloaded: give a send buffer, or use"
                    + " Offload.HOST");
        }
    }

    private Request offloaded(io.tutti.offload.OffloadPlans.Coll coll, MemorySegment send, MemorySegment recv,
                              long bytes, int root, io.tutti.ReduceOp op, Datatype type) {
        io.tutti.reduce.OffloadAlu.Op alu = null;
        io.tutti.reduce.OffloadAlu.Type aluType = null;
        if (op != null) {
            alu = io.tutti.reduce.OffloadAlu.of(op);
            aluType = io.tutti.reduce.OffloadAlu.of(type);
            io.tutti.reduce.OffloadAlu.check(alu, aluType);
            if (type.isPair() != alu.located()) {
                throw new TuttiException.InvalidArgument(op + " on " + type + " cannot be offloaded: MAXLOC and"
                        + " MINLOC take the pair types, the others plain ones");
            }
        }
        int n = group.length;
        int extent = type == null ? 1 : type.extent();
        // on one counter (2^n buckets), each receive in a region of its own, so each exchange is one PUT
        // with no ready-to-receive round trip; recursive doubling needs one exchange per round where the
        // NIC tree needs a way up and a way down, and linear a single round; null: the plan's program
        java.util.function.IntFunction<io.tutti.coll.schedule.Schedule> schedules = switch (coll) {
            case BARRIER -> offloadedBarrier().equals("linear") ? r -> io.tutti.coll.algo.LinearBarrier.build(r, n)
                    : null;
            case ALLREDUCE -> switch (offloadedAllreduce()) {
                case "linear" -> r -> io.tutti.coll.algo.LinearAllreduce.build(r, n, bytes, extent, false);
                case "recursive-doubling" -> r -> io.tutti.coll.algo.RecursiveDoublingAllreduce.buildOwnRegions(r, n,
                        bytes, extent, true);
                default -> null;
            };
            default -> null;
        };
        io.tutti.offload.OffloadProgram program;
        if (schedules != null) {
            program = io.tutti.offload.OffloadCompiler.bucket(schedules, rank, alu, aluType, true);
        } else {
            program = io.tutti.offload.OffloadPlans.program(coll, group.length, rank, bytes, root, alu, aluType);
        }
        // every rank makes its offloaded inits in the same order, so the count names the collective;
        // a bcast's root and a reduce's leaves may run ahead of the others, the other collectives go in lockstep
        boolean lockstep = coll != io.tutti.offload.OffloadPlans.Coll.BCAST
                && coll != io.tutti.offload.OffloadPlans.Coll.REDUCE;
        return new io.tutti.offload.OffloadedCollective(engine, program, send, recv, context + 1, offloadedInits++,
                group, lockstep);
    }

    /** A new communicator with the same ranks and a message space of its own. Collective. */
    public Communicator dup() {
        return split(0, rank);
    }

    /**
     * Splits the ranks by {@code color}; within a color, new ranks follow {@code key}, then the old
     * rank. A negative color ({@link #UNDEFINED}) returns null for that rank. Collective.
     */
    public Communicator split(int color, int key) {
        int n = size();
        long[] mine = {color, key, tutti.nextContext()};
        long[][] all = new long[n][];
        Request[] reqs = new Request[2 * n];
        for (int r = 0; r < n; r++) {
            all[r] = r == rank ? mine : new long[3];
            if (r != rank) {
                reqs[r] = engine.irecv(context + 1, group[r], INTERNAL_TAG_SPLIT, all[r], null, 0, 24, worldToComm);
                reqs[n + r] = engine.isend(context + 1, group[r], INTERNAL_TAG_SPLIT, mine, null, 0, 24);
            }
        }
        Request.waitAll(reqs);
        long newContext = 0;
        for (long[] t : all) {
            newContext = Math.max(newContext, t[2]);
        }
        tutti.contextUsed((int) newContext);
        if (color < 0) {
            return null;
        }
        Integer[] members = java.util.stream.IntStream.range(0, n).filter(r -> all[r][0] == color).boxed()
                .toArray(Integer[]::new);
        Arrays.sort(members, (a, b) -> all[a][1] != all[b][1] ? Long.compare(all[a][1], all[b][1])
                : Integer.compare(a, b));
        int[] newGroup = new int[members.length];
        for (int i = 0; i < members.length; i++) {
            newGroup[i] = group[members[i]];
        }
        return new Communicator(tutti, engine, (int) newContext, newGroup);
    }

    /** Color for ranks that take no part in a {@link #split}. */
    public static final int UNDEFINED = -1;

    // ------------------------------------------------------------ checks

    private int worldDest(int dest) {
        checkRank(dest, "destination");
        return group[dest];
    }

    private int worldSource(int source) {
        if (source == ANY_SOURCE) {
            return Engine.ANY;
        }
        checkRank(source, "source");
        return group[source];
    }

    private void checkRank(int r, String what) {
        if (r < 0 || r >= group.length) {
            throw new TuttiException.InvalidArgument("invalid " + what + " rank " + r + ": this communicator has "
                    + group.length + " ranks (0.." + (group.length - 1) + ")");
        }
    }

    private static int checkTag(int tag) {
        if (tag < 0) {
            throw new TuttiException.InvalidArgument("invalid tag " + tag + ": a send's tag must be between 0 and "
                    + MAX_TAG + " (ANY_TAG is for receives only)");
        }
        return tag;
    }

    private static int checkRecvTag(int tag) {
        if (tag < 0 && tag != ANY_TAG) {
            throw new TuttiException.InvalidArgument("invalid tag " + tag + ": use 0.." + MAX_TAG + " or ANY_TAG");
        }
        return tag == ANY_TAG ? Engine.ANY : tag;
    }

    private static void checkArray(Object buf, int length, int offset, int count) {
        if (buf == null) {
            throw new TuttiException.InvalidArgument("buffer is null");
        }
        if (offset < 0 || count < 0 || (long) offset + count > length) {
            throw new TuttiException.InvalidArgument("buffer region [" + offset + ", " + ((long) offset + count)
                    + ") is outside the array of length " + length);
        }
    }

    private static void checkRegion(long size, int offset, int count) {
        if (offset < 0 || count < 0 || (long) offset + count > size) {
            throw new TuttiException.InvalidArgument("buffer region [" + offset + ", " + ((long) offset + count)
                    + ") is outside the segment of " + size + " bytes");
        }
    }

    private static MemorySegment checkSegment(MemorySegment s) {
        if (s == null) {
            throw new TuttiException.InvalidArgument("buffer is null");
        }
        return s;
    }

    private MemorySegment segmentOf(ByteBuffer buf) {
        if (buf == null) {
            throw new TuttiException.InvalidArgument("buffer is null");
        }
        // cached so that loops over one buffer do not allocate a segment per message
        if (buf != lastBuffer || buf.position() != lastPosition || buf.limit() != lastLimit) {
            lastBuffer = buf;
            lastPosition = buf.position();
            lastLimit = buf.limit();
            lastBufferSegment = MemorySegment.ofBuffer(buf);
        }
        return lastBufferSegment;
    }

    @Override
    public String toString() {
        return "Communicator[context=" + context + ", rank=" + rank + ", size=" + size() + "]";
    }
}
