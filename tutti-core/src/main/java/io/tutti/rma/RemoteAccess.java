package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import io.tutti.p2p.RmaEndpoint;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntPredicate;

/**
 * A window's operations with the ranks it reaches over the network, both sides. As origin it packs
 * small puts, accumulates and gets per target into batches ({@link RmaBatch}), sent when full and
 * before anything that must follow them, sends the rest as RMA records ({@link RmaWire}) and counts
 * the answers ({@link Answers}: one cumulative ACK per origin and progress pass), so a flush sends the
 * batch and waits for the target to have applied everything; gets, fetching accumulates and
 * compare-and-swaps wait for their replies in a table per target ({@link ReplyTable}) until the
 * flush or their request, and a refusal of the target fails the request or flush that waits for
 * it. Above the eager limit a put leaves from the caller's memory ({@link #put}),
 * a get's reply from the window's ({@link #serveReplies}), and they land in place ({@link #place}),
 * as a rendezvous's data does. As target it is the window's {@link RmaEndpoint}: records are applied where
 * they arrive (the progress agent, or the owner's own calls), into the same memory and under the
 * same lock words of the window area as local peers use, so passive-target operations need no call
 * by the target's application. A lock a rank that has died holds here is released once someone waits
 * for it ({@link WindowArea#releaseDead}).
 *
 * <p>Threads: the origin side is the owner's; the target side runs on whoever holds the engine.
 * What one side writes and the other reads (answers, grants, posts, completes, refusals) is in
 * atomic arrays (volatile reads and writes), a refusal written before the answer that covers it;
 * replies go through the reply tables (their own rules). The batches are the owner's alone.
 */
final class RemoteAccess implements RmaEndpoint, Engine.Task {
    private final Engine engine;
    private final int context;
    private final int tag;
    private final int[] group;
    private final int me;
    private final int n;
    private final boolean[] remote;
    /** Per world rank: its rank in the window, or -1. */
    private final int[] commOf;
    private final WindowArea own;
    /** This rank's window memory, reachable from any thread (the progress agent's too). */
    private final MemorySegment memory;
    /** Where in {@link #memory} records may land: the window's bytes, or a dynamic window's regions. */
    private final Extent extent;
    /** Records numbered per target as origin, applied and answered per origin as target. */
    private final Answers answers;
    /** Origin: the small operations per target not sent yet. */
    private final RmaBatch batch;
    /** Origin: per target, the payload bytes of one record to it (0 until asked). */
    private final int[] frames;
    /**
     * Origin: per target, the transport's mark of the last put payload it sends from the caller's
     * memory, which stays the transport's until released ({@link Engine#rmaReleased}); 0: none held.
     */
    private final long[] held;
    /** Target: per origin, where the next frame of a large put in progress goes, and where that put ends (0: none). */
    private final long[] putNext;
    private final long[] putEnd;
    /** Target: a view of the window's memory, for the transport's checks of payloads placed in it; null when none. */
    private final ByteBuffer memoryView;
    /** Origin: per target, the replies it waits for (allocated at the first get to it), and their size. */
    private final ReplyTable[] replies;
    private final int replySlots;
    /** Origin: per target, the last get sent as a record of its own since the last write waited for it (0: none). */
    private final long[] ownGets;
    /** Origin: per target, the reply id of the last get or fetching operation issued to it (0: none), for {@link #getCompletion}. */
    private final long[] lastReply;
    /**
     * Target: per origin, the large get's reply being sent from the window's memory, by {@link #poll}
     * outside the arrival path: its reply id (0: none), where in the window it starts, its bytes and
     * how many have gone; later ones wait in {@link #serveQueue}, in order; and the transport's
     * mark of the last reply payload sent from the window, which it may read until released.
     */
    private final long[] serveId;
    private final long[] serveFrom;
    private final long[] serveTotal;
    private final long[] serveDone;
    private final long[] served;
    /** Target: per origin, the large gets' replies waiting behind the one being sent (id, from, total), or null. */
    private final ArrayDeque<long[]>[] serveQueue;
    /** Origin: per target, the first cause of a refusal not reported yet, and how many came after it. */
    private final AtomicReferenceArray<String> refusals;
    private final AtomicIntegerArray moreRefusals;
    /** Target: the record being applied, for its refusals (reused). */
    private final Refuser refuser = new Refuser();
    private final AtomicLongArray grants;
    private final long[] grantsTaken;
    private final AtomicLongArray posts;
    private final AtomicLongArray completes;
    private final Waiting waiting = new Waiting();
    /** A thread that is no one's: memory it may access is not confined to the owner. */
    private static final Thread NO_OWNER = Thread.ofPlatform().unstarted(() -> { });
    private final MemorySegment pair = Arena.ofAuto().allocate(64, 16);
    /** Target side: records that found the accumulate lock taken, or others before them, in order. */
    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
    /** Target side: how many origins have a large reply still to send ({@link #serveId}). */
    private int serving;
    /** Target side: lock requests not granted yet, in arrival order. */
    private final ArrayList<LockRequest> locks = new ArrayList<>();
    private MemorySegment scratch = MemorySegment.NULL;
    /** Whether a window rank is known to have died: a slow path, asked once per liveness interval. */
    private final IntPredicate dead;
    private final long livenessNanos;
    private long lastDeadCheck = System.nanoTime();

    private record Deferred(int origin, short op, long handle, long peerHandle, long address, long total, byte[] data) {
    }

    private static final class LockRequest {
        final int origin;
        final boolean exclusive;
        boolean wordHeld;

        LockRequest(int origin, boolean exclusive) {
            this.origin = origin;
            this.exclusive = exclusive;
        }
    }

    /**
     * @param extent where in {@code memory} records may land (a dynamic window: all memory, its regions)
     * @param batchBytes the most payload bytes of a batch of small operations ({@code tutti.rma.batch}; 0: none)
     * @param replySlots how many replies to one target may be awaited at once ({@code tutti.rma.replies})
     */
    @SuppressWarnings("unchecked")
    RemoteAccess(Engine engine, int context, int tag, int[] group, int me, boolean[] remote, WindowArea own,
                 MemorySegment memory, Extent extent, int batchBytes, int replySlots) {
        this.extent = extent;
        this.engine = engine;
        this.context = context;
        this.tag = tag;
        this.group = group;
        this.me = me;
        this.n = group.length;
        this.remote = remote;
        this.own = own;
        this.memory = memory;
        this.commOf = new int[engine.size()];
        Arrays.fill(commOf, -1);
        for (int r = 0; r < n; r++) {
            commOf[group[r]] = r;
        }
        this.answers = new Answers(n);
        this.batch = new RmaBatch(n, batchBytes);
        this.frames = new int[n];
        this.held = new long[n];
        this.putNext = new long[n];
        this.putEnd = new long[n];
        this.serveId = new long[n];
        this.serveFrom = new long[n];
        this.serveTotal = new long[n];
        this.serveDone = new long[n];
        this.served = new long[n];
        this.serveQueue = new ArrayDeque[n];
        this.replies = new ReplyTable[n];
        this.replySlots = replySlots;
        this.ownGets = new long[n];
        this.lastReply = new long[n];
        this.memoryView = memory.isNative() && memory.byteSize() <= Integer.MAX_VALUE ? memory.asByteBuffer() : null;
        this.refusals = new AtomicReferenceArray<>(n);
        this.moreRefusals = new AtomicIntegerArray(n);
        this.grants = new AtomicLongArray(n);
        this.grantsTaken = new long[n];
        this.posts = new AtomicLongArray(n);
        this.completes = new AtomicLongArray(n);
        this.dead = r -> engine.failure(group[r]) != null;
        this.livenessNanos = engine.config().livenessMillis() * 1_000_000L;
    }

    /** Whether {@code target} is reached over the network. */
    boolean remote(int target) {
        return remote[target];
    }

    /** Starts serving: registers for the window's records and for the engine's progress. Before the creation's barrier. */
    void open() {
        engine.registerRma(context, tag, this);
        engine.track(this);
    }

    /**
     * Stops serving, after the closing barrier: no peer accesses this window any more. First waits
     * until the transport has let go of the reply payloads it sent from the window's memory (a live
     * origin's: the transport reads nothing for a dead one), which is freed after this.
     */
    void close() {
        try {
            for (int o = 0; o < n; o++) {
                if (served[o] > 0 && !dead.test(o)) {
                    awaitRelease(o, served[o]);
                }
            }
        } catch (TuttiException.PeerFailed e) {
            // an origin that died meanwhile: its transport reads nothing of the window any more
        } finally {
            engine.untrack(this);
            engine.unregisterRma(context, tag);
        }
    }

    // ------------------------------------------------------------ origin side

    /**
     * A put: packed into the target's batch when small (the origin buffer is free on return), else
     * records of a frame each, in order. A put larger than the eager limit from memory any thread
     * may read leaves from there (the transport sends it, and resends it, from the caller's
     * memory), so the origin buffer stays the transport's until {@link #settle} or the put's
     * request ({@link #localCompletion}); a smaller one, or one from the Java heap, is copied into
     * the transport's frames. Every frame names where the put ends, so the target can receive the
     * frames after the first straight into its window ({@link #place}).
     */
    void put(MemorySegment src, long srcOffset, int target, long at, long length) {
        if (length == 0) {
            return;
        }
        int chunk = frame(target);
        beforeWrite(target);
        if (batch.packs(target, length, chunk)) {
            pack(target, RmaWire.PUT, null, null, at, src, srcOffset, (int) length);
            return;
        }
        // a large put follows the batched ones, as records of a frame each
        drain(target);
        boolean inPlace = length > engine.eagerLimit(group[target]) && src.isNative() && src.isAccessibleBy(NO_OWNER);
        long end = at + length;
        for (long done = 0; done < length; ) {
            int k = (int) Math.min(chunk, length - done);
            send(target, RmaWire.PUT, 0, end, at + done, answers.next(target), src, srcOffset + done, k, inPlace);
            done += k;
        }
    }

    /**
     * A get: packed into the target's batch when its reply fits one, else a record of its own; it
     * returns at once, the reply lands in {@code dst} when it comes, and the get is complete at the
     * target's {@link #settle} (a flush, the end of the epoch) or its request ({@link #getCompletion}).
     * With every slot of the target's reply table taken it first waits for the oldest reply.
     */
    void get(MemorySegment dst, long dstOffset, int target, long at, long length) {
        lastReply[target] = 0;
        if (length == 0) {
            return;
        }
        if (packReplied(target, RmaWire.GET, length, null, null, at, MemorySegment.NULL, 0, 0, dst, dstOffset)) {
            return;
        }
        drain(target);
        long id = open(target, dst, dstOffset, length);
        send(target, RmaWire.GET, id, 0, at, length, MemorySegment.NULL, 0, 0);
        ownGets[target] = id;
        lastReply[target] = id;
    }

    /**
     * Packs an operation answered by {@code bytes} bytes of reply into {@code result} (a get, a
     * getAccumulate, a compare-and-swap) into {@code target}'s batch when it and its reply fit one,
     * sending the batch first when full, and opens its request; false when it goes as a record of
     * its own. Its {@code carried} bytes of {@code src} are copied: the origin is free on return.
     */
    private boolean packReplied(int target, short kind, long bytes, Datatype type, AccumulateOp op, long at,
                                MemorySegment src, long srcOffset, long carried, MemorySegment result,
                                long resultOffset) {
        if (!batch.packsReplied(target, carried, bytes, frame(target))) {
            return false;
        }
        if (!batch.fitsReplied(target, (int) carried, (int) bytes)) {
            drain(target);
        }
        long id = open(target, result, resultOffset, bytes);
        batch.addReplied(target, kind, (int) bytes, type, op, at, src, srcOffset, (int) carried, id);
        lastReply[target] = id;
        return true;
    }

    /** {@link #getCompletion(int, String)} of a get: its errors name rget. */
    Request getCompletion(int target) {
        return getCompletion(target, "rget");
    }

    /**
     * A request that completes when the last get or fetching operation to {@code target} has its
     * data (MPI_Rget's, MPI_Rget_accumulate's), or null when it has none (it was empty); its errors
     * name {@code what}.
     */
    Request getCompletion(int target, String what) {
        long id = lastReply[target];
        return id == 0 ? null : new Fetch(target, id, what);
    }

    /** Target {@code target}'s reply table, allocated at its first request. */
    private ReplyTable replies(int target) {
        ReplyTable t = replies[target];
        if (t == null) {
            t = new ReplyTable(replySlots);
            replies[target] = t;
        }
        return t;
    }

    /**
     * Opens a request to {@code target} whose reply goes to {@code dst}; when the table is full,
     * first waits for the oldest request's reply (sending the batch it may wait in), whose refusal
     * is then kept for the flush.
     */
    private long open(int target, MemorySegment dst, long offset, long length) {
        ReplyTable t = replies(target);
        long oldest = t.blocking();
        if (oldest != 0) {
            drain(target);
            awaitReply(target, oldest);
            keep(target, t.take(oldest));
        }
        return t.open(dst, offset, length);
    }

    /**
     * Before an operation that writes to {@code target}: a get sent as a record of its own may be
     * sent from the window's memory, and resent from it, while its reply travels, so a write after
     * it waits until the gets to that target have their data (a get never reads what a later write
     * of its origin wrote).
     */
    private void beforeWrite(int target) {
        if (ownGets[target] != 0) {
            drain(target);
            awaitReplies(target);
            ownGets[target] = 0;
        }
    }

    /** Waits until every request to {@code target} has its reply or refusal (not taken: a flush takes them). */
    private void awaitReplies(int target) {
        ReplyTable t = replies[target];
        if (t != null && !t.allDone()) {
            await(Waiting.REPLIES, target);
        }
    }

    /** Keeps the refusal of a request to {@code target} for the flush that waits for it (null: none). */
    private void keep(int target, String cause) {
        if (cause != null && !refusals.compareAndSet(target, null, cause)) {
            moreRefusals.incrementAndGet(target);
        }
    }

    /**
     * An accumulate, packed into the target's batch when small, else records of a frame each; the
     * origin is free on return. With a {@code result} (getAccumulate) it returns at once like a get:
     * the old values land there when the reply comes, by the target's {@link #settle} or its request.
     */
    void accumulate(MemorySegment origin, long originOffset, MemorySegment result, long resultOffset, long count,
                    Datatype type, int target, long at, AccumulateOp op) {
        long length = count * type.extent();
        int frame = frame(target);
        int chunk = frame / type.extent() * type.extent();
        beforeWrite(target);
        if (result == null) {
            if (op == AccumulateOp.NO_OP) {
                return;
            }
            if (batch.packs(target, length, frame)) {
                pack(target, RmaWire.ACC, type, op, at, origin, originOffset, (int) length);
                return;
            }
            drain(target);
            for (long done = 0; done < length; ) {
                int k = (int) Math.min(chunk, length - done);
                send(target, RmaWire.ACC, 0, RmaWire.accumulate(k, type, op), at + done, answers.next(target),
                        origin, originOffset + done, k);
                done += k;
            }
            return;
        }
        lastReply[target] = 0;
        boolean data = op != AccumulateOp.NO_OP;
        long carried = data ? length : 0;
        if (packReplied(target, RmaWire.GET_ACC, length, type, op, at, data ? origin : MemorySegment.NULL,
                data ? originOffset : 0, carried, result, resultOffset)) {
            return;
        }
        drain(target);
        long id = open(target, result, resultOffset, length);
        for (long done = 0; done < length; ) {
            int k = (int) Math.min(chunk, length - done);
            send(target, RmaWire.GET_ACC, id, RmaWire.accumulate(k, type, op), at + done, done,
                    data ? origin : MemorySegment.NULL, data ? originOffset + done : 0, data ? k : 0);
            done += k;
        }
        lastReply[target] = id;
    }

    /**
     * A compare-and-swap: packed into the target's batch (origin and compare, 16 bytes of entry
     * header) or a record of its own; like a get it returns at once and its old value lands in
     * {@code result} when the reply comes, by the target's {@link #settle} or its request.
     */
    void compareAndSwap(MemorySegment origin, MemorySegment compare, MemorySegment result, Datatype type, int target,
                        long at) {
        beforeWrite(target);
        lastReply[target] = 0;
        int length = type.extent();
        MemorySegment.copy(origin, 0, pair, 0, length);
        MemorySegment.copy(compare, 0, pair, length, length);
        if (packReplied(target, RmaWire.CAS, length, type, AccumulateOp.REPLACE, at, pair, 0, 2 * length, result,
                0)) {
            return;
        }
        drain(target);
        long id = open(target, result, 0, length);
        send(target, RmaWire.CAS, id, RmaWire.accumulate(length, type, AccumulateOp.REPLACE), at, 0, pair, 0,
                2 * length);
        lastReply[target] = id;
    }

    /**
     * Returns once {@code target} has applied every operation this rank sent it (the batch sent
     * first; volatile reads of the answers); fails if it refused one.
     */
    void flush(int target) {
        settle(target);
        failIfRefused("flush", target);
    }

    /** Fence's part before its barrier: every remote target has applied this rank's operations (refusals kept). */
    void settleAll() {
        for (int t = 0; t < n; t++) {
            if (remote[t]) {
                settle(t);
            }
        }
    }

    /** Fence's part after its barrier: fails naming the first remote target that refused an operation. */
    void failIfRefused(String what) {
        for (int t = 0; t < n; t++) {
            if (remote[t]) {
                failIfRefused(what, t);
            }
        }
    }

    /** Sends every batch not sent yet, waiting for nothing: before the window's closing barrier. */
    void drainAll() {
        for (int t = 0; t < n; t++) {
            if (remote[t]) {
                drain(t);
            }
        }
    }

    void lock(boolean exclusive, int target) {
        send(target, RmaWire.LOCK, 0, exclusive ? 1 : 0, 0, 0, MemorySegment.NULL, 0, 0);
        await(Waiting.GRANT, target);
        grantsTaken[target]++;
    }

    /** Completes the epoch's operations at {@code target}, releases its lock, then reports a refusal. */
    void unlock(boolean exclusive, int target) {
        settle(target);
        send(target, RmaWire.UNLOCK, 0, exclusive ? 1 : 0, 0, 0, MemorySegment.NULL, 0, 0);
        failIfRefused("unlock", target);
    }

    void post(int origin) {
        send(origin, RmaWire.POST, 0, 0, 0, 0, MemorySegment.NULL, 0, 0);
    }

    /** Completes the access epoch's operations at {@code target}, tells it so, then reports a refusal. */
    void complete(int target) {
        settle(target);
        send(target, RmaWire.COMPLETE, 0, 0, 0, 0, MemorySegment.NULL, 0, 0);
        failIfRefused("complete", target);
    }

    /** The payload bytes of one record to {@code target}, asked of the engine once. */
    private int frame(int target) {
        int f = frames[target];
        if (f == 0) {
            f = engine.maxRmaPayload(group[target]);
            frames[target] = f;
        }
        return f;
    }

    /** Adds a small operation to {@code target}'s batch, sending the batch first when it is full. */
    private void pack(int target, short kind, Datatype type, AccumulateOp op, long at, MemorySegment src, long offset,
                      int length) {
        if (!batch.fits(target, length)) {
            drain(target);
        }
        batch.add(target, kind, type, op, at, src, offset, length);
    }

    /**
     * Sends {@code target}'s batch, if it holds entries, as one record with one number to answer
     * (its gets named by the first one's reply id and their count).
     */
    private void drain(int target) {
        if (batch.pending(target)) {
            // a batch of gets and fetching operations only is complete once its REPLIES come, sent
            // after every entry applied: no number to answer (an answer waits for the target's
            // progress pass: docs/perf/rma.md)
            long number = batch.onlyReplied(target) ? 0 : answers.next(target);
            send(target, RmaWire.BATCH, batch.firstGet(target), batch.gets(target), 0, number,
                    batch.buffer(target), 0, batch.length(target));
            batch.sent(target);
        }
    }

    /**
     * The batch sent, waits until {@code target} has answered every numbered record sent to it,
     * every get to it has its data (their refusals kept for {@link #failIfRefused}), and the
     * transport has let go of the origin buffers of the puts it sent from there.
     */
    private void settle(int target) {
        drain(target);
        if (!answers.complete(target)) {
            await(Waiting.ACKS, target);
        }
        takeReplies(target);
        long mark = held[target];
        if (mark > 0) {
            awaitRelease(target, mark);
            held[target] = 0;
        }
    }

    /** Waits until every get and fetching operation to {@code target} has its reply, and takes them (refusals kept). */
    private void takeReplies(int target) {
        ReplyTable t = replies[target];
        if (t != null) {
            awaitReplies(target);
            for (long k = Math.max(1, t.last() - replySlots + 1); k <= t.last(); k++) {
                keep(target, t.take(k));
            }
            ownGets[target] = 0;
        }
    }

    /**
     * Returns once the gets and fetching operations issued to {@code target} have their data in
     * their buffers (the batch sent first); fails if the target refused one of them, or another
     * operation whose refusal came first. Puts and accumulates may still be on their way.
     */
    void awaitResults(int target) {
        drain(target);
        takeReplies(target);
        failIfRefused("awaitResults", target);
    }

    /** Waits until the transport has released the payloads sent in place to {@code target} up to {@code mark}. */
    private void awaitRelease(int target, long mark) {
        if (engine.rmaReleased(group[target]) < mark) {
            waiting.mark = mark;
            await(Waiting.RELEASE, target);
        }
    }

    /**
     * What completes the last put to {@code target} locally, its origin buffer free again: null
     * when it is free already (copied, or released), else a request that completes when the
     * transport lets go of it (MPI_Rput's).
     */
    Request localCompletion(int target) {
        long mark = held[target];
        if (mark == 0 || engine.rmaReleased(group[target]) >= mark) {
            return null;
        }
        return new Held(target, mark);
    }

    /**
     * A request done once a wait on one target returns: the part {@link Held} and {@link Fetch}
     * share. Subclasses say how to wait, how to test once, and whether it is done without progress.
     */
    private abstract static class PerTarget implements Request {
        final int target;
        private boolean done;

        PerTarget(int target) {
            this.target = target;
        }

        /** Waits until done; throws the operation's error. */
        abstract void complete();

        /** Drives progress once; true when done (the error thrown then). */
        abstract boolean poll();

        /** Whether it is done, without progress. */
        abstract boolean ready();

        @Override
        public final Status waitFor() {
            waitFor(null);
            return new Status();
        }

        @Override
        public final void waitFor(Status into) {
            if (!done) {
                complete();
                done = true;
            }
        }

        @Override
        public final boolean test() {
            if (!done) {
                done = poll();
            }
            return done;
        }

        @Override
        public final boolean isActive() {
            return true;
        }

        @Override
        public final boolean isDone() {
            return done || ready();
        }

        @Override
        public final Status status() {
            return new Status();
        }
    }

    /** The request of a put whose payload the transport sends from the caller's memory: done once it lets go. */
    private final class Held extends PerTarget {
        private final long mark;

        Held(int target, long mark) {
            super(target);
            this.mark = mark;
        }

        @Override
        void complete() {
            awaitRelease(target, mark);
        }

        @Override
        boolean poll() {
            waiting.kind = Waiting.RELEASE;
            waiting.target = target;
            waiting.mark = mark;
            waiting.error = null;
            return engine.test(waiting);
        }

        @Override
        boolean ready() {
            return engine.rmaReleased(group[target]) >= mark;
        }
    }

    /**
     * The request of a get or a fetching operation (MPI_Rget's, MPI_Rget_accumulate's): done once
     * its reply is in; a refusal fails its wait or test, naming {@code what}.
     */
    private final class Fetch extends PerTarget {
        private final long id;
        private final String what;

        Fetch(int target, long id, String what) {
            super(target);
            this.id = id;
            this.what = what;
        }

        @Override
        void complete() {
            drain(target);
            takeReply(what, target, id);
        }

        @Override
        boolean poll() {
            drain(target);
            waiting.kind = Waiting.REPLY;
            waiting.target = target;
            waiting.reply = id;
            waiting.error = null;
            if (engine.test(waiting)) {
                takeReply(what, target, id);
                return true;
            }
            return false;
        }

        @Override
        boolean ready() {
            return replies[target].done(id);
        }
    }

    /**
     * Owner, after the answers covered every record sent to {@code target}: fails with the first
     * refusal that came before them (a volatile read), and forgets it.
     */
    private void failIfRefused(String what, int target) {
        String cause = refusals.get(target);
        if (cause == null) {
            return;
        }
        int more = moreRefusals.getAndSet(target, 0);
        refusals.set(target, null);
        throw refused(what, target, cause + (more > 0 ? " (and " + more + " more operations it refused)" : ""));
    }

    private TuttiException refused(String what, int target, String cause) {
        return new TuttiException.InvalidArgument(what + " on rank " + me + " to rank " + target + " failed: rank "
                + target + " refused " + cause);
    }

    /** Volatile read: exposure epochs remote rank {@code r} has posted to this one. */
    long posts(int r) {
        return posts.get(r);
    }

    /** Volatile read: access epochs remote rank {@code r} has completed on this one. */
    long completes(int r) {
        return completes.get(r);
    }

    /** Waits for the reply of request {@code id} to {@code target}, then takes it; fails if the target refused it. */
    private void takeReply(String what, int target, long id) {
        awaitReply(target, id);
        String cause = replies[target].take(id);
        if (cause != null) {
            throw refused(what, target, cause);
        }
    }

    /** Waits until request {@code id} to {@code target} has its reply or refusal. */
    private void awaitReply(int target, long id) {
        if (!replies[target].done(id)) {
            waiting.reply = id;
            await(Waiting.REPLY, target);
        }
    }

    private void send(int target, short op, long handle, long peerHandle, long address, long total,
                      MemorySegment payload, long offset, int length) {
        send(target, op, handle, peerHandle, address, total, payload, offset, length, false);
    }

    /** Sends a record, waiting for room; {@code inPlace}: the payload may stay where it is, held until released. */
    private void send(int target, short op, long handle, long peerHandle, long address, long total,
                      MemorySegment payload, long offset, int length, boolean inPlace) {
        waiting.sending(op, handle, peerHandle, address, total, payload, offset, length, inPlace);
        waiting.target = target;
        if (!waiting.trySend()) {
            await(Waiting.SEND, target);
        }
        waiting.payload = null;
        if (waiting.mark > held[target]) {
            held[target] = waiting.mark;
        }
    }

    private void await(int kind, int target) {
        waiting.kind = kind;
        waiting.target = target;
        waiting.error = null;
        if (!waiting.poll()) {
            engine.await(waiting);
        }
    }

    /**
     * The origin's one wait, reused: for room to send, answers, one reply or all of them, a grant
     * from one target, or the transport's release of put payloads it sent from the caller's memory.
     */
    private final class Waiting implements Engine.Task {
        static final int SEND = 0;
        static final int ACKS = 1;
        static final int REPLY = 2;
        static final int GRANT = 3;
        static final int RELEASE = 4;
        static final int REPLIES = 5;

        int kind;
        int target;
        TuttiException error;
        short op;
        long handle;
        long peerHandle;
        long address;
        long total;
        MemorySegment payload;
        long offset;
        int length;
        boolean inPlace;
        /** SEND: the mark of the payload the transport took in place (0: copied); RELEASE: the mark waited for. */
        long mark;
        /** REPLY: the request whose reply is waited for. */
        long reply;

        void sending(short op, long handle, long peerHandle, long address, long total, MemorySegment payload,
                     long offset, int length, boolean inPlace) {
            this.inPlace = inPlace;
            this.mark = 0;
            this.op = op;
            this.handle = handle;
            this.peerHandle = peerHandle;
            this.address = address;
            this.total = total;
            this.payload = payload;
            this.offset = offset;
            this.length = length;
        }

        /** Offers the record to the engine once; true when it was sent. */
        boolean trySend() {
            if (!inPlace) {
                return engine.trySendRma(group[target], op, context, tag, handle, peerHandle, address, total, payload,
                        offset, length);
            }
            long m = engine.trySendRmaInPlace(group[target], op, context, tag, handle, peerHandle, address, total,
                    payload, offset, length);
            mark = Math.max(m, 0);
            return m >= 0;
        }

        @Override
        public boolean poll() {
            if (error != null) {
                throw error;
            }
            return switch (kind) {
                case SEND -> trySend();
                case RELEASE -> engine.rmaReleased(group[target]) >= mark;
                case ACKS -> answers.complete(target);
                case REPLY -> replies[target].done(reply);
                case REPLIES -> replies[target].allDone();
                case GRANT -> grants.get(target) > grantsTaken[target];
                default -> throw new AssertionError(kind);
            };
        }

        @Override
        public void fail(TuttiException e) {
            error = e;
        }

        @Override
        public boolean accessibleBy(Thread agent) {
            return false;
        }

        @Override
        public boolean needs(int worldRank) {
            return worldRank == group[target];
        }

        @Override
        public int waitsFor() {
            return group[target];
        }
    }

    // ------------------------------------------------------------ target side

    @Override
    public boolean onRma(int source, int op, long handle, long peerHandle, long address, long total, MemorySegment data,
                         long dataOffset, int length) {
        int origin = source >= 0 && source < commOf.length ? commOf[source] : -1;
        if (origin < 0 || !remote[origin]) {
            return false;
        }
        switch (op) {
            case RmaWire.ACK -> {
                answers.acknowledged(origin, total);
                return true;
            }
            case RmaWire.REPLY -> {
                ReplyTable t = replies[origin];
                return t != null && t.reply(handle, address, data, dataOffset, length);
            }
            case RmaWire.REPLIES -> {
                return onReplies(origin, handle, total, data, dataOffset, length);
            }
            case RmaWire.GRANTED -> {
                grants.incrementAndGet(origin);
                return true;
            }
            case RmaWire.POST -> {
                posts.incrementAndGet(origin);
                return true;
            }
            case RmaWire.COMPLETE -> {
                completes.incrementAndGet(origin);
                return true;
            }
            case RmaWire.REFUSED -> {
                onRefused(origin, handle, address, data, dataOffset, length);
                return true;
            }
            case RmaWire.LOCK -> {
                locks.add(new LockRequest(origin, peerHandle != 0));
                grantLocks();
                return true;
            }
            case RmaWire.UNLOCK -> {
                if (peerHandle != 0) {
                    if (own.exclusiveHolder() != origin) {
                        return false;
                    }
                    own.unlockExclusive();
                } else {
                    own.lowerShared(origin);
                }
                wakeLocalPeers();
                grantLocks();
                return true;
            }
            case RmaWire.PUT, RmaWire.GET, RmaWire.ACC, RmaWire.GET_ACC, RmaWire.CAS, RmaWire.BATCH -> {
                if (data == null) {
                    // a put's frame received in place, which place() allowed only with nothing deferred
                    return op == RmaWire.PUT && apply(origin, (short) op, handle, peerHandle, address, total, null,
                            0, length);
                }
                // checked where applied, so that a refusal keeps its place among the origin's records
                if (!deferred.isEmpty() || !apply(origin, (short) op, handle, peerHandle, address, total, data,
                        dataOffset, length)) {
                    byte[] copy = new byte[length];
                    MemorySegment.copy(data, dataOffset, MemorySegment.ofArray(copy), 0, length);
                    deferred.add(new Deferred(origin, (short) op, handle, peerHandle, address, total, copy));
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /**
     * Arrival path: the replies of a batch's {@code count} gets from {@code target}, numbered from
     * {@code first}, their bytes one after the other; a refused one ({@link ReplyTable#note}) has
     * none. Should the bytes run out, the gets left are refused rather than left waiting.
     */
    private boolean onReplies(int target, long first, long count, MemorySegment data, long dataOffset, int length) {
        ReplyTable t = replies[target];
        if (t == null || first <= 0 || count <= 0) {
            return false;
        }
        long p = 0;
        for (long k = first; k < first + count; k++) {
            if (t.finishRefused(k)) {
                continue;
            }
            long bytes = t.expecting(k);
            if (bytes >= 0 && bytes <= length - p && t.reply(k, 0, data, dataOffset + p, (int) bytes)) {
                p += bytes;
            } else {
                t.refuse(k, "a get whose data its batch's reply of " + length + " bytes lacks");
            }
        }
        return true;
    }

    /**
     * Arrival path: the target refused a record of this rank. A fetching request's refusal (its reply
     * id) completes the request ({@code batch} 0), or, for a batch's get, marks it for the batch's
     * replies that follow; a numbered one's is kept for the flush, which reads it after the answer
     * that covers the record (sent after the refusal, so seen after it).
     */
    private void onRefused(int target, long id, long batch, MemorySegment data, long dataOffset, int length) {
        String cause = new String(data.asSlice(dataOffset, length).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
        if (id != 0) {
            ReplyTable t = replies[target];
            if (t != null && batch != 0) {
                t.note(id, cause);
            } else if (t != null) {
                t.refuse(id, cause);
            }
        } else {
            keep(target, cause);
        }
    }

    /**
     * Applies one data record, or refuses it (answering with the cause), and answers it; false, doing
     * nothing, when it needs the accumulate lock and a local peer holds it (then it waits, in order,
     * for {@link #poll}). A batch takes the lock once for all its entries if one is an accumulate.
     */
    private boolean apply(int origin, short op, long handle, long peerHandle, long address, long total,
                          MemorySegment data, long dataOffset, int length) {
        int dest = group[origin];
        boolean numbered = op == RmaWire.PUT || op == RmaWire.ACC || op == RmaWire.BATCH;
        refuser.record(origin, numbered ? 0 : handle, numbered ? total : 0);
        String cause = op == RmaWire.BATCH ? null
                : RmaWire.refusal(op, peerHandle, address, total, length, extent, me);
        if (cause != null) {
            refuser.refuse(cause);
            if (op == RmaWire.PUT) {
                expectPut(origin, 0, 0);
            }
            if (numbered) {
                answers.applied(origin, total);
            }
            return true;
        }
        switch (op) {
            case RmaWire.BATCH -> {
                boolean lock = RmaBatch.accumulates(data, dataOffset, length);
                if (lock && !own.tryLockAccumulate(origin)) {
                    return false;
                }
                int gets = (int) Math.max(0, Math.min(peerHandle, Integer.MAX_VALUE));
                refuser.batch(handle, gets, engine.maxRmaPayload(dest));
                try {
                    RmaBatch.apply(data, dataOffset, length, memory, extent, me, refuser.replyBytes(), refuser);
                } finally {
                    if (lock) {
                        own.unlockAccumulate();
                    }
                }
                refuser.reply();
                answers.applied(origin, total);
            }
            case RmaWire.PUT -> {
                if (data != null) {
                    MemorySegment.copy(data, dataOffset, memory, address, length);
                }
                expectPut(origin, address + length, peerHandle);
                answers.applied(origin, total);
            }
            case RmaWire.GET -> {
                if (total > engine.eagerLimit(dest) && handle != 0) {
                    // large: sent from the window's memory by poll(), outside the arrival path, in order
                    if (serveId[origin] == 0) {
                        serve(origin, handle, address, total);
                    } else {
                        if (serveQueue[origin] == null) {
                            serveQueue[origin] = new ArrayDeque<>();
                        }
                        serveQueue[origin].add(new long[] {handle, address, total});
                    }
                    return true;
                }
                int chunk = engine.maxRmaPayload(dest);
                for (long done = 0; done < total; ) {
                    int k = (int) Math.min(chunk, total - done);
                    engine.sendRma(dest, RmaWire.REPLY, context, tag, handle, 0, done, 0, memory, address + done, k);
                    done += k;
                }
            }
            default -> {
                if (!own.tryLockAccumulate(origin)) {
                    return false;
                }
                Datatype type = RmaWire.type(peerHandle);
                try {
                    if (op == RmaWire.CAS) {
                        int size = length / 2;
                        MemorySegment old = scratch(size);
                        Accumulation.compareAndSwap(memory, address, data, dataOffset, data, dataOffset + size, old, 0,
                                size);
                        engine.sendRma(dest, RmaWire.REPLY, context, tag, handle, 0, 0, 0, old, 0, size);
                    } else {
                        int bytes = RmaWire.bytes(peerHandle);
                        boolean fetch = op == RmaWire.GET_ACC;
                        MemorySegment old = fetch ? scratch(bytes) : null;
                        Accumulation.apply(memory, address, data, dataOffset, old, 0, bytes / type.extent(), type,
                                RmaWire.op(peerHandle));
                        if (fetch) {
                            engine.sendRma(dest, RmaWire.REPLY, context, tag, handle, 0, total, 0, old, 0, bytes);
                        } else {
                            answers.applied(origin, total);
                        }
                    }
                } finally {
                    own.unlockAccumulate();
                }
            }
        }
        return true;
    }

    /**
     * Arrival path, before the transport takes the record: whether its payload may go straight into
     * memory here, and where. A put's frame may if it continues the large put whose earlier frames
     * {@code origin} sent (where they ended, the same end: a header damaged on the way, which the
     * transport finds only once the frame is in, cannot aim it elsewhere) and nothing waits for the
     * accumulate lock before it; a reply may if it is the next part of the one the owner waits for,
     * into memory any thread may write. Else the record comes the ordinary way.
     */
    @Override
    public boolean place(int source, int op, long handle, long peerHandle, long address, long total, int length,
                         RmaEndpoint.Landing into) {
        int origin = source >= 0 && source < commOf.length ? commOf[source] : -1;
        if (origin < 0 || !remote[origin]) {
            return false;
        }
        if (op == RmaWire.PUT) {
            long end = putEnd[origin];
            if (memoryView == null || end == 0 || !deferred.isEmpty() || address != putNext[origin]
                    || peerHandle != end || length > end - address) {
                return false;
            }
            memoryView.limit((int) (address + length)).position((int) address);
            into.set(memory.address() + address, memoryView);
            return true;
        }
        ReplyTable t = replies[origin];
        return op == RmaWire.REPLY && t != null && t.place(handle, address, length, into);
    }

    /**
     * Arrival path, after a put's frame from {@code origin} applied: the next frame of its put goes
     * at {@code next}, up to {@code end}, when the put goes on (a frame names its put's end); else none.
     */
    private void expectPut(int origin, long next, long end) {
        boolean goesOn = end > next && next > 0 && extent.holds(next, end - next);
        putNext[origin] = goesOn ? next : -1;
        putEnd[origin] = goesOn ? end : 0;
    }

    /** After a pass's records, and after deferred ones: one cumulative ACK to each origin owed one. */
    @Override
    public void answer() {
        if (!answers.due()) {
            return;
        }
        for (int o = 0; o < n; o++) {
            long upTo = answers.takeAnswer(o);
            if (upTo > 0) {
                engine.sendRma(group[o], RmaWire.ACK, context, tag, 0, 0, 0, upTo, MemorySegment.NULL, 0, 0);
            }
        }
        answers.answeredAll();
    }

    /**
     * Answers a refused record with its cause, at once and so before the answer that covers its
     * number: the reply id of a fetching request, else the record's number. For a batch it also
     * gathers its gets' data into one reply ({@link #reply}), a refused get left out. Reused per record.
     */
    private final class Refuser implements RmaBatch.Refusals {
        private int origin;
        private long id;
        private long number;
        /** The batch's first get's reply id, its gets, those the walk reached, and the reply's bytes so far. */
        private long firstGet;
        private int gets;
        private int reached;
        private int fill;
        private int capacity;
        private MemorySegment replyData = MemorySegment.NULL;

        void record(int origin, long id, long number) {
            this.origin = origin;
            this.id = id;
            this.number = number;
        }

        /** A batch with {@code gets} gets from {@code firstGet} on, whose reply carries at most {@code capacity} bytes. */
        void batch(long firstGet, int gets, int capacity) {
            this.firstGet = firstGet;
            this.gets = firstGet > 0 ? gets : 0;
            this.reached = 0;
            this.fill = 0;
            this.capacity = capacity;
            if (this.gets > 0 && replyData.byteSize() < capacity) {
                replyData = Arena.ofAuto().allocate(capacity, 8);
            }
        }

        /** The most bytes the batch's gets may read together. */
        int replyBytes() {
            return gets > 0 ? capacity : 0;
        }

        @Override
        public void refuse(String cause) {
            send(id, 0, number, cause);
        }

        @Override
        public void read(int index, MemorySegment memory, long at, int bytes) {
            if (index < gets) {
                MemorySegment.copy(memory, at, replyData, fill, bytes);
                fill += bytes;
                reached = index + 1;
            }
        }

        @Override
        public void refuseGet(int index, String cause) {
            if (index < gets) {
                send(firstGet + index, 1, 0, cause);
                reached = index + 1;
            } else {
                refuse(cause);
            }
        }

        /** After a batch's walk: refuses the gets it did not reach (cut short) and sends the data of the others. */
        void reply() {
            if (gets == 0) {
                return;
            }
            for (int i = reached; i < gets; i++) {
                send(firstGet + i, 1, 0, RmaWire.name(RmaWire.GET) + " in a batch cut short before it");
            }
            engine.sendRma(group[origin], RmaWire.REPLIES, context, tag, firstGet, 0, 0, gets, replyData, 0, fill);
            gets = 0;
        }

        private void send(long id, long batch, long number, String cause) {
            byte[] text = cause.getBytes(StandardCharsets.UTF_8);
            int length = Math.min(text.length, Math.min(1024, engine.maxRmaPayload(group[origin])));
            engine.sendRma(group[origin], RmaWire.REFUSED, context, tag, id, 0, batch, number,
                    MemorySegment.ofArray(text), 0, length);
        }
    }

    private MemorySegment scratch(long length) {
        if (scratch.byteSize() < length) {
            scratch = Arena.ofAuto().allocate(Math.max(length, 4096), 64);
        }
        return scratch;
    }

    /** Grants the waiting lock requests that can be, in order, as the shared-memory path would take them. */
    private void grantLocks() {
        for (int i = 0; i < locks.size(); i++) {
            LockRequest q = locks.get(i);
            boolean granted;
            if (q.exclusive) {
                // the word may have been released meanwhile, as a dead rank's (releaseDead): ask again
                q.wordHeld = q.wordHeld && own.exclusiveHolder() == q.origin || own.tryLockExclusive(q.origin);
                granted = q.wordHeld && own.sharedHolder(n) < 0;
            } else {
                own.raiseShared(q.origin);
                granted = own.exclusiveHolder() < 0;
                if (!granted) {
                    own.lowerShared(q.origin);
                }
            }
            if (granted) {
                locks.remove(i--);
                engine.sendRma(group[q.origin], RmaWire.GRANTED, context, tag, 0, 0, 0, 0, MemorySegment.NULL, 0, 0);
            }
        }
    }

    /**
     * Once per liveness interval while lock requests, records or replies wait: forgets the requests
     * and replies of origins known to have died and releases what dead ranks hold in this rank's area (a remote origin's
     * lock, taken here on its behalf, or a local peer's word), so the others' requests go on (ULFM:
     * a failure fails only the operations involving the failed rank). Slow path.
     */
    private void releaseDead() {
        lastDeadCheck = System.nanoTime();
        boolean changed = false;
        for (int i = locks.size() - 1; i >= 0; i--) {
            if (dead.test(locks.get(i).origin)) {
                locks.remove(i);
                changed = true;
            }
        }
        for (int o = 0; o < n && serving > 0; o++) {
            if (serveId[o] != 0 && dead.test(o)) {
                serveId[o] = 0;
                serving--;
                if (serveQueue[o] != null) {
                    serveQueue[o].clear();
                }
            }
        }
        if (own.releaseDead(n, dead) > 0 || changed) {
            wakeLocalPeers();
        }
    }

    private void wakeLocalPeers() {
        for (int r = 0; r < n; r++) {
            if (r != me && !remote[r]) {
                engine.wakeLocal(group[r]);
            }
        }
    }

    /** Tracked by the engine: retries what waits for a lock that local peers release by a store. */
    @Override
    public boolean poll() {
        if ((!locks.isEmpty() || !deferred.isEmpty() || serving > 0)
                && System.nanoTime() - lastDeadCheck > livenessNanos) {
            releaseDead();
        }
        if (!locks.isEmpty()) {
            grantLocks();
        }
        while (!deferred.isEmpty()) {
            Deferred d = deferred.peek();
            if (!apply(d.origin(), d.op(), d.handle(), d.peerHandle(), d.address(), d.total(),
                    MemorySegment.ofArray(d.data()), 0, d.data().length)) {
                break;
            }
            deferred.poll();
        }
        answer();
        if (serving > 0) {
            serveReplies();
        }
        return false;
    }

    /**
     * Sends the large replies owed, as far as the transport takes them now, each frame from the
     * window's memory where the transport can send it from there (it may read it again until
     * released: {@link #close} waits for that). A reply to an origin that has died is dropped by
     * {@link #releaseDead}.
     */
    private void serveReplies() {
        for (int o = 0; o < n; o++) {
            long id = serveId[o];
            if (id == 0) {
                continue;
            }
            int dest = group[o];
            int chunk = engine.maxRmaPayload(dest);
            long total = serveTotal[o];
            long done = serveDone[o];
            while (done < total) {
                int k = (int) Math.min(chunk, total - done);
                long mark = engine.trySendRmaInPlace(dest, RmaWire.REPLY, context, tag, id, 0, done, 0, memory,
                        serveFrom[o] + done, k);
                if (mark < 0) {
                    break;
                }
                served[o] = Math.max(served[o], mark);
                done += k;
            }
            serveDone[o] = done;
            if (done == total) {
                serveId[o] = 0;
                serving--;
                long[] next = serveQueue[o] == null ? null : serveQueue[o].poll();
                if (next != null) {
                    serve(o, next[0], next[1], next[2]);
                }
            }
        }
    }

    /** Starts sending a large get's reply to {@code origin} from the window's memory ({@link #serveReplies}). */
    private void serve(int origin, long id, long from, long total) {
        serveId[origin] = id;
        serveFrom[origin] = from;
        serveTotal[origin] = total;
        serveDone[origin] = 0;
        serving++;
    }

    @Override
    public void fail(TuttiException error) {
        // serving peers cannot fail this rank's calls: a bad record is refused to its origin
    }
}
