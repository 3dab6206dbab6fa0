package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-network aggregation across network namespaces: four hosts of two ranks, two ToR switches (two
 * hosts each) and a spine, all {@code tutti switch} processes; the ranks force the {@code inc}
 * allreduce and check every result. With {@code --key-file} the switches serve only leaders that
 * name the same key in {@code TUTTI_INC_KEY_FILE}.
 */
@Timeout(400)
class IncIT {
    private static final Pattern AGGREGATED = Pattern.compile("aggregated (\\d+)");
    private static final Pattern INJECTED = Pattern.compile("injected losses (\\d+)");
    private static final Pattern REFUSED = Pattern.compile("refused (\\d+)");
    private static final String FALLBACK = "uses the host algorithm instead";

    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    /** A job of IncCheck on the fabric's hosts, with {@code env} (NAME=value) beside the INC settings. */
    private Launch.Running job(IncFabric net, int ranks, int ppn, String... env) throws Exception {
        return Launch.start(work, "run", "-n", Integer.toString(ranks), "--hosts", String.join(",", net.hosts()),
                "--ppn", Integer.toString(ppn), "--exec-prefix", "ip netns exec {host} env TUTTI_COLL_ALLREDUCE=inc"
                        + " TUTTI_INC_SWITCH=" + IncFabric.SWITCH_ADDRESS + ":" + IncFabric.PORT
                        + (env.length == 0 ? "" : " " + String.join(" ", env)),
                "--rails", "r0", "--timeout", "200s", "--cp", Launch.testClasses(), "io.tutti.systest.IncCheck");
    }

    private static void assertAllOk(Launch.Result r, int ranks) {
        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(ranks, r.stdout().lines().filter(l -> l.contains(": inc allreduce ok")).count(), r::toString);
    }

    private static final Pattern CHECKS = Pattern.compile("rank (\\d+): inc allreduce ok \\((\\d+) checks\\)");
    private static final Pattern COUNTER = Pattern.compile("([a-z-]+)=(\\d+)");

    /** Per rank, the counters IncCheck printed ({@code name=value}), with {@code checks}, the calls it checked. */
    private static java.util.Map<Integer, java.util.Map<String, Long>> counters(Launch.Result r) {
        java.util.Map<Integer, java.util.Map<String, Long>> out = new java.util.TreeMap<>();
        for (String line : r.stdout().lines().toList()) {
            Matcher c = CHECKS.matcher(line);
            if (c.find()) {
                out.computeIfAbsent(Integer.parseInt(c.group(1)), k -> new java.util.TreeMap<>())
                        .put("checks", Long.parseLong(c.group(2)));
            } else if (line.contains(": counters ")) {
                int rank = Integer.parseInt(line.substring(line.indexOf("rank ") + 5, line.indexOf(':')));
                Matcher m = COUNTER.matcher(line);
                while (m.find()) {
                    out.computeIfAbsent(rank, k -> new java.util.TreeMap<>()).put(m.group(1), Long.parseLong(m.group(2)));
                }
            }
        }
        return out;
    }

    /**
     * The in-network counters of a job whose group was set up: every rank joined it, ran its checks by
     * {@code inc} and the MAXLOC on the host (a call fallback); one leader per host sent the data
     * packets and took in at least one result per packet; with {@code loss}, some were sent again.
     */
    private static void assertCountedInNetwork(Launch.Result r, int ranks, int hosts, boolean loss) {
        java.util.Map<Integer, java.util.Map<String, Long>> c = counters(r);
        assertEquals(ranks, c.size(), r::toString);
        int leaders = 0;
        long retransmits = 0;
        for (var e : c.entrySet()) {
            java.util.Map<String, Long> m = e.getValue();
            String where = "rank " + e.getKey() + ": " + m;
            assertEquals(1, m.get("groups"), where);
            assertEquals(0, m.get("setup-fallbacks"), where);
            assertEquals(1, m.get("call-fallbacks"), "the MAXLOC: " + where);
            assertEquals(m.get("checks"), m.get("allreduce-inc"), where);
            assertEquals(1, m.get("allreduce-host"), where);
            assertEquals(0, m.get("timeouts") + m.get("wrong-token"), where);
            if (m.get("packets-sent") > 0) {
                leaders++;
                assertTrue(m.get("results-received") >= m.get("packets-sent") - m.get("retransmits"), where);
            } else {
                assertEquals(0, m.get("results-received") + m.get("retransmits"), "not a leader: " + where);
            }
            retransmits += m.get("retransmits");
        }
        assertEquals(hosts, leaders, "a node leader per host: " + c);
        if (loss) {
            assertTrue(retransmits > 0, "packets were dropped, some sent again: " + c);
        }
    }

    private List<String> switchOutputs() throws Exception {
        List<String> out = new ArrayList<>();
        try (var files = Files.list(work)) {
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("switch-")).toList()) {
                out.add(Files.readString(p));
            }
        }
        return out;
    }

    private static long sum(List<String> outputs, Pattern p) {
        long s = 0;
        for (String o : outputs) {
            Matcher m = p.matcher(o);
            while (m.find()) {
                s += Long.parseLong(m.group(1));
            }
        }
        return s;
    }

    /** Every switch held a group during the job and none after it. */
    private static void assertReleased(List<String> outputs, int groupsAtOnce) {
        for (String o : outputs) {
            assertTrue(o.contains("groups in use " + groupsAtOnce + " of"), o);
            String last = o.lines().filter(l -> l.contains("groups in use")).reduce((a, b) -> b).orElse("");
            assertTrue(last.startsWith("tutti switch: groups in use 0 of"), "resources released:\n" + o);
        }
    }

    private void allOperations(String... switchOptions) throws Exception {
        try (IncFabric net = IncFabric.create(4, 2)) {
            net.startSwitches(work, switchOptions);
            Launch.Result r = job(net, 8, 2).await(Duration.ofSeconds(300));
            assertAllOk(r, 8);
            assertFalse(r.stderr().contains(FALLBACK), r::toString);
            assertCountedInNetwork(r, 8, 4, switchOptions.length > 0);
            net.stopSwitches();
            List<String> outputs = switchOutputs();
            assertEquals(3, outputs.size());
            assertTrue(sum(outputs, AGGREGATED) > 0, outputs::toString);
            assertReleased(outputs, 1);
            if (switchOptions.length > 0) {
                assertTrue(sum(outputs, INJECTED) > 0, "packets were dropped: " + outputs);
            }
            for (String o : outputs) {
                assertTrue(o.contains("warning: no --key-file"), "a switch without a key says so:\n" + o);
            }
        }
    }

    @Test
    void everyOperationAndTypeThroughToRsAndSpine() throws Exception {
        allOperations();
    }

    @Test
    void exactWithFivePercentLossAtEverySwitch() throws Exception {
        allOperations("--loss", "0.05", "--seed", "7");
    }

    @Test
    void twoJobsAtOnceEachWithItsOwnGroup() throws Exception {
        try (IncFabric net = IncFabric.create(4, 2)) {
            net.startSwitches(work);
            Launch.Running a = job(net, 4, 1);
            Launch.Running b = job(net, 4, 1);
            assertAllOk(a.await(Duration.ofSeconds(300)), 4);
            assertAllOk(b.await(Duration.ofSeconds(300)), 4);
            net.stopSwitches();
            List<String> outputs = switchOutputs();
            for (String o : outputs) {
                String last = o.lines().filter(l -> l.contains("groups in use")).reduce((x, y) -> y).orElse("");
                assertTrue(last.startsWith("tutti switch: groups in use 0 of"), o);
            }
            assertTrue(sum(outputs, AGGREGATED) > 0, outputs::toString);
        }
    }

    @Test
    void withoutSwitchesTheJobFallsBackToTheHostAlgorithm() throws Exception {
        try (IncFabric net = IncFabric.create(4, 2)) {
            Launch.Result r = job(net, 8, 2).await(Duration.ofSeconds(300));
            assertAllOk(r, 8);
            assertEquals(1, r.stderr().lines().filter(l -> l.contains("uses the host algorithm instead")).count(),
                    r::toString);
            long retries = 0;
            for (var e : counters(r).entrySet()) {
                java.util.Map<String, Long> m = e.getValue();
                String where = "rank " + e.getKey() + ": " + m;
                assertEquals(0, m.get("groups"), where);
                assertEquals(1, m.get("setup-fallbacks"), where);
                assertEquals(0, m.get("allreduce-inc") + m.get("packets-sent") + m.get("call-fallbacks"), where);
                assertEquals(m.get("checks") + 1, m.get("allreduce-host"), where);
                retries += m.get("control-retries");
            }
            assertEquals(8, counters(r).size(), r::toString);
            assertTrue(retries > 0, "the leaders asked their switch again before giving up: " + counters(r));
        }
    }

    /** {@code hexDigits} in an owner-only key file in the test's directory. */
    private Path keyFile(String name, String hexDigits) throws Exception {
        Path f = work.resolve(name);
        Files.writeString(f, hexDigits + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    @Test
    void switchesWithAKeyFileServeLeadersThatHaveTheKey() throws Exception {
        Path key = keyFile("switch.key", "5a".repeat(32));
        try (IncFabric net = IncFabric.create(4, 2)) {
            net.startSwitches(work, "--key-file", key.toString());
            Launch.Result r = job(net, 8, 2, "TUTTI_INC_KEY_FILE=" + key).await(Duration.ofSeconds(300));
            assertAllOk(r, 8);
            assertFalse(r.stderr().contains(FALLBACK), r::toString);
            net.stopSwitches();
            List<String> outputs = switchOutputs();
            assertEquals(3, outputs.size());
            assertTrue(sum(outputs, AGGREGATED) > 0, "the allreduces went through the switches: " + outputs);
            assertEquals(0, sum(outputs, REFUSED), outputs::toString);
            assertReleased(outputs, 1);
            for (String o : outputs) {
                assertTrue(o.contains("groups only with the key of " + key), o);
                assertFalse(o.contains("warning: no --key-file"), o);
            }
        }
    }

    @Test
    void leadersWithAnotherKeyAreRefusedAndFallBackToTheHostAlgorithm() throws Exception {
        Path key = keyFile("switch.key", "5a".repeat(32));
        Path other = keyFile("other.key", "3c".repeat(32));
        try (IncFabric net = IncFabric.create(4, 2)) {
            net.startSwitches(work, "--key-file", key.toString());
            Launch.Result r = job(net, 8, 2, "TUTTI_INC_KEY_FILE=" + other).await(Duration.ofSeconds(300));
            assertAllOk(r, 8);
            assertEquals(1, r.stderr().lines().filter(l -> l.contains(FALLBACK)).count(), r::toString);
            assertTrue(r.stderr().contains("switch refused group") && r.stderr().contains(
                    "TUTTI_INC_KEY_FILE must name the switch's key file"), r::toString);
            net.stopSwitches();
            List<String> outputs = switchOutputs();
            assertEquals(0, sum(outputs, AGGREGATED), outputs::toString);
            assertTrue(sum(outputs, REFUSED) > 0, "the ToRs counted the refused notifies: " + outputs);
            for (String o : outputs) {
                assertFalse(o.contains("groups in use 1"), "no switch took the group:\n" + o);
            }
        }
    }
}
