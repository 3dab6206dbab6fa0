package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The LogGP mode against closed forms derived from the semantics documented in {@link HostModel}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogGPAnalyticTest {
    /** One message: o_s + L + o_r + max((s−1)O, (s−1)G) at the receiver. */
    @Test
    void oneMessage() {
        for (long s : new long[] {0, 1, 8, 1000, 65536}) {
            SimParams p = Sims.loggp(1000, 300, 200, 500, 0.5, 0.25);
            SimResult r = Sims.runLogGP(Sims.schedules(Kind.BCAST, "binomial", 2, s, 1), p, null);
            long w = Math.max(s - 1, 0);
            long recv = 300 + 1000 + 200 + Math.max(Math.round(w * 0.25), Math.round(w * 0.5));
            assertEquals(recv, r.finishNs()[1], "receiver, s=" + s);
            assertEquals(300 + Math.round(w * 0.25), r.finishNs()[0], "sender, s=" + s);
            assertEquals(Math.max(recv, r.finishNs()[0]), r.completionNs());
        }
    }

    /**
     * Binomial broadcast of a small message on P = 2^k ranks: k steps of o_s + L + o_r +
     * max((s−1)O, (s−1)G), when a send's CPU time is the longer gap (so the root's later sends
     * never delay the deepest chain).
     */
    @Test
    void binomialBcastIsLogPStepsOfOneMessage() {
        long L = 2000;
        long os = 700;
        long or = 400;
        long g = 300;
        double G = 0.1;
        double O = 0.2;
        long s = 8;
        SimParams p = Sims.loggp(L, os, or, g, G, O);
        long step = os + L + or + Math.max(Math.round((s - 1) * O), Math.round((s - 1) * G));
        for (int k = 0; k <= 12; k++) {
            int ranks = 1 << k;
            SimResult r = Sims.runLogGP(Sims.schedules(Kind.BCAST, "binomial", ranks, s, 1), p, null);
            assertEquals(k * step, r.completionNs(), "P=" + ranks);
        }
    }

    /**
     * Any P: an independent recurrence over the binomial tree. The child reached by a rank's j-th
     * send (largest subtree first) gets the message j·(o_s + (s−1)O) + step after its parent did;
     * a rank finishes at its receive plus the CPU time of all its sends.
     */
    @Test
    void binomialBcastAnySizeMatchesRecurrence() {
        long L = 1500;
        long os = 500;
        long or = 300;
        SimParams p = Sims.loggp(L, os, or, 100, 0, 0);
        long step = os + L + or;
        for (int ranks = 1; ranks <= 100; ranks++) {
            long[] got = new long[ranks];
            long completion = 0;
            for (int v = 0; v < ranks; v++) {
                int low = v == 0 ? Integer.highestOneBit(Math.max(1, ranks - 1)) << 1 : Integer.lowestOneBit(v);
                int j = 0;
                for (int mask = low >> 1; mask > 0; mask >>= 1) {
                    if (v + mask < ranks) {
                        got[v + mask] = got[v] + j * os + step;
                        j++;
                    }
                }
                completion = Math.max(completion, Math.max(got[v], got[v] + j * os));
            }
            SimResult r = Sims.runLogGP(Sims.schedules(Kind.BCAST, "binomial", ranks, 4, 1), p, null);
            assertEquals(completion, r.completionNs(), "P=" + ranks);
        }
    }

    /**
     * Ring allreduce with only the per-byte gap G (L = o = g = O = 0, free reductions): each of the
     * 2(P − 1) steps receives one block of n/P bytes in (n/P − 1)·G, so the whole takes
     * 2(P − 1)(n/P − 1)·G — the ring's bandwidth term.
     */
    @Test
    void ringAllreduceBandwidthTerm() {
        for (int ranks : new int[] {2, 3, 4, 8, 12}) {
            for (double G : new double[] {1, 2.5}) {
                long block = 1024;
                long n = block * ranks;
                SimParams p = Sims.loggp(0, 0, 0, 0, G, 0);
                SimResult r = Sims.runLogGP(Sims.schedules(Kind.ALLREDUCE, "ring", ranks, n, 1), p, null);
                assertEquals(2L * (ranks - 1) * Math.round((block - 1) * G), r.completionNs(), "P=" + ranks + " G=" + G);
            }
        }
    }

    /** Dissemination barrier: ⌈log2 P⌉ rounds of o_s + L + o_r when the gaps are shorter than the overheads. */
    @Test
    void disseminationBarrierRounds() {
        SimParams p = Sims.loggp(1000, 200, 300, 100, 0, 0);
        for (int ranks : new int[] {2, 3, 5, 8, 33, 100, 1000}) {
            int rounds = 32 - Integer.numberOfLeadingZeros(ranks - 1);
            SimResult r = Sims.runLogGP(Sims.schedules(Kind.BARRIER, "dissemination", ranks, 0, 1), p, null);
            // each round: send (o_s), the peer's message arrives o_s + L after the round began and takes o_r
            assertEquals(rounds * (200L + 1000 + 300), r.completionNs(), "P=" + ranks);
        }
    }
}
