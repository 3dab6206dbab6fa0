package io.tutti.p2p;

import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One send or receive in flight: the user's buffer, the match fields, the protocol state and the
 * completion. Owned by one engine; only its thread reads or writes it.
 */
public final class Operation implements Request {
    static final int SEND = 1;
    static final int RECV = 2;

    final Engine engine;
    int kind;
    boolean done;
    TuttiException error;

    // the buffer: a primitive array (byte offset from its first element) or a segment
    Object array;
    MemorySegment segment;
    long offset;
    long length;

    // matching: context, peer (world rank or ANY), tag (or ANY) as posted
    int context;
    int peer;
    int tag;

    // completion status in world ranks; the communicator view is computed on demand
    int statusSource;
    int statusTag;
    long statusBytes;
    private int[] worldToComm;

    // rendezvous state
    long handle;
    long peerHandle;
    long transferred;
    /** A direct view of the buffer, made when the network first receives into it in place. */
    ByteBuffer view;
    /** The network's mark for the data sent in place ({@code RemoteTransport.sendInPlace}); 0: none. */
    long mark;
    long total;

    // persistent requests: the arguments start() replays
    boolean persistent;
    int persistentKind;
    /**
     * A synchronous send's (issend, ssendInit): it takes the rendezvous whatever its length, so it
     * completes once its receive has matched. Set once when the operation is made; reset keeps it.
     */
    boolean synchronous;
    /** A receive's, once {@link #cancel()} has taken it back (its status says so); a start or reset clears it. */
    boolean cancelled;
    /** Persistent only: started and its completion not yet observed by wait or test. */
    boolean started;
    int initPeer;
    int initTag;
    long initOffset;
    long initLength;

    // intrusive list links (posted receives)
    Operation next;
    Operation prev;

    /** What the buffer's memory belongs to, when the buffer is an address into it (see {@link #hold}). */
    private Object holds;

    Operation(Engine engine) {
        this.engine = engine;
    }

    /**
     * Keeps {@code owner} (e.g. the segment of an automatic arena) reachable for as long as this
     * operation is: for buffers passed by address ({@code io.tutti.os.Memory}), which
     * would not keep their memory alive while the engine still holds the operation.
     */
    public void hold(Object owner) {
        this.holds = owner;
    }

    void reset(int kind, int context, int peer, int tag, Object array, MemorySegment segment, long offset, long length,
               int[] worldToComm) {
        this.kind = kind;
        this.done = false;
        this.cancelled = false;
        this.error = null;
        this.array = array;
        this.segment = segment;
        this.offset = offset;
        this.length = length;
        this.context = context;
        this.peer = peer;
        this.tag = tag;
        this.statusSource = -1;
        this.statusTag = -1;
        this.statusBytes = 0;
        this.worldToComm = worldToComm;
        this.handle = 0;
        this.peerHandle = 0;
        this.transferred = 0;
        this.view = null;
        this.mark = 0;
        this.total = 0;
        this.next = null;
        this.prev = null;
    }

    /** Makes this a persistent operation whose {@link #start()} replays these arguments; inactive until then. */
    void persist(int kind, int peer, int tag, long offset, long length) {
        this.persistent = true;
        this.initPeer = peer;
        this.initTag = tag;
        this.initOffset = offset;
        this.initLength = length;
        this.persistentKind = kind;
        this.done = true;
    }

    void complete(int source, int tag, long bytes) {
        this.statusSource = source;
        this.statusTag = tag;
        this.statusBytes = bytes;
        this.done = true;
    }

    void fail(TuttiException e) {
        engine.counters().error(e);
        this.error = e;
        this.done = true;
    }

    /** Completes a receive with an eager message's payload, or fails it when the payload is too long. */
    void deliver(int source, int tag, MemorySegment from, long at, int bytes) {
        if (bytes > length) {
            truncated(source, tag, bytes);
            return;
        }
        Buffers.copyIn(from, at, array, segment, offset, bytes);
        complete(source, tag, bytes);
    }

    /** Fails a receive whose message is longer than its buffer (MPI_ERR_TRUNCATE), keeping the status. */
    void truncated(int source, int tag, long bytes) {
        this.statusSource = source;
        this.statusTag = tag;
        this.statusBytes = bytes;
        fail(new TuttiException.Truncation("message of " + bytes + " bytes from rank " + commRank(source)
                + " (tag " + tag + ") does not fit the receive buffer of " + length
                + " bytes: post a larger buffer, or probe first to learn the size"));
    }

    /**
     * The segment the user buffer lies in, from which {@link #offset} counts: the user's own
     * segment, or one over the array (allocates: large messages only).
     */
    MemorySegment base() {
        return array == null ? segment : Buffers.ofArray(array);
    }

    boolean isNative() {
        return array == null && segment.isNative();
    }

    @Override
    public void start() {
        if (!persistent) {
            Request.super.start();
        }
        if (!done) {
            throw new TuttiException.InvalidArgument("this persistent request is still active: wait for it before"
                    + " starting it again");
        }
        engine.restart(this);
        started = true;
    }

    @Override
    public boolean isActive() {
        return !persistent || started;
    }

    @Override
    public Status waitFor() {
        engine.await(this);
        started = false;
        return status();
    }

    @Override
    public void waitFor(Status into) {
        engine.await(this);
        started = false;
        fill(into);
    }

    @Override
    public boolean test() {
        if (!done) {
            engine.progressFor(this);
        }
        if (done) {
            started = false;
            if (error != null) {
                throw error;
            }
        }
        return done;
    }

    @Override
    public boolean isDone() {
        return done;
    }

    /** Bytes received (a completed receive), or the message's length when it was truncated. */
    public long receivedBytes() {
        return statusBytes;
    }

    /** The error this operation failed with, or null. */
    public TuttiException error() {
        return error;
    }

    @Override
    public Status status() {
        Status s = new Status();
        fill(s);
        return s;
    }

    int[] worldToComm() {
        return worldToComm;
    }

    /** A world rank as a rank of the communicator this operation was posted on. */
    int commRank(int worldRank) {
        return worldRank >= 0 && worldToComm != null ? worldToComm[worldRank] : worldRank;
    }

    void fill(Status into) {
        if (into != null) {
            into.set(commRank(statusSource), statusTag, statusBytes, cancelled);
        }
    }

    /** A receive no message has matched yet leaves the posted queue and completes, cancelled. Owner thread. */
    @Override
    public boolean cancel() {
        if (kind != RECV || done || !engine.cancel(this)) {
            return false;
        }
        cancelled = true;
        complete(-1, -1, 0);
        return true;
    }
}
