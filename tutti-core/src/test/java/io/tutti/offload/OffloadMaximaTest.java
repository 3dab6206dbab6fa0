package io.tutti.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.coll.schedule.Schedule;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The resources counted over ranks, beside [water-tank]'s formulas: table 6's butterfly (a
 * pre-matched rank needs at most 3 floor(log2 N) + 3 counters where the paper counts 3 per round
 * of floor(log2 N) + 2), and §5.1.1's Trinaryx3 broadcast (9 pre-matched counters per rank).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OffloadMaximaTest {
    @Test
    void paperRoundsAreTable6s() {
        assertEquals(18, OffloadPlans.paperRounds(82_944));
        assertEquals(21, OffloadPlans.paperRounds(1_000_000));
        assertEquals(10, OffloadPlans.paperRounds(1024));
        assertEquals(0, OffloadPlans.paperRounds(1));
    }

    /** The sample above {@link OffloadPlans#ALL_RANKS} finds the maximum that every rank gives. */
    @Test
    void sampledMaximaAreTheExhaustiveOnes() {
        for (OffloadPlans.Coll coll : new OffloadPlans.Coll[] {OffloadPlans.Coll.BARRIER, OffloadPlans.Coll.BCAST,
                OffloadPlans.Coll.REDUCE}) {
            int n = 3000 + coll.ordinal();
            int root = coll == OffloadPlans.Coll.BARRIER ? 0 : 1234;
            int[] all = new int[6];
            for (int r = 0; r < n; r++) {
                OffloadCompiler.Resources res = OffloadPlans.resources(coll, n, r, 8, root);
                int[] v = {res.counters(), res.entries(), res.checkpoints(), res.preMatchedCounters(),
                    res.preMatchedEntries(), res.preMatchedRounds()};
                for (int i = 0; i < v.length; i++) {
                    all[i] = Math.max(all[i], v[i]);
                }
            }
            OffloadPlans.Maxima m = OffloadPlans.maxima(coll, n, 8, root);
            assertEquals(n, m.ranks());
            assertEquals(true, m.examined() < n, "sampled");
            int[] got = {m.counters(), m.entries(), m.checkpoints(), m.preMatchedCounters(), m.preMatchedEntries(),
                m.preMatchedCheckpoints()};
            assertEquals(java.util.Arrays.toString(all), java.util.Arrays.toString(got), coll.toString());
        }
    }

    @Test
    void butterflyNeedsThreePerRoundPlusThreeNotTable6sThreePerRound() {
        OffloadPlans.Maxima m = OffloadPlans.maxima(OffloadPlans.Coll.BARRIER, 82_944, 0, 0);
        assertEquals(1, m.counters());
        assertEquals(3 * 16 + 3, m.preMatchedCounters());
        assertEquals(3 * OffloadPlans.paperRounds(82_944), 54);
        assertEquals(18, m.preMatchedCheckpoints());
    }

    /** [water-tank] §5.1.1: 3 counters against 9 for one segment; Tutti's program adds a completion counter. */
    @Test
    void trinaryx3OfOneSegmentNeedsNinePreMatchedCounters() {
        IntFunction<Schedule> t = OffloadPlans.trinaryx3(64, 8, 0, 64 * 1024);
        OffloadPlans.Maxima m = OffloadPlans.maxima(r -> OffloadCompiler.singleSource(t, r), t, 64, 0);
        assertEquals(64, m.examined());
        assertEquals(9, m.preMatchedCounters());
        assertEquals(3 + 1, m.counters());
        // with segments the pre-matched count grows with them, the offloaded one does not
        IntFunction<Schedule> seg = OffloadPlans.trinaryx3(64, 16 * 1024, 0, 1024);
        OffloadPlans.Maxima s = OffloadPlans.maxima(r -> OffloadCompiler.singleSource(seg, r), seg, 64, 0);
        assertEquals(4, s.counters());
        assertEquals(true, s.preMatchedCounters() > 9 * 4, "pre-matched " + s.preMatchedCounters());
    }
}
