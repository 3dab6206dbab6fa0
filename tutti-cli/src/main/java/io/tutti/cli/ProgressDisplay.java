package io.tutti.cli;

import java.io.Console;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar (me.tongfei:progressbar) on standard error for {@code tutti sim} and {@code tutti
 * bench}: shown only when the JVM runs on a terminal, and only once the work has gone on for a
 * while, so that pipes, CI logs and tests get none of it. Lines of other output written through
 * {@link #relay} clear the bar first and redraw it after, so that they never share its line.
 */
final class ProgressDisplay implements AutoCloseable {
    /**
     * Columns the bar takes. The terminal is not asked for its width: the library would start a
     * terminal library for that, which installs signal handlers in the launcher's JVM.
     */
    static final int WIDTH = 79;

    private final String task;
    private final long max;
    private final String unit;
    private final boolean shown;
    private final PrintStream to;
    private final Object lock = new Object();
    private ProgressBar bar;
    private String drawn;
    private long current;
    private boolean closed;
    private final long startNanos = System.nanoTime();

    /** Whether this JVM talks to a terminal; false under a pipe, a CI runner or a test. */
    static boolean onTerminal() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    /**
     * A bar for {@code task} of {@code max} steps (-1 when unknown) on {@link System#err}, drawn
     * from {@code delay} on when {@code wanted} and on a terminal; silent otherwise.
     */
    static ProgressDisplay start(String task, long max, String unit, Duration delay, boolean wanted) {
        return start(task, max, unit, delay, wanted, System.err);
    }

    /** As above, drawn on {@code to}. */
    static ProgressDisplay start(String task, long max, String unit, Duration delay, boolean wanted, PrintStream to) {
        return new ProgressDisplay(task, max, unit, delay, wanted && onTerminal(), to);
    }

    ProgressDisplay(String task, long max, String unit, Duration delay, boolean shown, PrintStream to) {
        this.task = task;
        this.max = max;
        this.unit = unit;
        this.shown = shown;
        this.to = to;
        if (shown) {
            CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS).execute(this::show);
        }
    }

    private void show() {
        synchronized (lock) {
            if (closed || bar != null) {
                return;
            }
            // the clock and the rate from the start of the work; started from 0 and stepped to where
            // the work is, because a bar started from a later step counts its percentage from there
            bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(max).setUnit(unit, 1)
                    .startsFrom(0, Duration.ofNanos(System.nanoTime() - startNanos))
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).continuousUpdate()
                    .setConsumer(new Line()).build();
            bar.stepTo(current);
        }
    }

    /** Whether the bar is drawn (or will be, once the delay is over). */
    boolean shown() {
        return shown;
    }

    /** Moves the bar to {@code n} steps done. */
    void stepTo(long n) {
        synchronized (lock) {
            current = n;
            if (bar != null) {
                bar.stepTo(n);
            }
        }
    }

    /** Moves the bar to {@code fraction} (0 to 1) of its steps. */
    void fraction(double fraction) {
        stepTo(Math.round(Math.clamp(fraction, 0, 1) * max));
    }

    /** One more step done. */
    void step() {
        synchronized (lock) {
            stepTo(current + 1);
        }
    }

    /** Removes the bar from the terminal; nothing more is drawn. */
    @Override
    public void close() {
        ProgressBar b;
        synchronized (lock) {
            closed = true;
            b = bar;
            bar = null;
        }
        if (b != null) {
            b.close(); // waits for the library's last redraw, which takes the lock: not held here
        }
    }

    /**
     * A stream for the lines of the job's output: each write (one whole line, as {@link TaggedOutput}
     * pumps them) goes to {@code out} above the bar, and a line for which {@code counts} is true
     * moves the bar one step.
     */
    PrintStream relay(PrintStream out, java.util.function.Predicate<String> counts) {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (lock) {
                    if (drawn != null) {
                        to.print("\r" + " ".repeat(WIDTH) + "\r");
                        to.flush();
                    }
                    out.write(b, off, len);
                    out.flush();
                    if (drawn != null) {
                        to.print("\r" + drawn);
                        to.flush();
                    }
                    if (counts.test(new String(b, off, len, StandardCharsets.UTF_8))) {
                        step();
                    }
                }
            }

            @Override
            public void flush() {
                out.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }

    /** Where the library draws: the bar's line on {@link #to}, under the lock that the relayed lines take. */
    private final class Line implements ProgressBarConsumer {
        @Override
        public int getMaxRenderedLength() {
            return WIDTH;
        }

        @Override
        public void accept(String rendered) {
            synchronized (lock) {
                drawn = rendered.length() > WIDTH ? rendered.substring(0, WIDTH) : rendered;
                to.print("\r" + drawn);
                to.flush();
            }
        }

        @Override
        public void close() {
            synchronized (lock) {
                to.print("\r" + " ".repeat(WIDTH) + "\r");
                to.flush();
                drawn = null;
            }
        }
    }
}
