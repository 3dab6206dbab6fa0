package io.tutti.reduce;

import io.tutti.ReduceOp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.tutti.Datatype;
import io.tutti.reduce.ReductionTest.Combo;
import io.tutti.reduce.ReductionTest.Kind;
import io.tutti.reduce.ReductionTest.Ref;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random operations, types, counts, offsets and segment kinds: the kernel equals the scalar
 * reference of {@link ReductionTest}; and the algebra the collectives rely on when they regroup
 * and reorder operands holds.
 */
class ReductionPropertyTest {

    @Provide
    Arbitrary<Combo> combos() {
        return Arbitraries.of(Ref.supported());
    }

    /** Operations the schedules may regroup: all but floating-point SUM and PROD, which round. */
    @Provide
    Arbitrary<Combo> associativeCombos() {
        return Arbitraries.of(Ref.supported().stream()
                .filter(c -> !(c.type().base() == Datatype.FLOAT || c.type().base() == Datatype.DOUBLE)
                        || !(c.op() == ReduceOp.SUM || c.op() == ReduceOp.PROD))
                .toList());
    }

    @Property(tries = 400)
    void kernelEqualsTheReference(@ForAll("combos") Combo combo,
                                  @ForAll @IntRange(min = 0, max = 9000) int count,
                                  @ForAll Kind dstKind, @ForAll @IntRange(max = 17) int dstPad,
                                  @ForAll Kind srcKind, @ForAll @IntRange(max = 17) int srcPad,
                                  @ForAll boolean srcReadOnly, @ForAll long seed) {
        Ref.checkAgainstReference(combo.op(), combo.type(), count, dstKind, dstPad, srcKind, srcPad, srcReadOnly,
                new Random(seed));
    }

    @Property(tries = 300)
    void predefinedOperationsCommute(@ForAll("combos") Combo combo,
                                     @ForAll @IntRange(min = 1, max = 300) int count, @ForAll long seed) {
        Random random = new Random(seed);
        Object a = Ref.randomElements(combo.type(), elements(combo, count), random);
        Object b = Ref.randomElements(combo.type(), elements(combo, count), random);
        assertSame(combo, combine(combo, a, b), combine(combo, b, a), "a op b == b op a");
    }

    @Property(tries = 300)
    void exactOperationsAssociate(@ForAll("associativeCombos") Combo combo,
                                  @ForAll @IntRange(min = 1, max = 300) int count, @ForAll long seed) {
        Random random = new Random(seed);
        Object a = Ref.randomElements(combo.type(), elements(combo, count), random);
        Object b = Ref.randomElements(combo.type(), elements(combo, count), random);
        Object c = Ref.randomElements(combo.type(), elements(combo, count), random);
        assertSame(combo, combine(combo, combine(combo, a, b), c), combine(combo, a, combine(combo, b, c)),
                "(a op b) op c == a op (b op c)");
    }

    private static int elements(Combo combo, int count) {
        return combo.type().isPair() ? 2 * count : count;
    }

    /** {@code left op right} through the kernel: right is the destination, as in dst = src op dst. */
    private static Object combine(Combo combo, Object left, Object right) {
        Datatype base = combo.type().base();
        int n = java.lang.reflect.Array.getLength(right);
        Object result = Ref.copy(right);
        MemorySegment dst = Ref.ofArray(result);
        // the left operand goes through a byte[] at an odd offset, as the schedules' scratch would
        MemorySegment src = MemorySegment.ofArray(new byte[n * base.size() + 1]);
        MemorySegment.copy(left, 0, src, Ref.layout(base), 1, n);
        Reduction.apply(combo.op(), combo.type(), dst, 0, src, 1, combo.type().isPair() ? n / 2 : n);
        return result;
    }

    private static void assertSame(Combo combo, Object expected, Object actual, String law) {
        Datatype base = combo.type().base();
        if (base == Datatype.FLOAT || base == Datatype.DOUBLE) {
            // canonical NaN: which NaN payload survives is not part of any law
            int n = java.lang.reflect.Array.getLength(expected);
            long[] e = new long[n];
            long[] a = new long[n];
            for (int i = 0; i < n; i++) {
                e[i] = Double.doubleToLongBits(Ref.getDouble(expected, i));
                a[i] = Double.doubleToLongBits(Ref.getDouble(actual, i));
            }
            assertArrayEquals(e, a, combo + ": " + law);
        } else {
            Ref.assertSameElements(base, expected, actual, combo + ": " + law);
        }
    }
}
