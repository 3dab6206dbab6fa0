package io.tutti.reduce;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The direct path of {@link Reduction}: vectors of up to {@value Reduction#DIRECT_ELEMENTS} elements
 * (the integer and floating-point types, with the arithmetic and bitwise operations) skip the
 * arrays. Operands in Tutti's own memory (passed as {@link Memory#ALL} and an address, as the
 * schedules' scratch is) are reduced where they lie, and an operand given as a segment is first
 * copied to a small native staging area of the thread. The element loop then goes through one
 * constant segment whose accessors inline; its arithmetic is the array kernels' own. Measured with
 * polluted profiles ({@code ReductionBenchmark}, each case with the copy a schedule makes next to
 * it): one double reduced into a user's array from the scratch took 28–45 ns on the array path and
 * takes 20–24 ns; reduced in the scratch and copied out, 8–11 ns.
 */
final class DirectReduction {
    private DirectReduction() {
    }

    /** Whether the direct path covers {@code op} on elements of {@code base}. */
    static boolean covers(ReduceOp op, Datatype base) {
        boolean arithmetic = op == ReduceOp.SUM || op == ReduceOp.PROD || op == ReduceOp.MAX || op == ReduceOp.MIN;
        boolean bitwise = op == ReduceOp.BAND || op == ReduceOp.BOR || op == ReduceOp.BXOR;
        return switch (base) {
            case INT, LONG -> arithmetic || bitwise;
            case FLOAT, DOUBLE -> arithmetic;
            default -> false;
        };
    }

    /**
     * The direct path for {@code n} elements ({@link #covers} holds): an operand given as a segment
     * is first copied to the thread's native staging area (one copy each way, 2–5 ns), where it is
     * reached by address like Tutti's own memory.
     */
    static void apply(ReduceOp op, Datatype base, MemorySegment dst, long dstOffset, MemorySegment src,
                      long srcOffset, int n) {
        long bytes = (long) n * base.size();
        long staging = dst != Memory.ALL || src != Memory.ALL ? Reduction.SCRATCH.get().staging() : 0;
        long d = dstOffset;
        long s = srcOffset;
        if (dst != Memory.ALL) {
            d = staging;
            Memory.copy(dst, dstOffset, Memory.ALL, d, bytes);
        }
        if (src != Memory.ALL) {
            s = staging + Reduction.DIRECT_ELEMENTS * Long.BYTES;
            Memory.copy(src, srcOffset, Memory.ALL, s, bytes);
        }
        direct(op, base, d, s, n);
        if (dst != Memory.ALL) {
            Memory.copy(Memory.ALL, d, dst, dstOffset, bytes);
        }
    }

    /** Reduces {@code n} elements at addresses {@code d} and {@code s}, in place at {@code d}. */
    private static void direct(ReduceOp op, Datatype base, long d, long s, int n) {
        boolean wide = base.size() == Long.BYTES;
        switch (base) {
            // ints in long arithmetic: narrowing the sum or product keeps exactly int's wrapped result
            case INT, LONG -> {
                for (int i = 0; i < n; i++) {
                    long at = (long) i * base.size();
                    long r = integer(op, integerAt(wide, s + at), integerAt(wide, d + at));
                    if (wide) {
                        Memory.ALL.set(ValueLayout.JAVA_LONG_UNALIGNED, d + at, r);
                    } else {
                        Memory.ALL.set(ValueLayout.JAVA_INT_UNALIGNED, d + at, (int) r);
                    }
                }
            }
            // floats in double arithmetic: a float sum or product computed in double and rounded once
            // to float is the float result (double carries more than twice float's precision)
            default -> {
                for (int i = 0; i < n; i++) {
                    long at = (long) i * base.size();
                    double r = floating(op, floatingAt(wide, s + at), floatingAt(wide, d + at));
                    if (wide) {
                        Memory.ALL.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, d + at, r);
                    } else {
                        Memory.ALL.set(ValueLayout.JAVA_FLOAT_UNALIGNED, d + at, (float) r);
                    }
                }
            }
        }
    }

    private static long integerAt(boolean wide, long address) {
        return wide ? Memory.ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, address)
                : Memory.ALL.get(ValueLayout.JAVA_INT_UNALIGNED, address);
    }

    private static double floatingAt(boolean wide, long address) {
        return wide ? Memory.ALL.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, address)
                : Memory.ALL.get(ValueLayout.JAVA_FLOAT_UNALIGNED, address);
    }

    /** {@code a op b} for the arithmetic and bitwise operations. */
    private static long integer(ReduceOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            default -> a ^ b;
        };
    }

    /** {@code a op b} for the arithmetic operations. */
    private static double floating(ReduceOp op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            default -> Math.min(a, b);
        };
    }
}
