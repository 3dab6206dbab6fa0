package io.tutti.reduce;

import io.tutti.offload.ReductionDescriptor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ALU cases the random tests may miss, and the descriptor layout. */
class OffloadAluTest {
    static MemorySegment ints(int... v) {
        MemorySegment s = Arena.ofAuto().allocate(4L * v.length, 8);
        for (int i = 0; i < v.length; i++) {
            s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, v[i]);
        }
        return s;
    }

    static int at(MemorySegment s, int i) {
        return s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
    }

    @Test
    @Timeout(10)
    void unsignedComparesAsUnsigned() {
        MemorySegment d = ints(-1, 5);
        OffloadAlu.apply(OffloadAlu.Op.MAX, OffloadAlu.Type.UINT32, d, 0, ints(7, 6), 0, 8);
        assertEquals(-1, at(d, 0), "0xFFFFFFFF is the largest uint32");
        assertEquals(6, at(d, 1));
        d = ints(-1, 5);
        OffloadAlu.apply(OffloadAlu.Op.MAX, OffloadAlu.Type.INT32, d, 0, ints(7, 6), 0, 8);
        assertEquals(7, at(d, 0));
    }

    @Test
    @Timeout(10)
    void locationTiesGoToTheSmallerIndex() {
        MemorySegment d = ints(9, 4, 1, 4);
        OffloadAlu.apply(OffloadAlu.Op.MAXLOC, OffloadAlu.Type.INT32, d, 0, ints(9, 2, 1, 7), 0, 16);
        assertEquals(2, at(d, 1));
        assertEquals(4, at(d, 3));
        OffloadAlu.apply(OffloadAlu.Op.MINLOC, OffloadAlu.Type.INT32, d, 0, ints(3, 8, 1, 0), 0, 16);
        assertEquals(3, at(d, 0));
        assertEquals(8, at(d, 1));
        assertEquals(0, at(d, 3));
    }

    @Test
    @Timeout(10)
    void logicalGivesZeroOrOne() {
        MemorySegment d = ints(6, 0, 6, 0);
        OffloadAlu.apply(OffloadAlu.Op.LXOR, OffloadAlu.Type.INT32, d, 0, ints(3, 3, 0, 0), 0, 16);
        assertEquals(0, at(d, 0));
        assertEquals(1, at(d, 1));
        assertEquals(1, at(d, 2));
        assertEquals(0, at(d, 3));
        assertThrows(io.tutti.TuttiException.InvalidArgument.class, () -> OffloadAlu.apply(OffloadAlu.Op.ADD,
                OffloadAlu.Type.INT64, d, 0, d, 0, 12));
    }

    @Test
    @Timeout(10)
    void descriptorRoundTrip() {
        MemorySegment data = Arena.ofAuto().allocate(100);
        for (int i = 0; i < 100; i++) {
            data.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        assertEquals(3, ReductionDescriptor.parts(100));
        assertEquals(1, ReductionDescriptor.parts(0));
        assertEquals(1, ReductionDescriptor.parts(48));
        MemorySegment d = Arena.ofAuto().allocate(ReductionDescriptor.SIZE + 8);
        d.fill((byte) 0x5A);
        ReductionDescriptor.encode(d, 0, true, 17, OffloadAlu.Op.MINLOC, OffloadAlu.Type.UINT64, 3, 123_456,
                2, 4, 1, 99_999, data, 96);
        assertEquals(true, ReductionDescriptor.reduce(d, 0));
        assertEquals(true, ReductionDescriptor.cp(d, 0));
        assertEquals(1, ReductionDescriptor.epoch(d, 0), "4 bits of 17");
        assertEquals(OffloadAlu.Op.MINLOC.ordinal(), ReductionDescriptor.rtype(d, 0));
        assertEquals(OffloadAlu.Type.UINT64.ordinal(), ReductionDescriptor.type(d, 0));
        assertEquals(3, ReductionDescriptor.branch(d, 0));
        assertEquals(123_456, ReductionDescriptor.source(d, 0));
        assertEquals(2, ReductionDescriptor.part(d, 0));
        assertEquals(4, ReductionDescriptor.count(d, 0));
        assertEquals(0, ReductionDescriptor.errorVector(d, 0));
        assertEquals(1, ReductionDescriptor.counter(d, 0));
        assertEquals(99_999, ReductionDescriptor.cpcnt(d, 0));
        assertEquals(96, d.get(ValueLayout.JAVA_BYTE, ReductionDescriptor.DATA_OFFSET));
        assertEquals(99, d.get(ValueLayout.JAVA_BYTE, ReductionDescriptor.DATA_OFFSET + 3));
        assertEquals(0, d.get(ValueLayout.JAVA_BYTE, ReductionDescriptor.DATA_OFFSET + 4), "unused data zeroed");
        assertEquals(0, d.get(ValueLayout.JAVA_BYTE, ReductionDescriptor.SIZE - 1));
        assertEquals(0x5A, d.get(ValueLayout.JAVA_BYTE, ReductionDescriptor.SIZE), "nothing past the descriptor");
        assertThrows(IllegalArgumentException.class, () -> ReductionDescriptor.encode(d, 0, false, 0, null, null, 0, 0,
                0, 49, 0, 0, data, 0));
    }
}
