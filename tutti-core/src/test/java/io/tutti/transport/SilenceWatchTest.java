package io.tutti.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Silence counts only while the watcher was awake: its own late tick starts the count again. */
class SilenceWatchTest {
    private static final long S = 1_000_000_000L;

    @Test
    void silenceCountsWhileTheWatcherTicksOnTimeAndAgainFromATickThatCameLate() {
        SilenceWatch w = new SilenceWatch(S, 0);
        long heard = 0;
        for (long t = 1; t <= 5; t++) {
            assertEquals(t * S, silence(w, heard, t * S), "on-time ticks: silence since the last frame");
        }
        // the watcher's JVM was away 15 s: what the peer sent meanwhile may wait unread
        assertEquals(0, silence(w, heard, 20 * S));
        assertEquals(S, silence(w, heard, 21 * S));
        // a frame heard after the gap counts from itself
        assertEquals(S / 2, silence(w, 21 * S + S / 2, 22 * S));
        // a tick one and a half periods late is no gap
        assertEquals(2 * S, silence(w, 21 * S + S / 2, 23 * S + S / 2));
    }

    /** The watcher's visit at {@code now}, and the silence it then finds. */
    private static long silence(SilenceWatch w, long heardAt, long now) {
        w.tick(now);
        return w.silence(heardAt, now);
    }
}
