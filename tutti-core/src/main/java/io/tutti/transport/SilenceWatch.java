package io.tutti.transport;

/**
 * How long a peer has been silent, counted only while this rank was awake to hear it: a watcher (a
 * poll, a ticking thread) that comes more than two periods after its last visit was itself stopped
 * or starved, and what the peer sent meanwhile may wait unread or be lost, so silence counts again
 * from that visit. The rails' failure detector and the launcher's rendezvous judge peers by it
 * (docs/perf/launch.md, "64 ranks"). Driven by one thread.
 */
public final class SilenceWatch {
    private final long gapNanos;
    private long lastTick;
    private long awakeSince;

    /** A watcher that visits every {@code periodNanos} and is awake from {@code now}. */
    public SilenceWatch(long periodNanos, long now) {
        this.gapNanos = 2 * periodNanos;
        this.lastTick = now;
        this.awakeSince = now;
    }

    /** The watcher visits at {@code now}; after a gap, nobody listened meanwhile. */
    public void tick(long now) {
        if (now - lastTick > gapNanos) {
            awakeSince = now;
        }
        lastTick = now;
    }

    /** How long a peer last heard at {@code heardAt} has been silent while the watcher was awake. */
    public long silence(long heardAt, long now) {
        return now - Math.max(heardAt, awakeSince);
    }
}
