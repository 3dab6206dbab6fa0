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

    private static final int INTERNAL_TAG_SPLIT = 1;

    private final Tutti tutti;
    private final Engine engine;
    private final int context;
    private final int rank;
    private final int[] group;
    private final int[] worldToComm;
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
