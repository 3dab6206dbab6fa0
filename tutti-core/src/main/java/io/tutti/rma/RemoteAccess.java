package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import io.tutti.p2p.RmaEndpoint;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;

/**
 * A window's operations with the ranks it reaches over the network, both sides. As origin it sends
 * each operation as RMA records ({@link RmaWire}) and counts the answers ({@link Answers}: one
 * cumulative ACK per origin and progress pass), so a flush waits for the target to have applied
 * everything; a get, fetching accumulate or compare-and-swap waits for its
 * reply in the call. As target it is the window's {@link RmaEndpoint}: records are applied where
 * they arrive (the progress agent, or the owner's own calls), into the same memory and under the
 * same lock words of the window area as local peers use, so passive-target operations need no call
 * by the target's application. A lock a rank that has died holds here is released once someone waits
 * for it ({@link WindowArea#releaseDead}).
 *
 * <p>Threads: the origin side is the owner's; the target side runs on whoever holds the engine.
 * What one side writes and the other reads (answers, grants, posts, completes) is in atomic arrays
 * (volatile reads and writes); the reply buffer is handed over through the engine's lock.
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
    /** Records numbered per target as origin, applied and answered per origin as target. */
    private final Answers answers;
    private final AtomicLongArray grants;
    private final long[] grantsTaken;
    private final AtomicLongArray posts;
    private final AtomicLongArray completes;
    private final Waiting waiting = new Waiting();
    /** The reply the owner waits for: its id, where it goes, how much of it has come. */
    private volatile long replyId;
    private MemorySegment replyTo;
    private long replyOffset;
    private long replyExpected;
    private volatile long replyReceived;
    /**
     * Where replies go when the result is in memory only the owner's thread may touch (a confined
     * arena's), which the progress agent may be the one to receive: the owner copies it over after.
     */
    private byte[] replyStash;
    /** A thread that is no one's: memory it may access is not confined to the owner. */
    private static final Thread NO_OWNER = Thread.ofPlatform().unstarted(() -> { });
    private final MemorySegment pair = Arena.ofAuto().allocate(64, 16);
    /** Target side: records that found the accumulate lock taken, or others before them, in order. */
    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
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

    RemoteAccess(Engine engine, int context, int tag, int[] group, int me, boolean[] remote, WindowArea own,
                 MemorySegment memory) {
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

    /** Stops serving, after the closing barrier: no peer accesses this window any more. */
    void close() {
        engine.untrack(this);
        engine.unregisterRma(context, tag);
    }

    // ------------------------------------------------------------ origin side

    void put(MemorySegment src, long srcOffset, int target, long at, long length) {
        int chunk = engine.maxRmaPayload(group[target]);
        for (long done = 0; done < length; ) {
            int k = (int) Math.min(chunk, length - done);
            send(target, RmaWire.PUT, 0, 0, at + done, answers.next(target), src, srcOffset + done, k);
            done += k;
        }
    }

    void get(MemorySegment dst, long dstOffset, int target, long at, long length) {
        expectReply(dst, dstOffset, length);
        send(target, RmaWire.GET, replyId, 0, at, length, MemorySegment.NULL, 0, 0);
        await(Waiting.REPLY, target);
        takeReply();
    }

    void accumulate(MemorySegment origin, long originOffset, MemorySegment result, long resultOffset, long count,
                    Datatype type, int target, long at, AccumulateOp op) {
        long length = count * type.extent();
        int chunk = engine.maxRmaPayload(group[target]) / type.extent() * type.extent();
        if (result == null) {
            if (op == AccumulateOp.NO_OP) {
                return;
            }
            for (long done = 0; done < length; ) {
                int k = (int) Math.min(chunk, length - done);
                send(target, RmaWire.ACC, 0, RmaWire.accumulate(k, type, op), at + done, answers.next(target),
                        origin, originOffset + done, k);
                done += k;
            }
            return;
        }
        expectReply(result, resultOffset, length);
        for (long done = 0; done < length; ) {
            int k = (int) Math.min(chunk, length - done);
            boolean data = op != AccumulateOp.NO_OP;
            send(target, RmaWire.GET_ACC, replyId, RmaWire.accumulate(k, type, op), at + done, done,
                    data ? origin : MemorySegment.NULL, data ? originOffset + done : 0, data ? k : 0);
            done += k;
        }
        await(Waiting.REPLY, target);
        takeReply();
    }

    void compareAndSwap(MemorySegment origin, MemorySegment compare, MemorySegment result, Datatype type, int target,
                        long at) {
        int length = type.extent();
        MemorySegment.copy(origin, 0, pair, 0, length);
        MemorySegment.copy(compare, 0, pair, length, length);
        expectReply(result, 0, length);
        send(target, RmaWire.CAS, replyId, RmaWire.accumulate(length, type, AccumulateOp.REPLACE), at, 0, pair, 0,
                2 * length);
        await(Waiting.REPLY, target);
        takeReply();
    }

    /** Returns once {@code target} has applied every operation this rank sent it (volatile reads of the answers). */
    void flush(int target) {
        if (!answers.complete(target)) {
            await(Waiting.ACKS, target);
        }
    }

    void flushAll() {
        for (int t = 0; t < n; t++) {
            if (remote[t]) {
                flush(t);
            }
        }
    }

    void lock(boolean exclusive, int target) {
        send(target, RmaWire.LOCK, 0, exclusive ? 1 : 0, 0, 0, MemorySegment.NULL, 0, 0);
        await(Waiting.GRANT, target);
        grantsTaken[target]++;
    }

    /** Completes the epoch's operations at {@code target}, then releases its lock. */
    void unlock(boolean exclusive, int target) {
        flush(target);
        send(target, RmaWire.UNLOCK, 0, exclusive ? 1 : 0, 0, 0, MemorySegment.NULL, 0, 0);
    }

    void post(int origin) {
        send(origin, RmaWire.POST, 0, 0, 0, 0, MemorySegment.NULL, 0, 0);
    }

    /** Completes the access epoch's operations at {@code target}, then tells it so. */
    void complete(int target) {
        flush(target);
        send(target, RmaWire.COMPLETE, 0, 0, 0, 0, MemorySegment.NULL, 0, 0);
    }

    /** Volatile read: exposure epochs remote rank {@code r} has posted to this one. */
    long posts(int r) {
        return posts.get(r);
    }

    /** Volatile read: access epochs remote rank {@code r} has completed on this one. */
    long completes(int r) {
        return completes.get(r);
    }

    /**
     * Owner, before the request goes out: plain writes of where the reply goes, published to the
     * thread that receives it by the engine's lock, which the send and the arrival path both take.
     */
    private void expectReply(MemorySegment dst, long offset, long length) {
        replyTo = dst;
        replyOffset = offset;
        replyExpected = length;
        replyReceived = 0;
        replyStash = dst.isAccessibleBy(NO_OWNER) ? null : new byte[(int) length];
        replyId = replyId + 1;
    }

    /** The owner's part of a reply that came to another thread while its memory is the owner's only. */
    private void takeReply() {
        byte[] stash = replyStash;
        if (stash != null) {
            MemorySegment.copy(MemorySegment.ofArray(stash), 0, replyTo, replyOffset, replyExpected);
            replyStash = null;
        }
        replyTo = null;
    }

    private void send(int target, short op, long handle, long peerHandle, long address, long total,
                      MemorySegment payload, long offset, int length) {
        if (!engine.trySendRma(group[target], op, context, tag, handle, peerHandle, address, total, payload, offset,
                length)) {
            waiting.sending(op, handle, peerHandle, address, total, payload, offset, length);
            await(Waiting.SEND, target);
            waiting.payload = null;
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

    /** The origin's one wait, reused: for room to send, answers, a reply or a grant from one target. */
    private final class Waiting implements Engine.Task {
        static final int SEND = 0;
        static final int ACKS = 1;
        static final int REPLY = 2;
        static final int GRANT = 3;

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

        void sending(short op, long handle, long peerHandle, long address, long total, MemorySegment payload,
                     long offset, int length) {
            this.op = op;
            this.handle = handle;
            this.peerHandle = peerHandle;
            this.address = address;
            this.total = total;
            this.payload = payload;
            this.offset = offset;
            this.length = length;
        }

        @Override
        public boolean poll() {
            if (error != null) {
                throw error;
            }
            return switch (kind) {
                case SEND -> engine.trySendRma(group[target], op, context, tag, handle, peerHandle, address, total,
                        payload, offset, length);
                case ACKS -> answers.complete(target);
                case REPLY -> replyReceived >= replyExpected;
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
                return onReply(handle, address, data, dataOffset, length);
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
            case RmaWire.PUT, RmaWire.GET, RmaWire.ACC, RmaWire.GET_ACC, RmaWire.CAS -> {
                if (!valid(op, peerHandle, address, total, length)) {
                    return false;
                }
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

    /** Arrival path: copies a reply, then a volatile write of the bytes received, which the owner's wait reads. */
    private boolean onReply(long id, long at, MemorySegment data, long dataOffset, int length) {
        if (id != replyId || at < 0 || at + length > replyExpected || replyTo == null) {
            return false;
        }
        if (replyStash == null) {
            MemorySegment.copy(data, dataOffset, replyTo, replyOffset + at, length);
        } else {
            MemorySegment.copy(data, dataOffset, MemorySegment.ofArray(replyStash), at, length);
        }
        replyReceived = replyReceived + length;
        return true;
    }

    /** Whether a data record's fields lie in this rank's window and name a type and operation. */
    private boolean valid(int op, long peerHandle, long address, long total, int length) {
        long bytes = switch (op) {
            case RmaWire.GET -> total;
            case RmaWire.ACC, RmaWire.GET_ACC -> RmaWire.bytes(peerHandle);
            case RmaWire.CAS -> length / 2;
            default -> length;
        };
        if (address < 0 || bytes < 0 || address > memory.byteSize() - bytes) {
            return false;
        }
        if (op == RmaWire.ACC || op == RmaWire.GET_ACC || op == RmaWire.CAS) {
            Datatype type = RmaWire.type(peerHandle);
            AccumulateOp aop = RmaWire.op(peerHandle);
            if (type == null || aop == null || bytes % type.extent() != 0) {
                return false;
            }
            boolean data = op == RmaWire.CAS || aop != AccumulateOp.NO_OP || op == RmaWire.ACC;
            if (data && length != (op == RmaWire.CAS ? 2 * bytes : bytes)) {
                return false;
            }
            try {
                aop.check(type);
            } catch (TuttiException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * Applies one checked data record and answers it; false, doing nothing, when it needs the
     * accumulate lock and a local peer holds it (then it waits, in order, for {@link #poll}).
     */
    private boolean apply(int origin, short op, long handle, long peerHandle, long address, long total,
                          MemorySegment data, long dataOffset, int length) {
        int dest = group[origin];
        switch (op) {
            case RmaWire.PUT -> {
                MemorySegment.copy(data, dataOffset, memory, address, length);
                answers.applied(origin, total);
            }
            case RmaWire.GET -> {
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
     * Once per liveness interval while lock requests or records wait: forgets the requests of origins
     * known to have died and releases what dead ranks hold in this rank's area (a remote origin's
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
        if ((!locks.isEmpty() || !deferred.isEmpty()) && System.nanoTime() - lastDeadCheck > livenessNanos) {
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
        return false;
    }

    @Override
    public void fail(TuttiException error) {
        // serving peers cannot fail this rank's calls: a bad record was dropped where it came
    }
}
