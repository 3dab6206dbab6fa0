package io.tutti.sim;

/**
 * The discrete-event loop: virtual time in nanoseconds, one {@link EventQueue}, no threads. Models
 * register a {@link Handler} and get a small id; an event is (time, handler id, 60-bit payload),
 * so that dispatch needs no object per event.
 */
public final class EventLoop {
    /** Something that reacts to its events. */
    @FunctionalInterface
    public interface Handler {
        /** Handles the event {@code payload} (60 bits) at virtual time {@code now}. */
        void handle(long now, long payload);

        /**
         * Reads, and nothing else, the memory that handling {@code payload} will read first. Called
         * for the next 16 events of a time before any of them is handled, so that their cache
         * misses overlap instead of coming one after the other (docs/perf/sim.md).
         */
        default void prefetch(long payload) {
        }
    }

    /** Told every {@link #PROGRESS_EVERY} events, for progress bars; must not schedule events. */
    @FunctionalInterface
    public interface Progress {
        void events(long processed, long now);
    }

    static final int HANDLER_SHIFT = 60;
    static final long PAYLOAD_MASK = (1L << HANDLER_SHIFT) - 1;
    static final int PROGRESS_EVERY = 1 << 20;
    /** Events prefetched at a time: 16 ran the 2^20-rank broadcast 1.8x faster than none, 8 1.65x (docs/perf/sim.md). */
    static final int LOOK_AHEAD = 16;
    /**
     * Prefetching pays where events touch ranks out of order in memory larger than the cache (the
     * 2^20-rank broadcast) and costs where they do not (the leaders' allreduce, 10 %), so the loop
     * times it: one epoch of {@code EPOCH} events with it and one without in every {@code TRIAL},
     * the faster kept for the rest (docs/perf/sim.md).
     */
    static final int EPOCH = 1 << 13;
    static final int TRIAL = 16;

    private final EventQueue queue;
    private final Handler[] handlers = new Handler[16];
    private int handlerCount;
    private long now;
    private long processed;
    private final long[] ahead = new long[LOOK_AHEAD];
    private boolean prefetching = true;
    private boolean faster = true;
    private long epochs;
    private long epochStart;
    private long withNs;

    /** An engine whose queue starts with room for {@code capacity} pending events. */
    public EventLoop(int capacity) {
        this.queue = new EventQueue(capacity);
    }

    /** Registers {@code h}; returns its id for {@link #schedule}. */
    public int register(Handler h) {
        if (handlerCount == handlers.length) {
            throw new IllegalStateException("at most " + handlers.length + " handlers");
        }
        handlers[handlerCount] = h;
        return handlerCount++;
    }

    /** Schedules {@code payload} for handler {@code handler} at time {@code t} (not before now). */
    public void schedule(int handler, long t, long payload) {
        if (t < now) {
            throw new IllegalStateException("event at " + t + " ns scheduled in the past (now " + now + " ns)");
        }
        queue.push(t, ((long) handler << HANDLER_SHIFT) | (payload & PAYLOAD_MASK));
    }

    /** Calls handler {@code handler} at once with {@code payload}, as if its event had just been popped. */
    public void dispatch(int handler, long t, long payload) {
        handlers[handler].handle(t, payload);
    }

    /** Virtual time of the event being handled (or of the last one). */
    public long now() {
        return now;
    }

    /** Events handled so far. */
    public long processed() {
        return processed;
    }

    /**
     * Lets the handlers of the next {@link #LOOK_AHEAD} events read their memory together; returns how
     * many (at least one: it is called with events pending).
     */
    private int lookAhead(EventQueue q, Handler[] hs) {
        long[] a = ahead;
        int k = q.peek(a, LOOK_AHEAD);
        for (int i = 0; i < k; i++) {
            hs[(int) (a[i] >>> HANDLER_SHIFT)].prefetch(a[i] & PAYLOAD_MASK);
        }
        return k;
    }

    /** At the end of an epoch: whether the next prefetches (its first in every {@link #TRIAL} does, its second not). */
    private boolean tune() {
        long t = System.nanoTime();
        long took = t - epochStart;
        epochStart = t;
        int next = (int) (++epochs % TRIAL);
        if (next == 2) {
            withNs = took;
        } else if (next == 3) {
            faster = withNs <= took;
        }
        return next == 1 || (next != 2 && faster);
    }

    /** Runs until no event is left; {@code progress} may be null. Returns the time of the last event. */
    public long run(Progress progress) {
        EventQueue q = queue;
        Handler[] hs = handlers;
        long n = processed;
        int left = 0;
        epochStart = System.nanoTime();
        while (!q.isEmpty()) {
            if (prefetching && --left <= 0) {
                left = lookAhead(q, hs);
            }
            q.pop();
            now = q.time();
            long d = q.payload();
            hs[(int) (d >>> HANDLER_SHIFT)].handle(now, d & PAYLOAD_MASK);
            if ((++n & (EPOCH - 1)) == 0) {
                prefetching = tune();
                if ((n & (PROGRESS_EVERY - 1)) == 0 && progress != null) {
                    processed = n;
                    progress.events(n, now);
                }
            }
        }
        processed = n;
        return now;
    }
}
