package io.tutti.offload;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 *
 * <p>The level is a 64-bit word in a segment: a private one, or a word of a node's shared memory
 * (an offload area), where the peers of the node add to it directly, from other processes.
 */
public final class Counter {
    private static final VarHandle LEVEL = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final long offset;

    /** A counter of its own, at level 0. */
    public Counter() {
        this(MemorySegment.ofArray(new long[1]), 0);
    }

    /** The counter whose level is the 8-byte aligned word at {@code offset} of {@code segment}. */
    public Counter(MemorySegment segment, long offset) {
        if ((offset & 7) != 0 || offset < 0 || offset > segment.byteSize() - 8) {
            throw new IllegalArgumentException("a counter needs an aligned word inside the segment, got offset " + offset);
        }
        this.segment = segment;
        this.offset = offset;
    }

    /** Pours {@code value} (any sign) into the tank; returns the new level. Volatile read-modify-write. */
    public long add(long value) {
        return (long) LEVEL.getAndAdd(segment, offset, value) + value;
    }

    /** The current level. Acquire load: data written before the add that produced it is visible. */
    public long level() {
        return (long) LEVEL.getAcquire(segment, offset);
    }

    /**
     * Sets the level; only for setting up or tearing down a program when no arrival can race it
     * (volatile store).
     */
    public void reset(long value) {
        LEVEL.setVolatile(segment, offset, value);
    }

    @Override
    public String toString() {
        return "Counter[" + level() + "]";
    }
}
