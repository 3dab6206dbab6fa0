package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs over several hosts made of network namespaces, each host with two rails: ranks of one host
 * share memory, ranks of different hosts talk over the rails, and every byte is checked.
 */
@Timeout(180)
class MultiHostIT {
    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    private Launch.Result exchange(Netns net, int ranks, int ppn, String... extra) throws Exception {
        return exchange(net, "udp", ranks, ppn, extra);
    }

    /** The Exchange program over {@code wire} ({@code TUTTI_NET}, passed down by the launcher's environment). */
    private Launch.Result exchange(Netns net, String wire, int ranks, int ppn, String... extra) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", "--verbose", "-n",
                Integer.toString(ranks), "--hosts", String.join(",", net.hosts()), "--ppn", Integer.toString(ppn),
                "--exec-prefix", "ip netns exec {host}", "--rails", "r0,r1", "--timeout", "100s"));
        args.addAll(java.util.List.of(extra));
        args.addAll(java.util.List.of("--cp", Launch.testClasses(), "io.tutti.systest.Exchange"));
        return Launch.run(work, java.util.Map.of("TUTTI_NET", wire), Duration.ofSeconds(150),
                args.toArray(String[]::new));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"udp", "tcp"})
    void twoHostsOfTwoRanksEach(String wire) throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Launch.Result r = exchange(net, wire, 4, 2);
            assertExit(0, r);
            // each rank shares memory with the other rank of its host and reaches two over the rails
            assertEquals(4, r.stdout().lines().filter(l -> l.endsWith("(2 over the network): ring and all-to-all ok"))
                    .count(), r::toString);
            r.assertNoJobDirectory();
        }
    }

    /**
     * Windows across two hosts of two ranks: a fetchAndOp counter, a put + fence halo exchange and
     * gets in flight ({@link WindowsAcrossHosts}), on clean rails and with 5 % of the datagrams dropped.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "drop {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"0", "0.05"})
    void windowsAcrossTwoHosts(String drop) throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Launch.Result r = Launch.run(work, java.util.Map.of("TUTTI_NET_DROP", drop), Duration.ofSeconds(150), "run",
                    "--verbose", "-n",
                    "4", "--hosts", String.join(",", net.hosts()), "--ppn", "2", "--exec-prefix",
                    "ip netns exec {host}", "--rails", "r0,r1", "--timeout", "100s", "--cp", Launch.testClasses(),
                    "io.tutti.systest.WindowsAcrossHosts");
            assertExit(0, r);
            assertEquals(4, r.stdout().lines().filter(l -> l.endsWith("of 4: counter ok, halo ok, gets ok, dynamic ok")).count(),
                    r::toString);
            r.assertNoJobDirectory();
        }
    }

    /**
     * Windows across two hosts of two ranks, a lock holder killed: rank H dies holding rank 0's
     * exclusive lock and rank W, on the other host than one of them, gets the lock after it
     * ({@code WindowProcesses deadholder}). 1, 2: the target releases its local peer's word for a
     * remote waiter; 3, 1: a local waiter releases the word its target took for a remote holder.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "holder {0}, waiter {1}")
    @org.junit.jupiter.params.provider.CsvSource({"1, 2", "3, 1"})
    void aWindowLockWhoseHolderWasKilledGoesToTheWaiterOnAnotherHost(int holder, int waiter) throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Launch.Result r = Launch.run(work, Duration.ofSeconds(150), "run", "--verbose", "-n", "4", "--hosts",
                    String.join(",", net.hosts()), "--ppn", "2", "--exec-prefix", "ip netns exec {host}", "--rails",
                    "r0,r1", "--on-failure", "continue", "--timeout", "100s", "--cp", Launch.testClasses(),
                    "io.tutti.systest.WindowProcesses", "deadholder", Integer.toString(holder),
                    Integer.toString(waiter));
            assertExit(0, r);
            assertTrue(r.stdout().contains("granted after") && r.stdout().contains("read 2 then 3"), r::toString);
            assertTrue(r.stdout().contains("window holds 3"), r::toString);
            r.assertNoJobDirectory();
        }
    }

    @Test
    void threeHostsOverRailsLimitedToOneGigabit() throws Exception {
        try (Netns net = Netns.create(3, 2, "1gbit")) {
            Launch.Result r = exchange(net, 3, 1);
            assertExit(0, r);
            assertEquals(3, r.stdout().lines().filter(l -> l.endsWith("(2 over the network): ring and all-to-all ok"))
                    .count(), r::toString);
            r.assertNoJobDirectory();
        }
    }

    @Test
    void threeHostsOverTcpRailsLimitedToOneGigabit() throws Exception {
        try (Netns net = Netns.create(3, 2, "1gbit")) {
            Launch.Result r = exchange(net, "tcp", 3, 1);
            assertExit(0, r);
            assertEquals(3, r.stdout().lines().filter(l -> l.endsWith("(2 over the network): ring and all-to-all ok"))
                    .count(), r::toString);
            r.assertNoJobDirectory();
        }
    }

    /**
     * Rank 2, on the second host, is killed with SIGKILL while the other ranks (one beside it, two
     * on the first host) wait to receive from it: each gets the error naming rank 2 (within 20 s
     * here, a bound for a loaded machine: the figure is measured in docs/perf), the ranks on the
     * first host through the launcher's report, and the launcher ends the job reporting the signal.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"udp", "tcp"})
    void aPeerKilledWithSigkillIsReportedToTheOthers(String wire) throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            // ranks 0, 1 on host 0 and 2, 3 on host 1: the victim's neighbour 3 learns of its death
            // over shared memory, 0 and 1 over the rails
            Launch.Running job = Launch.start(work, java.util.Map.of("TUTTI_NET", wire), "run", "--verbose", "-n",
                    "4", "--hosts", String.join(",", net.hosts()), "--ppn", "2", "--exec-prefix",
                    "ip netns exec {host}", "--rails", "r0,r1", "--timeout", "60s", "--cp", Launch.testClasses(),
                    "io.tutti.systest.AwaitDeadPeer", work.toString(), "2");
            for (int rank = 0; rank < 4; rank++) {
                Launch.awaitFile(job, work.resolve("rank-" + rank + ".ready"), Duration.ofSeconds(60));
            }
            java.util.List<Long> pids = Launch.pids(work, 4);
            // the others are blocked in their receive by now, or about to be
            Thread.sleep(300);
            long killedAt = System.currentTimeMillis();
            ProcessHandle.of(pids.get(2)).orElseThrow().destroyForcibly();
            Launch.Result r = job.await(Duration.ofSeconds(30));
            assertExit(128 + 9, r);
            assertTrue(r.stderr().contains("rank 2 (pid " + pids.get(2) + ") was killed by signal 9 (SIGKILL)"),
                    r::toString);
            for (int rank : new int[] {0, 1, 3}) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank " + rank + " caught at (\\d+): (.*)")
                        .matcher(r.stdout());
                assertTrue(m.find(), () -> "rank " + rank + " did not get the error\n" + r);
                long after = Long.parseLong(m.group(1)) - killedAt;
                assertTrue(m.group(2).contains("rank 2"), m.group(2));
                if (wire.equals("udp") && rank < 2) {
                    // across hosts over UDP only the launcher's report is quick: the rails' silence
                    // bound is 10 s under tutti run, past the launcher's notice period
                    assertTrue(m.group(2).contains("its launcher reports"), m.group(2));
                }
                // a bound that holds on a loaded machine; the time itself is a benchmark's figure
                assertTrue(after >= 0 && after < 20_000, "rank " + rank + " learnt of the death after " + after + " ms: "
                        + m.group(2));
            }
            Launch.assertAllDead(pids);
            r.assertNoJobDirectory();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"udp", "tcp"})
    void aRailTakenDownInTheMiddleOfA64MiBTransferLeavesItToTheOther(String wire) throws Exception {
        try (Netns net = Netns.create(2, 2, null)) {
            Launch.Running job = Launch.start(work, java.util.Map.of("TUTTI_NET", wire), "run", "-n", "2", "--hosts", String.join(",", net.hosts()), "--ppn",
                    "1", "--exec-prefix", "ip netns exec {host}", "--rails", "r0,r1", "--timeout", "100s", "--cp",
                    Launch.testClasses(), "io.tutti.systest.BigTransfer", work.toString());
            Launch.awaitFile(job, work.resolve("halfway"), Duration.ofSeconds(60));
            net.rail(0, 1, false);
            java.nio.file.Files.writeString(work.resolve("cut"), "rail 1 of host 0 is down");
            Launch.Result r = job.await(Duration.ofSeconds(120));
            assertExit(0, r);
            assertTrue(r.stdout().contains("received 64 MiB intact"), r::toString);
        }
    }
}
