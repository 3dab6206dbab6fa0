package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.bootstrap.LaunchEnvironment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a rank is told about the launcher's rendezvous: the secret in its environment, or only the
 * announcement of it when it comes on standard input, and never on a remote shell's command line;
 * and which address of this host ranks elsewhere are given.
 */
@Timeout(30)
class RendezvousSetupTest {
    private static final JobDirectory JOB = new JobDirectory("0123456789ab", Path.of("/dev/shm/tutti-0123456789ab"),
            new byte[] {1, 2, 3, (byte) 0xfe});

    @Test
    void aLocalRankGetsTheSecretInItsEnvironmentAndNoFileOfTheLaunchers() {
        Map<String, String> env = new HashMap<>(Map.of(LaunchEnvironment.JOB_DIR, "/stale",
                LaunchEnvironment.SECRET_FILE, "/stale/secret", LaunchEnvironment.LAUNCHER_PID, "1"));
        RankProcesses.environment(env, JOB, 1, 4, "unix:/dev/shm/tutti-0123456789ab/rendezvous.sock", false);
        assertEquals("010203fe", env.get(LaunchEnvironment.SECRET));
        assertEquals("unix:/dev/shm/tutti-0123456789ab/rendezvous.sock", env.get(LaunchEnvironment.RENDEZVOUS));
        assertNull(env.get(LaunchEnvironment.JOB_DIR));
        assertNull(env.get(LaunchEnvironment.SECRET_FILE));
        assertNull(env.get(LaunchEnvironment.LAUNCHER_PID));
        assertNull(env.get(LaunchEnvironment.SECRET_STDIN));
    }

    @Test
    void aRankBehindARemoteShellGetsTheSecretOnlyOnItsStandardInput() {
        Map<String, String> env = new HashMap<>(Map.of(LaunchEnvironment.SECRET, "inherited"));
        RankProcesses.environment(env, JOB, 2, 4, "tcp:10.0.0.1:4000", true);
        assertNull(env.get(LaunchEnvironment.SECRET));
        assertEquals("1", env.get(LaunchEnvironment.SECRET_STDIN));
        List<String> cmd = new Placement(List.of("h1"), 1, "ssh {host}", Map.of()).command("h1",
                List.of("java", "io.tutti.bootstrap.RankMain", "Main"), env);
        assertFalse(String.join(" ", cmd).contains("010203fe"), cmd::toString);
        assertEquals("010203fe\n", new String(RankProcesses.secretLine(JOB), StandardCharsets.US_ASCII));
        Launcher.Options o = Launcher.Options.of(2, "com.example.Main", "x");
        List<String> wrapped = RankProcesses.command(o, new JobTarget("com.example.Main", null, null), true, null);
        assertEquals(List.of("io.tutti.bootstrap.RankMain", "com.example.Main", "x"),
                wrapped.subList(wrapped.size() - 3, wrapped.size()));
    }

    @Test
    void theRendezvousAddressIsTheOneGivenElseTheRouteToAHost() throws Exception {
        assertEquals(InetAddress.getByName("127.0.0.1"), RendezvousAddress.choose("127.0.0.1", List.of("h")));
        Launcher.UsageException e = assertThrows(Launcher.UsageException.class,
                () -> RendezvousAddress.choose("no-such-host.invalid", List.of()));
        assertTrue(e.getMessage().contains("--rendezvous-address"), e.getMessage());
        assertEquals(InetAddress.getByName("127.0.0.1"), RendezvousAddress.routeTo("127.0.0.1"));
        assertNotNull(RendezvousAddress.choose(null, List.of("no-such-host.invalid")));
        assertEquals("tcp:[0:0:0:0:0:0:0:1]:7", RendezvousAddress.tcp(InetAddress.getByName("::1"), 7));
    }
}
