package io.tutti.sim;

/**
 * How a message gets from the sending NIC to the receiving one. The rank model hands a message
 * over with {@link #carry}; the network tells it of the arrival by dispatching an event to the
 * handler and payload it was given, so that no object is made per message.
 */
public interface Network {
    /** Called once, before the first {@link #carry}: the engine to schedule on. */
    void attach(EventLoop engine);

    /**
     * Carries {@code bytes} from rank {@code src} to rank {@code dst}; the message is handed to the
     * network at {@code t}. When it has arrived, the network dispatches {@code (sinkHandler,
     * sinkPayload)} at the arrival time.
     */
    void carry(long t, int src, int dst, long bytes, int sinkHandler, long sinkPayload);

    /**
     * Whether the rank model must charge the per-byte gap G itself (LogGP: the network is a
     * constant latency), or the network already spent the bytes' time on its links (packets).
     */
    boolean hostChargesBandwidth();

    /** The NIC that rank {@code rank} uses: ranks of one node share one in a packet network. */
    int nicOf(int rank);

    /** Number of NICs for {@code ranks} ranks. */
    int nics(int ranks);

    /** Name for reports ({@code loggp}, {@code packet}). */
    String name();
}
