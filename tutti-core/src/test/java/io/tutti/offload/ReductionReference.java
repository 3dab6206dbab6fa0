package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.reduce.Reduction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/**
 * The sequential reference for offloaded reductions: the host path ({@link Reduction}) for every
 * signed type, and a scalar loop for the unsigned comparisons the host path lacks (unsigned add and
 * logic have the signed bits). Also draws operands whose reduction is exact in any order (small
 * integers for floating point), so that a tree and a fold give equal bytes.
 */
final class ReductionReference {
    private ReductionReference() {
    }

    static ReduceOp host(OffloadAlu.Op op) {
        return switch (op) {
            case ADD -> ReduceOp.SUM;
            case MAX -> ReduceOp.MAX;
            case MIN -> ReduceOp.MIN;
            case MAXLOC -> ReduceOp.MAXLOC;
            case MINLOC -> ReduceOp.MINLOC;
            case LAND -> ReduceOp.LAND;
            case LOR -> ReduceOp.LOR;
            case LXOR -> ReduceOp.LXOR;
            case BAND -> ReduceOp.BAND;
            case BOR -> ReduceOp.BOR;
            case BXOR -> ReduceOp.BXOR;
        };
    }

    static Datatype host(OffloadAlu.Op op, OffloadAlu.Type type) {
        Datatype base = switch (type) {
            case INT32, UINT32 -> Datatype.INT;
            case INT64, UINT64 -> Datatype.LONG;
            case FLOAT32 -> Datatype.FLOAT;
            case FLOAT64 -> Datatype.DOUBLE;
        };
        if (!op.located()) {
            return base;
        }
        return switch (base) {
            case INT -> Datatype.INT2;
            case LONG -> Datatype.LONG2;
            case FLOAT -> Datatype.FLOAT2;
            default -> Datatype.DOUBLE2;
        };
    }

    /** {@code dst = src ∘ dst} by the reference. */
    static void combine(OffloadAlu.Op op, OffloadAlu.Type type, MemorySegment dst, MemorySegment src, long bytes) {
        boolean compares = op == OffloadAlu.Op.MAX || op == OffloadAlu.Op.MIN || op.located();
        if (type.unsigned() && compares) {
            unsigned(op, type, dst, src, bytes);
            return;
        }
        Datatype t = host(op, type);
        Reduction.apply(host(op), t, dst, 0, src, 0, bytes / t.extent());
    }

    private static void unsigned(OffloadAlu.Op op, OffloadAlu.Type type, MemorySegment dst, MemorySegment src,
                                 long bytes) {
        int w = type.width();
        int item = op.located() ? 2 * w : w;
        boolean max = op == OffloadAlu.Op.MAX || op == OffloadAlu.Op.MAXLOC;
        for (long o = 0; o < bytes; o += item) {
            long a = read(src, o, w);
            long b = read(dst, o, w);
            int c = Long.compareUnsigned(a, b);
            boolean takeSrc = max ? c > 0 : c < 0;
            if (op.located() && c == 0) {
                takeSrc = Long.compareUnsigned(read(src, o + w, w), read(dst, o + w, w)) < 0;
            }
            if (takeSrc) {
                MemorySegment.copy(src, o, dst, o, item);
            }
        }
    }

    private static long read(MemorySegment s, long o, int w) {
        return w == 4 ? Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, o))
                : s.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
    }

    /** Operands for {@code rank}: exact in any order; location indexes are the rank. */
    static void fill(MemorySegment seg, OffloadAlu.Op op, OffloadAlu.Type type, long bytes, int rank, Random random) {
        int w = type.width();
        int item = op.located() ? 2 * w : w;
        for (long o = 0; o < bytes; o += item) {
            put(seg, o, type, value(op, type, random));
            if (op.located()) {
                put(seg, o + w, type, rank);
            }
        }
    }

    private static double value(OffloadAlu.Op op, OffloadAlu.Type type, Random random) {
        int pick = random.nextInt(20);
        if (type.floating()) {
            if (op != OffloadAlu.Op.ADD && pick == 0) {
                return Double.NaN;
            }
            if (pick == 1) {
                return -0.0;
            }
            return random.nextInt(41) - 20;
        }
        if (op.ordinal() >= OffloadAlu.Op.LAND.ordinal() && pick < 6) {
            return 0; // logical operations need zeros to be interesting
        }
        return random.nextInt(9) - 4; // negative values are huge unsigned ones
    }

    private static void put(MemorySegment seg, long o, OffloadAlu.Type type, double v) {
        switch (type) {
            case INT32, UINT32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, o, (int) v);
            case INT64, UINT64 -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, o, (long) v);
            case FLOAT32 -> seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, o, (float) v);
            case FLOAT64 -> seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, o, v);
        }
    }
}
