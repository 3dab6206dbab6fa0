package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.os.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * Vectors of up to {@value #DIRECT_ELEMENTS} elements (the integer and floating-point types, with
 * the arithmetic and bitwise operations) take a shorter path: operands in Tutti's own memory (passed
 * as {@link Memory#ALL} and an address, as the schedules' scratch is) are reduced where they lie, and
 * an operand given as a segment is first copied to a small native staging area of the thread. The
 * element loop then goes through one constant segment whose accessors inline. Measured with polluted
 * profiles ({@code ReductionBenchmark}, each case with the copy a schedule makes next to it): one
 * double reduced into a user's array from the scratch took 28–45 ns on the array path and takes
 * 20–24 ns; reduced in the scratch and copied out, 8–11 ns.
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
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

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
        if (n <= DIRECT_ELEMENTS && Memory.ALL != null && direct(op, type.base())) {
            direct(op, type.base(), dst, dstOffset, src, srcOffset, (int) n);
            return;
        }
        // one dispatch per call on the element type here, one per chunk on the operation inside;
        // the element loops themselves are branch-free of both
        Scratch scratch = SCRATCH.get();
        if ((op == ReduceOp.LAND || op == ReduceOp.LOR || op == ReduceOp.LXOR) && type.size() <= Short.BYTES) {
            logicalLanes(op, type.size(), scratch, dst, dstOffset, src, srcOffset, n * type.size());
            return;
        }
        switch (type.base()) {
            case BYTE -> bytes(op, scratch, dst, dstOffset, src, srcOffset, n);
            case SHORT -> shorts(op, scratch, dst, dstOffset, src, srcOffset, n);
            // char arithmetic and logic have the same bits as short's; only MAX and MIN compare unsigned
            case CHAR -> {
                if (op == ReduceOp.MAX || op == ReduceOp.MIN) {
                    chars(op, scratch, dst, dstOffset, src, srcOffset, n);
                } else {
                    shorts(op, scratch, dst, dstOffset, src, srcOffset, n);
                }
            }
            case INT -> ints(op, scratch, dst, dstOffset, src, srcOffset, n);
            case LONG -> longs(op, scratch, dst, dstOffset, src, srcOffset, n);
            case FLOAT -> floats(op, scratch, dst, dstOffset, src, srcOffset, n);
            case DOUBLE -> doubles(op, scratch, dst, dstOffset, src, srcOffset, n);
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

    // ------------------------------------------------------------------------------------------------
    // Direct path: operands at addresses in Memory.ALL (a segment operand staged there first), a constant
    // segment whose accessors inline to plain loads and stores. The arithmetic is the array kernels'
    // own, element for element.

    /** Whether the direct path covers {@code op} on elements of {@code base}. */
    private static boolean direct(ReduceOp op, Datatype base) {
        boolean arithmetic = op == ReduceOp.SUM || op == ReduceOp.PROD || op == ReduceOp.MAX || op == ReduceOp.MIN;
        boolean bitwise = op == ReduceOp.BAND || op == ReduceOp.BOR || op == ReduceOp.BXOR;
        return switch (base) {
            case INT, LONG -> arithmetic || bitwise;
            case FLOAT, DOUBLE -> arithmetic;
            default -> false;
        };
    }

    /**
     * The direct path for {@code n} elements ({@link #direct(ReduceOp, Datatype)} holds): an operand
     * given as a segment is first copied to the thread's native staging area (one copy each way,
     * 2–5 ns), where it is reached by address like Tutti's own memory.
     */
    private static void direct(ReduceOp op, Datatype base, MemorySegment dst, long dstOffset, MemorySegment src,
                               long srcOffset, int n) {
        long bytes = (long) n * base.size();
        long staging = dst != Memory.ALL || src != Memory.ALL ? SCRATCH.get().staging() : 0;
        long d = dstOffset;
        long s = srcOffset;
        if (dst != Memory.ALL) {
            d = staging;
            Memory.copy(dst, dstOffset, Memory.ALL, d, bytes);
        }
        if (src != Memory.ALL) {
            s = staging + DIRECT_ELEMENTS * Long.BYTES;
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

    // ------------------------------------------------------------------------------------------------
    // Drivers: stage a chunk of each operand in scratch arrays, reduce, write the chunk back.
    // The dst chunk is staged too, because the kernel reads it as the right operand.

    private static void bytes(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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

    private static void shorts(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
                case MAXLOC -> maxloc(d, s, m);
                case MINLOC -> minloc(d, s, m);
                case BAND -> band(d, s, m);
                case BOR -> bor(d, s, m);
                case BXOR -> bxor(d, s, m);
                default -> throw new AssertionError(op); // logic went to logicalLanes
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    private static void chars(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
    private static void logicalLanes(ReduceOp op, int laneBytes, Scratch scratch, MemorySegment dst, long dstOffset,
                                     MemorySegment src, long srcOffset, long bytes) {
        long[] d = scratch.longs0();
        long[] s = scratch.longs1;
        // all bits of each lane but its top one; the top bit of ((x & low) + low | x) is then set exactly
        // when the lane is non-zero, and the addition never carries into the next lane
        long low = laneBytes == 1 ? 0x7F7F_7F7F_7F7F_7F7FL : 0x7FFF_7FFF_7FFF_7FFFL;
        int shift = laneBytes * 8 - 1;
        for (long done = 0; done < bytes; ) {
            int m = (int) Math.min(CHUNK_BYTES, bytes - done);
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

    private static void ints(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
                case MAXLOC -> maxloc(d, s, m);
                case MINLOC -> minloc(d, s, m);
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

    private static void longs(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
                case MAXLOC -> maxloc(d, s, m);
                case MINLOC -> minloc(d, s, m);
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

    private static void floats(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
                case MAXLOC -> maxloc(d, s, m);
                case MINLOC -> minloc(d, s, m);
                default -> throw new AssertionError(op);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    private static void doubles(ReduceOp op, Scratch scratch, MemorySegment dst, long dstOffset, MemorySegment src,
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
                case MAXLOC -> maxloc(d, s, m);
                case MINLOC -> minloc(d, s, m);
                default -> throw new AssertionError(op);
            }
            Memory.store(d, 0, dst, dstOffset + at, m);
            done += m;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Kernels: d[i] = s[i] op d[i] for i in [0, n). One small loop per (operation, array type), so that
    // each compiles to its own tight, vectorisable loop.
    //
    // On int and long, logical operations use x | -x, whose sign bit is set exactly when x != 0: a truth
    // value without a branch, which C2 vectorises where a conditional would not. On byte and short the
    // kernels use plain conditionals instead, for logic and for MAX/MIN alike: C2 (JDK 25, AVX-512)
    // vectorises the branch-free and Math.max forms on those narrow lanes into code that ran 10 to 20
    // times slower than scalar code on the development machine (5 ns per byte instead of 0.3).

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

    // Pair kernels: n counts elements, so the pairs are (d[i], d[i + 1]) for even i. The source pair
    // wins when its value is strictly better, or equal with a smaller index (MPI's tie rule).

    private static void maxloc(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            short a = s[i];
            short b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void minloc(short[] d, short[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            short a = s[i];
            short b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void maxloc(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int a = s[i];
            int b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void minloc(int[] d, int[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int a = s[i];
            int b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void maxloc(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            long a = s[i];
            long b = d[i];
            if (a > b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void minloc(long[] d, long[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            long a = s[i];
            long b = d[i];
            if (a < b || a == b && s[i + 1] < d[i + 1]) {
                d[i] = a;
                d[i + 1] = s[i + 1];
            }
        }
    }

    // Floating-point values are ranked by a total order (see ReduceOp.MAXLOC / MINLOC): with plain
    // < and ==, a NaN would compare neither way and the result would depend on the operand order.

    private static void maxloc(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = Float.compare(s[i], d[i]);
            if (c > 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void minloc(float[] d, float[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = compareNanFirst(s[i], d[i]);
            if (c < 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void maxloc(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = Double.compare(s[i], d[i]);
            if (c > 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    private static void minloc(double[] d, double[] s, int n) {
        for (int i = 0; i < n; i += 2) {
            int c = compareNanFirst(s[i], d[i]);
            if (c < 0 || c == 0 && s[i + 1] < d[i + 1]) {
                d[i] = s[i];
                d[i + 1] = s[i + 1];
            }
        }
    }

    /**
     * {@link Double#compare} with NaN moved below every number, so that MINLOC lets NaN win as
     * {@link Math#min} does; two NaNs stay equal. Exact for floats too, which widen losslessly.
     */
    private static int compareNanFirst(double a, double b) {
        return a != a || b != b ? Double.compare(b, a) : Double.compare(a, b);
    }

    /**
     * One thread's staging arrays, created on first use of each primitive type: a process that only
     * reduces doubles holds 16 KiB of doubles, not scratch for every type.
     */
    private static final class Scratch {
        byte[] bytes0;
        byte[] bytes1;
        short[] shorts0;
        short[] shorts1;
        char[] chars0;
        char[] chars1;
        int[] ints0;
        int[] ints1;
        long[] longs0;
        long[] longs1;
        MemorySegment longsView0;
        MemorySegment longsView1;
        float[] floats0;
        float[] floats1;
        double[] doubles0;
        double[] doubles1;
        /** Native, two operands of {@link #DIRECT_ELEMENTS} elements of up to 8 bytes; held so it stays allocated. */
        MemorySegment staging;
        long stagingAddress;

        long staging() {
            if (staging == null) {
                staging = Arena.ofAuto().allocate(2L * DIRECT_ELEMENTS * Long.BYTES, Long.BYTES);
                stagingAddress = staging.address();
            }
            return stagingAddress;
        }

        byte[] bytes0() {
            if (bytes0 == null) {
                bytes1 = new byte[CHUNK_BYTES];
                bytes0 = new byte[CHUNK_BYTES];
            }
            return bytes0;
        }

        short[] shorts0() {
            if (shorts0 == null) {
                shorts1 = new short[CHUNK_BYTES / Short.BYTES];
                shorts0 = new short[CHUNK_BYTES / Short.BYTES];
            }
            return shorts0;
        }

        char[] chars0() {
            if (chars0 == null) {
                chars1 = new char[CHUNK_BYTES / Character.BYTES];
                chars0 = new char[CHUNK_BYTES / Character.BYTES];
            }
            return chars0;
        }

        int[] ints0() {
            if (ints0 == null) {
                ints1 = new int[CHUNK_BYTES / Integer.BYTES];
                ints0 = new int[CHUNK_BYTES / Integer.BYTES];
            }
            return ints0;
        }

        long[] longs0() {
            if (longs0 == null) {
                longs1 = new long[CHUNK_BYTES / Long.BYTES];
                longs0 = new long[CHUNK_BYTES / Long.BYTES];
                longsView1 = MemorySegment.ofArray(longs1);
                longsView0 = MemorySegment.ofArray(longs0);
            }
            return longs0;
        }

        float[] floats0() {
            if (floats0 == null) {
                floats1 = new float[CHUNK_BYTES / Float.BYTES];
                floats0 = new float[CHUNK_BYTES / Float.BYTES];
            }
            return floats0;
        }

        double[] doubles0() {
            if (doubles0 == null) {
                doubles1 = new double[CHUNK_BYTES / Double.BYTES];
                doubles0 = new double[CHUNK_BYTES / Double.BYTES];
            }
            return doubles0;
        }
    }
}
