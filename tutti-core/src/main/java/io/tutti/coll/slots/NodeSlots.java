package io.tutti.coll.slots;

import io.tutti.TuttiException;
import io.tutti.p2p.Engine;
import io.tutti.os.Memory;
import java.lang.foreign.MemorySegment;

/**
 * A communicator's shared-memory slots: the mechanism behind {@link io.tutti.coll.schedule.Schedule#SLOTS} and
 * {@link io.tutti.coll.schedule.Schedule#SLOTS_REDUCE} steps, for communicators whose ranks all reach each other through
 * shared memory. Each rank owns a
 * {@link SlotArea}, created at its first exchange and mapped by the others as they need it; the
 * protocol (generations, stamps, departures) is described in {@link SlotAreaDescriptor}.
 *
 * <p>A call reserves its generations when it starts ({@link #reserve}), from
 * {@link #CALL_GENERATIONS} per call sequence number on, so a generation names the same exchange on
 * every rank, even after a call that one rank never started (its arguments failed) or abandoned (a
 * mismatch): the unused generations are holes, skipped in order ({@link #abandon}). A rank publishes its
 * generations in order: a step whose turn has not come, or whose slot still holds a contribution
 * some rank has not read, waits in its poll. Waits therefore never block a thread, and an exchange
 * can always complete once every rank has started the calls before it.
 *
 * <p>Used by the communicator's owning thread, or by the progress agent under the engine's lock.
 */
public final class NodeSlots {
    private static final int SLOTS = SlotAreaDescriptor.SLOTS;

    private final Engine engine;
    private final int context;
    private final int[] group;
    private final int rank;
    private final SlotArea[] areas;
    /** Per rank and slot: the departure last read from its area (departures only grow). */
    private final long[] seenDeparted;
    private SlotArea own;
    private boolean mappedAll;
    /** The next generation to hand out. */
    private long reserved;
    /** The next generation this rank publishes. */
    private long published;
    /** Holes in the generations this rank publishes, in order: at {@code holeFrom[i]} it goes on at {@code holeTo[i]}. */
    private long[] holeFrom = new long[8];
    private long[] holeTo = new long[8];
    private int holes;
    /** Whether ranks note their processor when they publish: only worth it when ranks outnumber cores. */
    private final boolean trackCpus;

    /**
     * @param context the communicator's collective context (names the area files)
     * @param group   communicator rank to world rank; every one shares memory with this rank
     *                (the caller checks: {@link io.tutti.coll.schedule.Topology#sharedMemory()})
     */
    public NodeSlots(Engine engine, int context, int[] group, int rank) {
        this.engine = engine;
        this.context = context;
        this.group = group;
        this.rank = rank;
        this.areas = new SlotArea[group.length];
        this.seenDeparted = new long[group.length * SLOTS];
        this.trackCpus = engine.localSize() > Runtime.getRuntime().availableProcessors();
    }

    /**
     * Generations a call takes at least: a call of sequence number q starts at q times this, or
     * after the previous call's last (one with more exchanges than this). Two, so that consecutive
     * calls still use different slots, four calls deep.
     */
    public static final int CALL_GENERATIONS = 2;

    /** Hands out {@code count} consecutive generations to the starting call {@code sequence}; returns the first. */
    public long reserve(int sequence, int count) {
        long base = Math.max(reserved, Integer.toUnsignedLong(sequence) * CALL_GENERATIONS);
        if (base > reserved) {
            hole(reserved, base);
        }
        reserved = base + count;
        return base;
    }

    /**
     * The call {@code sequence}, which took {@code count} generations from {@code from} (0 when it
     * failed before it started), has failed on this rank: what it has not published is never
     * published, and its slots count as read, so that the other ranks' next use of them does not
     * wait for this rank.
     */
    public void abandon(int sequence, long from, int count) {
        long end = from + count;
        if (count > 0 && published < end) {
            hole(Math.max(from, published), end);
        }
        long first = Integer.toUnsignedLong(sequence) * CALL_GENERATIONS;
        SlotArea me = own();
        for (long g = first; g < Math.max(end, first + CALL_GENERATIONS); g++) {
            int slot = (int) (g % SLOTS);
            if (me.departed(slot) < g + 1) {
                me.depart(slot, g + 1);
            }
        }
    }

    /** Generations {@code [from, to)} are never published by this rank: kept in order. */
    private void hole(long from, long to) {
        if (holes == holeFrom.length) {
            holeFrom = java.util.Arrays.copyOf(holeFrom, 2 * holes);
            holeTo = java.util.Arrays.copyOf(holeTo, 2 * holes);
        }
        int i = holes++;
        while (i > 0 && holeFrom[i - 1] > from) {
            holeFrom[i] = holeFrom[i - 1];
            holeTo[i] = holeTo[i - 1];
            i--;
        }
        holeFrom[i] = from;
        holeTo[i] = to;
    }

    /** The next generation to publish, past the holes it has reached. */
    private long nextToPublish() {
        while (holes > 0 && published >= holeFrom[0]) {
            published = Math.max(published, holeTo[0]);
            holes--;
            System.arraycopy(holeFrom, 1, holeFrom, 0, holes);
            System.arraycopy(holeTo, 1, holeTo, 0, holes);
        }
        return published;
    }

    /** A reusable exchange for one SLOTS or SLOTS_REDUCE step. */
    public Exchange exchange() {
        return new Exchange();
    }

    private SlotArea own() {
        if (own == null) {
            own = new SlotArea(engine.createShared(SlotAreaDescriptor.fileName(context, group[rank]),
                    SlotAreaDescriptor.fileLength(), SlotArea::format));
            areas[rank] = own;
        }
        return own;
    }

    /** Rank {@code r}'s area, mapped on first use; null while it has not created it. */
    private SlotArea area(int r) {
        SlotArea a = areas[r];
        if (a == null) {
            MemorySegment s = engine.mapShared(SlotAreaDescriptor.fileName(context, group[r]));
            if (s != null) {
                a = new SlotArea(s);
                areas[r] = a;
            }
        }
        return a;
    }

    /**
     * Whether this rank has mapped every rank's area. A rank publishes nothing before, so no rank can
     * finish an exchange (and, closing, remove its file) while another has yet to map that file.
     */
    private boolean mappedAll() {
        if (!mappedAll) {
            for (int r = 0; r < areas.length; r++) {
                if (area(r) == null) {
                    return false;
                }
            }
            mappedAll = true;
        }
        return true;
    }

    /** Whether every rank has read what this rank's slot {@code slot} holds (stamp {@code stamp}). */
    private boolean free(int slot, long stamp) {
        if (stamp == 0) {
            return true;
        }
        for (int r = 0; r < areas.length; r++) {
            int at = r * SLOTS + slot;
            if (seenDeparted[at] >= stamp) {
                continue;
            }
            // one line holds every slot's departure: take them all, so the next slots need no load
            SlotArea a = area(r);
            if (a == null) {
                return false;
            }
            for (int k = 0; k < SLOTS; k++) {
                seenDeparted[r * SLOTS + k] = a.departed(k);
            }
            if (seenDeparted[at] < stamp) {
                return false;
            }
        }
        return true;
    }

    /**
     * Folds one contribution into an accumulator: {@code dst = src ∘ dst} over {@code bytes} bytes, the
     * contribution the left operand (the executor applies the call's operation).
     */
    public interface Fold {
        void fold(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes);
    }

    /**
     * One SLOTS or SLOTS_REDUCE step's exchange: publish this rank's contribution, then collect
     * everyone's, either side by side (a gather) or folded into one (a reduction). Allocates nothing
     * once the areas are mapped.
     */
    public final class Exchange {
        private static final int IDLE = 0;
        private static final int PUBLISH = 1;
        private static final int COLLECT = 2;

        private int state = IDLE;
        private long generation;
        private int slot;
        private MemorySegment src;
        private long srcOffset;
        private MemorySegment dst;
        private long dstOffset;
        private long length;
        /** Null for a gather; else what folds each contribution into dst. */
        private Fold fold;
        /**
         * Contributions collected so far. A gather takes them in rank order, a reduction from the
         * last rank down: rank P − 1's is copied, then each lower rank's is the left operand, so the
         * result is t0 ∘ (t1 ∘ (… ∘ t(P−1))) on every rank, as MPI orders non-commutative operations.
         */
        private int next;
        /** The processor this rank published from, or -1. */
        private int cpu = -1;

        /**
         * Starts exchange {@code generation}: contribution at src; with a {@code fold}, everyone's
         * reduced into dst ({@code length} bytes, which may be the contribution itself), else
         * everyone's side by side in dst ({@code length} bytes each, in rank order).
         */
        public void start(long generation, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length,
                   Fold fold) {
            this.generation = generation;
            this.slot = (int) (generation % SLOTS);
            this.src = src;
            this.srcOffset = srcOffset;
            this.dst = dst;
            this.dstOffset = dstOffset;
            this.length = length;
            this.fold = fold;
            this.next = 0;
            this.state = PUBLISH;
        }

        /** The rank whose contribution comes {@code k}-th. */
        private int rankAt(int k) {
            return fold == null ? k : areas.length - 1 - k;
        }

        /** Whether rank {@code r}'s contribution has been collected. */
        private boolean collected(int r) {
            return fold == null ? r < next : r > areas.length - 1 - next;
        }

        /** Advances the exchange; true once every rank's contribution is in {@code dst}. */
        public boolean poll() {
            if (state == PUBLISH && !publish()) {
                return false;
            }
            if (state != COLLECT) {
                return state == IDLE;
            }
            long stamp = generation + 1;
            int n = areas.length;
            while (next < n) {
                int r = rankAt(next);
                // this rank's own contribution too is read from its slot: dst may be the contribution
                SlotArea a = r == rank ? own : area(r);
                if (r != rank) {
                    if (a == null || a.stamp(slot) != stamp) {
                        return false;
                    }
                    if (a.length(slot) != length) {
                        throw new TuttiException.InvalidArgument("rank " + r + " contributes " + a.length(slot)
                                + " bytes to shared-memory exchange " + generation + " where rank " + rank + " contributes "
                                + length + ": every rank must make the same collective call with matching counts and"
                                + " datatype");
                    }
                }
                if (length > 0) {
                    if (fold == null) {
                        Memory.copy(a.via(), a.dataAt(slot), dst, dstOffset + r * length, length);
                    } else if (next == 0) {
                        Memory.copy(a.via(), a.dataAt(slot), dst, dstOffset, length);
                    } else {
                        fold.fold(dst, dstOffset, a.via(), a.dataAt(slot), length);
                    }
                }
                next++;
            }
            own.depart(slot, stamp);
            state = IDLE;
            src = null;
            dst = null;
            fold = null;
            return true;
        }

        /**
         * Read-only: whether every rank this exchange still waits for last published from another
         * processor than this rank's. Then the ranks it waits for are not queued behind it for this
         * core, and spinning beats giving the core away (to a rank that would only wait as well).
         */
        public boolean othersElsewhere() {
            if (state != COLLECT || cpu < 0 || generation == 0) {
                return false;
            }
            long stamp = generation + 1;
            // where each rank ran when it published the generation before: that slot's line was read
            // when it was collected, and stays unwritten for SLOTS − 1 more generations
            int before = (int) ((generation - 1) % SLOTS);
            for (int r = 0; r < areas.length; r++) {
                if (r == rank || collected(r)) {
                    continue;
                }
                SlotArea a = areas[r];
                if (a == null) {
                    return false;
                }
                if (a.stamp(slot) != stamp) {
                    if (a.stamp(before) != generation) {
                        return false; // not known
                    }
                    int there = a.cpu(before);
                    if (there == cpu || there < 0) {
                        return false;
                    }
                }
            }
            return true;
        }

        /**
         * Read-only: whether this exchange still needs communicator rank {@code r}: while it waits to
         * publish, every rank (their departures free the slot); then the ranks not collected yet.
         */
        public boolean needs(int r) {
            return switch (state) {
                case PUBLISH -> true;
                case COLLECT -> r != rank && !collected(r);
                default -> false;
            };
        }

        /** Read-only: whether {@link #poll()} would advance now (a waiting rank asks it before it sleeps). */
        public boolean ready() {
            if (state == PUBLISH) {
                return true; // rare (a slot not yet read by all); do not sleep on it
            }
            if (state != COLLECT) {
                return false;
            }
            int r = rankAt(next);
            SlotArea a = areas[r];
            return a == null || r == rank || a.stamp(slot) == generation + 1;
        }

        private boolean publish() {
            SlotArea me = own();
            if (nextToPublish() != generation || !mappedAll() || !free(slot, me.ownStamp(slot))) {
                return false;
            }
            if (length > 0) {
                Memory.copy(src, srcOffset, me.via(), me.dataAt(slot), length);
            }
            cpu = trackCpus ? io.tutti.os.CpuTopology.runningCpu() : -1;
            me.publish(slot, length, cpu, generation + 1);
            published++;
            for (int r = 0; r < group.length; r++) {
                if (r != rank) {
                    engine.wakeLocal(group[r]);
                }
            }
            state = COLLECT;
            return true;
        }
    }
}
