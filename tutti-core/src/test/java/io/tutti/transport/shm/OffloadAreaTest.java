package io.tutti.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The offload area's geometry as its owner formats it and a peer maps it. */
class OffloadAreaTest {

    @Test
    void aPeerSeesTheOwnersGeometryAndDisjointLines() {
        try (Arena arena = Arena.ofConfined()) {
            int counters = 3;
            long temp = 100;
            MemorySegment s = arena.allocate(OffloadAreaDescriptor.fileLength(counters, temp), 64);
            OffloadArea.format(s, counters, temp);
            OffloadArea a = new OffloadArea(s);
            assertEquals(counters, a.counters());
            assertEquals(temp, a.tempBytes());
            assertEquals(-1, a.cpu());
            long previous = OffloadAreaDescriptor.FIRST_COUNTER_OFFSET - OffloadAreaDescriptor.LINE;
            for (int parity = 0; parity < 2; parity++) {
                for (int c = 0; c < counters; c++) {
                    long at = a.counterOffset(parity, c);
                    assertEquals(previous + OffloadAreaDescriptor.LINE, at, "one line per counter");
                    previous = at;
                }
            }
            MemorySegment t0 = a.temp(0);
            MemorySegment t1 = a.temp(1);
            assertEquals(temp, t0.byteSize());
            assertTrue(t0.address() >= s.address() + previous + 8, "temp after the counters");
            assertTrue(t1.address() >= t0.address() + temp, "the parities' temps do not overlap");
            assertEquals(0, (t1.address() - s.address()) % OffloadAreaDescriptor.LINE);
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
