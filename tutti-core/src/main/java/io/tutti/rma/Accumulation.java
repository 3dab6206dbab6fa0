package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import io.tutti.reduce.Reduction;
import java.lang.foreign.MemorySegment;

/**
 * What an accumulate and a compare-and-swap do to target memory the caller holds exclusively (the
 * target's accumulate lock): the one place both the shared-memory path and the network path's
 * target apply them, with the collectives' reduction kernels.
 */
final class Accumulation {
    private Accumulation() {
    }

    /**
     * {@code result} (if not null) gets {@code count} elements of {@code d} at {@code at}, which then
     * become {@code d op origin}; {@code op} was checked against {@code type}.
     */
    static void apply(MemorySegment d, long at, MemorySegment origin, long originOffset, MemorySegment result,
                      long resultOffset, long count, Datatype type, AccumulateOp op) {
        long length = count * type.extent();
        if (result != null) {
            MemorySegment.copy(d, at, result, resultOffset, length);
        }
        switch (op) {
            case NO_OP -> { }
            case REPLACE -> MemorySegment.copy(origin, originOffset, d, at, length);
            default -> Reduction.apply(op.reduceOp(), type, d, at, origin, originOffset, count);
        }
    }

    /**
     * {@code result} (if not null) gets the {@code length} bytes at {@code at}, which become
     * {@code origin}'s if they equal {@code compare}'s.
     */
    static void compareAndSwap(MemorySegment d, long at, MemorySegment origin, long originOffset, MemorySegment compare,
                               long compareOffset, MemorySegment result, long resultOffset, int length) {
        if (result != null) {
            MemorySegment.copy(d, at, result, resultOffset, length);
        }
        if (MemorySegment.mismatch(d, at, at + length, compare, compareOffset, compareOffset + length) < 0) {
            MemorySegment.copy(origin, originOffset, d, at, length);
        }
    }
}
