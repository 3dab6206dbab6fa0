package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventLoopTest {
    /**
     * The look-ahead only reads: over enough epochs that the loop runs both with and without it,
     * events are handled in (time, insertion) order, and what was prefetched is events still to
     * come, in the order they then came.
     */
    @Test
    void prefetchingChangesNothingButWhatIsRead() {
        EventLoop loop = new EventLoop(16);
        int width = 100;
        long total = 3L * EventLoop.TRIAL * EventLoop.EPOCH;
        List<Long> handled = new ArrayList<>();
        List<Long> prefetched = new ArrayList<>();
        int[] id = new int[1];
        id[0] = loop.register(new EventLoop.Handler() {
            @Override
            public void handle(long now, long payload) {
                handled.add(payload);
                // event i of a time schedules event i of the next time
                if (payload + width < total) {
                    loop.schedule(id[0], now + 1, payload + width);
                }
            }

            @Override
            public void prefetch(long payload) {
                assertTrue(payload >= handled.size(), "prefetched " + payload + " after it was handled");
                prefetched.add(payload);
            }
        });
        for (long p = 0; p < width; p++) {
            loop.schedule(id[0], 0, p);
        }
        loop.run(null);
        assertEquals(total, handled.size());
        assertEquals(total, loop.processed());
        for (int i = 0; i < handled.size(); i++) {
            assertEquals(i, handled.get(i).longValue(), "handled out of (time, insertion) order");
        }
        // prefetched events are a subsequence of the handled ones (each looked at once, before it came)
        long last = -1;
        for (long p : prefetched) {
            assertTrue(p > last, "prefetched " + p + " after " + last);
            last = p;
        }
        assertFalse(prefetched.isEmpty(), "nothing was prefetched");
        assertTrue(prefetched.size() < handled.size(), "prefetched throughout: the loop never ran without it");
    }
}
