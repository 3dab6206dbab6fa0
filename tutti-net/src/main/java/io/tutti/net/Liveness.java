package io.tutti.net;

import io.tutti.transport.SilenceWatch;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The health of the rails and of the peers: idle rails carry heartbeats; a rail silent while
 * another of the peer is heard is down (its unacknowledged data moves to the others) until it is
 * heard again; a peer silent on every rail has failed, and so has one whose TCP connection ended
 * without a BYE. Silence is judged only on time this rank was listening: it counts from the later
 * of the peer's last frame and the moment this rank resumed polling after a gap longer than two
 * heartbeat intervals (a process that was stopped, or starved of the CPU), so our own absence
 * never condemns a peer whose frames we could not read or that were lost from a full socket buffer
 * meanwhile. A peer not yet heard at all may still be starting (a JVM on a crowded host answers
 * seconds after it published its rails), so until its first frame the longer start-up bound applies,
 * counted from the connection, and at least the timeout from this rank's first call on the peer.
 * Under a launcher that reports deaths and says when every rank has started ({@code tutti run}),
 * such a peer is not judged before then, and the bound counts from then: 64 JVMs starting on two
 * cores left a live peer unanswered for over 60 s (docs/perf/launch.md).
 * Only peers this rank has called on (or that called on it) are judged and sent heartbeats.
 * The {@link KeepAliveAgent} keeps this rank listening while its owner computes.
 *
 * <p>Driven under the transport's in-poll flag.
 */
final class Liveness {
    private static final long MS = 1_000_000L;

    private final NetConfig config;
    private final FrameSender sender;
    private final Reliability reliability;
    private final Striping striping;
    private final RailStats stats;
    private final List<String> railNames;
    /** How often this rank polls at the least (the agent's cadence is a quarter heartbeat), in ns. */
    private final long pollPeriod;
    /** Silence counted only while this rank listened: a pause between polls of over two periods was an absence. */
    private SilenceWatch listening;
    /** When the rails were connected, or the job started: a peer not yet heard has the start-up bound from then. */
    private long startedAt;
    /** Whether every rank has started, as the launcher says; null where no launcher says (always started). */
    private final BooleanSupplier jobStarted;
    private boolean started;
    /** Who this is, for the rail state events ({@link #identify}). */
    private String job = "";
    private int rank = -1;

    Liveness(NetConfig config, FrameSender sender, Reliability reliability, Striping striping, RailStats stats,
             List<String> railNames, BooleanSupplier jobStarted) {
        this.config = config;
        this.jobStarted = jobStarted;
        this.started = jobStarted == null;
        this.sender = sender;
        this.reliability = reliability;
        this.striping = striping;
        this.stats = stats;
        this.railNames = List.copyOf(railNames);
        // twice this is above the agent's cadence (takeover plus one period of a quarter heartbeat),
        // with room for jitter
        this.pollPeriod = Math.max(1, config.heartbeatMillis()) * MS;
        this.listening = new SilenceWatch(pollPeriod, System.nanoTime());
    }

    /** Names this rank and its job in the rail state events. */
    void identify(String job, int rank) {
        this.job = job;
        this.rank = rank;
    }

    /** The rails are connected: this rank listens from {@code now}. */
    void start(long now) {
        listening = new SilenceWatch(pollPeriod, now);
        startedAt = now;
    }

    /** A poll starts at {@code now}; after a gap, nobody listened meanwhile. */
    void listen(long now) {
        // the start-up bound counts from when the launcher said every rank started, not from a later check
        started(now);
        listening.tick(now);
    }

    /** How long a peer has been silent while this rank listened, since {@code heardAt}. */
    private long silence(long heardAt, long now) {
        return listening.silence(heardAt, now);
    }

    /**
     * Judges {@code p}'s silence: on every rail for {@link NetConfig#timeoutMillis()} once it has
     * been heard, or for {@link NetConfig#startTimeoutMillis()} before, it has failed; on one rail for
     * {@link NetConfig#railTimeoutMillis()} while another is heard, that rail is down. Returns the
     * work done.
     */
    int check(Peer p, long now) {
        int work = 0;
        if (!p.heardOnce && !started(now)) {
            // not judged while the job starts: the launcher reports a death meanwhile
            return work;
        }
        // a peer not yet heard has the start-up bound from the connection, and at least the timeout
        // from when this rank contacted it (peers are contacted when first needed: RailsTransport#contact)
        long limit = p.heardOnce ? config.timeoutMillis()
                : Math.max(config.startTimeoutMillis() - (p.lastHeardAny - startedAt) / MS, config.timeoutMillis());
        if (p.failure == null && silence(p.lastHeardAny, now) > limit * MS) {
            failed(p, p.heardOnce ? "rank " + p.rank + " has not been heard on any of its " + p.railCount
                    + " rails for " + silence(p.lastHeardAny, now) / MS + " ms ("
                    + NetConfig.envName(NetConfig.TIMEOUT_MS) + "=" + config.timeoutMillis() + ")"
                    + (p.peerClosed ? "; it closed its end" : "")
                    : "rank " + p.rank + " has not answered on any of its " + p.railCount + " rails since this rank"
                    + " first called on it, " + silence(p.lastHeardAny, now) / MS + " ms ago, "
                    + (now - startedAt) / MS + " ms after " + (jobStarted == null ? "the rails were connected"
                    : "every rank had started") + " ("
                    + NetConfig.envName(NetConfig.START_TIMEOUT_MS) + "=" + config.startTimeoutMillis() + ", "
                    + NetConfig.envName(NetConfig.TIMEOUT_MS) + "=" + config.timeoutMillis()
                    + "): it never finished starting, or has died");
        }
        if (p.railCount > 1) {
            long railTimeout = config.railTimeoutMillis() * MS;
            for (int r = 0; r < p.railCount; r++) {
                if (p.downReported[r] && !p.down[r]) {
                    p.downReported[r] = false;
                    RailStateEvent.emit(job, rank, p.rank, r, railNames.get(r), true, "heard again");
                }
                if (p.down[r] || !p.confirmed(r) || silence(p.lastHeard[r], now) <= railTimeout) {
                    continue;
                }
                boolean otherHeard = false;
                for (int q = 0; q < p.railCount; q++) {
                    otherHeard |= q != r && now - p.lastHeard[q] <= railTimeout;
                }
                if (otherHeard) {
                    p.down[r] = true;
                    p.downReported[r] = true;
                    stats.railsDowned++;
                    RailStateEvent.emit(job, rank, p.rank, r, railNames.get(r), false, "silent for "
                            + silence(p.lastHeard[r], now) / MS + " ms while another rail of the peer is heard");
                    // what the silent rail carried goes again on the others
                    reliability.resendRail(p, r, now);
                    work++;
                }
            }
        }
        return work;
    }

    /** Whether every rank has started; the first time it is seen, the start-up bound counts from {@code now}. */
    private boolean started(long now) {
        if (!started && jobStarted.getAsBoolean()) {
            started = true;
            startedAt = Math.max(startedAt, now);
        }
        return started;
    }

    /** Sends a heartbeat (an ACK) on each confirmed rail to {@code p} that sent nothing for a heartbeat interval. */
    void heartbeats(Peer p, long now) {
        long heartbeat = config.heartbeatMillis() * MS;
        for (int r = 0; r < p.railCount; r++) {
            // down rails too: that is how they are found to answer again
            if (p.confirmed(r) && now - p.lastSent[r] >= heartbeat) {
                sender.ack(p, r, false, now);
            }
        }
    }

    /** {@code p}'s connection on {@code rail} ended: without a BYE, the peer has failed. */
    void connectionLost(Peer p, int rail, String why) {
        if (p.peerClosed || p.failure != null) {
            return;
        }
        failed(p, "rank " + p.rank + " dropped its connection on rail " + rail + " (" + railNames.get(rail)
                + ") without closing its end: " + why + "; the process has died or was cut off");
    }

    /** Records {@code p}'s failure; what it never acknowledged no longer weighs on the node's rails. */
    private void failed(Peer p, String why) {
        p.failure = why;
        striping.release(p);
    }
}
