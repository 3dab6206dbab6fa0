package io.tutti.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native memory that Tutti owns (rings, slot areas, collective scratch), reached by address through
 * one segment that spans the address space, {@link #ALL}, instead of through the segments it was
 * mapped or allocated as.
 *
 * <h2>Why</h2>
 * The JDK's segment accessors dispatch on the segment's class. A rank touches user arrays of
 * several element types, mapped files and native buffers, so those dispatches see many classes and
 * become virtual calls: an 8-byte {@link MemorySegment#copy} took 9–15 ns (JDK 25, x86-64, measured
 * with six segment classes in play). Through {@link #ALL}, which the JIT knows as a constant, the
 * same copy takes about 2 ns, and 4.5 ns when the other side is a user's segment. Collectives of a
 * few bytes make several such copies on their critical path.
 *
 * <h2>Convention</h2>
 * A region of owned native memory is passed as {@code (ALL, address)} wherever a
 * {@code (segment, offset)} pair is expected; {@link #copy} then takes the constant path for each
 * side that is {@link #ALL}. {@link #via} and {@link #base} resolve a segment once, when it is
 * created or mapped. Accesses through {@link #ALL} are not checked against the region's bounds or
 * lifetime: the owner checks offsets against its region and keeps the region mapped while any
 * address into it is in use. User buffers are never resolved this way, so that a user's closed
 * arena still fails with the JDK's error rather than a fault.
 *
 * <p>{@link #ALL} is null where native access is denied; {@link #via} then returns the segment
 * itself and every copy takes the checked path.
 */
public final class Memory {
    /** Every address, as one native segment; null where native access is denied. */
    public static final MemorySegment ALL = all();

    private Memory() {
    }

    private static MemorySegment all() {
        try {
            return MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
        } catch (IllegalCallerException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** The segment to reach {@code owned} through: {@link #ALL} for native memory, else {@code owned}. */
    public static MemorySegment via(MemorySegment owned) {
        return ALL != null && owned.isNative() ? ALL : owned;
    }

    /** The offset in {@link #via via(owned)} of {@code owned}'s first byte. */
    public static long base(MemorySegment owned) {
        return ALL != null && owned.isNative() ? owned.address() : 0;
    }

    /**
     * {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)}, with the constant
     * path for each side that is {@link #ALL}.
     */
    public static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes) {
        if (src == ALL) {
            if (dst == ALL) {
                MemorySegment.copy(ALL, srcOffset, ALL, dstOffset, bytes);
            } else {
                MemorySegment.copy(ALL, srcOffset, dst, dstOffset, bytes);
            }
        } else if (dst == ALL) {
            MemorySegment.copy(src, srcOffset, ALL, dstOffset, bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    /**
     * {@link MemorySegment#copy(MemorySegment, ValueLayout, long, Object, int, int)}, with the
     * constant path when {@code src} is {@link #ALL}.
     */
    public static void load(MemorySegment src, ValueLayout layout, long srcOffset, Object array, int index,
                            int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, layout, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, layout, srcOffset, array, index, count);
        }
    }

    /**
     * {@link MemorySegment#copy(Object, int, MemorySegment, ValueLayout, long, int)}, with the
     * constant path when {@code dst} is {@link #ALL}.
     */
    public static void store(Object array, int index, MemorySegment dst, ValueLayout layout, long dstOffset,
                             int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, layout, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, layout, dstOffset, count);
        }
    }
}
