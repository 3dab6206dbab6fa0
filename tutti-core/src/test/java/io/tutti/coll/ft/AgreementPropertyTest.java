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

/**
 * The agreement protocol in a simulated job: ranks exchange their states over FIFO channels whose
 * deliveries a random scheduler interleaves; some ranks fail at random points, mid-way through
 * sending a round (so only some peers get it), and every survivor learns of each failure at a random
 * later moment (a perfect, eventual detector). Every survivor must decide, all on the same flag,
 * context, failed set and unacknowledged failures; the failed set holds failed ranks only, and no
 * survivor's flag is missing.
 */
class AgreementPropertyTest {

    @Property(tries = 3000)
    void everySurvivorDecidesTheSameDespiteFailuresAtRandomPoints(@ForAll @IntRange(min = 1, max = 9) int n,
                                                                  @ForAll long seed) {
        new Job(n, new Random(seed)).run();
    }

    /** The case the last round exists for: each failing rank reaches one more rank than the one before. */
    @Test
    void aChainOfRanksFailingMidRoundStillAgrees() {
        for (long seed = 0; seed < 20_000; seed++) {
            new Job(5, new Random(seed)).run();
        }
    }

    @Test
    void withoutFailuresTheFlagIsTheAndOfAllAndNobodyFailed() {
        int n = 4;
        Agreement[] a = new Agreement[n];
        for (int r = 0; r < n; r++) {
            a[r] = new Agreement(n, r, 0b1111 & ~(1 << r), 10 + r, new boolean[n], null);
        }
        while (!a[0].decided()) {
            long[][] sent = new long[n][];
            for (int r = 0; r < n; r++) {
                sent[r] = a[r].message();
            }
            int round = a[0].round();
            for (int to = 0; to < n; to++) {
                for (int from = 0; from < n; from++) {
                    a[to].deliver(from, round, sent[from]);
                }
            }
            for (Agreement x : a) {
                x.advance();
            }
        }
        for (Agreement x : a) {
            assertEquals(0, x.flag());
            assertEquals(13, x.context());
            assertArrayEquals(new boolean[n], x.failed());
        }
    }

    /** A failure is reported unless every contributor had acknowledged it: one rank that had not is enough. */
    @Test
    void aFailureIsUnacknowledgedUnlessEveryRankHadAcknowledgedIt() {
        int n = 3;
        boolean[] dead = {false, false, true};
        Agreement a0 = new Agreement(n, 0, 1, 0, dead, dead);
        Agreement a1 = new Agreement(n, 1, 1, 0, dead, new boolean[n]);
        while (!a0.decided()) {
            long[] m0 = a0.message();
            a0.deliver(1, a0.round(), a1.message());
            a1.deliver(0, a1.round(), m0);
            a0.advance();
            a1.advance();
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
        /** channel[from][to]: states in flight, each {round, state...}. */
        private final ArrayDeque<long[]>[][] channel;
        /** notified[to][who]: {@code to} has been told that {@code who} failed. */
        private final boolean[][] notified;

        @SuppressWarnings("unchecked")
        Job(int n, Random random) {
            this.n = n;
            this.random = random;
            this.ranks = new Agreement[n];
            this.flags = new long[n];
            this.failAfterSends = new int[n];
            this.sends = new int[n];
            this.dead = new boolean[n];
            this.channel = new ArrayDeque[n][n];
            this.notified = new boolean[n][n];
            for (int f = 0; f < n; f++) {
                for (int t = 0; t < n; t++) {
                    channel[f][t] = new ArrayDeque<>();
                }
            }
            Arrays.fill(failAfterSends, -1);
            // up to n - 1 failures, each after a random number of sends: in any round, part way through
            int failures = random.nextInt(n);
            for (int i = 0; i < failures; i++) {
                int victim = random.nextInt(n);
                failAfterSends[victim] = random.nextInt(n * n + 1);
            }
            if (Arrays.stream(failAfterSends).allMatch(s -> s >= 0)) {
                failAfterSends[random.nextInt(n)] = -1;
            }
        }

        void run() {
            boolean[] earlyDead = new boolean[n];
            for (int r = 0; r < n; r++) {
                flags[r] = random.nextLong() | random.nextLong();
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
                    known[q] = earlyDead[q] && random.nextBoolean();
                    notified[r][q] = known[q];
                    acked[q] = known[q] && random.nextBoolean();
                }
                ranks[r] = new Agreement(n, r, flags[r], random.nextInt(100), known, acked);
            }
            for (int r = 0; r < n; r++) {
                if (!dead[r]) {
                    broadcast(r);
                }
            }
            List<Runnable> actions = new ArrayList<>();
            int steps = 0;
            while (true) {
                actions.clear();
                for (int f = 0; f < n; f++) {
                    for (int t = 0; t < n; t++) {
                        int from = f;
                        int to = t;
                        if (!dead[to] && !channel[from][to].isEmpty()) {
                            actions.add(() -> {
                                long[] m = channel[from][to].poll();
                                ranks[to].deliver(from, (int) m[0], Arrays.copyOfRange(m, 1, m.length));
                                step(to);
                            });
                        }
                        if (!dead[to] && dead[from] && !notified[to][from]) {
                            actions.add(() -> {
                                notified[to][from] = true;
                                ranks[to].crashed(from);
                                step(to);
                            });
                        }
                    }
                }
                if (actions.isEmpty()) {
                    break;
                }
                actions.get(random.nextInt(actions.size())).run();
                assertTrue(++steps < 100_000, "the simulated job did not settle");
            }
            check();
        }

        /** After an event at {@code r}: ends as many rounds as it can, sending each new one's state. */
        private void step(int r) {
            while (!dead[r] && ranks[r].advance()) {
                broadcast(r);
            }
        }

        private void broadcast(int r) {
            long[] state = ranks[r].message();
            long[] m = new long[state.length + 1];
            m[0] = ranks[r].round();
            System.arraycopy(state, 0, m, 1, state.length);
            for (int to = 0; to < n && !dead[r]; to++) {
                if (to == r || ranks[r].knownCrashed(to)) {
                    continue;
                }
                if (sends[r] == failAfterSends[r]) {
                    dead[r] = true;
                    return;
                }
                sends[r]++;
                channel[r][to].add(m);
            }
            // a rank alone, or whose peers all failed, ends its rounds without a message
            step(r);
        }

        private void check() {
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
        }
    }
}
