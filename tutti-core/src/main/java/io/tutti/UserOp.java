package io.tutti;

import java.lang.foreign.MemorySegment;

/**
 * A user-defined reduction operation (MPI's {@code MPI_User_function}), run on the host.
 *
 * <p>An implementation must be associative; collectives group operands as their algorithm needs.
 * It may assume that the two regions are either identical or disjoint, and must not keep the
 * segments beyond the call. It runs on the thread that drives the collective (the caller or the
 * progress agent), on the hot path of every reduction step: it should not block or allocate.
 */
@FunctionalInterface
public interface UserOp {
    /**
     * Combines {@code count} elements: {@code inout[i] = in[i] ∘ inout[i]} for i in [0, count).
     * {@code in} is the left operand, as in MPI, which matters when the operation is not commutative.
     *
     * @param inout       the right operand, overwritten with the result
     * @param inoutOffset byte offset of element 0 in {@code inout}
     * @param in          the left operand; read only
     * @param inOffset    byte offset of element 0 in {@code in}
     * @param count       number of elements of {@code type} (for a pair type, number of pairs)
     * @param type        element type; both regions hold {@code count} elements of it in native byte order
     */
    void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count, Datatype type);

    /**
     * Whether {@code a ∘ b == b ∘ a}. Return false for a non-commutative operation: schedules then keep
     * the operands in rank order (the result is {@code x0 ∘ x1 ∘ … ∘ x(n-1)}), at the cost of an extra copy
     * in some steps.
     */
    default boolean commutative() {
        return true;
    }

    /**
     * Elements of the call's type that make one operand of this operation: 2 for a product of
     * complex numbers held as (real, imaginary) pairs of {@code double}s, 16 for a 16-byte struct
     * reduced as {@link Datatype#BYTE}s. The collectives split their vectors only between items, so
     * {@link #apply} always gets whole ones, and a call's count must be a whole number of items.
     */
    default int elementsPerItem() {
        return 1;
    }
}
