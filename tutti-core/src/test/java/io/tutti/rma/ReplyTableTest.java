package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The origin's table of replies per target: matched by number in any order, bounded, refusals kept. */
@Timeout(30)
class ReplyTableTest {

    private static MemorySegment longs(long... v) {
        return MemorySegment.ofArray(v);
    }

    /** Replies in another order than the requests, one in two parts: each lands where its request said. */
    @Test
    void repliesMatchTheirRequestsByNumberInAnyOrder() {
        ReplyTable t = new ReplyTable(4);
        long[] a = new long[1];
        long[] b = new long[2];
        long first = t.open(MemorySegment.ofArray(a), 0, 8);
        long second = t.open(MemorySegment.ofArray(b), 0, 16);
        assertEquals(1, first);
        assertEquals(2, second);
        assertFalse(t.allDone());
        assertTrue(t.reply(second, 8, longs(22), 0, 8));
        assertFalse(t.done(second), "half of its reply");
        assertTrue(t.reply(first, 0, longs(11), 0, 8));
        assertTrue(t.done(first));
        assertFalse(t.allDone());
        assertTrue(t.reply(second, 0, longs(21), 0, 8));
        assertTrue(t.allDone());
        assertEquals(11, a[0]);
        assertEquals(21, b[0]);
        assertEquals(22, b[1]);
        assertFalse(t.reply(first, 0, longs(99), 0, 8), "a second reply to a complete request");
        assertFalse(t.reply(7, 0, longs(99), 0, 8), "a reply to no request");
        assertNull(t.take(first));
        assertNull(t.take(second));
        assertEquals(11, a[0]);
    }

    /** A full table names the request that holds the next slot; once taken, the slot serves the next request. */
    @Test
    void aFullTableNamesTheOldestRequest() {
        ReplyTable t = new ReplyTable(2);
        long[] v = new long[3];
        MemorySegment m = MemorySegment.ofArray(v);
        assertEquals(0, t.blocking());
        long one = t.open(m, 0, 8);
        long two = t.open(m, 8, 8);
        assertEquals(one, t.blocking());
        t.reply(two, 0, longs(2), 0, 8);
        assertEquals(one, t.blocking(), "a younger reply does not free the oldest's slot");
        t.reply(one, 0, longs(1), 0, 8);
        t.take(one);
        assertEquals(0, t.blocking());
        long three = t.open(m, 16, 8);
        assertEquals(3, three);
        assertTrue(t.done(one), "a taken request is done");
        assertFalse(t.done(three));
        assertFalse(t.reply(one, 0, longs(9), 0, 8), "the slot is the third request's now");
        t.reply(three, 0, longs(3), 0, 8);
        assertEquals(3, v[2]);
        assertEquals(1, v[0]);
        assertThrows(IllegalArgumentException.class, () -> new ReplyTable(3));
    }

    /**
     * A refusal completes its request; a batch's refused get is only marked, and completes with its
     * batch's replies, which carry none of its bytes. Take gives the cause once.
     */
    @Test
    void refusalsCompleteTheirRequestsAndAreTakenOnce() {
        ReplyTable t = new ReplyTable(4);
        long[] v = {-1, -1};
        long alone = t.open(MemorySegment.ofArray(v), 0, 8);
        long packed = t.open(MemorySegment.ofArray(v), 8, 8);
        t.refuse(alone, "outside");
        assertTrue(t.done(alone));
        t.note(packed, "also outside");
        assertFalse(t.done(packed), "waits for its batch's replies");
        assertEquals(8, t.expecting(packed));
        assertTrue(t.finishRefused(packed));
        assertTrue(t.allDone());
        assertEquals("outside", t.take(alone));
        assertEquals("also outside", t.take(packed));
        assertNull(t.take(packed));
        assertEquals(-1, v[0], "a refused request's destination is left alone");
        assertEquals(-1, v[1]);
    }

    /** Memory only the owner may write (a confined arena's) gets its reply when the owner takes it. */
    @Test
    void aConfinedDestinationGetsItsReplyWhenTaken() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment into = arena.allocate(8, 8);
            ReplyTable t = new ReplyTable(1);
            long k = t.open(into, 0, 8);
            t.reply(k, 0, longs(77), 0, 8);
            assertTrue(t.done(k));
            assertEquals(0, into.get(ValueLayout.JAVA_LONG, 0), "stashed until taken");
            assertNull(t.take(k));
            assertEquals(77, into.get(ValueLayout.JAVA_LONG, 0));
        }
    }
}
