package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rank that computes for three failure timeouts without calling Tutti, between two rounds of
 * exchanges over the network rails, is not declared failed: its rails' keep-alive thread answers
 * for it. Processes of one host on the loopback rails, the timeout lowered to 1 s (short enough
 * for three of them to be a short test, long enough that a loaded machine's scheduling gaps do not
 * pass for a death).
 */
@Timeout(90)
class LongComputeIT {
    private static final int TIMEOUT_MS = 1000;

    @TempDir
    Path work;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"udp", "tcp"})
    void aRankComputingForThreeTimeoutsIsNotDeclaredFailed(String wire) throws Exception {
        Launch.Result r = Launch.run(work, Map.of("TUTTI_TRANSPORT", "net", "TUTTI_NET", wire,
                        "TUTTI_NET_TIMEOUT_MS", Integer.toString(TIMEOUT_MS)), Duration.ofSeconds(80), "run",
                "--verbose", "-n", "4", "--timeout", "70s", "--cp", Launch.testClasses(),
                "io.tutti.systest.LongCompute", Integer.toString(3 * TIMEOUT_MS));
        assertExit(0, r);
        assertEquals(4, r.stdout().lines().filter(l -> l.endsWith("(3 over the network): both rounds ok around "
                + 3 * TIMEOUT_MS + " ms of computing")).count(), r::toString);
        r.assertNoJobDirectory();
    }
}
