package io.tutti.coll.ft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agreement protocol in a simulated job: ranks exchange their messages over FIFO channels whose
 * deliveries a random scheduler interleaves; some ranks fail at random points, part way through
 * sending a round or a DECIDE (so only some peers get it), and every survivor learns of each failure
 * at a random later moment, perhaps before a message the failed rank sent it (a perfect, eventual
 * detector that may overtake the channel). Every survivor must decide, all on the same flag, context,
 * failed set and unacknowledged failures; the failed set holds failed ranks only, no survivor's flag
 * is missing, and every rank's last message to a survivor is a DECIDE (what lets a run drain its
 * leftovers). The counts of rounds and messages are the protocol's cost, documented in
 * docs/guide/fault-tolerance.md.
 */
@Timeout(600)
class AgreementPropertyTest {

    @Property(tries = 3000)
    void everySurvivorDecidesTheSameDespiteFailuresAtRandomPoints(@ForAll @IntRange(min = 1, max = 9) int n,
                                                                  @ForAll long seed) {
        Job.random(n, new Random(seed)).run().check();
    }

    /** Small jobs over many schedules: where chains of ranks failing mid-round are likeliest to split them. */
    @Test
    void manySchedulesOfSmallJobsAgree() {
        for (long seed = 0; seed < 20_000; seed++) {
            Job.random(3 + (int) (seed % 4), new Random(seed)).run().check();
        }
    }

    /**
     * Two ranks failing early in the call, each part way through a round or its DECIDE: the
     * schedules where a failure notice overtakes the failed rank's message to one survivor while
     * another takes it (what a clean round must not be fooled by).
     */
    @Test
    void twoEarlyFailuresOverManySchedulesAgree() {
        for (long seed = 0; seed < 40_000; seed++) {
            Random random = new Random(seed);
            int n = 4 + (int) (seed % 2);
            Job job = new Job(n, random);
            int first = random.nextInt(n);
            job.failAfterSends[first] = 1 + random.nextInt(2 * (n - 1));
            job.failAfterSends[(first + 1 + random.nextInt(n - 1)) % n] = 1 + random.nextInt(2 * (n - 1));
            job.run().check();
        }
    }

    /** Bitmaps of more than one word, and the last round reached at 66 ranks when failures keep coming. */
    @Test
    void largerJobsAgree() {
        for (long seed = 0; seed < 30; seed++) {
            Job.random(seed % 2 == 0 ? 66 : 17, new Random(seed)).run().check();
        }
    }

    /**
     * Why a clean round compares the heard-before sets its messages report, not just this rank's own:
     * the detector may tell rank 2 that rank 0 failed before rank 0's round 1 reaches it. Rank 0 got
     * everyone's round 1 (rank 3 died after reaching 0 only), decides, reaches rank 1 alone with its
     * DECIDE and dies; rank 1 had sent its round 2 just before and adopts. Rank 2 heard 1 and itself
     * in both rounds: compared with its own round 1 only, round 2 would look clean and 2 would decide
     * without 0's and 3's flags. Rank 1's round 2 reports that 1 heard 0 in round 1, so 2 goes on and
     * takes the DECIDE that 1 forwards.
     */
    @Test
    void aFailureNoticeThatOvertakesTheFailedRanksMessageDoesNotSplitTheSurvivors() {
        int n = 4;
        Agreement[] a = new Agreement[n];
        for (int r = 0; r < n; r++) {
            a[r] = new Agreement(n, r, ~(1L << r), 0, new boolean[n], null);
        }
        long[][] round1 = new long[n][];
        for (int r = 0; r < n; r++) {
            round1[r] = a[r].next();
        }
        a[0].deliver(3, round1[3]);    // 3's round 1 reaches 0 only, and 3 dies
        a[1].deliver(0, round1[0]);    // 0's round 1 reaches 1; it is on its way to 2
        a[0].deliver(1, round1[1]);
        a[0].deliver(2, round1[2]);
        a[1].deliver(2, round1[2]);
        a[2].deliver(1, round1[1]);
        long[] decision = a[0].next(); // 0 heard everyone: it decides
        assertTrue(a[0].decided() && Agreement.isDecision(decision));
        a[1].crashed(3);
        long[] one2 = a[1].next();     // 1's round 2, sent before 0's DECIDE reaches it
        a[1].deliver(0, decision);     // 1 adopts; 0 dies before its DECIDE reaches 2
        assertTrue(a[1].decided());
        a[2].crashed(0);               // before 0's round 1 arrives: 2 never takes anything from 0
        a[2].crashed(3);
        long[] two2 = a[2].next();
        a[1].deliver(2, two2);
        a[2].deliver(1, one2);
        a[2].next();                   // 2 ends its round 2 before the forwarded DECIDE comes
        for (long[] m; (m = a[1].next()) != null; ) {
            a[2].deliver(1, m);        // 1 forwards the DECIDE
        }
        assertTrue(a[2].decided());
        assertEquals(a[1].flag(), a[2].flag(), "the survivors decided different flags");
        assertArrayEquals(a[1].failed(), a[2].failed(), "the survivors decided different failed sets");
        assertEquals(~0b1111L, a[2].flag(), "every rank's contribution reached a survivor: all count");
        assertTrue(a[2].adopted());
    }

    @Test
    void withoutFailuresTheFlagIsTheAndOfAllAndNobodyFailed() {
        int n = 4;
        Job job = new Job(n, new Random(1));
        for (int r = 0; r < n; r++) {
            job.flags[r] = 0b1111 & ~(1 << r);
        }
        job.run().check();
        for (Agreement x : job.ranks) {
            assertEquals(0, x.flag());
            assertArrayEquals(new boolean[n], x.failed());
        }
    }

    /**
     * The cost without failures: every rank decides in round 1, with 2 n (n - 1) messages (the
     * old protocol: n - 1 rounds of n (n - 1)); when every message takes one step, each rank
     * decides by itself and the call takes two steps, the round and the DECIDEs. (In another
     * order a rank may adopt a DECIDE that overtook the last state it waited for.)
     */
    @Test
    void withoutFailuresEveryRankDecidesAfterRoundOneInTwoMessageSteps() {
        for (int n = 2; n <= 16; n++) {
            for (long seed = 0; seed < 20; seed++) {
                Job job = new Job(n, new Random(seed));
                job.lockstep = seed % 2 == 0;
                job.run().check();
                for (Agreement a : job.ranks) {
                    assertEquals(1, a.round(), "n = " + n + ": a rank decided in round " + a.round());
                    assertTrue(!job.lockstep || !a.adopted(), "n = " + n + ": a rank had to adopt a DECIDE");
                }
                if (job.lockstep) {
                    assertEquals(2, job.steps(), "n = " + n + ": message steps");
                }
                assertEquals(2 * n * (n - 1), job.messages(), "n = " + n + ": messages");
            }
        }
    }

    /**
     * One rank failed before the others called: at most 3 rounds, whether it sent nothing or reached
     * some ranks with its round 1, and whoever knew of it at the call. (When every rank knew and it
     * reached none, 1 round.)
     */
    @Test
    void oneFailureBeforeTheCallTakesAtMostThreeRounds() {
        for (int n = 3; n <= 16; n++) {
            for (long seed = 0; seed < 200; seed++) {
                Random random = new Random(seed * 31 + n);
                Job job = new Job(n, random);
                int victim = random.nextInt(n);
                // 0: before it sent anything; else part way through its round 1
                job.failAfterSends[victim] = random.nextInt(n);
                job.knownChance = seed % 3 == 0 ? 1 : 0.5;
                job.lockstep = seed % 2 == 0;
                job.run().check();
                for (int r = 0; r < n; r++) {
                    if (r != victim) {
                        assertTrue(job.ranks[r].round() <= 3, "n = " + n + ", seed " + seed + ": rank " + r
                                + " decided in round " + job.ranks[r].round());
                    }
                }
                if (job.failAfterSends[victim] == 0 && job.knownChance == 1 && job.lockstep) {
                    assertEquals(2, job.steps(), "n = " + n + ": a failure all knew of costs nothing");
                }
            }
        }
    }

    /** Prints the rounds and messages per call at 4, 8 and 16 ranks (the figures in the guide), and checks them. */
    @Test
    void roundsAndMessagesAtFourEightAndSixteenRanks() {
        for (int n : new int[] {4, 8, 16}) {
            Job none = new Job(n, new Random(n));
            none.lockstep = true;
            none.run().check();
            assertEquals(2 * n * (n - 1), none.messages());
            int maxRounds = 0;
            long messages = 0;
            int runs = 1000;
            for (long seed = 0; seed < runs; seed++) {
                Random random = new Random(seed);
                Job job = new Job(n, random);
                // one rank fails at a random point of the call: before it, in a round, or in its DECIDE
                job.failAfterSends[random.nextInt(n)] = random.nextInt(3 * (n - 1));
                job.run().check();
                messages += job.messages();
                maxRounds = Math.max(maxRounds, job.maxRound());
            }
            assertTrue(maxRounds <= 4, "n = " + n + ": one failure took " + maxRounds + " rounds");
            System.out.printf("agreement n=%d: no failure %d round(s), %d messages, %d steps;"
                    + " one failure at a random point: at most %d rounds, %.1f messages on average%n",
                    n, none.maxRound(), none.messages(), none.steps(), maxRounds, (double) messages / runs);
        }
    }

    /** A failure is reported unless every contributor had acknowledged it: one rank that had not is enough. */
    @Test
    void aFailureIsUnacknowledgedUnlessEveryRankHadAcknowledgedIt() {
        int n = 3;
        boolean[] dead = {false, false, true};
        Agreement a0 = new Agreement(n, 0, 1, 0, dead, dead);
        Agreement a1 = new Agreement(n, 1, 1, 0, dead, new boolean[n]);
        for (boolean moved = true; moved; ) {
            moved = false;
            for (long[] m; (m = a0.next()) != null; moved = true) {
                a1.deliver(0, m);
            }
            for (long[] m; (m = a1.next()) != null; moved = true) {
                a0.deliver(1, m);
            }
        }
        assertTrue(a0.decided() && a1.decided());
        assertArrayEquals(dead, a0.unacknowledged());
        assertArrayEquals(dead, a1.unacknowledged());
    }

    @Test
    void aDecisionIsNotReadBeforeItIsMade() {
        Agreement a = new Agreement(3, 0, 1, 0, new boolean[3], null);
        assertFalse(a.decided());
        assertThrows(IllegalStateException.class, a::flag);
        assertTrue(new Agreement(1, 0, 5, 7, new boolean[1], null).decided());
    }

    /** A message in flight and the causal depth it was sent at. */
    private record Sent(long[] message, int depth) {
    }

    /** One simulated run: the ranks, their channels, who fails where, and the detector's notices. */
    private static final class Job {
        private final int n;
        private final Random random;
        private final Agreement[] ranks;
        private final long[] flags;
        /** Sends a rank makes before it fails (-1: it never fails); 0 fails it before it starts. */
        private final int[] failAfterSends;
        private final int[] sends;
        private final boolean[] dead;
        /** The longest chain of messages that led to each rank's present (its causal depth). */
        private final int[] depth;
        /** channel[from][to]: messages in flight. */
        private final ArrayDeque<Sent>[][] channel;
        /** last[from][to]: the last message {@code from} sent {@code to}, and its step before. */
        private final long[][][] last;
        /** notified[to][who]: {@code to} has been told that {@code who} failed. */
        private final boolean[][] notified;
        /** How likely a rank is to know, when it calls, of a rank that failed before. */
        private double knownChance = 0.5;
        /**
         * Deliver in generations: every message in flight, then every failure notice due, then the
         * messages those sent; {@link #steps()} counts the generations. Otherwise one random event at a time.
         */
        private boolean lockstep;
        private int generations;
        private int messages;
        private int maxDepth;

        @SuppressWarnings("unchecked")
        Job(int n, Random random) {
            this.n = n;
            this.random = random;
            this.ranks = new Agreement[n];
            this.flags = new long[n];
            this.failAfterSends = new int[n];
            this.sends = new int[n];
            this.dead = new boolean[n];
            this.depth = new int[n];
            this.channel = new ArrayDeque[n][n];
            this.last = new long[n][n][];
            this.notified = new boolean[n][n];
            for (int f = 0; f < n; f++) {
                for (int t = 0; t < n; t++) {
                    channel[f][t] = new ArrayDeque<>();
                }
            }
            Arrays.fill(failAfterSends, -1);
            for (int r = 0; r < n; r++) {
                flags[r] = random.nextLong() | random.nextLong();
            }
        }

        /** Up to n - 1 failures, each after a random number of sends: in any round or DECIDE, part way through. */
        static Job random(int n, Random random) {
            Job job = new Job(n, random);
            int failures = random.nextInt(n);
            for (int i = 0; i < failures; i++) {
                int bound = random.nextBoolean() ? 3 * n : n * n + 1;
                job.failAfterSends[random.nextInt(n)] = random.nextInt(bound);
            }
            if (Arrays.stream(job.failAfterSends).allMatch(s -> s >= 0)) {
                job.failAfterSends[random.nextInt(n)] = -1;
            }
            return job;
        }

        Job run() {
            boolean[] earlyDead = new boolean[n];
            for (int r = 0; r < n; r++) {
                earlyDead[r] = failAfterSends[r] == 0;
            }
            for (int r = 0; r < n; r++) {
                if (earlyDead[r]) {
                    dead[r] = true;
                    continue;
                }
                // some ranks already know of the failures before the call, some do not
                boolean[] known = new boolean[n];
                boolean[] acked = new boolean[n];
                for (int q = 0; q < n; q++) {
                    known[q] = earlyDead[q] && random.nextDouble() < knownChance;
                    notified[r][q] = known[q];
                    acked[q] = known[q] && random.nextBoolean();
                }
                ranks[r] = new Agreement(n, r, flags[r], random.nextInt(100), known, acked);
            }
            for (int r = 0; r < n; r++) {
                pump(r);
            }
            List<Runnable> actions = new ArrayList<>();
            int steps = 0;
            while (lockstep) {
                actions.clear();
                for (int f = 0; f < n; f++) {
                    for (int t = 0; t < n; t++) {
                        int from = f;
                        int to = t;
                        for (int k = channel[from][to].size(); k > 0; k--) {
                            actions.add(() -> {
                                Sent s = channel[from][to].poll();
                                if (!dead[to]) {
                                    ranks[to].deliver(from, s.message());
                                    pump(to);
                                }
                            });
                        }
                        if (!dead[to] && dead[from] && !notified[to][from]) {
                            actions.add(() -> {
                                notified[to][from] = true;
                                ranks[to].crashed(from);
                                pump(to);
                            });
                        }
                    }
                }
                if (actions.isEmpty()) {
                    return this;
                }
                generations++;
                actions.forEach(Runnable::run);
                assertTrue(++steps < 1_000, "the simulated job did not settle");
            }
            while (true) {
                actions.clear();
                for (int f = 0; f < n; f++) {
                    for (int t = 0; t < n; t++) {
                        int from = f;
                        int to = t;
                        if (!dead[to] && !channel[from][to].isEmpty()) {
                            actions.add(() -> {
                                Sent s = channel[from][to].poll();
                                depth[to] = Math.max(depth[to], s.depth());
                                ranks[to].deliver(from, s.message());
                                pump(to);
                            });
                        }
                        if (!dead[to] && dead[from] && !notified[to][from]) {
                            actions.add(() -> {
                                notified[to][from] = true;
                                ranks[to].crashed(from);
                                pump(to);
                            });
                        }
                    }
                }
                if (actions.isEmpty()) {
                    break;
                }
                actions.get(random.nextInt(actions.size())).run();
                assertTrue(++steps < 1_000_000, "the simulated job did not settle");
            }
            return this;
        }

        /** After an event at {@code r}: sends every message it now has, failing part way if its time has come. */
        private void pump(int r) {
            for (long[] m; !dead[r] && (m = ranks[r].next()) != null; ) {
                for (int to = 0; to < n && !dead[r]; to++) {
                    if (to == r || ranks[r].knownCrashed(to)) {
                        continue;
                    }
                    if (sends[r] == failAfterSends[r]) {
                        dead[r] = true;
                        return;
                    }
                    sends[r]++;
                    messages++;
                    maxDepth = Math.max(maxDepth, depth[r] + 1);
                    long[] before = last[r][to];
                    assertEquals(before == null ? 1 : Agreement.step(before) + 1, Agreement.step(m),
                            "rank " + r + "'s messages to " + to + " are not numbered one after the other");
                    assertTrue(before == null || !Agreement.isDecision(before), "rank " + r + " sent " + to
                            + " something after its DECIDE");
                    last[r][to] = m;
                    channel[r][to].add(new Sent(m, depth[r] + 1));
                }
            }
        }

        int messages() {
            return messages;
        }

        /** In lockstep, the generations of messages; else the longest chain of messages, each sent after the one before arrived. */
        int steps() {
            return lockstep ? generations : maxDepth;
        }

        int maxRound() {
            int max = 0;
            for (int r = 0; r < n; r++) {
                max = dead[r] ? max : Math.max(max, ranks[r].round());
            }
            return max;
        }

        Job check() {
            Agreement first = null;
            long survivorsAnd = -1;
            long allAnd = -1;
            for (int r = 0; r < n; r++) {
                allAnd &= flags[r];
                if (dead[r]) {
                    continue;
                }
                survivorsAnd &= flags[r];
                Agreement a = ranks[r];
                assertTrue(a.decided(), "rank " + r + " never decided: it waits in round " + a.round());
                assertFalse(a.failed()[r], "a survivor is in the failed set");
                for (int q = 0; q < n; q++) {
                    assertTrue(!a.failed()[q] || dead[q], "rank " + q + " is in the failed set but is alive");
                    // what a run drains after deciding ends with each live peer's DECIDE
                    if (!dead[q] && q != r) {
                        assertTrue(last[q][r] != null && Agreement.isDecision(last[q][r]),
                                "rank " + q + "'s last message to rank " + r + " is not a DECIDE");
                    }
                }
                if (first == null) {
                    first = a;
                } else {
                    assertEquals(first.flag(), a.flag(), "two survivors decided different flags");
                    assertEquals(first.context(), a.context(), "two survivors decided different contexts");
                    assertArrayEquals(first.failed(), a.failed(), "two survivors decided different failed sets");
                    assertArrayEquals(first.unacknowledged(), a.unacknowledged(),
                            "two survivors would not report the same unacknowledged failures");
                }
            }
            long flag = first.flag();
            assertEquals(flag, flag & survivorsAnd, "a survivor's flag was left out of the AND");
            assertEquals(allAnd, allAnd & flag, "the AND has a bit that no rank gave");
            return this;
        }
    }
}
