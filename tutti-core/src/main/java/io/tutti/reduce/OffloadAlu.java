package io.tutti.reduce;

import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The NIC's reduction ALU ([NIC-reduce] §3.1 item 4): 32- and 64-bit signed and unsigned integer
 * add, float and double add, max and min (also with location), logical and bitwise AND/OR/XOR.
 * There is no multiply: a {@link ReduceOp#PROD} reduction cannot be offloaded.
 *
 * <p>Elements are in native byte order, unaligned, as {@link io.tutti.reduce.Reduction} reads them, so
 * that offloaded and host reductions see the same bytes. A location operand is a (value, index) pair
 * of two elements of the same type, as {@link Datatype#INT2} and the other pair types.
 * Floating-point MAX and MIN follow {@link Math#max(double, double)}; MAXLOC and MINLOC order values
 * as {@link ReduceOp#MAXLOC} and {@link ReduceOp#MINLOC} document (ties go to the smaller index).
 *
 * <p>Stateless and allocation-free; safe from any thread on regions no other thread writes.
 */
public final class OffloadAlu {
    /** Operand types (the descriptor's data-width and signedness fields). */
    public enum Type {
        INT32(4, false), UINT32(4, false), INT64(8, false), UINT64(8, false), FLOAT32(4, true), FLOAT64(8, true);

        final int width;
        final boolean floating;

        Type(int width, boolean floating) {
            this.width = width;
            this.floating = floating;
        }

        /** Bytes of one element. */
        public int width() {
            return width;
        }

        /** Whether it is a floating-point type. */
        public boolean floating() {
            return floating;
        }

        /** Whether integer comparisons are unsigned. */
        public boolean unsigned() {
            return this == UINT32 || this == UINT64;
        }
    }

    /** Operations (the descriptor's Rtype field). */
    public enum Op {
        ADD, MAX, MIN, MAXLOC, MINLOC, LAND, LOR, LXOR, BAND, BOR, BXOR;

        /** Whether the operands are (value, index) pairs. */
        public boolean located() {
            return this == MAXLOC || this == MINLOC;
        }

        /** Whether {@code type} supports it: the logical and bitwise ones are for integers only. */
        public boolean supports(Type type) {
            return switch (this) {
                case LAND, LOR, LXOR, BAND, BOR, BXOR -> !type.floating;
                default -> true;
            };
        }
    }

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private OffloadAlu() {
    }

    /** Bytes of one operand item: an element, or a pair for the location operations. */
    public static int itemBytes(Op op, Type type) {
        return op.located() ? 2 * type.width : type.width;
    }

    /** The ALU operation for a host operation; refuses what the ALU lacks (PROD). */
    public static Op of(ReduceOp op) {
        return switch (op) {
            case SUM -> Op.ADD;
            case MAX -> Op.MAX;
            case MIN -> Op.MIN;
            case MAXLOC -> Op.MAXLOC;
            case MINLOC -> Op.MINLOC;
            case LAND -> Op.LAND;
            case LOR -> Op.LOR;
            case LXOR -> Op.LXOR;
            case BAND -> Op.BAND;
            case BOR -> Op.BOR;
            case BXOR -> Op.BXOR;
            case PROD -> throw new TuttiException.InvalidArgument(
                    "PROD cannot be offloaded: the NIC ALU has add, max, min and logic only; use the host path");
        };
    }

    /** The ALU type for a host datatype (signed); refuses 8- and 16-bit types the ALU lacks. */
    public static Type of(Datatype type) {
        return switch (type.base()) {
            case INT -> Type.INT32;
            case LONG -> Type.INT64;
            case FLOAT -> Type.FLOAT32;
            case DOUBLE -> Type.FLOAT64;
            default -> throw new TuttiException.InvalidArgument(type
                    + " cannot be offloaded: the NIC ALU works on 32- and 64-bit elements; use the host path");
        };
    }

    /** Throws unless {@code op} is defined on {@code type}. */
    public static void check(Op op, Type type) {
        if (!op.supports(type)) {
            throw new TuttiException.InvalidArgument(op + " is not defined on " + type + ": logical and bitwise"
                    + " operations take integer types");
        }
    }

    /**
     * {@code dst = src ∘ dst} over {@code bytes} bytes (a whole number of items). Every predefined
     * operation is commutative, so the operand order only matters for floating-point rounding.
     */
    public static void apply(Op op, Type type, MemorySegment dst, long dstOff, MemorySegment src, long srcOff,
                             long bytes) {
        int item = itemBytes(op, type);
        if (bytes % item != 0) {
            throw new TuttiException.InvalidArgument(bytes + " bytes is not a whole number of " + item + "-byte "
                    + type + " items");
        }
        long n = bytes / item;
        if (op.located()) {
            located(op == Op.MAXLOC, type, dst, dstOff, src, srcOff, n);
            return;
        }
        switch (type) {
            case INT32, UINT32 -> {
                boolean u = type.unsigned();
                for (long i = 0, o = 0; i < n; i++, o += 4) {
                    int a = src.get(I, srcOff + o);
                    int b = dst.get(I, dstOff + o);
                    dst.set(I, dstOff + o, switch (op) {
                        case ADD -> a + b;
                        case MAX -> (u ? Integer.compareUnsigned(a, b) : Integer.compare(a, b)) >= 0 ? a : b;
                        case MIN -> (u ? Integer.compareUnsigned(a, b) : Integer.compare(a, b)) <= 0 ? a : b;
                        case LAND -> a != 0 && b != 0 ? 1 : 0;
                        case LOR -> a != 0 || b != 0 ? 1 : 0;
                        case LXOR -> (a != 0) != (b != 0) ? 1 : 0;
                        case BAND -> a & b;
                        case BOR -> a | b;
                        case BXOR -> a ^ b;
                        default -> throw new AssertionError(op);
                    });
                }
            }
            case INT64, UINT64 -> {
                boolean u = type.unsigned();
                for (long i = 0, o = 0; i < n; i++, o += 8) {
                    long a = src.get(L, srcOff + o);
                    long b = dst.get(L, dstOff + o);
                    dst.set(L, dstOff + o, switch (op) {
                        case ADD -> a + b;
                        case MAX -> (u ? Long.compareUnsigned(a, b) : Long.compare(a, b)) >= 0 ? a : b;
                        case MIN -> (u ? Long.compareUnsigned(a, b) : Long.compare(a, b)) <= 0 ? a : b;
                        case LAND -> a != 0 && b != 0 ? 1L : 0L;
                        case LOR -> a != 0 || b != 0 ? 1L : 0L;
                        case LXOR -> (a != 0) != (b != 0) ? 1L : 0L;
                        case BAND -> a & b;
                        case BOR -> a | b;
                        case BXOR -> a ^ b;
                        default -> throw new AssertionError(op);
                    });
                }
            }
            case FLOAT32 -> {
                check(op, type);
                for (long i = 0, o = 0; i < n; i++, o += 4) {
                    float a = src.get(F, srcOff + o);
                    float b = dst.get(F, dstOff + o);
                    dst.set(F, dstOff + o, switch (op) {
                        case ADD -> a + b;
                        case MAX -> Math.max(a, b);
                        case MIN -> Math.min(a, b);
                        default -> throw new AssertionError(op);
                    });
                }
            }
            case FLOAT64 -> {
                check(op, type);
                for (long i = 0, o = 0; i < n; i++, o += 8) {
                    double a = src.get(D, srcOff + o);
                    double b = dst.get(D, dstOff + o);
                    dst.set(D, dstOff + o, switch (op) {
                        case ADD -> a + b;
                        case MAX -> Math.max(a, b);
                        case MIN -> Math.min(a, b);
                        default -> throw new AssertionError(op);
                    });
                }
            }
        }
    }

    // MAXLOC keeps the larger value, MINLOC the smaller; equal values keep the smaller index
    private static void located(boolean max, Type type, MemorySegment dst, long dstOff, MemorySegment src,
                                long srcOff, long n) {
        int w = type.width;
        for (long i = 0, o = 0; i < n; i++, o += 2L * w) {
            long s = srcOff + o;
            long d = dstOff + o;
            int c;
            int ci;
            switch (type) {
                case INT32, UINT32 -> {
                    boolean u = type.unsigned();
                    int a = src.get(I, s);
                    int b = dst.get(I, d);
                    c = u ? Integer.compareUnsigned(a, b) : Integer.compare(a, b);
                    int ai = src.get(I, s + w);
                    int bi = dst.get(I, d + w);
                    ci = u ? Integer.compareUnsigned(ai, bi) : Integer.compare(ai, bi);
                }
                case INT64, UINT64 -> {
                    boolean u = type.unsigned();
                    long a = src.get(L, s);
                    long b = dst.get(L, d);
                    c = u ? Long.compareUnsigned(a, b) : Long.compare(a, b);
                    long ai = src.get(L, s + w);
                    long bi = dst.get(L, d + w);
                    ci = u ? Long.compareUnsigned(ai, bi) : Long.compare(ai, bi);
                }
                case FLOAT32 -> {
                    float a = src.get(F, s);
                    float b = dst.get(F, d);
                    c = max ? Float.compare(a, b) : nanLowest(a, b);
                    ci = Float.compare(src.get(F, s + w), dst.get(F, d + w));
                }
                default -> {
                    double a = src.get(D, s);
                    double b = dst.get(D, d);
                    c = max ? Double.compare(a, b) : nanLowest(a, b);
                    ci = Double.compare(src.get(D, s + w), dst.get(D, d + w));
                }
            }
            boolean takeSrc = max ? c > 0 : c < 0;
            if (takeSrc || (c == 0 && ci < 0)) {
                MemorySegment.copy(src, s, dst, d, 2L * w);
            }
        }
    }

    // MINLOC's order: NaN below every number, two NaNs equal, -0.0 below 0.0
    private static int nanLowest(double a, double b) {
        boolean an = Double.isNaN(a);
        boolean bn = Double.isNaN(b);
        if (an || bn) {
            return an == bn ? 0 : an ? -1 : 1;
        }
        return Double.compare(a, b);
    }
}
