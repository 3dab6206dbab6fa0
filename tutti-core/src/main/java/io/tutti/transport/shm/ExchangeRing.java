package io.tutti.transport.shm;

import static io.tutti.transport.shm.ExchangeRingDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Single-producer, single-consumer ring of fixed-size chunks (layout in {@link ExchangeRingDescriptor}).
 *
 * <p>Producer side ({@link #tryAcquireSlot}, {@link #publish}) and consumer side ({@link #peekSlot},
 * {@link #release}) may each be used by one thread, in different processes. Publishing is a release
 * store of the tail; consuming reads it with an acquire load, and the reverse for the head.
 */
public final class ExchangeRing {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final int slots;
    private final int chunk;
    private final long slotLength;
    private final long tailAt;
    private final long headAt;
    private long tail;
    private long headCache;
    private long head;
    private long tailCache;

    /** Formats a freshly created (zeroed) ring. */
    public static void format(MemorySegment segment, int slots, int chunk) {
        long trailer = slots * slotLength(chunk);
        segment.set(ValueLayout.JAVA_INT, trailer + SLOTS_OFFSET, slots);
        segment.set(ValueLayout.JAVA_INT, trailer + CHUNK_OFFSET, chunk);
        VarHandle.releaseFence();
    }

    public ExchangeRing(MemorySegment segment) {
        this.segment = segment;
        long total = segment.byteSize();
        if (total < TRAILER_LENGTH) {
            throw new IllegalStateException("exchange ring of " + total + " bytes is shorter than its "
                    + TRAILER_LENGTH + "-byte trailer");
        }
        // the geometry is stored in the trailer, which sits at the end of the file
        long trailer = total - TRAILER_LENGTH;
        VarHandle.acquireFence();
        this.slots = segment.get(ValueLayout.JAVA_INT, trailer + SLOTS_OFFSET);
        this.chunk = segment.get(ValueLayout.JAVA_INT, trailer + CHUNK_OFFSET);
        if (slots < 2 || chunk <= 0 || chunk % 64 != 0 || slots * slotLength(chunk) != trailer) {
            throw new IllegalStateException("exchange ring of " + total + " bytes has a bad geometry: "
                    + slots + " slots of " + chunk + " bytes");
        }
        this.slotLength = slotLength(chunk);
        this.tailAt = trailer + TAIL_OFFSET;
        this.headAt = trailer + HEAD_OFFSET;
        this.tail = (long) LONG.getVolatile(segment, tailAt);
        this.head = (long) LONG.getVolatile(segment, headAt);
        this.headCache = head;
        this.tailCache = tail;
    }

    public MemorySegment segment() {
        return segment;
    }

    public int chunk() {
        return chunk;
    }

    /** Producer: offset of a free slot, or -1 if all are full. */
    public long tryAcquireSlot() {
        if (tail - headCache >= slots) {
            headCache = (long) LONG.getAcquire(segment, headAt);
            if (tail - headCache >= slots) {
                return -1;
            }
        }
        return (tail % slots) * slotLength;
    }

    /** Producer: fills the slot header and publishes the slot returned by {@link #tryAcquireSlot}. */
    public void publish(long slot, long handle, long offset, int length) {
        segment.set(ValueLayout.JAVA_LONG, slot + HANDLE_OFFSET, handle);
        segment.set(ValueLayout.JAVA_LONG, slot + OFFSET_OFFSET, offset);
        segment.set(ValueLayout.JAVA_INT, slot + LENGTH_OFFSET, length);
        LONG.setRelease(segment, tailAt, ++tail);
    }

    /** Consumer: offset of the oldest published slot, or -1 if none. */
    public long peekSlot() {
        if (head >= tailCache) {
            tailCache = (long) LONG.getAcquire(segment, tailAt);
            if (head >= tailCache) {
                return -1;
            }
        }
        return (head % slots) * slotLength;
    }

    public long slotHandle(long slot) {
        return segment.get(ValueLayout.JAVA_LONG, slot + HANDLE_OFFSET);
    }

    public long slotOffset(long slot) {
        return segment.get(ValueLayout.JAVA_LONG, slot + OFFSET_OFFSET);
    }

    public int slotDataLength(long slot) {
        return segment.get(ValueLayout.JAVA_INT, slot + LENGTH_OFFSET);
    }

    public static long dataOffset(long slot) {
        return slot + SLOT_HEADER_LENGTH;
    }

    /** Consumer: frees the slot returned by {@link #peekSlot}. */
    public void release() {
        LONG.setRelease(segment, headAt, ++head);
    }
}
