package io.tutti.offload;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A water tank: the 64-bit level that deferred work waits on (libfabric's {@code fi_cntr}). Arrivals
 * (a PUT landing with a counter add, a REMOTE_CNTR_ADD packet) and local CNTR_ADD entries pour into
 * it; nothing else changes it. Within one run the level only rises; the program's last entry adds a
 * negative amount that wraps it back to 0 for the next start.
 *
 * <p>Shared by one writer side (the transport's arrival path, possibly on another thread) and one
 * reader side (the progress agent running the {@link OffloadEngine}). Memory ordering: {@link #add}
 * is a volatile read-modify-write, so every plain write made before it (the payload of the PUT
 * being counted) happens-before any {@link #level()} that observes the new level; {@link #level()}
 * is an acquire load. Several writers may add concurrently: adds commute and none is lost.
 */
public final class Counter {
    private static final VarHandle LEVEL;

    static {
        try {
            LEVEL = MethodHandles.lookup().findVarHandle(Counter.class, "level", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through LEVEL
    private volatile long level;

    /** Pours {@code value} (any sign) into the tank; returns the new level. Volatile read-modify-write. */
    public long add(long value) {
        return (long) LEVEL.getAndAdd(this, value) + value;
    }

    /** The current level. Acquire load: data written before the add that produced it is visible. */
    public long level() {
        return (long) LEVEL.getAcquire(this);
    }

    /**
     * Sets the level; only for setting up or tearing down a program when no arrival can race it
     * (volatile store).
     */
    public void reset(long value) {
        LEVEL.setVolatile(this, value);
    }

    @Override
    public String toString() {
        return "Counter[" + level() + "]";
    }
}
