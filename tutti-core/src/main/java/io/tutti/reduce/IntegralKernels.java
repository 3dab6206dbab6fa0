package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;

/**
 * The kernels of int and long, {@code d[i] = s[i] op d[i]}, driven as {@link FloatingKernels} are.
 * Logical operations use x | -x, whose sign bit is set exactly when x != 0: a truth value without a
 * branch, which C2 vectorises where a conditional would not.
 */
final class IntegralKernels {
    private IntegralKernels() {
    }

    static void ints(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                     long srcOffset, long n) {
        int[] d = scratch.ints0();
        int[] s = scratch.ints1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Integer.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case MAXLOC -> LocationKernels.maxloc(d, s, m);
                case MINLOC -> LocationKernels.minloc(d, s, m);
                case LAND -> land(d, s, m);
                case LOR -> lor(d, s, m);
                case LXOR -> lxor(d, s, m);
                case BAND -> band(d, s, m);
                case BOR -> bor(d, s, m);
                case BXOR -> bxor(d, s, m);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    static void longs(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                      long srcOffset, long n) {
        long[] d = scratch.longs0();
        long[] s = scratch.longs1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Long.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case MAXLOC -> LocationKernels.maxloc(d, s, m);
                case MINLOC -> LocationKernels.minloc(d, s, m);
                case LAND -> land(d, s, m);
                case LOR -> lor(d, s, m);
                case LXOR -> lxor(d, s, m);
                case BAND -> band(d, s, m);
                case BOR -> bor(d, s, m);
                case BXOR -> bxor(d, s, m);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    private static void sum(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] + d[i];
        }
    }

    private static void prod(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] * d[i];
        }
    }

    private static void max(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.max(s[i], d[i]);
        }
    }

    private static void min(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.min(s[i], d[i]);
        }
    }

    private static void land(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            int a = s[i];
            int b = d[i];
            d[i] = ((a | -a) & (b | -b)) >>> 31;
        }
    }

    private static void lor(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            int a = s[i];
            int b = d[i];
            d[i] = ((a | -a) | (b | -b)) >>> 31;
        }
    }

    private static void lxor(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            int a = s[i];
            int b = d[i];
            d[i] = ((a | -a) ^ (b | -b)) >>> 31;
        }
    }

    private static void band(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] & d[i];
        }
    }

    private static void bor(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] | d[i];
        }
    }

    private static void bxor(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] ^ d[i];
        }
    }

    private static void sum(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] + d[i];
        }
    }

    private static void prod(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] * d[i];
        }
    }

    private static void max(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.max(s[i], d[i]);
        }
    }

    private static void min(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.min(s[i], d[i]);
        }
    }

    private static void land(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = ((a | -a) & (b | -b)) >>> 63;
        }
    }

    private static void lor(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = ((a | -a) | (b | -b)) >>> 63;
        }
    }

    private static void lxor(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            long a = s[i];
            long b = d[i];
            d[i] = ((a | -a) ^ (b | -b)) >>> 63;
        }
    }

    private static void band(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] & d[i];
        }
    }

    private static void bor(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] | d[i];
        }
    }

    private static void bxor(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] ^ d[i];
        }
    }
}
