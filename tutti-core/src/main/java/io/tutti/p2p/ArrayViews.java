package io.tutti.p2p;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;

/**
 * The segments over the user arrays a communicator's collectives last saw, so that a loop of
 * collective calls on the same arrays does not create two segments (and their sessions) per call.
 *
 * <p>Holds its arrays and segments weakly: it never keeps a user's array alive, and after a garbage
 * collection a view is simply made again. Safe to use from several threads: an entry is one
 * immutable object published with a plain array store, so a racing reader sees an old entry, a new
 * one or none, and at worst makes a view it could have shared.
 */
public final class ArrayViews {
    private static final int SLOTS = 4;

    private final Entry[] entries = new Entry[SLOTS];
    private int next;

    private static final class Entry {
        final WeakReference<Object> array;
        final WeakReference<MemorySegment> segment;

        Entry(Object array, MemorySegment segment) {
            this.array = new WeakReference<>(array);
            this.segment = new WeakReference<>(segment);
        }
    }

    /** A segment over the whole of {@code array}, which must be a primitive array. */
    public MemorySegment of(Object array) {
        for (Entry e : entries) {
            if (e != null && e.array.get() == array) {
                MemorySegment s = e.segment.get();
                if (s != null) {
                    return s;
                }
            }
        }
        MemorySegment s = Buffers.ofArray(array);
        int slot = next;
        next = (slot + 1) % SLOTS;
        entries[slot] = new Entry(array, s);
        return s;
    }
}
