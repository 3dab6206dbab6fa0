package io.tutti.coll.algo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leader layouts from the shared domain table are the ones the direct definition gives (the
 * reference below, O(n) per rank: the code the table replaced), on many shapes of domains, and
 * building every rank's layout of a group touches O(n) entries: all ranks share one leaders' array
 * and one array per domain.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HierarchicalLayoutTest {
    /** The direct definition: this rank's domain in rank order (the designated leader first), and the leaders. */
    private static HierarchicalSchedules.Layout reference(Group g, int[] domains, int lead) {
        int n = g.size();
        int[] d = new int[n];
        for (int v = 0; v < n; v++) {
            d[v] = domains[g.rank(v)];
        }
        int mine = d[g.me()];
        int leadDomain = lead >= 0 ? d[lead] : Integer.MIN_VALUE;
        int[] local = IntStream.range(0, n).filter(v -> d[v] == mine).toArray();
        if (mine == leadDomain) {
            int[] reordered = new int[local.length];
            reordered[0] = lead;
            int k = 1;
            for (int v : local) {
                if (v != lead) {
                    reordered[k++] = v;
                }
            }
            local = reordered;
        }
        int me = indexOf(local, g.me());
        Group localGroup = new Group(ranks(g, local), me, g.tagBase() + HierarchicalSchedules.LOCAL_IN);
        if (me != 0) {
            return new HierarchicalSchedules.Layout(localGroup, null, null);
        }
        int[] leaders = new int[n];
        int count = 0;
        for (int v = 0; v < n; v++) {
            int dv = d[v];
            boolean first = IntStream.range(0, v).noneMatch(q -> d[q] == dv);
            if (first) {
                leaders[count++] = d[v] == leadDomain ? lead : v;
            }
        }
        int[] l = Arrays.copyOf(leaders, count);
        return new HierarchicalSchedules.Layout(localGroup, new Group(ranks(g, l), indexOf(l, g.me()),
                g.tagBase() + HierarchicalSchedules.LEADERS), null);
    }

    private static int[] ranks(Group g, int[] virtual) {
        return Arrays.stream(virtual).map(g::rank).toArray();
    }

    private static int indexOf(int[] a, int x) {
        return IntStream.range(0, a.length).filter(i -> a[i] == x).findFirst().orElseThrow();
    }

    /** Domain shapes: blocks, round robin, uneven runs, arbitrary ids, one rank each, reversed, random. */
    static int[] shape(int kind, int n, Random rnd) {
        int[] d = new int[n];
        for (int r = 0; r < n; r++) {
            d[r] = switch (kind) {
                case 0 -> r / 4;
                case 1 -> r % 3;
                case 2 -> rnd.nextInt(5) * 7 + 100;
                case 3 -> r < n / 3 ? 0 : r < n / 2 ? 9 : 2;
                case 4 -> r;
                case 5 -> (n - r) / 5;
                default -> -rnd.nextInt(1 + n / 3) * 4096 - rnd.nextInt(2);
            };
        }
        return d;
    }

    @Test
    void tableLayoutsAreTheDirectDefinitions() {
        Random rnd = new Random(29);
        int compared = 0;
        for (int n = 1; n <= 40; n++) {
            for (int kind = 0; kind < 7; kind++) {
                int size = n;
                int[] domains = shape(kind, n, rnd);
                // the whole communicator, and a permuted sub-group with a tag base, as the leader phases nest
                int[] perm = IntStream.range(0, n).map(i -> (i * 7 + 3) % size).toArray();
                boolean permutation = Arrays.stream(perm).distinct().count() == n;
                for (int[] ranks : permutation ? new int[][] {Group.all(0, n).ranks(), perm}
                        : new int[][] {Group.all(0, n).ranks()}) {
                    for (int lead = -1; lead < n; lead += 1 + n / 5) {
                        for (int me = 0; me < n; me++) {
                            Group g = new Group(ranks, me, ranks == perm ? 256 : 0);
                            HierarchicalSchedules.Layout want = reference(g, domains, lead);
                            HierarchicalSchedules.Layout got = HierarchicalSchedules.layout(g, domains, lead);
                            String what = "n " + n + " kind " + kind + " lead " + lead + " me " + me + " domains "
                                    + Arrays.toString(domains);
                            same(want.local(), got.local(), what);
                            assertEquals(want.leader(), got.leader(), what);
                            if (want.leader()) {
                                same(want.leaders(), got.leaders(), what);
                                if (lead >= 0) {
                                    assertEquals(indexOf(want.leaders().ranks(), g.rank(lead)),
                                            got.leaderIndexOf(lead), what);
                                }
                            }
                            compared++;
                        }
                    }
                }
                // the table's facts against their definitions
                int[] d = domains;
                assertEquals(Arrays.stream(d).distinct().count(), HierarchicalSchedules.count(d));
                boolean contiguous = IntStream.range(1, size).allMatch(r -> d[r] == d[r - 1]
                        || IntStream.range(0, r).noneMatch(q -> d[q] == d[r]));
                assertEquals(contiguous, HierarchicalSchedules.contiguous(d), Arrays.toString(d));
                assertArrayEquals(IntStream.range(0, size).filter(r -> IntStream.range(0, r).noneMatch(q -> d[q] == d[r]))
                        .toArray(), HierarchicalSchedules.leaders(d));
            }
        }
        assertTrue(compared > 10_000, "compared " + compared);
    }

    private static void same(Group want, Group got, String what) {
        assertArrayEquals(want.ranks(), got.ranks(), what);
        assertEquals(want.me(), got.me(), what);
        assertEquals(want.tagBase(), got.tagBase(), what);
    }

    /**
     * Linear structure: the layouts of all n ranks reference at most n + (number of domains)
     * distinct entries, because every rank of a domain shares its domain's array and every leader
     * the one leaders' array.
     */
    @Test
    void everyRanksLayoutSharesTheGroupsArrays() {
        for (int kind : new int[] {0, 1, 4, 6}) {
            int n = 4096;
            int[] domains = shape(kind, n, new Random(kind));
            Map<int[], Boolean> arrays = new IdentityHashMap<>();
            int leaders = 0;
            for (int me = 0; me < n; me++) {
                HierarchicalSchedules.Layout l = HierarchicalSchedules.layout(Group.all(me, n), domains, -1);
                arrays.put(l.local().ranks(), true);
                if (l.leader()) {
                    arrays.put(l.leaders().ranks(), true);
                    leaders++;
                } else {
                    assertNull(l.leaders());
                }
            }
            long entries = arrays.keySet().stream().mapToLong(a -> a.length).sum();
            assertEquals(HierarchicalSchedules.count(domains), leaders);
            assertTrue(entries <= n + leaders, "kind " + kind + ": " + entries + " entries for " + n + " ranks");
        }
    }

    /**
     * The default selector's leader schedules for a communicator of 2^16 single-rank nodes, every
     * rank built: quadratic layouts took minutes here, the table's a fraction of a second.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void leaderSchedulesOfEveryRankOfALargeCommunicator() {
        int n = 1 << 16;
        int[] node = IntStream.range(0, n).toArray();
        ScheduleAlgorithm.Params p = ScheduleAlgorithm.Params.DEFAULT.withTopology(new Topology(node, new int[n], false));
        long steps = 0;
        for (ScheduleAlgorithm a : new ScheduleAlgorithm[] {new LeadersBarrier(false), new LeadersBcast(false),
                new LeadersAllreduce(false)}) {
            CollectiveCall c = switch (a.kind()) {
                case BARRIER -> CollectiveCall.barrier();
                case BCAST -> CollectiveCall.bcast(8, n / 3);
                default -> CollectiveCall.allreduce(8, 8, false, false);
            };
            for (int r = 0; r < n; r++) {
                Schedule s = a.build(c, r, n, p);
                steps += s.steps();
            }
        }
        // barrier and allreduce: 16 exchange rounds per rank; bcast: n - 1 receives and n - 1 sends
        assertTrue(steps > 2L * 16 * n, "steps " + steps);
        assertFalse(steps > 200L * n, "steps " + steps);
    }
}
