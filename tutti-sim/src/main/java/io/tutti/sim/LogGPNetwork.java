package io.tutti.sim;

/**
 * LogGP's network: every message, whatever its size and path, takes the constant latency L from
 * the end of the sender's overhead to the receiver; no links, no contention, one NIC per rank.
 * The per-byte gap G is charged by the rank model at both NICs (see {@link HostModel}).
 */
public final class LogGPNetwork implements Network {
    private final long latency;
    private EventLoop engine;

    /** A network of latency {@code latency} ns. */
    public LogGPNetwork(long latency) {
        this.latency = latency;
    }

    @Override
    public void attach(EventLoop engine) {
        this.engine = engine;
    }

    @Override
    public void carry(long t, int src, int dst, long bytes, int sinkHandler, long sinkPayload) {
        engine.schedule(sinkHandler, t + latency, sinkPayload);
    }

    @Override
    public boolean hostChargesBandwidth() {
        return true;
    }

    @Override
    public int nicOf(int rank) {
        return rank;
    }

    @Override
    public int nics(int ranks) {
        return ranks;
    }

    @Override
    public String name() {
        return "loggp";
    }
}
