package io.tutti.idle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdleTest {
    /** Rounds a wait takes until it leaves the spin phase, and the time that took. */
    private static long[] spinPhase(Idle idle) {
        long start = System.nanoTime();
        int round = 0;
        long rounds = 0;
        while (idle.phase(round) == Idle.SPIN) {
            round = idle.idle(round);
            rounds++;
        }
        return new long[] {rounds, System.nanoTime() - start};
    }

    @Test
    void aTimedSpinPhaseLastsAtLeastItsTime() {
        Idle idle = new Idle(new Idle.Policy(1_000, 30_000_000L, 0, 1_000, 1_000));
        long[] phase = spinPhase(idle);
        assertTrue(phase[1] >= 30_000_000L, "spun for " + phase[1] + " ns, less than the policy's 30 ms");
        assertTrue(phase[0] > 1_000, "a timed phase goes on past its round count: " + phase[0] + " rounds");
        // the clock starts again with the next wait
        long[] again = spinPhase(idle);
        assertTrue(again[1] >= 30_000_000L, "the second wait spun for " + again[1] + " ns");
    }

    @Test
    void aTimedSpinAsksItsCompanyAndKeepsItsTimeWhileYielding() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        Idle idle = new Idle(new Idle.Policy(1_000, 20_000_000L, 0, 1_000, 1_000), null, () -> {
            asked.incrementAndGet();
            return true;
        });
        long[] phase = spinPhase(idle);
        assertTrue(phase[1] >= 20_000_000L, "spun for " + phase[1] + " ns, less than the policy's 20 ms");
        // from round 256 every 256 rounds, then every round of the timed tail
        assertTrue(asked.get() >= 3 + (phase[0] - 1_000), "asked " + asked.get() + " times in " + phase[0] + " rounds");
        // a counted phase never asks
        asked.set(0);
        spinPhase(new Idle(new Idle.Policy(1_000, 0, 1_000, 1_000), null, () -> {
            asked.incrementAndGet();
            return true;
        }));
        assertEquals(0, asked.get());
    }

    @Test
    void aCountedSpinPhaseEndsAfterItsRounds() {
        long[] phase = spinPhase(new Idle(new Idle.Policy(1_000, 0, 1_000, 1_000)));
        assertEquals(1_000, phase[0]);
    }

    @Test
    void aBlockedRankSpinsByTimeOnlyWithACoreOfItsOwn() {
        assertEquals(20_000_000L, Idle.blocked(-1, 20_000, -1, 200, 200, 2, 2).spinNanos());
        assertEquals(20_000, Idle.blocked(-1, 20_000, -1, 200, 200, 2, 2).spins());
        // ranks that outnumber cores: a peer may be waiting for this core, so no timed spin
        assertEquals(0, Idle.blocked(-1, 20_000, -1, 200, 200, 4, 2).spinNanos());
        // a spin budget set below the clock round is counted only
        assertEquals(0, Idle.blocked(100, 20_000, -1, 200, 200, 2, 2).spinNanos());
        assertEquals(0, Idle.blocked(-1, 0, -1, 200, 200, 2, 2).spinNanos());
    }

    @Test
    void aTimedPhaseNeedsMoreRoundsThanTheClockRound() {
        assertThrows(IllegalArgumentException.class, () -> new Idle.Policy(Idle.CLOCK_ROUND, 1_000, 0, 1, 1));
    }

    @Test
    void parksDoubleThenGrowByAnEighthOfTheSleepSoFar() {
        for (long[] limits : new long[][] {{1_000, 200_000, 2_000_000}, {1_000, 1_000, 50_000}, {20_000, 300_000, 300_001},
                {3_000, 200_000, 5_000_000}}) {
            Idle.Policy p = new Idle.Policy(0, 0, 0, limits[0], limits[1], limits[2]);
            long slept = 0;
            long last = 0;
            boolean grew = false;
            for (int n = 0; n < 2_000; n++) {
                long park = p.park(n);
                assertTrue(park >= last && park <= p.longParkNanos(), "park " + n + ": " + park + " ns");
                if (park > p.maxParkNanos()) {
                    grew = true;
                    assertTrue(park <= slept / 8, "park " + n + " of " + park + " ns after " + slept + " ns asleep");
                } else if (last < p.maxParkNanos()) {
                    // the doubling
                    assertEquals(Math.min(p.maxParkNanos(), n == 0 ? p.minParkNanos() : 2 * last), park);
                }
                slept += park;
                last = park;
            }
            assertEquals(p.longParkNanos(), last, "reaches the longest park");
            assertEquals(p.longParkNanos() > p.maxParkNanos(), grew);
        }
        // equal limits: the parks stop growing at the doubling's largest
        Idle.Policy flat = Idle.blocked(-1, 0, -1, 200, 100, 4, 2);
        assertEquals(200_000, flat.park(1_000));
        assertEquals(2_000_000, Idle.blocked(-1, 0, -1, 200, 2_000, 4, 2).park(1_000));
        assertThrows(IllegalArgumentException.class, () -> new Idle.Policy(0, 0, 0, 1_000, 2_000, 1_999));
    }
}
