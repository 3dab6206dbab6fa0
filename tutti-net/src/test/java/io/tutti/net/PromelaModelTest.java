package io.tutti.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Model-checks verification/rails.pml, the Promela model of the rails' reliable stream, with Spin:
 * every record delivered exactly once, in order and intact, over rails that lose, corrupt and
 * reorder, and no invalid end state. Skipped (not passed) where Spin or gcc is missing; CI
 * installs both.
 */
class PromelaModelTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theReliableStreamModelHasNoErrors() throws Exception {
        Assumptions.assumeTrue(onPath("spin") && onPath("gcc"), "spin and gcc are needed (apt-get install spin gcc)");
        Path script = Path.of("..", "verification", "check.sh").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(script), "missing " + script);
        Process p = new ProcessBuilder("sh", script.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(4, TimeUnit.MINUTES), "spin did not finish");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("errors: 0"), out);
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
