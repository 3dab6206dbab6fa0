package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventQueueTest {
    /** Interleaved pushes and pops, many ties: the queue pops in (time, insertion) order like a sorted reference. */
    @Test
    void popsInTimeThenInsertionOrder() {
        Random rnd = new Random(42);
        EventQueue q = new EventQueue(4);
        record E(long t, long seq) {
        }
        List<E> ref = new ArrayList<>();
        long seq = 0;
        long now = 0;
        for (int round = 0; round < 20_000; round++) {
            int pushes = rnd.nextInt(4);
            for (int i = 0; i < pushes; i++) {
                // few distinct times, so that buckets fill and empty often
                long t = now + rnd.nextInt(8);
                q.push(t, seq);
                ref.add(new E(t, seq++));
            }
            if (!ref.isEmpty() && rnd.nextBoolean()) {
                ref.sort(Comparator.comparingLong(E::t).thenComparingLong(E::seq));
                E e = ref.removeFirst();
                q.pop();
                assertEquals(e.t(), q.time());
                assertEquals(e.seq(), q.payload());
                now = e.t();
            }
            assertEquals(ref.size(), q.size());
        }
        ref.sort(Comparator.comparingLong(E::t).thenComparingLong(E::seq));
        for (E e : ref) {
            q.pop();
            assertEquals(e.t(), q.time());
            assertEquals(e.seq(), q.payload());
        }
        assertTrue(q.isEmpty());
    }

    /**
     * Lock-step buckets of thousands of events (as under LogGP) span many chunks; two times filled
     * in turn, drained, and filled again from recycled chunks keep insertion order.
     */
    @Test
    void largeBucketsKeepTheirOrderAcrossChunks() {
        EventQueue q = new EventQueue(1);
        for (int pass = 0; pass < 3; pass++) {
            long base = pass * 100L;
            int n = 1000 * EventQueue.CHUNK + 3 + pass;
            for (int i = 0; i < n; i++) {
                q.push(base + 2, 2_000_000L + i);
                q.push(base + 1, 1_000_000L + i);
            }
            for (long t : new long[] {base + 1, base + 2}) {
                for (int i = 0; i < n; i++) {
                    q.pop();
                    assertEquals(t, q.time());
                    assertEquals((t - base) * 1_000_000L + i, q.payload());
                }
            }
            assertTrue(q.isEmpty());
        }
    }

    /** Widely spread distinct times exercise the heap and the time map's growth and deletion. */
    @Test
    void distinctTimes() {
        Random rnd = new Random(7);
        EventQueue q = new EventQueue(1);
        List<Long> ref = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            long t = rnd.nextLong(1L << 40);
            q.push(t, t ^ 0x5555);
            ref.add(t);
        }
        ref.sort(null);
        for (long t : ref) {
            q.pop();
            assertEquals(t, q.time());
            assertEquals(t ^ 0x5555, q.payload());
        }
    }

    /** Peeking shows the next events of the earliest time in pop order, across chunks, and removes none. */
    @Test
    void peekShowsTheNextEventsOfTheEarliestTime() {
        EventQueue q = new EventQueue(1);
        long[] out = new long[64];
        assertEquals(0, q.peek(out, out.length));
        int n = 3 * EventQueue.CHUNK + 2;
        for (int i = 0; i < n; i++) {
            q.push(20, 200 + i);
            q.push(10, 100 + i);
        }
        q.pop();
        q.pop();
        assertEquals(n - 2, q.peek(out, out.length));
        for (int i = 0; i < n - 2; i++) {
            assertEquals(102 + i, out[i]);
        }
        assertEquals(5, q.peek(out, 5));
        assertEquals(2 * n - 2, q.size());
        for (int i = 2; i < n; i++) {
            q.pop();
            assertEquals(100 + i, q.payload());
        }
        assertEquals(n, q.peek(out, out.length));
        assertEquals(200, out[0]);
        assertEquals(200 + n - 1, out[n - 1]);
    }
}
