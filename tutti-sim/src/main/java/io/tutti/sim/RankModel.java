package io.tutti.sim;

/**
 * What the ranks execute, as the simulator sees it. {@link HostModel} runs the collective's
 * Schedule steps on each rank's CPU (host mode). Other modes plug in here: a NIC-offload model
 * that runs deferred work on counters, and a switch-aggregation model; each registers its own
 * event handler with the {@link EventLoop} and sends through the same {@link Network}.
 */
public interface RankModel {
    /** Registers handlers and sizes state; called once, before {@link #start}. */
    void attach(EventLoop engine, Network network);

    /** Every rank starts the collective at {@code t0}. */
    void start(long t0);

    /** Fraction of the work done so far, for progress bars (0 to 1). */
    double progress();

    /**
     * Called when no event is left: checks that everything completed (else throws {@link
     * SimulationException} saying what is stuck) and returns the result.
     */
    SimResult finish(long events);

    /** Mode name for reports ({@code host} ...). */
    String mode();
}
