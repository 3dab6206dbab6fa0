package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ranks fill the hosts' slots host by host. The properties are checked on every small case rather
 * than on samples: all lists of up to four hosts of 1 to 3 slots, with and without a max_slots, for
 * every rank count up to past the limit, with and without {@code --oversubscribe}.
 */
@Timeout(60)
class PlacementTest {
    /** Every list of {@code n} hosts with 1..3 slots and max_slots none, equal, or one above. */
    private static List<List<Hosts.Host>> hostLists(int n) {
        List<List<Hosts.Host>> all = new ArrayList<>();
        all.add(List.of());
        for (int i = 0; i < n; i++) {
            List<List<Hosts.Host>> longer = new ArrayList<>();
            for (List<Hosts.Host> shorter : all) {
                for (int slots = 1; slots <= 3; slots++) {
                    for (int max : new int[] {0, slots, slots + 1}) {
                        List<Hosts.Host> l = new ArrayList<>(shorter);
                        l.add(new Hosts.Host("h" + i, slots, max));
                        longer.add(l);
                    }
                }
            }
            all = longer;
        }
        return all;
    }

    @Test
    void placementsFillSlotsInOrderAndExceedThemOnlyWhenOversubscribed() {
        int cases = 0;
        for (int n = 1; n <= 4; n++) {
            for (List<Hosts.Host> hosts : hostLists(n)) {
                int slots = hosts.stream().mapToInt(Hosts.Host::slots).sum();
                boolean capped = hosts.stream().allMatch(h -> h.maxSlots() > 0);
                int most = capped ? hosts.stream().mapToInt(Hosts.Host::maxSlots).sum() : Integer.MAX_VALUE;
                for (boolean over : new boolean[] {false, true}) {
                    Placement p = new Placement(hosts, over, null, null, Map.of());
                    assertEquals(slots, p.slots());
                    for (int ranks = 1; ranks <= slots + 6; ranks++) {
                        cases++;
                        String what = hosts + " -n " + ranks + (over ? " --oversubscribe" : "");
                        if (ranks > slots && (!over || ranks > most)) {
                            int r = ranks;
                            String m = assertThrows(Launcher.UsageException.class, () -> p.counts(r), what)
                                    .getMessage();
                            assertTrue(m.startsWith("-n " + ranks + " is more than the "), m);
                            assertTrue(over ? m.contains("max_slots") : m.contains("--oversubscribe"), m);
                            continue;
                        }
                        int[] counts = p.counts(ranks);
                        assertEquals(ranks, Arrays.stream(counts).sum(), what);
                        for (int i = 0; i < counts.length; i++) {
                            Hosts.Host h = hosts.get(i);
                            if (ranks <= slots) {
                                assertTrue(counts[i] <= h.slots(), what);
                                // a host gets ranks only when every host before it is full
                                assertTrue(counts[i] == 0 || i == 0 || counts[i - 1] == hosts.get(i - 1).slots(),
                                        what);
                            } else {
                                assertTrue(counts[i] >= h.slots(), what);
                                assertTrue(h.maxSlots() == 0 || counts[i] <= h.maxSlots(), what);
                            }
                        }
                        checkLayout(p.layout(ranks), counts, hosts, ranks, what);
                    }
                }
            }
        }
        assertTrue(cases > 100_000, "cases checked: " + cases);
    }

    /** Each host's ranks are consecutive, in host order, and know their place on it. */
    private static void checkLayout(Placement.Layout layout, int[] counts, List<Hosts.Host> hosts, int ranks,
                                    String what) {
        int rank = 0;
        for (int i = 0; i < counts.length; i++) {
            for (int local = 0; local < counts[i]; local++, rank++) {
                assertEquals(hosts.get(i).name(), layout.host(rank), what);
                assertEquals(i, layout.node(rank), what);
                assertEquals(local, layout.localRank(rank), what);
                assertEquals(counts[i], layout.localSize(rank), what);
            }
        }
        assertEquals(ranks, rank, what);
    }

    @Test
    void oversubscribedRanksGoRoundTheHostsUpToTheirLimits() {
        List<Hosts.Host> hosts = List.of(new Hosts.Host("a", 2, 0), new Hosts.Host("b", 1, 2),
                new Hosts.Host("c", 1, 0));
        Placement p = new Placement(hosts, true, null, null, Map.of());
        assertEquals(List.of(3, 2, 2), Arrays.stream(p.counts(7)).boxed().toList());
        assertEquals(List.of(5, 2, 4), Arrays.stream(p.counts(11)).boxed().toList());
        assertEquals(List.of(2, 1, 0), Arrays.stream(p.counts(3)).boxed().toList());
    }

    /** --hosts and --ppn, now slots: the very placement they gave before, blocks of ppn (or of n spread evenly). */
    @Test
    void hostsAndPpnPlaceRanksAsTheyAlwaysDid() {
        for (int h = 1; h <= 5; h++) {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < h; i++) {
                names.add("h" + i);
            }
            for (int n = 1; n <= 13; n++) {
                for (int ppn = 0; ppn <= 5; ppn++) {
                    PlacementOptions o = new PlacementOptions();
                    o.hosts = names;
                    o.ppn = ppn == 0 ? null : ppn;
                    int block = ppn > 0 ? ppn : (n + h - 1) / h;
                    if ((long) block * h < n) {
                        int ranks = n;
                        String m = assertThrows(IllegalArgumentException.class, () -> o.placement(ranks))
                                .getMessage();
                        assertTrue(m.contains("--oversubscribe"), m);
                        continue;
                    }
                    Placement.Layout layout = o.placement(n).layout(n);
                    for (int r = 0; r < n; r++) {
                        String what = "--hosts " + names + " --ppn " + ppn + " -n " + n + " rank " + r;
                        assertEquals(names.get(r / block), layout.host(r), what);
                        assertEquals(r % block, layout.localRank(r), what);
                        assertEquals(Math.min(n, (r / block + 1) * block) - r / block * block, layout.localSize(r),
                                what);
                    }
                }
            }
        }
    }

    @Test
    void bindToReachesTheRanksAndOnlyItsThreeValuesPass() {
        PlacementOptions o = new PlacementOptions();
        o.bindTo = "core";
        assertEquals("core", o.placement(2).env().get("TUTTI_BIND"));
        o.bindTo = null;
        assertEquals(null, o.placement(2).env().get("TUTTI_BIND"));
        o.bindTo = "hwthread";
        String m = assertThrows(IllegalArgumentException.class, () -> o.placement(2)).getMessage();
        assertTrue(m.contains("none, core or socket") && m.contains("hwthread"), m);
    }

    @Test
    void theLaunchAgentStartsRanksOnOtherHostsOnly() {
        Placement p = new Placement(List.of(new Hosts.Host("localhost", 1, 0), new Hosts.Host("far", 1, 0)), false,
                null, "ssh -o BatchMode=yes", Map.of());
        List<String> cmd = List.of("java", "-cp", "lib/*", "Main");
        Map<String, String> env = Map.of("TUTTI_RANK", "1", "HOME", "/root");
        assertEquals(cmd, p.command("localhost", cmd, env));
        assertEquals(null, p.remoteShell("localhost"));
        assertTrue(Placement.isOwnHost("LOCALHOST") && Placement.isOwnHost("127.0.0.1"));
        assertEquals(List.of("ssh", "-o", "BatchMode=yes", "far", "env", "TUTTI_RANK=1", "java", "-cp", "'lib/*'",
                "Main"), p.command("far", cmd, env));
        assertEquals("ssh -o BatchMode=yes", p.remoteShell("far"));
        // an exec prefix is used for every host, and names the remote shell by its words before {host}
        Placement prefixed = new Placement(List.of("a"), 1, "ssh -p 2222 {host}", Map.of());
        assertEquals("ssh -p 2222", prefixed.remoteShell("a"));
        assertEquals(null, new Placement(List.of("a"), 1, "ip netns exec {host}", Map.of()).remoteShell("a"));
        assertEquals(null, new Placement(List.of("a"), 1, null, Map.of()).remoteShell("a"));
    }
}
