package io.tutti;

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
    private final java.util.Map<String, io.tutti.coll.Schedule> schedules = new java.util.HashMap<>();
    private final java.util.function.IntSupplier sequence = this::nextSequence;
    private int collectiveSequence;
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
        barrierRequest(false).waitFor(null);
    }

    /** A nonblocking barrier. */
    public Request ibarrier() {
        return barrierRequest(false);
    }

    /** A persistent barrier: {@link Request#start()} runs it again. */
    public Request barrierInit() {
        return barrierRequest(true);
    }

    private io.tutti.coll.CollectiveRequest barrierRequest(boolean persistent) {
        io.tutti.coll.Schedule s = schedules.computeIfAbsent("barrier",
                k -> tutti.algorithms().barrier(rank, size()));
        return request(s, Datatype.BYTE, null, null, MemorySegment.NULL, MemorySegment.NULL, persistent);
    }

    /** Sends {@code count} elements of {@code buf} from {@code root} to every rank's {@code buf}. */
    public void bcast(Object buf, int count, Datatype type, int root) {
        bcastRequest(buf, count, type, root, false).waitFor(null);
    }

    public Request ibcast(Object buf, int count, Datatype type, int root) {
        return bcastRequest(buf, count, type, root, false);
    }

    public Request bcastInit(Object buf, int count, Datatype type, int root) {
        return bcastRequest(buf, count, type, root, true);
    }

    private io.tutti.coll.CollectiveRequest bcastRequest(Object buf, int count, Datatype type, int root,
                                                         boolean persistent) {
        checkRank(root, "root");
        MemorySegment b = view(buf, count, type, "buffer");
        long bytes = b.byteSize();
        io.tutti.coll.Schedule s = schedules.computeIfAbsent("bcast/" + bytes + "/" + root,
                k -> tutti.algorithms().bcast(rank, size(), bytes, root));
        return request(s, type, null, null, b, b, persistent);
    }

    /**
     * Combines {@code count} elements from every rank with {@code op} into {@code recv} at
     * {@code root} ({@code recv} is ignored elsewhere and may be null). {@code send} may be
     * {@link #IN_PLACE} at the root.
     */
    public void reduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op, int root) {
        reduceRequest(send, recv, count, type, op, null, root, false).waitFor(null);
    }

    /** Reduction with a user-defined operation. */
    public void reduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.UserOp op, int root) {
        reduceRequest(send, recv, count, type, null, op, root, false).waitFor(null);
    }

    public Request ireduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op, int root) {
        return reduceRequest(send, recv, count, type, op, null, root, false);
    }

    public Request reduceInit(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op,
                              int root) {
        return reduceRequest(send, recv, count, type, op, null, root, true);
    }

    private io.tutti.coll.CollectiveRequest reduceRequest(Object send, Object recv, int count, Datatype type,
                                                          io.tutti.coll.ReduceOp op, io.tutti.coll.UserOp userOp,
                                                          int root, boolean persistent) {
        checkRank(root, "root");
        checkOp(op, userOp, type);
        boolean inPlace = send == IN_PLACE;
        if (inPlace && rank != root) {
            throw new TuttiException.InvalidArgument("IN_PLACE is the root's send buffer only in reduce");
        }
        MemorySegment r = rank == root ? view(recv, count, type, "receive buffer") : MemorySegment.NULL;
        MemorySegment snd = inPlace ? r : view(send, count, type, "send buffer");
        long bytes = snd.byteSize();
        boolean commutative = userOp == null ? op.commutative() : userOp.commutative();
        io.tutti.coll.Schedule s = schedules.computeIfAbsent("reduce/" + bytes + "/" + root + "/" + inPlace + "/"
                + commutative, k -> tutti.algorithms().reduce(rank, size(), bytes, root, inPlace, commutative));
        return request(s, type, op, userOp, snd, r, persistent);
    }

    /** Combines {@code count} elements from every rank with {@code op} into every rank's {@code recv}. */
    public void allreduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op) {
        allreduceRequest(send, recv, count, type, op, null, false).waitFor(null);
    }

    /** Allreduce with a user-defined operation. */
    public void allreduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.UserOp op) {
        allreduceRequest(send, recv, count, type, null, op, false).waitFor(null);
    }

    public Request iallreduce(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op) {
        return allreduceRequest(send, recv, count, type, op, null, false);
    }

    public Request allreduceInit(Object send, Object recv, int count, Datatype type, io.tutti.coll.ReduceOp op) {
        return allreduceRequest(send, recv, count, type, op, null, true);
    }

    private io.tutti.coll.CollectiveRequest allreduceRequest(Object send, Object recv, int count, Datatype type,
                                                             io.tutti.coll.ReduceOp op, io.tutti.coll.UserOp userOp,
                                                             boolean persistent) {
        checkOp(op, userOp, type);
        boolean inPlace = send == IN_PLACE;
        MemorySegment r = view(recv, count, type, "receive buffer");
        MemorySegment snd = inPlace ? r : view(send, count, type, "send buffer");
        long bytes = r.byteSize();
        io.tutti.coll.Schedule s = schedules.computeIfAbsent("allreduce/" + bytes + "/" + inPlace,
                k -> tutti.algorithms().allreduce(rank, size(), bytes, inPlace));
        return request(s, type, op, userOp, snd, r, persistent);
    }

    private io.tutti.coll.CollectiveRequest request(io.tutti.coll.Schedule s, Datatype type, io.tutti.coll.ReduceOp op,
                                                    io.tutti.coll.UserOp userOp, MemorySegment send,
                                                    MemorySegment recv, boolean persistent) {
        io.tutti.coll.HostExecutor x = new io.tutti.coll.HostExecutor(engine, s, context + 1, group, type, op, userOp);
        return new io.tutti.coll.CollectiveRequest(engine, x, send, recv, sequence, persistent);
    }

    private int nextSequence() {
        return collectiveSequence++;
    }

    private static void checkOp(io.tutti.coll.ReduceOp op, io.tutti.coll.UserOp userOp, Datatype type) {
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
    private static MemorySegment view(Object buf, int count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        long bytes = (long) count * type.extent();
        MemorySegment s = switch (buf) {
            case null -> throw new TuttiException.InvalidArgument(what + " is null");
            case MemorySegment m -> m;
            case byte[] a when type.base() == Datatype.BYTE -> MemorySegment.ofArray(a);
            case short[] a when type.base() == Datatype.SHORT -> MemorySegment.ofArray(a);
            case char[] a when type.base() == Datatype.CHAR -> MemorySegment.ofArray(a);
            case int[] a when type.base() == Datatype.INT -> MemorySegment.ofArray(a);
            case long[] a when type.base() == Datatype.LONG -> MemorySegment.ofArray(a);
            case float[] a when type.base() == Datatype.FLOAT -> MemorySegment.ofArray(a);
            case double[] a when type.base() == Datatype.DOUBLE -> MemorySegment.ofArray(a);
            default -> throw new TuttiException.InvalidArgument(what + " of type " + buf.getClass().getSimpleName()
                    + " does not hold " + type + " elements (use a " + type.base().name().toLowerCase(
                    java.util.Locale.ROOT) + "[] or a MemorySegment)");
        };
        if (s.byteSize() < bytes) {
            throw new TuttiException.InvalidArgument(what + " holds " + s.byteSize() + " bytes, fewer than the "
                    + count + " " + type + " elements (" + bytes + " bytes) of this call");
        }
        return s.asSlice(0, bytes);
    }

    // ------------------------------------------------------------ communicators

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
