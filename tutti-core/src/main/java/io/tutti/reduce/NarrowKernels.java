package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;

/**
 * The kernels of byte, short and char, {@code d[i] = s[i] op d[i]}, driven as {@link FloatingKernels}
 * are. They use plain conditionals, for logic and for MAX/MIN alike: C2 (JDK 25, AVX-512) vectorises
 * the branch-free and Math.max forms on these narrow lanes into code that ran 10 to 20 times slower
 * than scalar code on the development machine (5 ns per byte instead of 0.3). LAND, LOR and LXOR go
 * through long lanes instead ({@link #logicalLanes}).
 */
final class NarrowKernels {
    private NarrowKernels() {
    }

    static void bytes(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                      long srcOffset, long n) {
        byte[] d = scratch.bytes0();
        byte[] s = scratch.bytes1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            Memory.load(dst, dstOffset + done, d, 0, m);
            Memory.load(src, srcOffset + done, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case BAND -> band(d, s, m);
                case BOR -> bor(d, s, m);
                case BXOR -> bxor(d, s, m);
                default -> throw new AssertionError(op); // logic went to logicalLanes
            }
            Memory.store(d, 0, dst, dstOffset + done, m);
            done += m;
        }
    }

    static void shorts(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                       long srcOffset, long n) {
        short[] d = scratch.shorts0();
        short[] s = scratch.shorts1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Short.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case MAXLOC -> LocationKernels.maxloc(d, s, m);
                case MINLOC -> LocationKernels.minloc(d, s, m);
                case BAND -> band(d, s, m);
                case BOR -> bor(d, s, m);
                case BXOR -> bxor(d, s, m);
                default -> throw new AssertionError(op); // logic went to logicalLanes
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    static void chars(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                      long srcOffset, long n) {
        char[] d = scratch.chars0();
        char[] s = scratch.chars1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Character.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            if (op == ReduceOp.MAX) {
                max(d, s, m);
            } else {
                min(d, s, m);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    /**
     * LAND, LOR and LXOR on bytes and shorts, eight or four lanes to a long: C2 vectorises long lanes
     * well, but its vector code for these operations on byte and short lanes ran 10 to 20 times slower
     * than scalar code on the development machine (JDK 25, AVX-512).
     */
    static void logicalLanes(ReduceOp op, int laneBytes, KernelScratch scratch, MemorySegment dst, long dstOffset,
                             MemorySegment src, long srcOffset, long bytes) {
        long[] d = scratch.longs0();
        long[] s = scratch.longs1;
        // all bits of each lane but its top one; the top bit of ((x & low) + low | x) is then set exactly
        // when the lane is non-zero, and the addition never carries into the next lane
        long low = laneBytes == 1 ? 0x7F7F_7F7F_7F7F_7F7FL : 0x7FFF_7FFF_7FFF_7FFFL;
        int shift = laneBytes * 8 - 1;
        for (long done = 0; done < bytes; ) {
            int m = (int) Math.min(Reduction.CHUNK_BYTES, bytes - done);
            // byte copies through views of the long arrays, since a chunk need not be whole longs;
            // the lanes past m in the last long are computed on stale bytes and never copied back
            Memory.copy(dst, dstOffset + done, scratch.longsView0, 0, m);
            Memory.copy(src, srcOffset + done, scratch.longsView1, 0, m);
            int words = (m + Long.BYTES - 1) / Long.BYTES;
            switch (op) {
                case LAND -> landLanes(d, s, words, low, shift);
                case LOR -> lorLanes(d, s, words, low, shift);
                default -> lxorLanes(d, s, words, low, shift);
            }
            Memory.copy(scratch.longsView0, 0, dst, dstOffset + done, m);
            done += m;
        }
    }

    private static void sum(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (s[i] + d[i]);
        }
    }

    private static void prod(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (s[i] * d[i]);
        }
    }

    private static void max(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            byte a = s[i];
            byte b = d[i];
            d[i] = a > b ? a : b;
        }
    }

    private static void min(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            byte a = s[i];
            byte b = d[i];
            d[i] = a < b ? a : b;
        }
    }

    private static void band(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (s[i] & d[i]);
        }
    }

    private static void bor(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (s[i] | d[i]);
        }
    }

    private static void bxor(byte[] d, byte[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (s[i] ^ d[i]);
        }
    }

    private static void sum(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (short) (s[i] + d[i]);
        }
    }

    private static void prod(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (short) (s[i] * d[i]);
        }
    }

    private static void max(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            short a = s[i];
            short b = d[i];
            d[i] = a > b ? a : b;
        }
    }

    private static void min(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            short a = s[i];
            short b = d[i];
            d[i] = a < b ? a : b;
        }
    }

    private static void band(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (short) (s[i] & d[i]);
        }
    }

    private static void bor(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (short) (s[i] | d[i]);
        }
    }

    private static void bxor(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = (short) (s[i] ^ d[i]);
        }
    }

    // char is Java's unsigned 16-bit type, so plain comparisons on char[] are CHAR's MAX and MIN

    private static void max(char[] d, char[] s, int n) {
        for (int i = 0; i < n; i++) {
            char a = s[i];
            char b = d[i];
            d[i] = a > b ? a : b;
        }
    }

    private static void min(char[] d, char[] s, int n) {
        for (int i = 0; i < n; i++) {
            char a = s[i];
            char b = d[i];
            d[i] = a < b ? a : b;
        }
    }

    // Lane kernels for logicalLanes: the top bit of each lane of ((x & low) + low | x) & ~low is its truth.

    private static void landLanes(long[] d, long[] s, int n, long low, int shift) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = ((((a & low) + low) | a) & (((b & low) + low) | b) & ~low) >>> shift;
        }
    }

    private static void lorLanes(long[] d, long[] s, int n, long low, int shift) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = ((((a & low) + low) | a | ((b & low) + low) | b) & ~low) >>> shift;
        }
    }

    private static void lxorLanes(long[] d, long[] s, int n, long low, int shift) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = (((((a & low) + low) | a) ^ (((b & low) + low) | b)) & ~low) >>> shift;
        }
    }
}
