package io.tutti.transport.shm;

import io.tutti.os.Futex;
import io.tutti.os.Memory;
import static io.tutti.transport.shm.InboundRingDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Multi-producer, single-consumer ring of variable-length records over shared memory
 * (layout in {@link InboundRingDescriptor}).
 *
 * <p>Producers: {@link #tryClaim} reserves space with a CAS on the tail, the caller writes the body,
 * then {@link #commit} publishes it with a release store of the stamp. Producers may run in any
 * process or thread. Consumer: {@link #read} is called by one thread only; it reads stamps with
 * acquire loads and hands each body to the handler in place; {@link #release} later clears the space
 * and hands it back by a release store of the head.
 */
public final class InboundRing {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /**
     * Receives one record body, in place, as {@code (segment, bodyOffset)}: the ring's
     * {@link #via()} and an offset in it, so by address in {@link Memory#ALL} for a native ring. It
     * must not keep a reference past the call, nor read outside the body.
     */
    @FunctionalInterface
    public interface RecordHandler {
        void onRecord(MemorySegment segment, long bodyOffset, int bodyLength);

        /**
         * A compact record ({@link CompactRecordDescriptor}) of {@code type} {@code TYPE_EAGER} or
         * {@code TYPE_OFFLOAD}. Only rings that local peers write hold them; a handler for any other
         * ring (an outbox drained to the network) never sees one.
         */
        default void onCompact(int type, MemorySegment segment, long bodyOffset, int bodyLength) {
            throw new IllegalStateException("a compact record in a ring whose handler does not take them");
        }
    }

    private final MemorySegment segment;
    /**
     * The ring through {@link Memory}: the hot paths reach it by address in {@link Memory#ALL} when
     * {@code direct}, and offsets in {@link #via()} are {@code base} + offsets in the segment.
     */
    private final boolean direct;
    private final MemorySegment via;
    private final long base;
    private final int capacity;
    private final int mask;
    private final int maxBodyLength;
    private final long tailAt;
    private final long headCacheAt;
    private final long headAt;
    private final long doorbellAt;
    /** Whether the consumer may sleep on the doorbell, read once: then every commit checks it. */
    private final boolean consumerSleeps;
    private final long cpuAt;
    /** Consumer only: everything before this position has been read. */
    private long head;
    /** Consumer only: everything before this position has been cleared and handed back. */
    private long released;
    /** Read but unreleased bytes beyond which {@link #read} releases at once. */
    private final int releaseThreshold;

    public InboundRing(MemorySegment segment) {
        long capacityLong = segment.byteSize() - TRAILER_LENGTH;
        if (capacityLong <= 0 || capacityLong > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes is not an inbound ring");
        }
        this.capacity = (int) capacityLong;
        checkCapacity(capacity);
        this.segment = segment;
        this.via = Memory.via(segment);
        this.base = Memory.base(segment);
        this.direct = via == Memory.ALL;
        this.mask = capacity - 1;
        this.maxBodyLength = capacity / 4 - RECORD_HEADER_LENGTH;
        this.tailAt = capacity + TAIL_POSITION_OFFSET;
        this.headCacheAt = capacity + HEAD_CACHE_POSITION_OFFSET;
        this.headAt = capacity + HEAD_POSITION_OFFSET;
        this.doorbellAt = capacity + DOORBELL_OFFSET;
        this.cpuAt = capacity + CPU_OFFSET;
        this.consumerSleeps = (int) INT.getVolatile(segment, (long) capacity + SLEEPS_OFFSET) != 0;
        this.head = (long) LONG.getVolatile(segment, headAt);
        this.released = head;
        this.releaseThreshold = capacity / 8;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** The segment to write claimed records through, at {@link #bodyAt}: {@link Memory#ALL} or {@link #segment()}. */
    public MemorySegment via() {
        return via;
    }

    /** Offset in {@link #via()} of the body of the record claimed at {@code position}. */
    public long bodyAt(long position) {
        return base + bodyOffset(position);
    }

    // The accessors of the hot paths: by address through the constant Memory.ALL when direct.

    private long getLongAcquire(long offset) {
        return direct ? (long) LONG.getAcquire(Memory.ALL, base + offset) : (long) LONG.getAcquire(segment, offset);
    }

    private long getLongVolatile(long offset) {
        return direct ? (long) LONG.getVolatile(Memory.ALL, base + offset) : (long) LONG.getVolatile(segment, offset);
    }

    private long getLongOpaque(long offset) {
        return direct ? (long) LONG.getOpaque(Memory.ALL, base + offset) : (long) LONG.getOpaque(segment, offset);
    }

    private void setLongRelease(long offset, long value) {
        if (direct) {
            LONG.setRelease(Memory.ALL, base + offset, value);
        } else {
            LONG.setRelease(segment, offset, value);
        }
    }

    private void setLongPlain(long offset, long value) {
        if (direct) {
            Memory.ALL.set(ValueLayout.JAVA_LONG, base + offset, value);
        } else {
            segment.set(ValueLayout.JAVA_LONG, offset, value);
        }
    }

    private void setLongOpaque(long offset, long value) {
        if (direct) {
            LONG.setOpaque(Memory.ALL, base + offset, value);
        } else {
            LONG.setOpaque(segment, offset, value);
        }
    }

    private boolean casLong(long offset, long expected, long value) {
        return direct ? LONG.compareAndSet(Memory.ALL, base + offset, expected, value)
                : LONG.compareAndSet(segment, offset, expected, value);
    }

    private int getInt(long offset) {
        return direct ? Memory.ALL.get(ValueLayout.JAVA_INT, base + offset) : segment.get(ValueLayout.JAVA_INT, offset);
    }

    private void setInt(long offset, int value) {
        if (direct) {
            Memory.ALL.set(ValueLayout.JAVA_INT, base + offset, value);
        } else {
            segment.set(ValueLayout.JAVA_INT, offset, value);
        }
    }

    public int capacity() {
        return capacity;
    }

    /** The largest body one record may carry (a quarter of the capacity, so producers never starve). */
    public int maxBodyLength() {
        return maxBodyLength;
    }

    /**
     * Reserves a record for a body of {@code bodyLength} bytes. Thread-safe (CAS on the tail).
     *
     * @return the record's position, or -1 if the ring has no room now; the body starts at
     *     {@link #bodyOffset(long)}
     */
    public long tryClaim(int bodyLength) {
        return tryClaim(bodyLength, TYPE_MESSAGE);
    }

    /** As {@link #tryClaim(int)}, for a record of {@code type} ({@code TYPE_MESSAGE}, {@code TYPE_EAGER} or {@code TYPE_OFFLOAD}). */
    public long tryClaim(int bodyLength, int type) {
        if (bodyLength < 0 || bodyLength > maxBodyLength) {
            throw new IllegalArgumentException("record body of " + bodyLength + " bytes exceeds the ring's limit of "
                    + maxBodyLength + " bytes");
        }
        final int recordLength = RECORD_HEADER_LENGTH + bodyLength;
        final int required = align(recordLength);
        long headCache = getLongOpaque(headCacheAt);
        long tail;
        int padding;
        do {
            tail = getLongVolatile(tailAt);
            final int tailIndex = (int) tail & mask;
            final int toEnd = capacity - tailIndex;
            padding = required > toEnd ? toEnd : 0;
            final long needed = (long) required + padding;
            if (needed > capacity - (tail - headCache)) {
                headCache = getLongVolatile(headAt);
                if (needed > capacity - (tail - headCache)) {
                    return -1;
                }
                setLongOpaque(headCacheAt, headCache);
            }
        } while (!casLong(tailAt, tail, tail + padding + required));

        if (padding != 0) {
            final long at = tail & mask;
            setInt(at + LENGTH_OFFSET, padding);
            setInt(at + TYPE_OFFSET, TYPE_PADDING);
            setLongRelease(at + STAMP_OFFSET, stampOf(tail));
            tail += padding;
        }
        final long at = tail & mask;
        setInt(at + LENGTH_OFFSET, recordLength);
        setInt(at + TYPE_OFFSET, type);
        return tail;
    }

    /** Offset in {@link #segment()} of the body of the record claimed at {@code position}. */
    public long bodyOffset(long position) {
        return (position & mask) + RECORD_HEADER_LENGTH;
    }

    /**
     * Publishes a claimed record: release store of its stamp, after the body writes; then, if the
     * consumer may sleep, a full fence and a look at its doorbell, so that a consumer that went to
     * sleep just before is woken (the consumer fences between arming the doorbell and its last look).
     */
    public void commit(long position) {
        setLongRelease((position & mask) + STAMP_OFFSET, stampOf(position));
        wakeConsumer();
    }

    /**
     * Wakes the consumer if it sleeps on its doorbell: after the caller's release store of what the
     * consumer waits for, a full fence and a look at the doorbell, so that a consumer that armed it
     * just before (and fenced before its last look at its condition) is woken. Nothing when the
     * consumer may not sleep.
     */
    public void wakeConsumer() {
        if (consumerSleeps) {
            VarHandle.fullFence();
            if ((int) INT.getVolatile(segment, doorbellAt) != 0 && INT.compareAndSet(segment, doorbellAt, 1, 0)) {
                Futex.wake(segment, doorbellAt, Integer.MAX_VALUE);
            }
        }
    }

    /**
     * Consumer only: notes the processor it is waiting on. Opaque: a hint that orders nothing, read
     * by peers deciding whether to spin ({@link #lastCpu()}).
     */
    public void publishCpu(int cpu) {
        INT.setOpaque(segment, cpuAt, cpu + 1);
    }

    /** Any thread: the processor the consumer last waited on, -1 if none yet (opaque read of the hint). */
    public int lastCpu() {
        return (int) INT.getOpaque(segment, cpuAt) - 1;
    }

    /** Consumer only: it has closed Tutti cleanly. A volatile store, after everything it sent. */
    public void markClosed() {
        INT.setVolatile(segment, (long) capacity + CLOSED_OFFSET, 1);
    }

    /** Any thread: whether the consumer closed Tutti cleanly (a volatile read). */
    public boolean closedCleanly() {
        return (int) INT.getVolatile(segment, (long) capacity + CLOSED_OFFSET) != 0;
    }

    /**
     * Marks a ring, before any producer maps it, as one whose consumer may sleep on its doorbell
     * (its producers then check the doorbell on every commit).
     */
    public static void allowSleep(MemorySegment segment) {
        INT.setVolatile(segment, segment.byteSize() - TRAILER_LENGTH + SLEEPS_OFFSET, 1);
    }

    /**
     * Consumer only: sleeps until a producer commits a record, at most {@code timeoutNanos}, unless a
     * record is there already. Needs a ring marked with {@link #allowSleep} and {@link Futex#available()}.
     */
    public void sleep(long timeoutNanos) {
        sleep(timeoutNanos, null);
    }

    /**
     * As {@link #sleep(long)}, and not at all if {@code awake} says true after the doorbell is
     * armed: a condition other than a record (e.g. a slot stamp) whose writer calls
     * {@link #wakeConsumer()} after it.
     */
    public void sleep(long timeoutNanos, java.util.function.BooleanSupplier awake) {
        INT.setVolatile(segment, doorbellAt, 1);
        VarHandle.fullFence();
        if (!hasRecord() && (awake == null || !awake.getAsBoolean())) {
            Futex.await(segment, doorbellAt, 1, timeoutNanos);
        }
        INT.setVolatile(segment, doorbellAt, 0);
    }

    /**
     * Consumer only: hands up to {@code limit} visible records to the handler in ring order. Their
     * space is released later, by {@link #release()} or once a sizeable part of the ring is held,
     * so that clearing it does not delay the delivery of a message.
     *
     * @return the number of messages handled
     */
    public int read(RecordHandler handler, int limit) {
        long position = head;
        int handled = 0;
        try {
            while (handled < limit) {
                final long at = position & mask;
                if (getLongAcquire(at + STAMP_OFFSET) != stampOf(position)) {
                    break;
                }
                final int length = getInt(at + LENGTH_OFFSET);
                final int type = getInt(at + TYPE_OFFSET);
                if (length < RECORD_HEADER_LENGTH || length > capacity - at) {
                    throw new IllegalStateException("inbound ring corrupt at position " + position + ": length " + length);
                }
                // advance first so that a handler which throws does not see the record again
                position += align(length);
                head = position;
                if (type == TYPE_EAGER || type == TYPE_OFFLOAD) {
                    handled++;
                    handler.onCompact(type, via, base + at + RECORD_HEADER_LENGTH, length - RECORD_HEADER_LENGTH);
                } else if (type == TYPE_MESSAGE) {
                    handled++;
                    handler.onRecord(via, base + at + RECORD_HEADER_LENGTH, length - RECORD_HEADER_LENGTH);
                }
            }
        } finally {
            if (head - released > releaseThreshold) {
                release();
            }
        }
        return handled;
    }

    /**
     * Consumer only: clears the space of the records read so far and hands it back to the
     * producers (release store of the head). Cheap when there is nothing to release; the engine
     * calls it whenever it is idle.
     *
     * @return whether anything was released
     */
    public boolean release() {
        final long from = released;
        final long to = head;
        if (from == to) {
            return false;
        }
        // A later record may start at any 64-byte line of this space, and stale bytes there (a
        // payload, say) must never read as that record's stamp: the stamp word of every line is
        // cleared, and only it (a whole-space memset wrote eight times the bytes; docs/perf/p2p.md).
        for (long p = from; p < to; p += ALIGNMENT) {
            setLongPlain((p & mask) + STAMP_OFFSET, 0L);
        }
        released = to;
        setLongRelease(headAt, to);
        return true;
    }

    /** The stamp of a record at {@code position}: never 0, so fresh zeroed memory holds no record. */
    static long stampOf(long position) {
        return ~position;
    }

    /** Consumer only: whether a record is visible at the head. */
    public boolean hasRecord() {
        return getLongAcquire((head & mask) + STAMP_OFFSET) == stampOf(head);
    }
}
