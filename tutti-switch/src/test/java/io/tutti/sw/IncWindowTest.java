package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The leaders' sending window, on its own: what goes out, what is taken in, what is late (times are plain numbers). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class IncWindowTest {

    @Test
    void letsOutAtMostSlotsPacketsBeyondTheLowestMissingId() {
        IncWindow w = new IncWindow(3);
        w.reset(100, 5);
        assertEquals(0, w.nextNew(100));
        assertEquals(1, w.nextNew(100));
        assertEquals(2, w.nextNew(100));
        assertEquals(-1, w.nextNew(100), "three in flight: the window is full");
        assertEquals(-1, w.nextNew(99), "an earlier transfer's missing id 99 holds the window lower still");
        assertTrue(w.accept(1, 10));
        assertEquals(0, w.firstMissing(), "packet 0 is still missing: the window does not move");
        assertEquals(-1, w.nextNew(100));
        assertTrue(w.accept(0, 11));
        assertEquals(2, w.firstMissing(), "0 and 1 are in");
        assertEquals(3, w.nextNew(102));
        assertEquals(4, w.nextNew(102));
        assertEquals(-1, w.nextNew(102), "all five out");
        assertTrue(w.accept(2, 12));
        assertTrue(w.accept(4, 13));
        assertFalse(w.complete());
        assertTrue(w.accept(3, 14));
        assertTrue(w.complete());
        assertEquals(5, w.firstMissing());
    }

    @Test
    void takesEachResultOnceAndOnlyForAPacketSent() {
        IncWindow w = new IncWindow(4);
        w.reset(0, 10);
        assertFalse(w.accept(0, 1), "not sent yet");
        assertEquals(0, w.nextNew(0));
        w.sent(0, 5, false);
        assertFalse(w.accept(-1, 6));
        assertFalse(w.accept(1, 6), "packet 1 has not gone out");
        assertTrue(w.outstanding(0));
        assertTrue(w.accept(0, 6));
        assertFalse(w.outstanding(0));
        assertFalse(w.accept(0, 7), "a duplicate result");
        // packet 4 shares packet 0's ring entry: in once 0 is in, and only as 4
        for (int k = 1; k <= 4; k++) {
            assertEquals(k, w.nextNew(1));
            w.sent(k, 8, false);
        }
        assertTrue(w.outstanding(4));
        assertTrue(w.accept(4, 9));
        assertFalse(w.accept(4, 9));
        assertEquals(1, w.firstMissing());
    }

    @Test
    void aPacketIsLateOnceTheTimeoutHasPassedAndGivesNoRoundTripWhenSentTwice() {
        IncWindow w = new IncWindow(8);
        w.reset(0, 3);
        for (int k = 0; k < 3; k++) {
            assertEquals(k, w.nextNew(0));
            w.sent(k, 100 + k, false);
        }
        assertFalse(w.late(0, 149, 50));
        assertTrue(w.late(0, 150, 50), "50 after it went out: due again");
        assertEquals(0, w.firstLate(0, 150, 50));
        assertEquals(-1, w.firstLate(1, 150, 50), "1 and 2 went out later");
        assertEquals(1, w.firstLate(1, 151, 50));
        w.sent(0, 150, true);
        assertFalse(w.late(0, 160, 50), "sent again: its timer starts over");
        assertTrue(w.accept(0, 170));
        assertEquals(-1, w.roundTrip(0, 170), "sent twice: no clean sample");
        assertFalse(w.late(0, 1000, 50), "in: never late");
        assertTrue(w.accept(1, 190));
        assertEquals(89, w.roundTrip(1, 190));
        assertEquals(2, w.firstLate(0, 1000, 50));
    }

    @Test
    void stallsWhenNoResultCameForTheTimeout() {
        IncWindow w = new IncWindow(2);
        w.reset(0, 2);
        w.progress(1_000);
        assertFalse(w.stalled(1_500, 500));
        assertTrue(w.stalled(1_501, 500));
        assertEquals(0, w.nextNew(0));
        w.sent(0, 1_000, false);
        assertTrue(w.accept(0, 1_400));
        assertFalse(w.stalled(1_900, 500), "a result is progress");
    }

    @Test
    void resetStartsAFreshTransferAndAnEmptyOneIsComplete() {
        IncWindow w = new IncWindow(2);
        w.reset(0, 2);
        assertEquals(0, w.nextNew(0));
        w.sent(0, 1, true);
        assertTrue(w.accept(0, 2));
        w.reset(2, 4);
        assertEquals(2, w.base());
        assertEquals(0, w.firstMissing());
        assertFalse(w.outstanding(0), "the old transfer's result is gone");
        assertEquals(0, w.nextNew(2));
        w.sent(0, 10, false);
        assertTrue(w.accept(0, 15));
        assertEquals(5, w.roundTrip(0, 15), "the retransmission mark was cleared");
        w.reset(6, 0);
        assertTrue(w.complete());
        assertEquals(-1, w.nextNew(6));
        assertEquals(-1, w.firstLate(0, 100, 1));
        assertThrows(IllegalArgumentException.class, () -> new IncWindow(0));
        assertThrows(IllegalArgumentException.class, () -> w.reset(0, -1));
    }
}
