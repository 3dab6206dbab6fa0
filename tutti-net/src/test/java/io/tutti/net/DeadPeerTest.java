package io.tutti.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once a peer has failed, polls find no work for it: a rank waiting on that peer must reach the
 * idle part of its wait, where it checks liveness and raises the failure; retransmissions or NAKs
 * to the dead peer counted as work kept such a wait spinning for good (docs/guide/fault-tolerance.md).
 */
@Timeout(120)
class DeadPeerTest {
    @Test
    void aFailedPeerWithARecordStillUnacknowledgedMakesNoMoreWork() throws Exception {
        try (Fixture f = new Fixture(2, Fixture.timeouts("udp", 300, 300))) {
            f.awaitHandshake(30_000);
            Fixture.Collector got = new Fixture.Collector();
            byte[] data = {1, 2, 3};
            f.t[0].send(1, MemorySegment.ofArray(data), 0, data.length);
            f.awaitRecord(1, got);
            assertEquals(1, got.got.size(), "the pair did not talk: " + f.t[0].statistics());
            // rank 1 dies, and a record rank 0 sent it stays unacknowledged for good
            f.t[1].abort();
            f.t[0].send(1, MemorySegment.ofArray(data), 0, data.length);
            String why = f.awaitFailure(0, 1, 60_000);
            assertNotNull(why, "rank 1 was never found dead: " + f.t[0].statistics());
            int work = 0;
            int polls = 0;
            // two largest RTOs (200 ms) of polls: a retransmission timer still running would fire
            long end = System.nanoTime() + 600_000_000L;
            while (System.nanoTime() < end) {
                work += f.t[0].poll((s, m, o, l) -> true);
                polls++;
            }
            assertTrue(polls > 10, "polled " + polls + " times");
            assertEquals(0, work, "work for a dead peer (" + why + "): " + f.t[0].statistics());
        }
    }
}
