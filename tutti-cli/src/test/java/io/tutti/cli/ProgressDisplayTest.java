package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressDisplayTest {
    private static final class Capture {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** Tests, CI and pipes are not terminals: the bar draws nothing, and relayed lines pass through unchanged. */
    @Test
    void silentWhenOutputIsNotATerminal() throws Exception {
        assertFalse(ProgressDisplay.onTerminal(), "the tests' output is not a terminal");
        Capture err = new Capture();
        Capture out = new Capture();
        try (ProgressDisplay bar = ProgressDisplay.start("sim", 10, "", Duration.ZERO, true, err.stream)) {
            assertFalse(bar.shown());
            PrintStream relayed = bar.relay(out.stream, BenchCommand::isRow);
            for (int i = 0; i < 10; i++) {
                bar.step();
                relayed.print("8 1.00 " + i + "\n");
                Thread.sleep(80);
            }
            bar.fraction(1);
        }
        assertEquals("", err.text());
        assertEquals(10, out.text().lines().count());
        assertTrue(out.text().startsWith("8 1.00 0\n"), out.text());
    }

    /** On a terminal the bar is drawn on its own line, and a relayed line clears it first and redraws it after. */
    @Test
    void onATerminalTheBarKeepsItsOwnLine() throws Exception {
        Capture err = new Capture();
        Capture out = new Capture();
        try (ProgressDisplay bar = new ProgressDisplay("bench", 4, " sizes", Duration.ZERO, true, err.stream)) {
            PrintStream relayed = bar.relay(out.stream, BenchCommand::isRow);
            relayed.print("# a header\n");
            for (int i = 0; i < 3; i++) {
                relayed.print("8 1.00\n");
            }
            // the bar redraws every 500 ms; a loaded machine may draw a frame or two before it catches up
            for (int i = 0; i < 200 && !(err.text().contains("\rbench  75% [") && err.text().contains("3/4 sizes")); i++) {
                Thread.sleep(50);
            }
            assertTrue(err.text().contains("\rbench  75% ["), err.text());
            assertTrue(err.text().contains("3/4 sizes"), err.text());
            relayed.print("8 2.00\n");
        }
        assertEquals("# a header\n8 1.00\n8 1.00\n8 1.00\n8 2.00\n", out.text());
        String drawn = err.text();
        assertTrue(drawn.contains("\r" + " ".repeat(ProgressDisplay.WIDTH) + "\r"), "cleared before a line");
        assertTrue(drawn.endsWith("\r" + " ".repeat(ProgressDisplay.WIDTH) + "\r"), "cleared at the end");
        assertFalse(drawn.contains("\n"), "the bar never moves the cursor down");
    }
}
