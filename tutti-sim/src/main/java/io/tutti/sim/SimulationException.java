package io.tutti.sim;

/** A simulation that cannot complete: a deadlock, a length mismatch, a schedule the model cannot run. */
public final class SimulationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SimulationException(String message) {
        super(message);
    }
}
