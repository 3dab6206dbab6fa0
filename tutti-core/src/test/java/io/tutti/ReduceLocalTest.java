package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Communicator#reduceLocal}: {@code inout = in op inout} on arrays and segments, the
 * operand order a non-commutative user operation sees, and bad arguments refused with
 * {@code inout} left as it was.
 */
@Timeout(120)
class ReduceLocalTest {
    private static void oneRank(io.tutti.bootstrap.ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(1, Duration.ofSeconds(100), body);
    }

    @Test
    void predefinedOperationsCombineArraysAndSegments() {
        oneRank(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int[] in = {1, 5, -3, 7};
                int[] inout = {4, 2, 9, -1};
                w.reduceLocal(in, inout, 4, Datatype.INT, ReduceOp.SUM);
                assertArrayEquals(new int[] {5, 7, 6, 6}, inout);
                w.reduceLocal(in, inout, 3, Datatype.INT, ReduceOp.MAX);
                assertArrayEquals(new int[] {5, 7, 6, 6}, inout, "only count elements: the last one stays");
                double[] d = {1.5, -2};
                double[] dd = {2, 3};
                w.reduceLocal(d, dd, 2, Datatype.DOUBLE, ReduceOp.PROD);
                assertArrayEquals(new double[] {3, -6}, dd);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment a = arena.allocate(8 * 3);
                    MemorySegment b = arena.allocate(8 * 3);
                    for (int i = 0; i < 3; i++) {
                        a.setAtIndex(ValueLayout.JAVA_LONG, i, 10L * i);
                        b.setAtIndex(ValueLayout.JAVA_LONG, i, 7);
                    }
                    w.reduceLocal(a, b, 3, Datatype.LONG, ReduceOp.MIN);
                    assertArrayEquals(new long[] {0, 7, 7}, b.toArray(ValueLayout.JAVA_LONG));
                }
            }
        });
    }

    @Test
    void aUserOperationSeesInAsItsLeftOperand() {
        oneRank(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                // in - inout: not commutative, so the order shows
                UserOp minus = (inout, inoutOffset, in, inOffset, count, type) -> {
                    for (long i = 0; i < count; i++) {
                        long at = 4 * i;
                        inout.set(ValueLayout.JAVA_INT_UNALIGNED, inoutOffset + at,
                                in.get(ValueLayout.JAVA_INT_UNALIGNED, inOffset + at)
                                        - inout.get(ValueLayout.JAVA_INT_UNALIGNED, inoutOffset + at));
                    }
                };
                int[] in = {10, 20};
                int[] inout = {1, 2};
                w.reduceLocal(in, inout, 2, Datatype.INT, minus);
                assertArrayEquals(new int[] {9, 18}, inout);
            }
        });
    }

    @Test
    void badArgumentsAreRefusedAndLeaveInoutAsItWas() {
        oneRank(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int[] inout = {1, 2};
                TuttiException e = assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.reduceLocal(new int[] {1, 2}, inout, 3, Datatype.INT, ReduceOp.SUM));
                assertTrue(e.getMessage().contains("fewer than"), e.getMessage());
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.reduceLocal(new double[2], inout, 2, Datatype.INT, ReduceOp.SUM));
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.reduceLocal(new int[2], inout, 2, Datatype.INT, ReduceOp.MAXLOC));
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.reduceLocal(new int[2], inout, -1, Datatype.INT, ReduceOp.SUM));
                assertArrayEquals(new int[] {1, 2}, inout);
            }
        });
    }
}
