package io.tutti.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class MemoryTest {
    @Test
    void nativeMemoryIsReachedByAddressAndHeapMemoryThroughItsSegment() {
        assertNotNull(Memory.ALL, "the tests run with native access");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(64);
            assertSame(Memory.ALL, Memory.via(n));
            assertEquals(n.address(), Memory.base(n));
            MemorySegment h = MemorySegment.ofArray(new double[8]);
            assertSame(h, Memory.via(h));
            assertEquals(0, Memory.base(h));
        }
    }

    @Test
    void copiesMoveTheSameBytesWhicheverSideIsReachedByAddress() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(64);
            MemorySegment b = arena.allocate(64);
            double[] array = {1.5, -2.25, 3.0, 4.125};
            MemorySegment h = MemorySegment.ofArray(array);
            // heap -> native by address
            Memory.copy(h, 8, Memory.via(a), Memory.base(a) + 16, 24);
            assertEquals(-2.25, a.get(ValueLayout.JAVA_DOUBLE, 16));
            assertEquals(4.125, a.get(ValueLayout.JAVA_DOUBLE, 32));
            // native -> native, both by address
            Memory.copy(Memory.via(a), Memory.base(a) + 16, Memory.via(b), Memory.base(b), 24);
            assertEquals(3.0, b.get(ValueLayout.JAVA_DOUBLE, 8));
            // native by address -> heap, through an array and back
            double[] out = new double[3];
            Memory.load(Memory.via(b), Memory.base(b), out, 0, 3);
            assertArrayEquals(new double[] {-2.25, 3.0, 4.125}, out);
            Memory.store(new double[] {7.0, 8.0}, 0, Memory.via(b), Memory.base(b) + 40, 2);
            assertEquals(8.0, b.get(ValueLayout.JAVA_DOUBLE, 48));
            // segments on both sides: the checked path
            double[] back = new double[4];
            Memory.copy(a, 16, MemorySegment.ofArray(back), 0, 24);
            assertArrayEquals(new double[] {-2.25, 3.0, 4.125, 0}, back);
        }
    }
}
