package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The element-wise reduction kernels that reduce, allreduce, scan and reduce-scatter run on every
 * reduction step: {@code dst[i] = src[i] ∘ dst[i]}.
 *
 * <h2>Why the kernels work on arrays, not on the segments</h2>
 * A loop of {@code MemorySegment.get/set} is only fast while the JIT has seen one or two segment
 * classes at its accesses; the segment implementation's accessors then inline. A Tutti process
 * reduces into user arrays of several element types, native segments and the byte[] scratch of the
 * schedules, and once those profiles are polluted every access becomes virtual calls: measured on
 * JDK 25 (x86-64), such a loop over ints fell from 0.16 ns to 12–23 ns per element. So each call
 * instead moves chunks of both operands into per-thread primitive arrays with bulk copies (a
 * memcpy, whatever the segment kind; {@link Memory}'s typed loads and stores, which reach Tutti's own
 * memory by address), runs a plain array loop that C2 vectorises where the operation allows, and
 * copies the result chunk back: 0.1–0.25 ns per int, polluted or not, at a fixed cost of about 20 ns
 * per call for one element from a user array and Tutti's scratch (25–40 ns with segments alone).
 * Vectors of up to {@value #DIRECT_ELEMENTS} elements take a shorter path ({@code DirectReduction}).
 *
 * <p>The kernels are grouped by type family: {@code NarrowKernels} (byte, short, char),
 * {@code IntegralKernels} (int, long), {@code FloatingKernels} (float, double) and
 * {@code LocationKernels} (MAXLOC, MINLOC on pairs); this class checks a call and dispatches on its
 * element type once, each driver then once per chunk on the operation.
 *
 * <p>Thread-safe. Allocates nothing once a thread has reduced a given primitive type once (it then
 * holds two {@value #CHUNK_BYTES}-byte scratch arrays of that type, or for short vectors its
 * 128-byte native staging area).
 */
public final class Reduction {
    /**
     * Bytes of each operand staged at a time: the two scratch arrays of a call stay in the L1 cache.
     * A multiple of 16, so a chunk always holds whole pairs of every pair type.
     */
    static final int CHUNK_BYTES = 8192;


    /**
     * Elements up to which a reduction takes the direct path, one element at a time through
     * {@link Memory#ALL}, instead of the primitive arrays: their fixed cost dominates short vectors.
     */
    static final int DIRECT_ELEMENTS = 8;

    /** Per thread, because the progress agent and application threads reduce concurrently. */
    static final ThreadLocal<KernelScratch> SCRATCH = ThreadLocal.withInitial(KernelScratch::new);

    private Reduction() {
    }

    /**
     * Computes {@code dst[i] = src[i] op dst[i]} for the {@code count} elements of {@code type} that
     * start {@code dstOffset} bytes into {@code dst} and {@code srcOffset} bytes into {@code src}.
     *
     * <p>Elements are in native byte order and need no alignment; either segment may be native or
     * on the heap over an array of any primitive type. The two regions must be identical or disjoint.
     *
     * @param op        the operation; must {@linkplain ReduceOp#supports support} {@code type}
     * @param type      element type
     * @param dst       right operand and result; must be writable
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param src       left operand; only read
     * @param srcOffset byte offset of element 0 in {@code src}
     * @param count     number of elements (for a pair type, number of pairs); may be 0
     * @throws TuttiException.InvalidArgument if {@code op} is not defined on {@code type}, {@code count}
     *         is negative, a region does not lie within its segment, or {@code dst} is read-only
     * @throws NullPointerException           if an argument is null
     */
    public static void apply(ReduceOp op, Datatype type, MemorySegment dst, long dstOffset, MemorySegment src,
                             long srcOffset, long count) {
        Objects.requireNonNull(op, "op");
        op.check(type);
        long n = checkRegions(type, dst, dstOffset, src, srcOffset, count);
        if (n == 0) {
            return;
        }
        if (n <= DIRECT_ELEMENTS && Memory.ALL != null && DirectReduction.covers(op, type.base())) {
            DirectReduction.apply(op, type.base(), dst, dstOffset, src, srcOffset, (int) n);
            return;
        }
        // one dispatch per call on the element type here, one per chunk on the operation inside;
        // the element loops themselves are branch-free of both
        KernelScratch scratch = SCRATCH.get();
        if ((op == ReduceOp.LAND || op == ReduceOp.LOR || op == ReduceOp.LXOR) && type.size() <= Short.BYTES) {
            NarrowKernels.logicalLanes(op, type.size(), scratch, dst, dstOffset, src, srcOffset, n * type.size());
            return;
        }
        switch (type.base()) {
            case BYTE -> NarrowKernels.bytes(op, scratch, dst, dstOffset, src, srcOffset, n);
            case SHORT -> NarrowKernels.shorts(op, scratch, dst, dstOffset, src, srcOffset, n);
            // char arithmetic and logic have the same bits as short's; only MAX and MIN compare unsigned
            case CHAR -> {
                if (op == ReduceOp.MAX || op == ReduceOp.MIN) {
                    NarrowKernels.chars(op, scratch, dst, dstOffset, src, srcOffset, n);
                } else {
                    NarrowKernels.shorts(op, scratch, dst, dstOffset, src, srcOffset, n);
                }
            }
            case INT -> IntegralKernels.ints(op, scratch, dst, dstOffset, src, srcOffset, n);
            case LONG -> IntegralKernels.longs(op, scratch, dst, dstOffset, src, srcOffset, n);
            case FLOAT -> FloatingKernels.floats(op, scratch, dst, dstOffset, src, srcOffset, n);
            case DOUBLE -> FloatingKernels.doubles(op, scratch, dst, dstOffset, src, srcOffset, n);
            default -> throw new AssertionError(type);
        }
    }

    /**
     * Computes {@code dst[i] = src[i] op dst[i]} with a user-defined operation, after the same checks
     * on the regions as {@link #apply(ReduceOp, Datatype, MemorySegment, long, MemorySegment, long, long)}:
     * calls {@code op.apply(dst, dstOffset, src, srcOffset, count, type)} ({@code dst} is MPI's
     * {@code inoutvec}, {@code src} its {@code invec}).
     *
     * @throws TuttiException.InvalidArgument if {@code count} is negative, a region does not lie within
     *         its segment, or {@code dst} is read-only
     * @throws NullPointerException           if an argument is null
     */
    public static void apply(UserOp op, Datatype type, MemorySegment dst, long dstOffset, MemorySegment src,
                             long srcOffset, long count) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(type, "type");
        checkRegions(type, dst, dstOffset, src, srcOffset, count);
        if (count != 0) {
            op.apply(dst, dstOffset, src, srcOffset, count, type);
        }
    }

    /** Checks up front so that a bad call fails with a clear message and leaves {@code dst} untouched. */
    private static long checkRegions(Datatype type, MemorySegment dst, long dstOffset, MemorySegment src,
                                     long srcOffset, long count) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        long itemBytes = type.extent();
        if (count > Long.MAX_VALUE / itemBytes) {
            throw new TuttiException.InvalidArgument(count + " elements of " + type + " exceed any segment");
        }
        long bytes = count * itemBytes;
        checkRegion("destination", dst, dstOffset, bytes, count, type);
        checkRegion("source", src, srcOffset, bytes, count, type);
        if (dst.isReadOnly()) {
            throw new TuttiException.InvalidArgument("the destination segment is read-only, but the result is"
                    + " written into it");
        }
        return type.isPair() ? 2 * count : count;
    }

    private static void checkRegion(String what, MemorySegment segment, long offset, long bytes, long count,
                                    Datatype type) {
        if (offset < 0 || offset > segment.byteSize() - bytes) {
            throw new TuttiException.InvalidArgument("the " + what + " region (" + count + " " + type + " = "
                    + bytes + " bytes at offset " + offset + ") does not lie within its segment of "
                    + segment.byteSize() + " bytes");
        }
    }
}
