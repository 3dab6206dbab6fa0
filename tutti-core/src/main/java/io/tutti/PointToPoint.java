package io.tutti;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The point-to-point calls of a {@link Communicator}: typed overloads for the primitive arrays,
 * off-heap segments and direct byte buffers, with the checks of ranks, tags and regions, down to the
 * byte-level operations the runtime implements. Kept apart from {@code Communicator} only so that
 * each class reads as one concern; programs use {@code Communicator}.
 */
abstract class PointToPoint {
    /** The engine's wildcard for a source or tag. */
    static final int ANY = -1;

    private final int context;
    private final int rank;
    /** The ranks this communicator's calls address (the remote group of an intercommunicator), as world ranks. */
    private final int[] group;
    /** The group this rank belongs to: {@link #group} itself, or an intercommunicator's local group. */
    private final int[] localGroup;
    private final int[] worldToComm;
    /** The segments of the last two buffers (a send's and a receive's), so loops allocate none. */
    private final ByteBuffer[] cachedBuffers = new ByteBuffer[2];
    private final MemorySegment[] cachedSegments = new MemorySegment[2];
    private final int[] cachedPositions = new int[2];
    private final int[] cachedLimits = new int[2];
    private int cacheVictim;

    /**
     * @param context    the communicator's point-to-point context; its collectives use the next one
     * @param group      communicator rank to world rank
     * @param worldRank  this rank in the world
     * @param worldSize  ranks in the world
     */
    PointToPoint(int context, int[] group, int worldRank, int worldSize) {
        this(context, group, group, worldRank, worldSize);
    }

    /**
     * @param localGroup the group of this rank (rank and size); {@code group} for an intracommunicator
     * @param group      the ranks that calls address: the remote group of an intercommunicator
     */
    PointToPoint(int context, int[] localGroup, int[] group, int worldRank, int worldSize) {
        this.context = context;
        this.group = group;
        this.localGroup = localGroup;
        this.worldToComm = new int[worldSize];
        java.util.Arrays.fill(worldToComm, -1);
        for (int i = 0; i < group.length; i++) {
            worldToComm[group[i]] = i;
        }
        int me = -1;
        for (int i = 0; i < localGroup.length && me < 0; i++) {
            me = localGroup[i] == worldRank ? i : -1;
        }
        this.rank = me;
    }

    /** This rank's number in the communicator (in its local group), from 0 to {@code size() - 1}. */
    public final int rank() {
        return rank;
    }

    /** Number of ranks in the communicator (in its local group, for an intercommunicator). */
    public final int size() {
        return localGroup.length;
    }

    /** The world rank of a rank of this communicator (of its local group, for an intercommunicator). */
    public final int worldRank(int rank) {
        if (rank < 0 || rank >= localGroup.length) {
            throw new TuttiException.InvalidArgument("invalid rank " + rank + ": this communicator has "
                    + localGroup.length + " ranks (0.." + (localGroup.length - 1) + ")");
        }
        return localGroup[rank];
    }

    /** How many ranks the calls address: {@link #size()}, or an intercommunicator's remote group's size. */
    final int peerCount() {
        return group.length;
    }

    /** The context id that separates this communicator's messages from all others. */
    public final int context() {
        return context;
    }

    /** For the runtime: communicator rank to world rank (an intercommunicator's: the remote group's); read only. */
    protected final int[] group() {
        return group;
    }

    /** For the runtime: world rank to communicator rank (-1: not a member); not to be modified. */
    protected final int[] worldToComm() {
        return worldToComm;
    }

    // ------------------------------------------------------------ point to point, by element type

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 0, (long) count << 0);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(byte[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(byte[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 0,
                (long) count << 0);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(byte[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 0,
                (long) count << 0);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(byte[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(byte[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 0,
                (long) count << 0, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 1, (long) count << 1);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(short[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(short[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 1,
                (long) count << 1);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(short[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 1,
                (long) count << 1);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(short[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(short[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 1,
                (long) count << 1, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2, (long) count << 2);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(int[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(int[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(int[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(int[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(int[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3, (long) count << 3);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(long[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(long[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(long[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(long[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(long[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2, (long) count << 2);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(float[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(float[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(float[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 2,
                (long) count << 2);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(float[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(float[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 2,
                (long) count << 2, worldToComm);
    }

    /** Blocking send of {@code count} elements of {@code buf} from {@code offset}. */
    public final void send(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        sendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3, (long) count << 3);
    }

    /** Blocking receive into {@code buf}; returns the status (allocates it: see the overload taking one). */
    public final Status recv(double[] buf, int offset, int count, int source, int tag) {
        Status s = new Status();
        recv(buf, offset, count, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null) instead of allocating one. */
    public final void recv(double[] buf, int offset, int count, int source, int tag, Status status) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        recvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm, status);
    }

    /** Nonblocking send; the buffer must not change until the request completes. */
    public final Request isend(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent send of this region: {@link Request#start()} sends it, as often as needed. */
    public final Request sendInit(double[] buf, int offset, int count, int dest, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return sendInitBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << 3,
                (long) count << 3);
    }

    /** A persistent receive into this region: {@link Request#start()} posts it again. */
    public final Request recvInit(double[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    /** Nonblocking receive. */
    public final Request irecv(double[] buf, int offset, int count, int source, int tag) {
        checkArray(buf, buf == null ? 0 : buf.length, offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << 3,
                (long) count << 3, worldToComm);
    }

    // ------------------------------------------------------------ off-heap buffers

    /** Blocking send of the whole segment. */
    public final void send(MemorySegment buf, int dest, int tag) {
        sendBuffer(worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    /** Blocking receive into the segment (its size is the capacity). */
    public final Status recv(MemorySegment buf, int source, int tag) {
        Status s = new Status();
        recv(buf, source, tag, s);
        return s;
    }

    /** Blocking receive that fills {@code status} (may be null). */
    public final void recv(MemorySegment buf, int source, int tag, Status status) {
        recvBuffer(worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0, buf.byteSize(),
                worldToComm, status);
    }

    public final Request isend(MemorySegment buf, int dest, int tag) {
        return isendBuffer(worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    public final Request irecv(MemorySegment buf, int source, int tag) {
        return irecvBuffer(worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0,
                buf.byteSize(), worldToComm);
    }

    /** A persistent send of the whole segment. */
    public final Request sendInit(MemorySegment buf, int dest, int tag) {
        return sendInitBuffer(worldDest(dest), checkTag(tag), null, checkSegment(buf), 0, buf.byteSize());
    }

    /** A persistent receive into the segment. */
    public final Request recvInit(MemorySegment buf, int source, int tag) {
        return recvInitBuffer(worldSource(source), checkRecvTag(tag), null, checkSegment(buf), 0,
                buf.byteSize(), worldToComm);
    }

    /** Blocking send of the bytes between the buffer's position and limit (position unchanged). */
    public final void send(ByteBuffer buf, int dest, int tag) {
        send(segmentOf(buf), dest, tag);
    }

    /** Blocking receive into the bytes between position and limit (position unchanged). */
    public final Status recv(ByteBuffer buf, int source, int tag) {
        return recv(segmentOf(buf), source, tag);
    }

    /** As {@link #recv(ByteBuffer, int, int)}, filling {@code status} (null: none) instead of allocating one. */
    public final void recv(ByteBuffer buf, int source, int tag, Status status) {
        recv(segmentOf(buf), source, tag, status);
    }

    public final Request isend(ByteBuffer buf, int dest, int tag) {
        return isend(segmentOf(buf), dest, tag);
    }

    public final Request irecv(ByteBuffer buf, int source, int tag) {
        return irecv(segmentOf(buf), source, tag);
    }

    // ------------------------------------------------------------ combined and probe

    /**
     * Sends one buffer and receives into another at once, without deadlock whatever the peers do.
     * Buffers are primitive arrays (offsets and counts in elements) or {@link MemorySegment}s
     * (offsets and counts in bytes).
     */
    public final Status sendrecv(Object sendBuf, int sendOffset, int sendCount, int dest, int sendTag,
                           Object recvBuf, int recvOffset, int recvCount, int source, int recvTag) {
        Request r = irecvAny(recvBuf, recvOffset, recvCount, source, recvTag);
        Request s = isendAny(sendBuf, sendOffset, sendCount, dest, sendTag);
        s.waitFor();
        return r.waitFor();
    }

    // ------------------------------------------------------------ synchronous sends

    /**
     * Synchronous send (MPI_SSEND): returns once the matching receive has started, whatever the
     * message's length, where a standard send may return as soon as its data is on its way. Buffers
     * as for {@link #sendrecv}: a primitive array (offset and count in elements) or a
     * {@link MemorySegment} (in bytes).
     */
    public final void ssend(Object buf, int offset, int count, int dest, int tag) {
        issend(buf, offset, count, dest, tag).waitFor();
    }

    /** Starts a synchronous send (MPI_ISSEND): its request completes once the matching receive has started. */
    public final Request issend(Object buf, int offset, int count, int dest, int tag) {
        return synchronousSend(false, buf, offset, count, dest, tag);
    }

    /** A persistent synchronous send (MPI_SSEND_INIT): each {@link Request#start()} is an {@link #issend}. */
    public final Request ssendInit(Object buf, int offset, int count, int dest, int tag) {
        return synchronousSend(true, buf, offset, count, dest, tag);
    }

    private Request synchronousSend(boolean persistent, Object buf, int offset, int count, int dest, int tag) {
        Object array = null;
        MemorySegment segment = null;
        long off;
        long length;
        if (buf instanceof MemorySegment seg) {
            checkRegion(seg.byteSize(), offset, count);
            segment = seg;
            off = offset;
            length = count;
        } else {
            int shift = shiftOf(buf);
            checkArray(buf, java.lang.reflect.Array.getLength(buf), offset, count);
            array = buf;
            off = (long) offset << shift;
            length = (long) count << shift;
        }
        int worldDest = worldDest(dest);
        int checkedTag = checkTag(tag);
        return persistent ? ssendInitBuffer(worldDest, checkedTag, array, segment, off, length)
                : issendBuffer(worldDest, checkedTag, array, segment, off, length);
    }

    private Request isendAny(Object buf, int offset, int count, int dest, int tag) {
        if (buf instanceof MemorySegment seg) {
            checkRegion(seg.byteSize(), offset, count);
            return isendBuffer(worldDest(dest), checkTag(tag), null, seg, offset, count);
        }
        int shift = shiftOf(buf);
        checkArray(buf, java.lang.reflect.Array.getLength(buf), offset, count);
        return isendBuffer(worldDest(dest), checkTag(tag), buf, null, (long) offset << shift,
                (long) count << shift);
    }

    private Request irecvAny(Object buf, int offset, int count, int source, int tag) {
        if (buf instanceof MemorySegment seg) {
            checkRegion(seg.byteSize(), offset, count);
            return irecvBuffer(worldSource(source), checkRecvTag(tag), null, seg, offset, count,
                    worldToComm);
        }
        int shift = shiftOf(buf);
        checkArray(buf, java.lang.reflect.Array.getLength(buf), offset, count);
        return irecvBuffer(worldSource(source), checkRecvTag(tag), buf, null, (long) offset << shift,
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
    public final Status probe(int source, int tag) {
        Status s = new Status();
        probeBuffer(worldSource(source), checkRecvTag(tag), s, worldToComm);
        return s;
    }

    /** Returns the status of a matching message that has arrived, or null if there is none yet. */
    public final Status iprobe(int source, int tag) {
        Status s = new Status();
        return iprobeBuffer(worldSource(source), checkRecvTag(tag), s, worldToComm) ? s : null;
    }

    // ------------------------------------------------------------ checks


    final int worldDest(int dest) {
        checkRank(dest, "destination");
        return group[dest];
    }

    final int worldSource(int source) {
        if (source == Communicator.ANY_SOURCE) {
            return ANY;
        }
        checkRank(source, "source");
        return group[source];
    }

    protected final void checkRank(int r, String what) {
        if (r < 0 || r >= group.length) {
            throw new TuttiException.InvalidArgument("invalid " + what + " rank " + r + ": this communicator has "
                    + group.length + " ranks (0.." + (group.length - 1) + ")");
        }
    }

    static int checkTag(int tag) {
        if (tag < 0) {
            throw new TuttiException.InvalidArgument("invalid tag " + tag + ": a send's tag must be between 0 and "
                    + Communicator.MAX_TAG + " (ANY_TAG is for receives only)");
        }
        return tag;
    }

    static int checkRecvTag(int tag) {
        if (tag < 0 && tag != Communicator.ANY_TAG) {
            throw new TuttiException.InvalidArgument("invalid tag " + tag + ": use 0.." + Communicator.MAX_TAG
                    + " or ANY_TAG");
        }
        return tag == Communicator.ANY_TAG ? ANY : tag;
    }

    /** Checks a region of a primitive array ({@code length} is 0 for a null one, which is reported). */
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
        // two entries, least recently used replaced: a ping-pong alternates a send and a receive buffer
        for (int i = 0; i < 2; i++) {
            if (cachedBuffers[i] == buf && cachedPositions[i] == buf.position() && cachedLimits[i] == buf.limit()) {
                cacheVictim = 1 - i;
                return cachedSegments[i];
            }
        }
        int i = cacheVictim;
        cacheVictim = 1 - i;
        cachedSegments[i] = MemorySegment.ofBuffer(buf);
        cachedBuffers[i] = buf;
        cachedPositions[i] = buf.position();
        cachedLimits[i] = buf.limit();
        return cachedSegments[i];
    }

    // ------------------------------------------------------------ what the runtime implements
    //
    // Ranks are world ranks, offsets and lengths are in bytes (from the array's first element, or
    // in the segment), tags are checked; the runtime hands them to its engine on this context.

    /** Blocking send. */
    protected abstract void sendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                       long length);

    /** Blocking receive; fills {@code status} (communicator ranks) when it is not null. */
    protected abstract void recvBuffer(int worldSource, int tag, Object array, MemorySegment segment, long offset,
                                       long length, int[] worldToComm, Status status);

    protected abstract Request isendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                           long length);

    protected abstract Request irecvBuffer(int worldSource, int tag, Object array, MemorySegment segment, long offset,
                                           long length, int[] worldToComm);

    /** A synchronous send: completes once the receiver has matched it. */
    protected abstract Request issendBuffer(int worldDest, int tag, Object array, MemorySegment segment, long offset,
                                            long length);

    protected abstract Request ssendInitBuffer(int worldDest, int tag, Object array, MemorySegment segment,
                                               long offset, long length);

    protected abstract Request sendInitBuffer(int worldDest, int tag, Object array, MemorySegment segment,
                                              long offset, long length);

    protected abstract Request recvInitBuffer(int worldSource, int tag, Object array, MemorySegment segment,
                                              long offset, long length, int[] worldToComm);

    /** Blocking probe that fills {@code status}. */
    protected abstract void probeBuffer(int worldSource, int tag, Status status, int[] worldToComm);

    /** Non-blocking probe: fills {@code status} and returns true when a matching message is there. */
    protected abstract boolean iprobeBuffer(int worldSource, int tag, Status status, int[] worldToComm);
}
