package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ShmFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the engine itself does when a peer vanishes, without a launcher that would stop the job
 * first: the ranks are started here as plain processes with the launch environment set by hand,
 * as another launcher would.
 */
@Timeout(60)
class PeerDeathIT {
    @TempDir
    Path work;

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"shm", "net", "net-tcp"})
    void aBlockedReceiveFromADeadPeerFailsWithAClearError(String path) throws Exception {
        String job = "it" + Long.toHexString(System.nanoTime());
        Path jobDir = ShmFiles.createJobDirectory(ShmFiles.defaultRoot().resolve("tutti-" + job));
        List<Process> ranks = new ArrayList<>();
        try {
            for (int rank = 0; rank < 2; rank++) {
                ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        "-cp", Launch.lib() + "/*" + java.io.File.pathSeparator + Launch.testClasses(),
                        "io.tutti.systest.PeerDeath")
                        .redirectOutput(work.resolve("out-" + rank).toFile())
                        .redirectError(work.resolve("err-" + rank).toFile());
                pb.environment().put(LaunchEnvironment.JOB_ID, job);
                pb.environment().put(LaunchEnvironment.RANK, Integer.toString(rank));
                pb.environment().put(LaunchEnvironment.SIZE, "2");
                pb.environment().put(LaunchEnvironment.JOB_DIR, jobDir.toString());
                if (path.startsWith("net")) {
                    // the network rails between two processes of this host: the dead peer is found
                    // by its silence (UDP) or its connections' end (TCP), not by its pid
                    pb.environment().put("TUTTI_TRANSPORT", "net");
                    pb.environment().put("TUTTI_NET", path.equals("net-tcp") ? "tcp" : "udp");
                }
                ranks.add(pb.start());
            }
            assertTrue(ranks.get(1).waitFor(40, TimeUnit.SECONDS), "rank 1 did not end");
            assertEquals(7, ranks.get(1).exitValue());
            assertTrue(ranks.get(0).waitFor(20, TimeUnit.SECONDS), "rank 0 still waits for its dead peer");
            String out = Files.readString(work.resolve("out-0"));
            String err = Files.readString(work.resolve("err-0"));
            assertEquals(0, ranks.get(0).exitValue(), out + err);
            String named = path.startsWith("net") ? "rank 1 cannot be reached" : "rank 1 (pid " + ranks.get(1).pid()
                    + ") has exited or was killed";
            assertTrue(out.contains("caught after") && out.contains(named), out + err);
            long ms = Long.parseLong(out.replaceAll("(?s).*caught after (\\d+) ms.*", "$1"));
            assertTrue(ms < Duration.ofSeconds(2).toMillis(), "detected only after " + ms + " ms: " + out);
        } finally {
            ranks.forEach(Process::destroyForcibly);
            ShmFiles.deleteTree(jobDir);
        }
    }
}
