package io.tutti.offload;

import io.tutti.os.Memory;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The offload area's geometry as its owner formats it and a peer maps it. */
class OffloadAreaTest {

    @Test
    void aPeerSeesTheOwnersGeometryAndDisjointParities() {
        try (Arena arena = Arena.ofConfined()) {
            int counters = 3;
            long temp = 100;
            MemorySegment s = arena.allocate(OffloadAreaDescriptor.fileLength(counters, temp), 64);
            OffloadArea.format(s, counters, temp);
            OffloadArea a = new OffloadArea(s);
            assertEquals(counters, a.counters());
            assertEquals(temp, a.tempBytes());
            assertEquals(-1, a.cpu());
            MemorySegment t0 = a.temp(0);
            MemorySegment t1 = a.temp(1);
            assertEquals(temp, t0.byteSize());
            for (int parity = 0; parity < 2; parity++) {
                long block = a.counterOffset(parity, 0);
                assertEquals(0, block % OffloadAreaDescriptor.LINE, "each parity starts on a line");
                assertTrue(block >= OffloadAreaDescriptor.FIRST_BLOCK_OFFSET, "after the header");
                for (int c = 0; c < counters; c++) {
                    assertEquals(block + 8L * c, a.counterOffset(parity, c), "counters side by side");
                }
                MemorySegment t = parity == 0 ? t0 : t1;
                assertEquals(s.address() + block + 8L * counters, t.address(), "the temp right after the counters");
            }
            assertTrue(t1.address() >= t0.address() + temp, "the parities' temps do not overlap");
            assertTrue(t1.address() + temp <= s.address() + s.byteSize());
            assertEquals(t0.address() - s.address(), a.tempAt(0) - Memory.base(s), "via() reaches the same temp");
        }
    }

    @Test
    void somethingElseIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(4096, 64);
            assertThrows(IllegalArgumentException.class, () -> new OffloadArea(s), "no magic");
            OffloadArea.format(s, 2, 1 << 20);
            assertThrows(IllegalArgumentException.class, () -> new OffloadArea(s), "too short for its geometry");
        }
    }
}
