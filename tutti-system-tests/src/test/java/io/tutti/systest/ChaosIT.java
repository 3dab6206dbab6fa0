package io.tutti.systest;

import static io.tutti.systest.JobStatus.rail;
import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos test: {@link Chaos} on four hosts of the namespace fixture, one rank each, two UDP rails,
 * with injected loss, bit flips and reordering on every rail; the test cuts one host's second rail
 * (a real link down, {@code ip link}) and brings it back, then SIGKILLs a rank; the survivors
 * shrink and go on, checking every message and collective result against the seed. It prints what
 * was injected and what the rails recovered, and asserts both. One minute by default; longer with
 * {@code TUTTI_CHAOS_SECONDS} or {@code -Dtutti.chaos.seconds}, a run replayed with
 * {@code TUTTI_CHAOS_SEED} ({@code -Dtutti.chaos.seed}). Every wait is bounded relative to that time.
 */
class ChaosIT {
    private static final int RANKS = 4;
    /** Rank 2 (host 2) is killed; host 3's rail 1 is cut. */
    private static final int VICTIM = 2;
    private static final int CUT_HOST = 3;
    private static final int CUT_RAIL = 1;
    private static final Pattern STATS = Pattern.compile("tutti-net rank (\\d+): .*");

    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    @Test
    void trafficOverTwoLossyRailsSurvivesACutRailAndAKilledRankWithEveryResultChecked() throws Exception {
        int seconds = setting("TUTTI_CHAOS_SECONDS", "tutti.chaos.seconds", 60);
        long seed = setting("TUTTI_CHAOS_SEED", "tutti.chaos.seed", ThreadLocalRandom.current().nextInt(1 << 30));
        System.out.println("ChaosIT: " + seconds + " s, seed " + seed);
        Launch.Result r;
        try (Netns net = Netns.create(RANKS, 2, null)) {
            Launch.Running job = Launch.start(work, Map.of("TUTTI_NET_DROP", "0.02", "TUTTI_NET_CORRUPT", "0.005",
                    "TUTTI_NET_REORDER", "0.02", "TUTTI_NET_STATS", "1"), "run", "--verbose", "-n",
                    Integer.toString(RANKS), "--hosts", String.join(",", net.hosts()), "--ppn", "1", "--exec-prefix",
                    "ip netns exec {host}", "--transport", "net", "--rails", "r0,r1", "--on-failure", "continue",
                    "--timeout", (seconds + 300) + "s", "--get-stack-traces", "--cp", Launch.testClasses(),
                    "io.tutti.systest.Chaos",
                    Integer.toString(seconds), work.toString(), Long.toString(seed), "1");
            try {
                Launch.awaitFile(job, work.resolve("started"), Duration.ofSeconds(120));
                long started = System.nanoTime();
                Launch.Result early = new Launch.Result(0, "", Files.readString(job.stderr()), Duration.ZERO);
                String id = early.jobId();
                long victim = early.rankPids(RANKS).get(VICTIM);

                sleepUntil(started, seconds * 150L);
                net.rail(CUT_HOST, CUT_RAIL, false);
                try {
                    // the rank on the cut host finds the rail silent to every peer
                    JobStatus.await(work, id, j -> state(j).equals("down"), "rank 3 shows rail 1 down");
                    Thread.sleep(2000);
                } finally {
                    net.rail(CUT_HOST, CUT_RAIL, true);
                }
                JobStatus.await(work, id, j -> !state(j).startsWith("down"), "rank 3 shows rail 1 back");

                sleepUntil(started, seconds * 500L);
                assertTrue(ProcessHandle.of(victim).map(ProcessHandle::destroyForcibly).orElse(false),
                        "rank " + VICTIM + " (pid " + victim + ") was gone before it was to be killed");
            } catch (Exception | AssertionError e) {
                // what the ranks said tells why (a failed check ends the job early)
                boolean ended = !job.process().isAlive();
                job.process().descendants().forEach(ProcessHandle::destroyForcibly);
                job.process().destroyForcibly();
                job.process().waitFor();
                throw new AssertionError(e.getMessage() + (ended ? "\nthe job had ended" : "\nthe job was stopped")
                        + "\n--- stdout:\n" + Files.readString(job.stdout()) + "--- stderr:\n"
                        + Files.readString(job.stderr()), e);
            }
            r = job.await(Duration.ofSeconds(seconds + 360));
        }
        r.stdout().lines().filter(l -> l.startsWith("chaos ")).forEach(l -> System.out.println("ChaosIT: " + l));
        r.stderr().lines().filter(l -> l.startsWith("tutti-net rank "))
                .forEach(l -> System.out.println("ChaosIT: " + l));
        assertFalse(r.stdout().contains("CHAOS FAILED"), r::toString);
        assertExit(0, r);
        assertTrue(r.stderr().contains("rank " + VICTIM + " (pid " + r.rankPids(RANKS).get(VICTIM)
                + ") was killed by signal 9 (SIGKILL)"), r::toString);

        List<Integer> survivors = List.of(0, 1, 3);
        long[] checked = new long[7];
        String[] checks = {"p2p", "bytes", "allreduce", "bcast", "allgather", "alltoall", "barrier"};
        long[] recovered = new long[3];
        String[] recoveries = {"retransmits", "naks", "crcDrops"};
        for (int rank : survivors) {
            String ok = line(r.stdout(), "chaos rank " + rank + ": ok, ");
            assertTrue(ok.contains(" shrinks=1 size=3 "), ok);
            add(checked, checks, ok);
            add(recovered, recoveries, line(r.stdout(), "chaos rank " + rank + " recovered: "));
        }
        for (int k = 0; k < checks.length; k++) {
            assertTrue(checked[k] > 0, "nothing checked of " + checks[k] + ":\n" + r);
        }

        long[] injected = new long[4];
        String[] faults = {"drops", "flips", "reorders", "railsDowned"};
        Matcher m = STATS.matcher(r.stderr());
        int lines = 0;
        while (m.find()) {
            assertTrue(survivors.contains(Integer.parseInt(m.group(1))), m.group());
            add(injected, faults, m.group());
            lines++;
        }
        assertEquals(survivors.size(), lines, r::toString);

        System.out.println("ChaosIT report (" + seconds + " s, seed " + seed + "): injected " + counts(faults, injected)
                + " (survivors'; the killed rank's are lost with it), rail cuts=1 kills=1; recovered "
                + counts(recoveries, recovered) + "; checked " + counts(checks, checked));
        // railsDowned counts the cut and the killed rank's rails alike: the cut itself is asserted above
        assertTrue(injected[0] > 0 && injected[1] > 0 && injected[2] > 0,
                "faults injected: " + counts(faults, injected));
        // loss is repaired by retransmission, flips are caught by the CRC, gaps are asked for again
        assertTrue(recovered[0] > 0, "drops without retransmissions: " + counts(recoveries, recovered));
        assertTrue(recovered[2] > 0, "flips without CRC drops: " + counts(recoveries, recovered));
        assertTrue(recovered[1] > 0, "drops and reorders without NAKs: " + counts(recoveries, recovered));
        r.assertNoJobDirectory();
    }

    /** The state of the cut rail at the rank on the cut host. */
    private static String state(com.fasterxml.jackson.databind.JsonNode job) {
        return rail(job, CUT_HOST, CUT_RAIL).get("state").asText();
    }

    /** Sleeps until {@code millis} milliseconds after {@code started} (nanoTime); not at all if that has passed. */
    private static void sleepUntil(long started, long millis) throws InterruptedException {
        long left = started / 1_000_000 + millis - System.nanoTime() / 1_000_000;
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    /** The one line of {@code out} that starts with {@code prefix}. */
    private static String line(String out, String prefix) {
        List<String> found = out.lines().filter(l -> l.startsWith(prefix)).toList();
        assertEquals(1, found.size(), () -> "lines starting '" + prefix + "' in\n" + out);
        return found.get(0);
    }

    /** Adds the values of {@code name=N} in {@code line} to {@code into}, for each of {@code names}. */
    private static void add(long[] into, String[] names, String line) {
        for (int k = 0; k < names.length; k++) {
            Matcher m = Pattern.compile("[ (]" + names[k] + "=(\\d+)").matcher(line);
            assertTrue(m.find(), () -> "no " + String.join(", ", names) + " in: " + line);
            into[k] += Long.parseLong(m.group(1));
        }
    }

    private static String counts(String[] names, long[] values) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < names.length; k++) {
            b.append(k == 0 ? "" : " ").append(names[k]).append('=').append(values[k]);
        }
        return b.toString();
    }

    /** A positive whole number from the environment or a system property, else {@code fallback}. */
    private static int setting(String env, String property, int fallback) {
        String v = System.getProperty(property, System.getenv(env));
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(env + " (or -D" + property + ") must be a positive whole number, not '"
                + v + "'");
    }
}
