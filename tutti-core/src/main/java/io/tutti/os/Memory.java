package io.tutti.os;

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

    // Array copies, one small method per element type: each then compiles to the JDK's copy with a
    // constant layout and array class, and inlines at its callers. (One generic method taking the
    // layout and an Object array compiled to the slow, generic copy and was not inlined: 27 ns
    // instead of 2 for one element.) Elements in native byte order, without alignment.

    /** {@code count} bytes from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, byte[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_BYTE, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOffset, array, index, count);
        }
    }

    /** {@code count} bytes from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(byte[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_BYTE, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_BYTE, dstOffset, count);
        }
    }

    /** {@code count} shorts from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, short[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_SHORT_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_SHORT_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} shorts from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(short[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_SHORT_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_SHORT_UNALIGNED, dstOffset, count);
        }
    }

    /** {@code count} chars from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, char[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_CHAR_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_CHAR_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} chars from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(char[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_CHAR_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_CHAR_UNALIGNED, dstOffset, count);
        }
    }

    /** {@code count} ints from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, int[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_INT_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_INT_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} ints from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(int[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_INT_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_INT_UNALIGNED, dstOffset, count);
        }
    }

    /** {@code count} longs from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, long[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_LONG_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_LONG_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} longs from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(long[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_LONG_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_LONG_UNALIGNED, dstOffset, count);
        }
    }

    /** {@code count} floats from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, float[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_FLOAT_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_FLOAT_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} floats from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(float[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_FLOAT_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_FLOAT_UNALIGNED, dstOffset, count);
        }
    }

    /** {@code count} doubles from {@code src} at {@code srcOffset} into {@code array} from {@code index}. */
    public static void load(MemorySegment src, long srcOffset, double[] array, int index, int count) {
        if (src == ALL) {
            MemorySegment.copy(ALL, ValueLayout.JAVA_DOUBLE_UNALIGNED, srcOffset, array, index, count);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_DOUBLE_UNALIGNED, srcOffset, array, index, count);
        }
    }

    /** {@code count} doubles from {@code array} at {@code index} into {@code dst} from {@code dstOffset}. */
    public static void store(double[] array, int index, MemorySegment dst, long dstOffset, int count) {
        if (dst == ALL) {
            MemorySegment.copy(array, index, ALL, ValueLayout.JAVA_DOUBLE_UNALIGNED, dstOffset, count);
        } else {
            MemorySegment.copy(array, index, dst, ValueLayout.JAVA_DOUBLE_UNALIGNED, dstOffset, count);
        }
    }
}
