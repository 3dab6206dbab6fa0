package io.tutti.rma;

import io.tutti.p2p.RmaEndpoint;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The replies one origin waits for from one target across the network: a get's data, a fetching
 * accumulate's old values. Requests are numbered 1, 2, ... and request k holds slot k mod the
 * table's size until its owner takes it. Preallocated: opening and answering allocate nothing (but
 * for memory only the owner's thread may write, whose reply is stashed and copied over when taken).
 * Why a table: the gets of an epoch all travel at once and complete together at its flush, as MPI
 * allows, matched by number in whatever order they come back; a full table makes the next request
 * wait for the one holding its slot, the oldest.
 *
 * <p>Threads: the owner opens, asks and takes ({@link #open}, {@link #done}, {@link #allDone},
 * {@link #take}); whoever holds the engine answers ({@link #reply}, {@link #refuse}, {@link #note}).
 * The owner writes a slot before its request is sent (published by the engine's lock); an answer
 * writes the data, then the slot's completed number (release) and the count of answers (volatile);
 * the owner reads either (acquire, volatile) before the data (jcstress: {@code ReplyTableCompletion}).
 */
public final class ReplyTable {
    /** A thread that is no one's: memory it may access is not confined to the owner. */
    private static final Thread NO_OWNER = Thread.ofPlatform().unstarted(() -> { });

    private final int mask;
    /** Per slot: the number of the request that holds it, 0 when free (owner only). */
    private final long[] id;
    private final MemorySegment[] to;
    private final long[] toOffset;
    private final long[] expected;
    /** Per slot: bytes received (answering thread only). */
    private final long[] received;
    /** Per slot: the reply for memory the answering thread may not write, or null. */
    private final byte[][] stash;
    private final ByteBuffer[] view;
    private final String[] refusal;
    /** Per slot: the number of the request answered in it (release store, acquire load). */
    private final AtomicLongArray completed;
    /** Requests answered so far (volatile). */
    private final AtomicLong finished = new AtomicLong();
    /** The last number given, and how many requests were opened (owner only). */
    private long last;

    /** @param slots how many requests may wait for their replies at once: a power of two */
    public ReplyTable(int slots) {
        if (slots < 1 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("a reply table holds a power of two of slots, got " + slots);
        }
        this.mask = slots - 1;
        this.id = new long[slots];
        this.to = new MemorySegment[slots];
        this.toOffset = new long[slots];
        this.expected = new long[slots];
        this.received = new long[slots];
        this.stash = new byte[slots][];
        this.view = new ByteBuffer[slots];
        this.refusal = new String[slots];
        this.completed = new AtomicLongArray(slots);
    }

    // ------------------------------------------------------------ owner

    /** Plain: the request that holds the slot the next one needs, or 0 when it is free. */
    public long blocking() {
        return id[(int) (last + 1) & mask];
    }

    /**
     * Plain: opens the next request, whose reply of {@code length} bytes goes to {@code dst} at
     * {@code offset}; its slot must be free ({@link #blocking} 0). Returns its number.
     */
    public long open(MemorySegment dst, long offset, long length) {
        long k = ++last;
        int s = (int) k & mask;
        to[s] = dst;
        toOffset[s] = offset;
        expected[s] = length;
        received[s] = 0;
        refusal[s] = null;
        view[s] = null;
        stash[s] = dst.isAccessibleBy(NO_OWNER) ? null : new byte[(int) length];
        id[s] = k;
        return k;
    }

    /** The number of the last request opened (0: none). */
    public long last() {
        return last;
    }

    /** Acquire: whether request {@code k} has its reply (or refusal), or was taken already. */
    public boolean done(long k) {
        int s = (int) k & mask;
        return id[s] != k || completed.getAcquire(s) == k;
    }

    /** Volatile: whether every request opened has its reply (or refusal). */
    public boolean allDone() {
        return finished.get() == last;
    }

    /**
     * Ends request {@code k}, which is {@link #done}: copies a stashed reply over and frees the slot.
     * Returns the target's refusal of it, or null (also when it was taken already).
     */
    public String take(long k) {
        int s = (int) k & mask;
        if (id[s] != k) {
            return null;
        }
        byte[] b = stash[s];
        if (b != null && refusal[s] == null) {
            MemorySegment.copy(MemorySegment.ofArray(b), 0, to[s], toOffset[s], expected[s]);
        }
        String cause = refusal[s];
        stash[s] = null;
        to[s] = null;
        view[s] = null;
        refusal[s] = null;
        id[s] = 0;
        return cause;
    }

    // ------------------------------------------------------------ answering thread

    /** The bytes request {@code k} expects, or -1 when no such request waits. */
    public long expecting(long k) {
        int s = (int) k & mask;
        return id[s] == k && completed.getAcquire(s) != k ? expected[s] : -1;
    }

    /**
     * {@code length} bytes of request {@code k}'s reply, at {@code at} of it, from {@code data} (null:
     * they were received in place, {@link #place}); the last of them completes it. False when no
     * such request waits or the bytes lie outside its reply.
     */
    public boolean reply(long k, long at, MemorySegment data, long dataOffset, int length) {
        int s = (int) k & mask;
        if (id[s] != k || completed.getAcquire(s) == k || at < 0 || at + length > expected[s]) {
            return false;
        }
        if (data != null) {
            byte[] b = stash[s];
            if (b == null) {
                MemorySegment.copy(data, dataOffset, to[s], toOffset[s] + at, length);
            } else {
                MemorySegment.copy(data, dataOffset, MemorySegment.ofArray(b), at, length);
            }
        }
        received[s] += length;
        if (received[s] >= expected[s]) {
            complete(s, k);
        }
        return true;
    }

    /** Request {@code k} was refused with {@code cause}: complete, without data. */
    public void refuse(long k, String cause) {
        int s = (int) k & mask;
        if (id[s] == k && completed.getAcquire(s) != k) {
            refusal[s] = cause;
            complete(s, k);
        }
    }

    /** Request {@code k} was refused with {@code cause} but completes with the batch's replies that follow. */
    public void note(long k, String cause) {
        int s = (int) k & mask;
        if (id[s] == k && completed.getAcquire(s) != k) {
            refusal[s] = cause;
        }
    }

    /**
     * Completes request {@code k} if it was refused ({@link #note}), and says so: its batch's replies
     * carry no bytes of it.
     */
    public boolean finishRefused(long k) {
        int s = (int) k & mask;
        if (id[s] == k && completed.getAcquire(s) != k && refusal[s] != null) {
            complete(s, k);
            return true;
        }
        return false;
    }

    /**
     * Whether the next bytes of request {@code k}'s reply, {@code length} at {@code at}, may be
     * received straight into their destination (off-heap memory any thread may write, in order):
     * then {@code into} says where.
     */
    public boolean place(long k, long at, int length, RmaEndpoint.Landing into) {
        int s = (int) k & mask;
        MemorySegment dst = to[s];
        long total = expected[s];
        if (id[s] != k || completed.getAcquire(s) == k || dst == null || stash[s] != null || !dst.isNative()
                || at != received[s] || length > total - at || total > Integer.MAX_VALUE) {
            return false;
        }
        ByteBuffer v = view[s];
        if (v == null) {
            v = dst.asSlice(toOffset[s], total).asByteBuffer();
            view[s] = v;
        }
        v.limit((int) (at + length)).position((int) at);
        into.set(dst.address() + toOffset[s] + at, v);
        return true;
    }

    private void complete(int s, long k) {
        completed.setRelease(s, k);
        finished.incrementAndGet();
    }
}
