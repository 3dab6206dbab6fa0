package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A REVOKE names its context in a 32-bit field that a peer writes: every value is taken or
 * ignored at a small, bounded cost (found by {@code RecordFuzzTest}: a negative context grew the
 * revoked set to half a gigabyte, and -1 threw out of the engine's progress).
 */
@Timeout(30)
class RevocationsTest {
    private final Revocations r = new Revocations(null, 0);

    @Test
    void aNegativeOrLastContextIsIgnoredAndThrowsNothing() {
        for (int context : new int[] {-1, -256, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertDoesNotThrow(() -> r.revoke(context, w -> null));
            assertFalse(r.revoked(context), "context " + context);
        }
    }

    @Test
    void aHugeContextIsRevokedWithoutAHugeTable() {
        long before = usedHeap();
        r.revoke(Integer.MAX_VALUE - 1, w -> null);
        r.revoke(Revocations.DENSE_CONTEXTS - 1, w -> null);
        r.revoke(4, w -> null);
        assertTrue(r.revoked(Integer.MAX_VALUE - 1) && r.revoked(Integer.MAX_VALUE), "a communicator and its collectives");
        assertTrue(r.revoked(Revocations.DENSE_CONTEXTS - 1) && r.revoked(Revocations.DENSE_CONTEXTS), "across the bound");
        assertTrue(r.revoked(4) && r.revoked(5));
        assertFalse(r.revoked(2) || r.revoked(6) || r.revoked(Integer.MAX_VALUE - 2), "only what was revoked");
        // the dense table covers 2^20 contexts (128 KiB); the old one grew to 2^31 bits (256 MiB) here
        assertTrue(usedHeap() - before < 16L << 20, "the revoked set took " + (usedHeap() - before) + " bytes");
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
