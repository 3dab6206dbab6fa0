package io.tutti.p2p;

import java.lang.foreign.MemorySegment;

/**
 * The receiving side of one offloaded collective on one rank: what PUT and remote counter-add
 * packets addressed to its (context, tag) do. Registered with
 * {@link Engine#register(int, int, OffloadEndpoint)}; the engine calls it from its arrival path, on
 * whichever thread drives progress (the owner or the progress agent), never from two threads at
 * once. The data segment is valid only during the call.
 */
public interface OffloadEndpoint {
    /**
     * A PUT: {@code length} bytes at {@code dataOffset} of {@code data} for buffer {@code buffer} at
     * {@code offset}, then counter {@code counter} gains {@code add}; {@code epoch} is the sender's
     * run of the collective.
     *
     * @return false if the packet names a buffer, region or counter that does not exist (it is then
     *     counted as dropped)
     */
    boolean onPut(int source, int buffer, long offset, MemorySegment data, long dataOffset, int length, int counter,
                  long add, long epoch);

    /** A remote counter add; false if the counter does not exist. */
    boolean onAdd(int source, int counter, long value, long epoch);
}
