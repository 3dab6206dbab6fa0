package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tutti run --hostfile} over ssh on hosts that share nothing but the network and the root file
 * system ({@link Cluster}): the launcher on the first host, ranks started through each host's sshd,
 * shared memory between the ranks of a host and the rails between hosts, no file left in any host's
 * /dev/shm.
 */
@Timeout(300)
class ClusterRunIT {
    @BeforeEach
    void available() {
        Cluster.assumeAvailable();
    }

    /** The launcher's command line on a host: the assembly's java, as {@link Launch} starts it. */
    private static List<String> tutti(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-cp", Launch.lib().toAbsolutePath() + "/*",
                "io.tutti.cli.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void fourHostsOfTwoRanksOverSsh() throws Exception {
        try (Cluster c = Cluster.start(4)) {
            Path hostfile = c.dir().resolve("hostfile");
            StringBuilder lines = new StringBuilder("# the test cluster\n");
            for (String h : c.hosts()) {
                lines.append(h).append(" slots=2\n");
            }
            Files.writeString(hostfile, lines);
            List<String> cmd = new ArrayList<>(List.of("env", "TUTTI_JVM_OPTS=-Xmx128m -XX:TieredStopAtLevel=1"));
            cmd.addAll(tutti("run", "--hostfile", hostfile.toString(), "--launch-agent", "ssh -F " + c.sshConfig(),
                    "--timeout", "200s", "--verbose", "--cp", Launch.testClasses(), "io.tutti.systest.EveryCollective"));
            Cluster.Result r = c.exec(0, Duration.ofSeconds(240), cmd.toArray(String[]::new));
            assertEquals(0, r.exitCode(), r::toString);
            // 8 ranks: each shares memory with the other rank of its host and reaches six over the rails
            assertEquals(8, r.stdout().lines().filter(l -> l.endsWith("(6 over the network): every collective ok"))
                    .count(), r::toString);
            for (int h = 0; h < 4; h++) {
                Cluster.Result left = c.exec(h, "sh", "-c", "ls -d /dev/shm/tutti-* 2>/dev/null || true");
                assertTrue(left.stdout().isBlank(), "host " + c.host(h) + " keeps " + left.stdout());
            }
        }
    }
}
