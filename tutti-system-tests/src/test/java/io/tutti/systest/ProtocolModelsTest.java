package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Model-checks the Promela models in verification/ with Spin (verification/check.sh): rails.pml,
 * the rails' reliable stream (safety); ring.pml, the shared-memory inbound ring; rendezvous.pml,
 * the pipelined rendezvous of large messages; offload.pml, the offload counters of a persistent
 * collective over runs; inc.pml, the in-network aggregation with loss and retransmission (each
 * safety, and liveness under weak fairness). Where Spin or gcc is missing the test is skipped,
 * except under CI ({@code CI=true}), where that fails the run: CI installs both.
 */
class ProtocolModelsTest {
    @ParameterizedTest
    @ValueSource(strings = {"rails.pml", "ring.pml", "rendezvous.pml", "offload.pml", "inc.pml"})
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theModelHasNoErrors(String model) throws Exception {
        boolean tools = onPath("spin") && onPath("gcc");
        if (!tools && "true".equals(System.getenv("CI"))) {
            fail("spin and gcc are needed to check the protocol models (apt-get install spin gcc); under CI a"
                    + " missing one fails the run instead of skipping the check");
        }
        Assumptions.assumeTrue(tools, "spin and gcc are needed (apt-get install spin gcc)");
        Path script = Path.of("..", "verification", "check.sh").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(script), "missing " + script);
        Process p = new ProcessBuilder("sh", script.toString(), model).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(9, TimeUnit.MINUTES), "spin did not finish");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(model + ": safety, no errors"), out);
        // every liveness property the model names was checked, not only the assertions
        Matcher ltl = Pattern.compile("(?m)^ltl (\\w+)")
                .matcher(Files.readString(script.resolveSibling(model)));
        while (ltl.find()) {
            assertTrue(out.contains(model + ": " + ltl.group(1) + " holds (weak fairness)"), out);
        }
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
