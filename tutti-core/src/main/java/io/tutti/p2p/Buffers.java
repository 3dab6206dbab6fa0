package io.tutti.p2p;

import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;

/**
 * Copies between user buffers (primitive arrays or segments) and shared memory without allocating:
 * arrays are copied element-wise by the {@link MemorySegment} bulk copies, which take the array itself
 * ({@link Memory}'s, which reach Tutti's own memory by address).
 */
final class Buffers {

    private Buffers() {
    }

    /** Element size of a primitive array, or 0 if it is not one Tutti accepts. */
    static int elementSize(Object array) {
        return switch (array) {
            case byte[] a -> 1;
            case short[] a -> 2;
            case char[] a -> 2;
            case int[] a -> 4;
            case float[] a -> 4;
            case long[] a -> 8;
            case double[] a -> 8;
            default -> 0;
        };
    }

    static MemorySegment ofArray(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not a primitive array: " + array.getClass());
        };
    }

    /** Copies {@code n} bytes of the buffer, from {@code at} bytes into it, to {@code dst}. */
    static void copyOut(Object array, MemorySegment segment, long at, MemorySegment dst, long dstOffset, long n) {
        if (n == 0) {
            return;
        }
        if (array == null) {
            Memory.copy(segment, at, dst, dstOffset, n);
            return;
        }
        switch (array) {
            case byte[] a -> Memory.store(a, (int) at, dst, dstOffset, (int) n);
            case int[] a when aligned(at, n, 4) -> Memory.store(a, (int) (at >> 2), dst, dstOffset, (int) (n >> 2));
            case long[] a when aligned(at, n, 8) -> Memory.store(a, (int) (at >> 3), dst, dstOffset, (int) (n >> 3));
            case double[] a when aligned(at, n, 8) -> Memory.store(a, (int) (at >> 3), dst, dstOffset, (int) (n >> 3));
            case float[] a when aligned(at, n, 4) -> Memory.store(a, (int) (at >> 2), dst, dstOffset, (int) (n >> 2));
            case short[] a when aligned(at, n, 2) -> Memory.store(a, (int) (at >> 1), dst, dstOffset, (int) (n >> 1));
            case char[] a when aligned(at, n, 2) -> Memory.store(a, (int) (at >> 1), dst, dstOffset, (int) (n >> 1));
            default -> Memory.copy(ofArray(array), at, dst, dstOffset, n);
        }
    }

    /** Copies {@code n} bytes from {@code src} into the buffer, {@code at} bytes into it. */
    static void copyIn(MemorySegment src, long srcOffset, Object array, MemorySegment segment, long at, long n) {
        if (n == 0) {
            return;
        }
        if (array == null) {
            Memory.copy(src, srcOffset, segment, at, n);
            return;
        }
        switch (array) {
            case byte[] a -> Memory.load(src, srcOffset, a, (int) at, (int) n);
            case int[] a when aligned(at, n, 4) -> Memory.load(src, srcOffset, a, (int) (at >> 2), (int) (n >> 2));
            case long[] a when aligned(at, n, 8) -> Memory.load(src, srcOffset, a, (int) (at >> 3), (int) (n >> 3));
            case double[] a when aligned(at, n, 8) -> Memory.load(src, srcOffset, a, (int) (at >> 3), (int) (n >> 3));
            case float[] a when aligned(at, n, 4) -> Memory.load(src, srcOffset, a, (int) (at >> 2), (int) (n >> 2));
            case short[] a when aligned(at, n, 2) -> Memory.load(src, srcOffset, a, (int) (at >> 1), (int) (n >> 1));
            case char[] a when aligned(at, n, 2) -> Memory.load(src, srcOffset, a, (int) (at >> 1), (int) (n >> 1));
            default -> Memory.copy(src, srcOffset, ofArray(array), at, n);
        }
    }

    private static boolean aligned(long at, long n, int size) {
        return ((at | n) & (size - 1)) == 0;
    }
}
