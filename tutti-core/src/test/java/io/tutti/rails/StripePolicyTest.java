package io.tutti.rails;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The striping policy: FREE rails by load, BUSY ones skipped, round robin for whole records. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StripePolicyTest {
    private static final int[] RAILS = {0, 1, 2};

    @Test
    void onlyLargeRecordsOverSeveralRailsAreStriped() {
        assertTrue(StripePolicy.stripes(16385, 16384, 2));
        assertFalse(StripePolicy.stripes(16384, 16384, 2));
        assertFalse(StripePolicy.stripes(1 << 20, 16384, 1));
    }

    @Test
    void stripesGoOnTheFreeRailsOrAllWhenNoneIs() {
        long[] load = {0, 5000, 10};
        int[] into = new int[3];
        assertEquals(2, StripePolicy.stripeRails(RAILS, 3, r -> load[r], 100, into));
        assertArrayEquals(new int[] {0, 2}, Arrays.copyOf(into, 2));
        long[] busy = {500, 600, 700};
        assertEquals(3, StripePolicy.stripeRails(RAILS, 3, r -> busy[r], 100, into));
        assertArrayEquals(RAILS, into);
    }

    @Test
    void wholeRecordsTakeTheNextFreeRailInTurn() {
        long[] load = {0, 5000, 0};
        assertEquals(0, StripePolicy.wholeRail(RAILS, 3, r -> load[r], 100, 0));
        assertEquals(2, StripePolicy.wholeRail(RAILS, 3, r -> load[r], 100, 1), "rail 1 is BUSY: the next FREE");
        assertEquals(2, StripePolicy.wholeRail(RAILS, 3, r -> load[r], 100, 2));
        assertEquals(0, StripePolicy.wholeRail(RAILS, 3, r -> load[r], 100, 3));
        long[] busy = {500, 600, 700};
        assertEquals(1, StripePolicy.wholeRail(RAILS, 3, r -> busy[r], 100, 4), "all BUSY: the turn's own");
        assertEquals(2, StripePolicy.wholeRail(RAILS, 3, r -> busy[r], 100, -1), "a wrapped turn counter");
    }
}
