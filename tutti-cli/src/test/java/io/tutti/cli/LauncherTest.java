package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Tutti;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LauncherTest {
    /** A rank program: joins the job and prints its rank, or throws on rank 1 when asked to. */
    public static final class Program {
        public static void main(String[] args) {
            try (Tutti t = Tutti.init(args)) {
                // Everyone meets rank 0 first, so no rank closes (and removes its ring) before all have joined.
                byte[] token = new byte[1];
                int n = t.world().size();
                if (t.world().rank() == 0) {
                    for (int r = 1; r < n; r++) {
                        t.world().recv(token, 0, 1, r, 1);
                    }
                    for (int r = 1; r < n; r++) {
                        t.world().send(token, 0, 1, r, 2);
                    }
                } else {
                    t.world().send(token, 0, 1, 0, 1);
                    t.world().recv(token, 0, 1, 0, 2);
                }
                if (args.length > 0 && args[0].equals("fail") && t.world().rank() == 1) {
                    throw new IllegalStateException("rank 1 was told to fail");
                }
                System.out.println("rank " + t.world().rank() + " of " + t.world().size());
            }
        }
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Launcher launcher = new Launcher(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), "tutti run");

    private Launcher.Options program(int n, String... args) {
        return Launcher.Options.of(n, Program.class.getName(), args).withClasspath("")
                .withTimeout(Duration.ofSeconds(40));
    }

    @Test
    void threadModeRunsEveryRankAndTagsItsOutput() {
        assertEquals(0, launcher.run(program(3).withThreads(true).withTagOutput(true)), err::toString);
        String text = out.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("[" + r + "] rank " + r + " of 3\n"), text);
        }
    }

    @Test
    void threadModeReportsTheFailingRank() {
        assertEquals(1, launcher.run(program(2, "fail").withThreads(true).withTagOutput(true)));
        assertTrue(err.toString(StandardCharsets.UTF_8)
                .contains("tutti run: rank 1 failed: java.lang.IllegalStateException: rank 1 was told to fail"), err::toString);
    }

    @Test
    void processModeRunsFromCode() {
        assertEquals(0, launcher.run(program(2).withTagOutput(true)), err::toString);
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("[0] rank 0 of 2\n") && text.contains("[1] rank 1 of 2\n"), text);
    }

    @Test
    void aMissingMainClassIsAUsageError() {
        assertEquals(Launcher.EXIT_USAGE, launcher.run(Launcher.Options.of(2, "com.example.Nope")));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("was not found on the class path"), err::toString);
    }

    @Test
    void pumpTagsLinesAndFinishesAPartialOne() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream target = new PrintStream(sink, true, StandardCharsets.UTF_8);
        TaggedOutput.pump(new ByteArrayInputStream("a\nbc\n\nd".getBytes(StandardCharsets.UTF_8)), target,
                TaggedOutput.prefix(7));
        assertEquals("[7] a\n[7] bc\n[7] \n[7] d\n", sink.toString(StandardCharsets.UTF_8));
    }
}
