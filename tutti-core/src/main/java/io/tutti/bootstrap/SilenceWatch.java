package io.tutti.bootstrap;

/**
 * How long the other end of a rendezvous connection has been silent, counted only while this JVM
 * was awake to hear it: a watcher that ticks every period and finds its own tick more than two
 * periods late was itself stopped or starved (a JVM among 64 starting on two cores), and the
 * frames sent meanwhile may wait unread, so silence counts again from that tick, as the rails'
 * failure detector does (docs/perf/launch.md, "64 ranks"). Driven by one thread.
 */
final class SilenceWatch {
    private final long gapNanos;
    private long lastTick;
    private long awakeSince;

    SilenceWatch(long periodNanos, long now) {
        this.gapNanos = 2 * periodNanos;
        this.lastTick = now;
        this.awakeSince = now;
    }

    /** The watcher ticks at {@code now}; returns how long a peer last heard at {@code heardAt} has been silent. */
    long silence(long heardAt, long now) {
        if (now - lastTick > gapNanos) {
            awakeSince = now;
        }
        lastTick = now;
        return now - Math.max(heardAt, awakeSince);
    }
}
