package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stall attack of issue 28, replayed on a cluster of namespaces: while 10 % of the datagrams
 * are lost, a process on the switch ({@link AckForger}) that sees every packet acknowledges rank
 * 0's newest sequence number from rank 1's own address and port, with the session's tag, and
 * replays rank 1's real acknowledgements. The job completes, every message intact; rank 0 dropped
 * the forgeries (bad MAC) and the replays.
 */
@Timeout(240)
class StallAttackIT {
    private static final Pattern DROPS = Pattern.compile("tutti-net rank 0: .*");

    @TempDir
    Path work;

    @BeforeAll
    static void namespaces() {
        Netns.assumeAvailable();
    }

    @Test
    void forgedAndReplayedAcknowledgementsFromThePathDoNotStallALossyJob() throws Exception {
        try (Netns net = Netns.create(2, 1, null)) {
            String sw = net.switchName();
            // the switch sends from rank 1's address (10.100.0.2, on its loopback, never answered for
            // on the bridge, so that the hosts still reach each other) through an address of its own
            Netns.ip("-n", sw, "addr", "add", "10.100.0.254/24", "dev", "br0");
            Netns.ip("-n", sw, "addr", "add", "10.100.0.2/32", "dev", "lo");
            Netns.run("ip", "netns", "exec", sw, "sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1",
                    "net.ipv4.conf.br0.arp_ignore=1", "net.ipv4.conf.all.arp_announce=2",
                    "net.ipv4.conf.br0.arp_announce=2");
            Process forger = new ProcessBuilder("ip", "netns", "exec", sw,
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", Launch.testClasses() + ":"
                    + Launch.lib().toAbsolutePath() + "/*", "io.tutti.systest.AckForger", "170", work.resolve("stop").toString())
                    .redirectErrorStream(true).start();
            try {
                Launch.Result r = Launch.run(work, Map.of("TUTTI_NET_DROP", "0.1", "TUTTI_NET_STATS", "1"),
                        Duration.ofSeconds(180), "run", "--verbose", "-n", "2", "--hosts",
                        String.join(",", net.hosts()), "--ppn", "1", "--exec-prefix", "ip netns exec {host}",
                        "--rails", "r0", "--timeout", "150s", "--cp", Launch.testClasses(),
                        "io.tutti.systest.LossyStream", "3000", "4096");
                java.nio.file.Files.writeString(work.resolve("stop"), "");
                assertTrue(forger.waitFor(30, TimeUnit.SECONDS), "the forger did not stop");
                String said = new String(forger.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                System.out.println("StallAttackIT: " + said.strip());
                assertExit(0, r);
                assertEquals(2, r.stdout().lines().filter(l -> l.endsWith(": stream ok")).count(), r::toString);
                Matcher m = DROPS.matcher(r.stderr());
                assertTrue(m.find(), r::toString);
                String stats = m.group();
                System.out.println("StallAttackIT: " + stats);
                Matcher counts = Pattern.compile("forged (\\d+) replayed (\\d+)").matcher(said);
                assertTrue(counts.find() && Long.parseLong(counts.group(1)) > 0, "the forger forged nothing: " + said);
                Matcher bad = Pattern.compile("bad_mac=(\\d+)").matcher(stats);
                assertTrue(bad.find() && Long.parseLong(bad.group(1)) > 0, "the forgeries reached rank 0: " + stats
                        + "; " + said);
                if (Long.parseLong(counts.group(2)) > 0) {
                    Matcher replays = Pattern.compile("replay=(\\d+)").matcher(stats);
                    assertTrue(replays.find() && Long.parseLong(replays.group(1)) > 0, "replays dropped: " + stats);
                }
            } finally {
                forger.destroyForcibly();
                forger.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
