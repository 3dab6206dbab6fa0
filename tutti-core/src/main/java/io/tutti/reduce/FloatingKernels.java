package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;

/**
 * The kernels of float and double, {@code d[i] = s[i] op d[i]}: a driver per type stages a chunk of
 * each operand in the thread's scratch arrays ({@link KernelScratch}), reduces, and writes the
 * chunk back (the dst chunk is staged too, because the kernel reads it as the right operand). One
 * small loop per (operation, array type), so that each compiles to its own tight, vectorisable loop.
 */
final class FloatingKernels {
    private FloatingKernels() {
    }

    static void floats(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                       long srcOffset, long n) {
        float[] d = scratch.floats0();
        float[] s = scratch.floats1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Float.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case MAXLOC -> LocationKernels.maxloc(d, s, m);
                case MINLOC -> LocationKernels.minloc(d, s, m);
                default -> throw new AssertionError(op);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    static void doubles(ReduceOp op, KernelScratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
                        long srcOffset, long n) {
        double[] d = scratch.doubles0();
        double[] s = scratch.doubles1;
        for (long done = 0; done < n; ) {
            int m = (int) Math.min(d.length, n - done);
            long at = done * Double.BYTES;
            Memory.load(dst, dstOffset + at, d, 0, m);
            Memory.load(src, srcOffset + at, s, 0, m);
            switch (op) {
                case SUM -> sum(d, s, m);
                case PROD -> prod(d, s, m);
                case MAX -> max(d, s, m);
                case MIN -> min(d, s, m);
                case MAXLOC -> LocationKernels.maxloc(d, s, m);
                case MINLOC -> LocationKernels.minloc(d, s, m);
                default -> throw new AssertionError(op);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    private static void sum(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] + d[i];
        }
    }

    private static void prod(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] * d[i];
        }
    }

    private static void max(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.max(s[i], d[i]);
        }
    }

    private static void min(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.min(s[i], d[i]);
        }
    }

    private static void sum(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] + d[i];
        }
    }

    private static void prod(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = s[i] * d[i];
        }
    }

    private static void max(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.max(s[i], d[i]);
        }
    }

    private static void min(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i++) {
            d[i] = Math.min(s[i], d[i]);
        }
    }
}
