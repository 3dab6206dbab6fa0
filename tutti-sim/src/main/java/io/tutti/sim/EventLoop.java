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
    }

    /** Told every {@link #PROGRESS_EVERY} events, for progress bars; must not schedule events. */
    @FunctionalInterface
    public interface Progress {
        void events(long processed, long now);
    }

    static final int HANDLER_SHIFT = 60;
    static final long PAYLOAD_MASK = (1L << HANDLER_SHIFT) - 1;
    static final int PROGRESS_EVERY = 1 << 20;

    private final EventQueue queue;
    private final Handler[] handlers = new Handler[16];
    private int handlerCount;
    private long now;
    private long processed;

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

    /** Runs until no event is left; {@code progress} may be null. Returns the time of the last event. */
    public long run(Progress progress) {
        EventQueue q = queue;
        Handler[] hs = handlers;
        long n = processed;
        while (!q.isEmpty()) {
            q.pop();
            now = q.time();
            long d = q.payload();
            hs[(int) (d >>> HANDLER_SHIFT)].handle(now, d & PAYLOAD_MASK);
            if ((++n & (PROGRESS_EVERY - 1)) == 0 && progress != null) {
                processed = n;
                progress.events(n, now);
            }
        }
        processed = n;
        return now;
    }
}
