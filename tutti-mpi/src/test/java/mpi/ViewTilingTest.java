package mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The file view's tiling: data bytes to file bytes and runs, the data before an end of file, and the checks. */
@Timeout(10)
class ViewTilingTest {
    /** Two blocks of 8 bytes at 0 and 32 of a 64-byte tile, from byte 16. */
    private final ViewTiling gaps = new ViewTiling(16, new long[] {0, 8, 32, 8}, 64);

    @Test
    void mapsDataBytesThroughTheTiles() {
        assertEquals(16, gaps.fileByte(0));
        assertEquals(23, gaps.fileByte(7));
        assertEquals(48, gaps.fileByte(8));
        assertEquals(80, gaps.fileByte(16));
        assertEquals(117, gaps.fileByte(29));
    }

    @Test
    void runsStopAtEachBlockAndGoOnInTheNextTile() {
        gaps.seek(4);
        long[] expected = {20, 4, 48, 8, 80, 8};
        long left = 20;
        for (int i = 0; i < expected.length; i += 2) {
            long n = gaps.next(left);
            assertEquals(expected[i], gaps.runAt, "run " + i / 2);
            assertEquals(expected[i + 1], n, "run " + i / 2);
            left -= n;
        }
        assertEquals(0, left);
    }

    @Test
    void countsTheDataBeforeAnEndOfFileInsideABlock() {
        assertEquals(0, gaps.dataBefore(10));
        assertEquals(16, gaps.dataBefore(16 + 64));
        assertEquals(16 + 8 + 4, gaps.dataBefore(16 + 64 + 36));
        assertEquals(16 + 6, gaps.dataBefore(16 + 64 + 6));
    }

    @Test
    void aDenseViewIsOneRun() {
        ViewTiling dense = new ViewTiling(10, new long[] {0, 4}, 4);
        assertEquals(17, dense.fileByte(7));
        dense.seek(3);
        assertEquals(100, dense.next(100));
        assertEquals(13, dense.runAt);
        assertEquals(90, dense.dataBefore(100));
    }

    @Test
    void refusesFileTypesThatCannotTile() {
        assertNull(ViewTiling.problem(new long[] {0, 8, 32, 8}, 64));
        assertNotNull(ViewTiling.problem(new long[] {32, 8, 0, 8}, 64), "decreasing");
        assertNotNull(ViewTiling.problem(new long[] {-4, 8}, 64), "negative");
        assertNotNull(ViewTiling.problem(new long[] {0, 8, 60, 8}, 64), "past the extent");
        assertNotNull(ViewTiling.problem(new long[0], 0), "no data");
    }
}
