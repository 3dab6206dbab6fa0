package io.tutti.p2p;

import java.lang.foreign.MemorySegment;

/**
 * The receiving side of one offloaded collective on one rank: where PUT data lands and which
 * counters arrivals add to. Registered with {@link Engine#register(int, int, OffloadEndpoint)} under
 * the collective's (context, tag); the engine calls it from its arrival path, on whichever thread
 * drives progress (the owner or the progress agent), never from two threads at once.
 */
public interface OffloadEndpoint {
    /**
     * The buffer that PUT data addressed to {@code buffer} lands in; bytes
     * {@code [offset, offset + length)} of it are checked before the copy.
     */
    MemorySegment region(int buffer);

    /** Adds {@code value} to counter {@code counter} (an arrival, or a remote counter add). */
    void add(int counter, long value);

    /** A packet named a buffer or a counter that does not exist: counted and dropped, never fatal. */
    default boolean accepts(int buffer, int counter) {
        return true;
    }
}
