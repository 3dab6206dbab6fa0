package io.tutti.reduce;

import io.tutti.ReduceOp;
import io.tutti.UserOp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tutti.Datatype;
import io.tutti.TuttiException;
import io.tutti.os.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Reduction} against a scalar reference written here on Java arrays, for every (operation,
 * type) pair, over heap (typed and byte[]) and native segments at offsets that are not 0, with
 * counts that cross the kernel's staging chunks.
 */
class ReductionTest {

    // -------------------------------------------------------------------------------- the table

    @Test
    void supportTableIsMpis() {
        Set<Datatype> bases = EnumSet.of(Datatype.BYTE, Datatype.SHORT, Datatype.CHAR, Datatype.INT, Datatype.LONG,
                Datatype.FLOAT, Datatype.DOUBLE);
        Set<Datatype> integers = EnumSet.of(Datatype.BYTE, Datatype.SHORT, Datatype.CHAR, Datatype.INT, Datatype.LONG);
        Set<Datatype> pairs = EnumSet.of(Datatype.SHORT2, Datatype.INT2, Datatype.LONG2, Datatype.FLOAT2,
                Datatype.DOUBLE2);
        for (ReduceOp op : ReduceOp.values()) {
            Set<Datatype> expected = switch (op) {
                case SUM, PROD, MAX, MIN -> bases;
                case MAXLOC, MINLOC -> pairs;
                default -> integers;
            };
            for (Datatype type : Datatype.values()) {
                assertEquals(expected.contains(type), op.supports(type), op + " on " + type);
            }
            assertTrue(op.commutative(), op + " is commutative");
        }
    }

    @Test
    void datatypesKeepTheirOrderAndDescribePairs() {
        assertEquals(List.of("BYTE", "SHORT", "CHAR", "INT", "LONG", "FLOAT", "DOUBLE", "SHORT2", "INT2", "LONG2",
                "FLOAT2", "DOUBLE2"), Arrays.stream(Datatype.values()).map(Enum::name).toList());
        int[] sizes = {1, 2, 2, 4, 8, 4, 8, 2, 4, 8, 4, 8};
        for (Datatype t : Datatype.values()) {
            assertEquals(sizes[t.ordinal()], t.size(), t.name());
            assertEquals(t.ordinal() >= Datatype.SHORT2.ordinal(), t.isPair(), t.name());
        }
        assertSame(Datatype.SHORT, Datatype.SHORT2.base());
        assertSame(Datatype.INT, Datatype.INT2.base());
        assertSame(Datatype.LONG, Datatype.LONG2.base());
        assertSame(Datatype.FLOAT, Datatype.FLOAT2.base());
        assertSame(Datatype.DOUBLE, Datatype.DOUBLE2.base());
        assertSame(Datatype.CHAR, Datatype.CHAR.base());
    }

    // ------------------------------------------------------------------- every supported pair

    static Stream<Arguments> everySupportedPairOverSegmentKinds() {
        List<Arguments> cases = new ArrayList<>();
        Kind[][] layouts = {{Kind.TYPED, Kind.TYPED}, {Kind.BYTES, Kind.NATIVE}, {Kind.NATIVE, Kind.BYTES},
            {Kind.ADDRESS, Kind.ADDRESS}, {Kind.ADDRESS, Kind.TYPED}};
        for (Combo c : Ref.supported()) {
            for (Kind[] kinds : layouts) {
                cases.add(Arguments.of(c.op(), c.type(), kinds[0], kinds[1]));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} dst={2} src={3}")
    @MethodSource("everySupportedPairOverSegmentKinds")
    void matchesTheScalarReference(ReduceOp op, Datatype type, Kind dstKind, Kind srcKind) {
        Random random = new Random(op.ordinal() * 31L + type.ordinal());
        long chunkItems = Reduction.CHUNK_BYTES / ((long) type.size() * (type.isPair() ? 2 : 1));
        // up to 9 stay within a chunk (and 8 and 9 straddle the direct path's limit); the last crosses two
        // chunk boundaries and ends mid-chunk
        for (int count : new int[] {1, 7, Reduction.DIRECT_ELEMENTS, Reduction.DIRECT_ELEMENTS + 1,
            (int) (2 * chunkItems + 37)}) {
            Ref.checkAgainstReference(op, type, count, dstKind, 3, srcKind, 5, false, random);
        }
    }

    // ------------------------------------------------------------------------------ edge values

    @Test
    void integerEdgeValuesWrapAndCompareAsJavaDoes() {
        assertEquals(Integer.MIN_VALUE, one(ReduceOp.SUM, Datatype.INT, Integer.MAX_VALUE, 1));
        assertEquals(Integer.MIN_VALUE, one(ReduceOp.PROD, Datatype.INT, Integer.MIN_VALUE, -1));
        assertEquals(Long.MIN_VALUE, one(ReduceOp.SUM, Datatype.LONG, Long.MAX_VALUE, 1));
        assertEquals(Long.MAX_VALUE, one(ReduceOp.SUM, Datatype.LONG, Long.MIN_VALUE, -1));
        assertEquals(Byte.MIN_VALUE, one(ReduceOp.SUM, Datatype.BYTE, Byte.MAX_VALUE, 1));
        assertEquals(0, one(ReduceOp.PROD, Datatype.BYTE, 16, 16));
        assertEquals(Short.MIN_VALUE, one(ReduceOp.SUM, Datatype.SHORT, Short.MAX_VALUE, 1));
        assertEquals(Integer.MAX_VALUE, one(ReduceOp.MAX, Datatype.INT, Integer.MIN_VALUE, Integer.MAX_VALUE));
        assertEquals(Long.MIN_VALUE, one(ReduceOp.MIN, Datatype.LONG, Long.MAX_VALUE, Long.MIN_VALUE));
        assertEquals(1, one(ReduceOp.MAX, Datatype.SHORT, -1, 1), "SHORT is signed");
        assertEquals(-1, one(ReduceOp.MIN, Datatype.BYTE, -1, 1), "BYTE is signed");
        // CHAR is unsigned 16-bit: 0xFFFF is its largest value, and arithmetic wraps at 2^16
        assertEquals(0xFFFF, one(ReduceOp.MAX, Datatype.CHAR, 0xFFFF, 1));
        assertEquals(0xFFFF, one(ReduceOp.MAX, Datatype.CHAR, 1, 0xFFFF));
        assertEquals(1, one(ReduceOp.MIN, Datatype.CHAR, 0xFFFF, 1));
        assertEquals(0x8000, one(ReduceOp.MAX, Datatype.CHAR, 0x7FFF, 0x8000));
        assertEquals(0, one(ReduceOp.SUM, Datatype.CHAR, 0xFFFF, 1));
        assertEquals(1, one(ReduceOp.PROD, Datatype.CHAR, 0xFFFF, 0xFFFF));
        // logical: non-zero is true, whatever the bits; the result is 1 or 0
        assertEquals(1, one(ReduceOp.LAND, Datatype.LONG, Long.MIN_VALUE, 2));
        assertEquals(0, one(ReduceOp.LAND, Datatype.INT, 0, -7));
        assertEquals(1, one(ReduceOp.LOR, Datatype.BYTE, 0, Byte.MIN_VALUE));
        assertEquals(0, one(ReduceOp.LOR, Datatype.SHORT, 0, 0));
        assertEquals(0, one(ReduceOp.LXOR, Datatype.INT, Integer.MIN_VALUE, 1));
        assertEquals(1, one(ReduceOp.LXOR, Datatype.CHAR, 0xFFFF, 0));
        assertEquals(0x0F, one(ReduceOp.BAND, Datatype.BYTE, 0xFF, 0x0F));
        assertEquals(-1, one(ReduceOp.BOR, Datatype.SHORT, 0xFF00, 0x00FF));
        assertEquals(0xFFFF, one(ReduceOp.BXOR, Datatype.CHAR, 0xFF00, 0x00FF));
        assertEquals(Long.MAX_VALUE, one(ReduceOp.BXOR, Datatype.LONG, -1, Long.MIN_VALUE));
    }

    @Test
    void floatingPointMaxAndMinFollowMath() {
        for (Datatype t : List.of(Datatype.FLOAT, Datatype.DOUBLE)) {
            assertNaN(oneFp(ReduceOp.MAX, t, Double.NaN, 1), t);
            assertNaN(oneFp(ReduceOp.MAX, t, 1, Double.NaN), t);
            assertNaN(oneFp(ReduceOp.MIN, t, Double.NaN, Double.NEGATIVE_INFINITY), t);
            assertNaN(oneFp(ReduceOp.MIN, t, Double.NEGATIVE_INFINITY, Double.NaN), t);
            assertNaN(oneFp(ReduceOp.SUM, t, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY), t);
            assertNaN(oneFp(ReduceOp.PROD, t, 0.0, Double.POSITIVE_INFINITY), t);
            assertBits(0.0, oneFp(ReduceOp.MAX, t, -0.0, 0.0), t);
            assertBits(0.0, oneFp(ReduceOp.MAX, t, 0.0, -0.0), t);
            assertBits(-0.0, oneFp(ReduceOp.MIN, t, -0.0, 0.0), t);
            assertBits(-0.0, oneFp(ReduceOp.MIN, t, 0.0, -0.0), t);
            assertBits(-0.0, oneFp(ReduceOp.SUM, t, -0.0, -0.0), t);
            assertBits(Double.POSITIVE_INFINITY, oneFp(ReduceOp.MAX, t, Double.POSITIVE_INFINITY, 1), t);
        }
        assertBits(Double.POSITIVE_INFINITY, oneFp(ReduceOp.SUM, Datatype.DOUBLE, Double.MAX_VALUE, Double.MAX_VALUE),
                Datatype.DOUBLE);
        assertBits(Float.POSITIVE_INFINITY, oneFp(ReduceOp.SUM, Datatype.FLOAT, Float.MAX_VALUE, Float.MAX_VALUE),
                Datatype.FLOAT);
        assertBits(Double.MIN_VALUE, oneFp(ReduceOp.MAX, Datatype.DOUBLE, Double.MIN_VALUE, 0.0), Datatype.DOUBLE);
    }

    // ------------------------------------------------------------------------- MAXLOC / MINLOC

    @Test
    void locationTiesPickTheSmallerIndexWhicheverSideItIsOn() {
        for (Datatype t : List.of(Datatype.SHORT2, Datatype.INT2, Datatype.LONG2, Datatype.FLOAT2, Datatype.DOUBLE2)) {
            for (ReduceOp op : List.of(ReduceOp.MAXLOC, ReduceOp.MINLOC)) {
                assertPair(5, 3, pair(op, t, 5, 7, 5, 3), op + " " + t + " tie, smaller index in dst");
                assertPair(5, 3, pair(op, t, 5, 3, 5, 7), op + " " + t + " tie, smaller index in src");
                assertPair(5, -2, pair(op, t, 5, -2, 5, 0), op + " " + t + " negative index");
                assertPair(5, 4, pair(op, t, 5, 4, 5, 4), op + " " + t + " same pair");
            }
            // a strictly better value wins even with a larger index
            assertPair(9, 8, pair(ReduceOp.MAXLOC, t, 9, 8, 1, 0), "MAXLOC " + t + " from src");
            assertPair(9, 8, pair(ReduceOp.MAXLOC, t, 1, 0, 9, 8), "MAXLOC " + t + " from dst");
            assertPair(1, 8, pair(ReduceOp.MINLOC, t, 9, 0, 1, 8), "MINLOC " + t + " from dst");
            assertPair(1, 8, pair(ReduceOp.MINLOC, t, 1, 8, 9, 0), "MINLOC " + t + " from src");
            assertPair(-1, 8, pair(ReduceOp.MINLOC, t, -1, 8, 1, 0), "MINLOC " + t + " signed");
        }
        long[] extremes = pair(ReduceOp.MAXLOC, Datatype.LONG2, Long.MIN_VALUE, 0, Long.MAX_VALUE, 1);
        assertPair(Long.MAX_VALUE, 1, extremes, "LONG2 extremes");
        assertPair(Integer.MIN_VALUE, 1, pair(ReduceOp.MINLOC, Datatype.INT2, Integer.MAX_VALUE, 0,
                Integer.MIN_VALUE, 1), "INT2 extremes");
        assertPair(Short.MAX_VALUE, 0, pair(ReduceOp.MAXLOC, Datatype.SHORT2, Short.MAX_VALUE, 0,
                Short.MIN_VALUE, 1), "SHORT2 extremes");
    }

    @Test
    void floatingPointLocationsOrderNaNAndSignedZeroAsMaxAndMinDo() {
        for (Datatype t : List.of(Datatype.FLOAT2, Datatype.DOUBLE2)) {
            for (boolean nanInSrc : new boolean[] {true, false}) {
                double[] maxloc = nanInSrc ? pairFp(ReduceOp.MAXLOC, t, Double.NaN, 9, 1, 0)
                        : pairFp(ReduceOp.MAXLOC, t, 1, 0, Double.NaN, 9);
                assertTrue(Double.isNaN(maxloc[0]) && maxloc[1] == 9, "MAXLOC " + t + " NaN wins");
                double[] minloc = nanInSrc ? pairFp(ReduceOp.MINLOC, t, Double.NaN, 9, -1e30, 0)
                        : pairFp(ReduceOp.MINLOC, t, -1e30, 0, Double.NaN, 9);
                assertTrue(Double.isNaN(minloc[0]) && minloc[1] == 9, "MINLOC " + t + " NaN wins");
            }
            double[] bothNaN = pairFp(ReduceOp.MINLOC, t, Double.NaN, 4, Double.NaN, 2);
            assertTrue(Double.isNaN(bothNaN[0]) && bothNaN[1] == 2, "two NaNs tie: smaller index");
            bothNaN = pairFp(ReduceOp.MAXLOC, t, Double.NaN, 1, Double.NaN, 2);
            assertTrue(Double.isNaN(bothNaN[0]) && bothNaN[1] == 1, "two NaNs tie: smaller index");
            double[] z = pairFp(ReduceOp.MAXLOC, t, -0.0, 1, 0.0, 2);
            assertBits(0.0, z[0], t);
            assertEquals(2, z[1]);
            z = pairFp(ReduceOp.MINLOC, t, 0.0, 1, -0.0, 2);
            assertBits(-0.0, z[0], t);
            assertEquals(2, z[1]);
            z = pairFp(ReduceOp.MAXLOC, t, Double.POSITIVE_INFINITY, 3, 1e30, 1);
            assertEquals(Double.POSITIVE_INFINITY, z[0]);
            assertEquals(3, z[1]);
        }
    }

    // ---------------------------------------------------------------------- unsupported pairs

    @Test
    void unsupportedPairsThrowSayingWhatToUse() {
        int unsupported = 0;
        for (ReduceOp op : ReduceOp.values()) {
            for (Datatype type : Datatype.values()) {
                if (op.supports(type)) {
                    continue;
                }
                unsupported++;
                MemorySegment d = MemorySegment.ofArray(new long[4]);
                MemorySegment s = MemorySegment.ofArray(new long[4]);
                TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class,
                        () -> Reduction.apply(op, type, d, 0, s, 0, 1), op + " on " + type);
                String m = e.getMessage();
                assertTrue(m.startsWith(op.name() + " is "), m);
                assertTrue(m.contains(type.name()), m);
                assertTrue(m.contains(" use ") || m.contains(" instead"), m);
                // count 0 does not excuse a wrong combination: the call is still a bug
                assertThrows(TuttiException.InvalidArgument.class, () -> Reduction.apply(op, type, d, 0, s, 0, 0));
                assertThrows(TuttiException.InvalidArgument.class, () -> op.check(type));
            }
        }
        assertEquals(12 * 12 - 68, unsupported);
        String band = assertThrows(TuttiException.InvalidArgument.class, () -> Reduction.apply(ReduceOp.BAND,
                Datatype.DOUBLE, MemorySegment.ofArray(new double[1]), 0, MemorySegment.ofArray(new double[1]), 0, 1))
                .getMessage();
        assertTrue(band.startsWith("BAND is defined for integer types only"), band);
        assertTrue(band.contains("not DOUBLE; use LONG on Double.doubleToRawLongBits"), band);
        String maxloc = assertThrows(TuttiException.InvalidArgument.class, () -> ReduceOp.MAXLOC.check(Datatype.INT))
                .getMessage();
        assertTrue(maxloc.contains("pair types only") && maxloc.endsWith("use INT2"), maxloc);
        String sum = assertThrows(TuttiException.InvalidArgument.class, () -> ReduceOp.SUM.check(Datatype.DOUBLE2))
                .getMessage();
        assertTrue(sum.contains("use DOUBLE with twice the count"), sum);
        String land = assertThrows(TuttiException.InvalidArgument.class, () -> ReduceOp.LAND.check(Datatype.FLOAT))
                .getMessage();
        assertTrue(land.contains("not FLOAT; reduce the truth values as BYTE or INT"), land);
    }

    // ------------------------------------------------------------------ regions and arguments

    @Test
    void countZeroTouchesNothingEvenAtTheEnd() {
        int[] d = {1, 2};
        MemorySegment dst = MemorySegment.ofArray(d);
        Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 8, MemorySegment.ofArray(new int[0]), 0, 0);
        Reduction.apply(ReduceOp.MAXLOC, Datatype.INT2, dst, 8, MemorySegment.NULL, 0, 0);
        Reduction.apply((inout, io, in, i, n, t) -> fail("a user op must not be called for count 0"), Datatype.INT,
                dst, 0, dst, 0, 0);
        assertArrayEquals(new int[] {1, 2}, d);
    }

    @Test
    void badRegionsAndCountsAreRejectedBeforeAnythingIsWritten() {
        int[] d = {1, 2, 3, 4};
        MemorySegment dst = MemorySegment.ofArray(d);
        MemorySegment src = MemorySegment.ofArray(new int[] {10, 20, 30, 40});
        String m = assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 4, src, 0, 4)).getMessage();
        assertEquals("the destination region (4 INT = 16 bytes at offset 4) does not lie within its segment of 16"
                + " bytes", m);
        assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 0, src, 1, 4));
        assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, -4, src, 0, 1));
        assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.MAXLOC, Datatype.INT2, dst, 0, src, 0, 3));
        assertTrue(assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 0, src, 0, -1)).getMessage()
                .contains("count must not be negative"));
        assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 0, src, 0,
                        Long.MAX_VALUE / 2));
        assertTrue(assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, src.asReadOnly(), 0, dst, 0, 1)).getMessage()
                .contains("read-only"));
        assertThrows(TuttiException.InvalidArgument.class,
                () -> Reduction.apply((a, b, c, e, f, g) -> { }, Datatype.INT, dst, 0, src, 8, 3));
        assertThrows(NullPointerException.class,
                () -> Reduction.apply((ReduceOp) null, Datatype.INT, dst, 0, src, 0, 1));
        assertThrows(NullPointerException.class, () -> Reduction.apply(ReduceOp.SUM, null, dst, 0, src, 0, 1));
        assertThrows(NullPointerException.class, () -> Reduction.apply(ReduceOp.SUM, Datatype.INT, null, 0, src, 0, 1));
        assertArrayEquals(new int[] {1, 2, 3, 4}, d);
        // a read-only source is fine: it is only read
        Reduction.apply(ReduceOp.SUM, Datatype.INT, dst, 4, src.asReadOnly(), 4, 3);
        assertArrayEquals(new int[] {1, 22, 33, 44}, d);
    }

    @Test
    void identicalRegionsReduceAnOperandWithItself() {
        double[] x = {1.5, -2, Double.NaN};
        MemorySegment s = MemorySegment.ofArray(x);
        Reduction.apply(ReduceOp.SUM, Datatype.DOUBLE, s, 0, s, 0, 3);
        assertArrayEquals(new double[] {3, -4, Double.NaN}, x);
        long[] y = {-1, 7, Long.MIN_VALUE};
        MemorySegment t = MemorySegment.ofArray(y);
        Reduction.apply(ReduceOp.BXOR, Datatype.LONG, t, 0, t, 0, 3);
        assertArrayEquals(new long[3], y);
    }

    @Test
    void mappedAndSlicedSegmentsWork() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("tutti-reduction", ".bin");
        try (Arena arena = Arena.ofConfined();
             var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                     java.nio.file.StandardOpenOption.WRITE)) {
            MemorySegment mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            for (int i = 0; i < 100; i++) {
                mapped.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 1 + 4L * i, i);
            }
            float[] src = new float[102];
            Arrays.fill(src, 0.5f);
            Reduction.apply(ReduceOp.SUM, Datatype.FLOAT, mapped, 1, MemorySegment.ofArray(src).asSlice(8), 0, 100);
            for (int i = 0; i < 100; i++) {
                assertEquals(i + 0.5f, mapped.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 1 + 4L * i));
            }
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    // ----------------------------------------------------------------------------- user ops

    @Test
    void userOpsGetInAsTheLeftOperandAndInoutAsTheRight() {
        // in - inout is not commutative, so swapped operands would show
        UserOp minus = (inout, inoutOffset, in, inOffset, count, type) -> {
            assertSame(Datatype.LONG2, type);
            for (long i = 0; i < 2 * count; i++) {
                long at = 8 * i;
                inout.set(ValueLayout.JAVA_LONG_UNALIGNED, inoutOffset + at,
                        in.get(ValueLayout.JAVA_LONG_UNALIGNED, inOffset + at)
                                - inout.get(ValueLayout.JAVA_LONG_UNALIGNED, inoutOffset + at));
            }
        };
        assertTrue(minus.commutative(), "the default is commutative, as MPI_Op_create's commute flag");
        long[] dst = {0, 1, 2, 3, 4, 99};
        long[] src = {99, 10, 20, 30, 40};
        Reduction.apply(minus, Datatype.LONG2, MemorySegment.ofArray(dst), 8, MemorySegment.ofArray(src), 8, 2);
        assertArrayEquals(new long[] {0, 9, 18, 27, 36, 99}, dst);
    }

    // ------------------------------------------------------------------------- no allocation

    @Test
    void allocatesNothingOnceWarm() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(1 << 16);
            MemorySegment ints = MemorySegment.ofArray(new int[1 << 14]);
            MemorySegment bytes = MemorySegment.ofArray(new byte[1 << 16]);
            MemorySegment doubles = MemorySegment.ofArray(new double[1 << 13]);
            Runnable calls = () -> {
                Reduction.apply(ReduceOp.SUM, Datatype.INT, ints, 4, nat, 0, 5000);
                Reduction.apply(ReduceOp.MAX, Datatype.DOUBLE, doubles, 0, bytes, 3, 3000);
                Reduction.apply(ReduceOp.MINLOC, Datatype.DOUBLE2, nat, 8, doubles, 0, 1000);
                Reduction.apply(ReduceOp.LXOR, Datatype.CHAR, bytes, 1, ints, 2, 7);
                Reduction.apply(ReduceOp.BAND, Datatype.BYTE, bytes, 0, nat, 1, 20000);
            };
            for (int i = 0; i < 3000; i++) {
                calls.run();
            }
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1000; i++) {
                calls.run();
            }
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertEquals(0, allocated, "bytes allocated by 5000 warm calls");
        }
    }

    // ------------------------------------------------------------------------------- helpers

    /** One element: returns {@code src op dst} as a long (CHAR zero-extended). */
    private static long one(ReduceOp op, Datatype type, long src, long dst) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment d = arena.allocate(16);
            MemorySegment s = arena.allocate(16);
            Ref.setLong(d, 3, type, dst);
            Ref.setLong(s, 5, type, src);
            Reduction.apply(op, type, d, 3, s, 5, 1);
            return Ref.getLong(d, 3, type);
        }
    }

    private static double oneFp(ReduceOp op, Datatype type, double src, double dst) {
        MemorySegment d = MemorySegment.ofArray(new byte[16]);
        MemorySegment s = MemorySegment.ofArray(new long[2]);
        if (type == Datatype.FLOAT) {
            d.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 1, (float) dst);
            s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 2, (float) src);
            Reduction.apply(op, type, d, 1, s, 2, 1);
            return d.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 1);
        }
        d.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 1, dst);
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 2, src);
        Reduction.apply(op, type, d, 1, s, 2, 1);
        return d.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 1);
    }

    /** One pair of an integer pair type: returns {@code (src value, src index) op (dst value, dst index)}. */
    private static long[] pair(ReduceOp op, Datatype type, long srcValue, long srcIndex, long dstValue,
                               long dstIndex) {
        if (type.base() == Datatype.FLOAT || type.base() == Datatype.DOUBLE) {
            double[] r = pairFp(op, type, srcValue, srcIndex, dstValue, dstIndex);
            return new long[] {(long) r[0], (long) r[1]};
        }
        Datatype base = type.base();
        MemorySegment d = MemorySegment.ofArray(new byte[40]);
        MemorySegment s = Arena.ofAuto().allocate(40);
        Ref.setLong(d, 1, base, dstValue);
        Ref.setLong(d, 1 + base.size(), base, dstIndex);
        Ref.setLong(s, 7, base, srcValue);
        Ref.setLong(s, 7 + base.size(), base, srcIndex);
        Reduction.apply(op, type, d, 1, s, 7, 1);
        return new long[] {Ref.getLong(d, 1, base), Ref.getLong(d, 1 + base.size(), base)};
    }

    private static double[] pairFp(ReduceOp op, Datatype type, double srcValue, double srcIndex, double dstValue,
                                   double dstIndex) {
        MemorySegment d = MemorySegment.ofArray(new byte[40]);
        MemorySegment s = MemorySegment.ofArray(new double[5]);
        if (type == Datatype.FLOAT2) {
            d.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 3, (float) dstValue);
            d.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 7, (float) dstIndex);
            s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 8, (float) srcValue);
            s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 12, (float) srcIndex);
            Reduction.apply(op, type, d, 3, s, 8, 1);
            return new double[] {d.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 3), d.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 7)};
        }
        d.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 3, dstValue);
        d.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 11, dstIndex);
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8, srcValue);
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 16, srcIndex);
        Reduction.apply(op, type, d, 3, s, 8, 1);
        return new double[] {d.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 3), d.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 11)};
    }

    private static void assertPair(long value, long index, long[] actual, String what) {
        assertArrayEquals(new long[] {value, index}, actual, what);
    }

    private static void assertNaN(double v, Datatype t) {
        assertTrue(Double.isNaN(v), t + ": expected NaN, got " + v);
    }

    private static void assertBits(double expected, double actual, Datatype t) {
        assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(actual),
                t + ": expected " + expected + ", got " + actual);
    }

    // ----------------------------------------------------------- shared with the property test

    /** Where an operand lives: the kernel must not care. */
    enum Kind {
        /** Heap segment over an array of the element's own primitive type. */
        TYPED,
        /** Heap segment over a byte[]: the schedules' scratch. */
        BYTES,
        /** Off-heap segment. */
        NATIVE,
        /**
         * Off-heap, passed by address through {@link Memory#ALL} as Tutti passes its own memory: short
         * vectors with both operands so take the direct path.
         */
        ADDRESS
    }

    /** An operation with a type it supports. */
    record Combo(ReduceOp op, Datatype type) {
        @Override
        public String toString() {
            return op + " " + type;
        }
    }

    /**
     * The reference: {@code dst[i] = src[i] op dst[i]} one element at a time on Java arrays, written
     * from the definitions (integers widened to long, CHAR without sign), sharing no code with the kernels.
     */
    static final class Ref {
        private Ref() {
        }

        static List<Combo> supported() {
            List<Combo> all = new ArrayList<>();
            for (ReduceOp op : ReduceOp.values()) {
                for (Datatype type : Datatype.values()) {
                    if (op.supports(type)) {
                        all.add(new Combo(op, type));
                    }
                }
            }
            return all;
        }

        /**
         * Places random operands in segments of the given kinds and paddings, reduces them with the
         * kernel and compares with the reference, then checks that no byte outside the destination
         * region changed.
         */
        static void checkAgainstReference(ReduceOp op, Datatype type, int count, Kind dstKind, int dstPad,
                                          Kind srcKind, int srcPad, boolean srcReadOnly, Random random) {
            int elements = count * (type.isPair() ? 2 : 1);
            Object dst = randomElements(type, elements, random);
            Object src = randomElements(type, elements, random);
            Object expected = reference(op, type, dst, src);
            try (Arena arena = Arena.ofConfined()) {
                Placed d = place(dstKind, type.base(), dst, dstPad, arena, random);
                Placed s = place(srcKind, type.base(), src, srcPad, arena, random);
                byte[] dstBefore = d.segment.toArray(ValueLayout.JAVA_BYTE);
                byte[] srcBefore = s.segment.toArray(ValueLayout.JAVA_BYTE);
                // an address has no read-only view: the flag applies to a source passed as a segment
                MemorySegment srcVia = srcReadOnly && srcKind != Kind.ADDRESS ? s.segment.asReadOnly() : via(srcKind, s);
                Reduction.apply(op, type, via(dstKind, d), at(dstKind, d), srcVia, at(srcKind, s), count);
                String what = op + " " + type + " count=" + count + " dst=" + dstKind + "+" + d.offset + " src="
                        + srcKind + "+" + s.offset;
                assertSameElements(type.base(), expected, read(d, type.base(), elements), what);
                byte[] dstAfter = d.segment.toArray(ValueLayout.JAVA_BYTE);
                long end = d.offset + (long) elements * type.size();
                assertArrayEquals(Arrays.copyOfRange(dstBefore, 0, (int) d.offset),
                        Arrays.copyOfRange(dstAfter, 0, (int) d.offset), what + ": bytes before the region");
                assertArrayEquals(Arrays.copyOfRange(dstBefore, (int) end, dstBefore.length),
                        Arrays.copyOfRange(dstAfter, (int) end, dstAfter.length), what + ": bytes after the region");
                assertArrayEquals(srcBefore, s.segment.toArray(ValueLayout.JAVA_BYTE), what + ": source changed");
            }
        }

        static Object reference(ReduceOp op, Datatype type, Object dst, Object src) {
            Datatype base = type.base();
            int n = java.lang.reflect.Array.getLength(dst);
            Object out = copy(dst);
            if (type.isPair()) {
                for (int i = 0; i < n; i += 2) {
                    if (sourcePairWins(op, base, src, dst, i)) {
                        System.arraycopy(src, i, out, i, 2);
                    }
                }
                return out;
            }
            for (int i = 0; i < n; i++) {
                switch (base) {
                    case FLOAT -> ((float[]) out)[i] = floatOp(op, ((float[]) src)[i], ((float[]) dst)[i]);
                    case DOUBLE -> ((double[]) out)[i] = doubleOp(op, ((double[]) src)[i], ((double[]) dst)[i]);
                    default -> setLong(out, i, longOp(op, getLong(src, i), getLong(dst, i)));
                }
            }
            return out;
        }

        /** {@code a op b} on integers widened to long; narrowing the result afterwards wraps as Java does. */
        static long longOp(ReduceOp op, long a, long b) {
            return switch (op) {
                case SUM -> a + b;
                case PROD -> a * b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
                case LAND -> a != 0 && b != 0 ? 1 : 0;
                case LOR -> a != 0 || b != 0 ? 1 : 0;
                case LXOR -> (a != 0) != (b != 0) ? 1 : 0;
                case BAND -> a & b;
                case BOR -> a | b;
                case BXOR -> a ^ b;
                default -> throw new IllegalArgumentException(op.name());
            };
        }

        static float floatOp(ReduceOp op, float a, float b) {
            return switch (op) {
                case SUM -> a + b;
                case PROD -> a * b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
                default -> throw new IllegalArgumentException(op.name());
            };
        }

        static double doubleOp(ReduceOp op, double a, double b) {
            return switch (op) {
                case SUM -> a + b;
                case PROD -> a * b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
                default -> throw new IllegalArgumentException(op.name());
            };
        }

        /**
         * MPI's definition: (u, i) op (v, j) is (u, i) if u is better, (v, j) if v is, and (u, min(i, j))
         * on a tie. Floating-point "better" is the documented order: for MAXLOC NaN above everything,
         * for MINLOC NaN below everything, and -0.0 below 0.0 for both.
         */
        static boolean sourcePairWins(ReduceOp op, Datatype base, Object src, Object dst, int i) {
            int c;
            boolean smallerIndex;
            if (base == Datatype.FLOAT || base == Datatype.DOUBLE) {
                double u = getDouble(src, i);
                double v = getDouble(dst, i);
                c = op == ReduceOp.MAXLOC ? rank(u, true, v) : rank(u, false, v);
                smallerIndex = getDouble(src, i + 1) < getDouble(dst, i + 1);
            } else {
                c = Long.compare(getLong(src, i), getLong(dst, i));
                smallerIndex = getLong(src, i + 1) < getLong(dst, i + 1);
            }
            boolean better = op == ReduceOp.MAXLOC ? c > 0 : c < 0;
            return better || c == 0 && smallerIndex;
        }

        /** Compares u with v in the order where NaN is above (or below) every number and -0.0 below 0.0. */
        private static int rank(double u, boolean nanHighest, double v) {
            boolean uNaN = Double.isNaN(u);
            boolean vNaN = Double.isNaN(v);
            if (uNaN || vNaN) {
                if (uNaN && vNaN) {
                    return 0;
                }
                return uNaN == nanHighest ? 1 : -1;
            }
            if (u < v) {
                return -1;
            }
            if (u > v) {
                return 1;
            }
            if (u == 0) { // 0.0 == -0.0, but the sign still ranks
                boolean uNegative = 1 / u < 0;
                boolean vNegative = 1 / v < 0;
                return uNegative == vNegative ? 0 : uNegative ? -1 : 1;
            }
            return 0;
        }

        // --------------------------------------------------------------------- random operands

        /** Mixes edge values, small values (which make ties) and random bits. Pair indices stay small. */
        static Object randomElements(Datatype type, int elements, Random random) {
            Datatype base = type.base();
            Object a = newArray(base, elements);
            for (int i = 0; i < elements; i++) {
                boolean index = type.isPair() && (i & 1) == 1;
                int pick = random.nextInt(10);
                if (base == Datatype.FLOAT || base == Datatype.DOUBLE) {
                    double[] edges = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0,
                            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1, -1,
                            Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, Double.MIN_NORMAL};
                    double v;
                    if (index || pick < 3) {
                        v = random.nextInt(7) - 3;
                    } else if (pick < 5) {
                        v = edges[random.nextInt(edges.length)];
                    } else if (pick < 8) {
                        v = random.nextGaussian() * 1e3;
                    } else {
                        v = base == Datatype.FLOAT ? Float.intBitsToFloat(random.nextInt())
                                : Double.longBitsToDouble(random.nextLong());
                    }
                    if (base == Datatype.FLOAT) {
                        ((float[]) a)[i] = (float) v;
                    } else {
                        ((double[]) a)[i] = v;
                    }
                } else {
                    long[] edges = {0, 1, -1, Byte.MIN_VALUE, Byte.MAX_VALUE, Short.MIN_VALUE, Short.MAX_VALUE,
                            0xFFFF, 0x8000, Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE};
                    long v;
                    if (index || pick < 3) {
                        v = random.nextInt(7) - 3;
                    } else if (pick < 5) {
                        v = edges[random.nextInt(edges.length)];
                    } else {
                        v = random.nextLong();
                    }
                    setLong(a, i, v);
                }
            }
            return a;
        }

        // -------------------------------------------------------------------------- placement

        record Placed(MemorySegment segment, long offset) {
        }

        /** Puts the elements {@code pad} elements (TYPED) or bytes (BYTES, NATIVE) into a segment of random bytes. */
        static Placed place(Kind kind, Datatype base, Object elements, int pad, Arena arena, Random random) {
            int n = java.lang.reflect.Array.getLength(elements);
            long bytes = (long) n * base.size();
            MemorySegment segment = switch (kind) {
                case TYPED -> ofArray(newArray(base, pad + n + 2));
                case BYTES -> MemorySegment.ofArray(new byte[(int) (pad + bytes + 3)]);
                case NATIVE, ADDRESS -> arena.allocate(pad + bytes + 3, 1);
            };
            long offset = kind == Kind.TYPED ? (long) pad * base.size() : pad;
            byte[] noise = new byte[(int) segment.byteSize()];
            random.nextBytes(noise);
            MemorySegment.copy(noise, 0, segment, ValueLayout.JAVA_BYTE, 0, noise.length);
            MemorySegment.copy(elements, 0, segment, layout(base), offset, n);
            return new Placed(segment, offset);
        }

        static MemorySegment via(Kind kind, Placed p) {
            return kind == Kind.ADDRESS ? Memory.ALL : p.segment;
        }

        static long at(Kind kind, Placed p) {
            return kind == Kind.ADDRESS ? p.segment.address() + p.offset : p.offset;
        }

        static Object read(Placed p, Datatype base, int n) {
            Object out = newArray(base, n);
            MemorySegment.copy(p.segment, layout(base), p.offset, out, 0, n);
            return out;
        }

        /** Exact for integers; for floating point, NaNs are equal whatever their payload and -0.0 != 0.0. */
        static void assertSameElements(Datatype base, Object expected, Object actual, String what) {
            switch (base) {
                case BYTE -> assertArrayEquals((byte[]) expected, (byte[]) actual, what);
                case SHORT -> assertArrayEquals((short[]) expected, (short[]) actual, what);
                case CHAR -> assertArrayEquals((char[]) expected, (char[]) actual, what);
                case INT -> assertArrayEquals((int[]) expected, (int[]) actual, what);
                case LONG -> assertArrayEquals((long[]) expected, (long[]) actual, what);
                case FLOAT -> assertArrayEquals((float[]) expected, (float[]) actual, what);
                case DOUBLE -> assertArrayEquals((double[]) expected, (double[]) actual, what);
                default -> throw new IllegalArgumentException(base.name());
            }
        }

        static ValueLayout layout(Datatype base) {
            return switch (base) {
                case BYTE -> ValueLayout.JAVA_BYTE;
                case SHORT -> ValueLayout.JAVA_SHORT_UNALIGNED;
                case CHAR -> ValueLayout.JAVA_CHAR_UNALIGNED;
                case INT -> ValueLayout.JAVA_INT_UNALIGNED;
                case LONG -> ValueLayout.JAVA_LONG_UNALIGNED;
                case FLOAT -> ValueLayout.JAVA_FLOAT_UNALIGNED;
                case DOUBLE -> ValueLayout.JAVA_DOUBLE_UNALIGNED;
                default -> throw new IllegalArgumentException(base.name());
            };
        }

        static Object newArray(Datatype base, int n) {
            return switch (base) {
                case BYTE -> new byte[n];
                case SHORT -> new short[n];
                case CHAR -> new char[n];
                case INT -> new int[n];
                case LONG -> new long[n];
                case FLOAT -> new float[n];
                case DOUBLE -> new double[n];
                default -> throw new IllegalArgumentException(base.name());
            };
        }

        static MemorySegment ofArray(Object a) {
            return switch (a) {
                case byte[] x -> MemorySegment.ofArray(x);
                case short[] x -> MemorySegment.ofArray(x);
                case char[] x -> MemorySegment.ofArray(x);
                case int[] x -> MemorySegment.ofArray(x);
                case long[] x -> MemorySegment.ofArray(x);
                case float[] x -> MemorySegment.ofArray(x);
                case double[] x -> MemorySegment.ofArray(x);
                default -> throw new IllegalArgumentException(a.getClass().getName());
            };
        }

        static Object copy(Object a) {
            int n = java.lang.reflect.Array.getLength(a);
            Object c = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n);
            System.arraycopy(a, 0, c, 0, n);
            return c;
        }

        /** Element i widened to long: signed for byte, short, int; unsigned for char. */
        static long getLong(Object a, int i) {
            return switch (a) {
                case byte[] x -> x[i];
                case short[] x -> x[i];
                case char[] x -> x[i];
                case int[] x -> x[i];
                case long[] x -> x[i];
                default -> throw new IllegalArgumentException(a.getClass().getName());
            };
        }

        static void setLong(Object a, int i, long v) {
            switch (a) {
                case byte[] x -> x[i] = (byte) v;
                case short[] x -> x[i] = (short) v;
                case char[] x -> x[i] = (char) v;
                case int[] x -> x[i] = (int) v;
                case long[] x -> x[i] = v;
                default -> throw new IllegalArgumentException(a.getClass().getName());
            }
        }

        static double getDouble(Object a, int i) {
            return a instanceof float[] f ? f[i] : ((double[]) a)[i];
        }

        /** Reads an integer element of a segment, widened as {@link #getLong(Object, int)} does. */
        static long getLong(MemorySegment s, long offset, Datatype base) {
            return switch (base) {
                case BYTE -> s.get(ValueLayout.JAVA_BYTE, offset);
                case SHORT -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
                case CHAR -> s.get(ValueLayout.JAVA_CHAR_UNALIGNED, offset);
                case INT -> s.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
                case LONG -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                default -> throw new IllegalArgumentException(base.name());
            };
        }

        static void setLong(MemorySegment s, long offset, Datatype base, long v) {
            switch (base) {
                case BYTE -> s.set(ValueLayout.JAVA_BYTE, offset, (byte) v);
                case SHORT -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, (short) v);
                case CHAR -> s.set(ValueLayout.JAVA_CHAR_UNALIGNED, offset, (char) v);
                case INT -> s.set(ValueLayout.JAVA_INT_UNALIGNED, offset, (int) v);
                case LONG -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, v);
                default -> throw new IllegalArgumentException(base.name());
            }
        }
    }
}
