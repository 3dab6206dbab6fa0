package io.tutti.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Peers are contacted when first needed: a rank exchanges HELLOs, heartbeats and silence checks only
 * with the peers it sends to, that call on it, or that it waits on, so an idle pair of a large job
 * costs nothing; and a peer first called on late still gets the silence timeout before it is judged.
 */
@Timeout(120)
class LazyContactTest {
    private static Map<String, String> settings(String wire, int timeoutMs, int startTimeoutMs) {
        return Fixture.timeouts(wire, timeoutMs, startTimeoutMs);
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void onlyThePeersThatTalkExchangeAnything(String wire) throws Exception {
        try (Fixture f = new Fixture(3, settings(wire, 1500, 60_000))) {
            Fixture.Collector got = new Fixture.Collector();
            byte[] data = {4, 5, 6};
            long end = System.nanoTime() + 30_000_000_000L;
            while (!f.t[0].canSend(1) && System.nanoTime() < end) {
                f.pollAll();
            }
            f.t[0].send(1, MemorySegment.ofArray(data), 0, data.length);
            f.awaitRecord(1, got);
            assertArrayEquals(data, got.got.getFirst());
            // a few heartbeat intervals (100 ms) of everyone polling
            long quiet = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < quiet) {
                f.pollAll();
            }
            assertTrue(f.t[0].contacted(1) && f.t[1].contacted(0));
            assertFalse(f.t[0].contacted(2) || f.t[1].contacted(2) || f.t[2].contacted(0) || f.t[2].contacted(1),
                    "rank 2 talks to no one, yet a handshake with it began");
            assertEquals(0, f.t[2].acksSent(), "rank 2 sent heartbeats: " + f.t[2].statistics());
            assertTrue(f.t[2].statistics().contains("received=0"), f.t[2].statistics());
            // a wait on rank 2 calls on it, and the pair then talks
            assertNull(f.t[0].failure(2));
            end = System.nanoTime() + 30_000_000_000L;
            while (!(f.t[0].canSend(2) && f.t[2].contacted(0)) && System.nanoTime() < end) {
                f.pollAll();
            }
            assertTrue(f.t[0].canSend(2) && f.t[2].contacted(0), f.t[2].statistics());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aPeerFirstCalledOnAfterTheStartUpBoundGetsTheTimeoutFromThen(String wire) throws Exception {
        int timeoutMs = 1000;
        int startMs = 300;
        try (Fixture f = new Fixture(2, settings(wire, timeoutMs, startMs))) {
            // rank 1 dies before anyone called on it, and rank 0 first waits on it after the start-up bound
            f.t[1].abort();
            long pastStart = System.nanoTime() + 2L * startMs * 1_000_000L;
            while (System.nanoTime() < pastStart) {
                f.t[0].poll((s, m, o, l) -> true);
            }
            long calledAt = System.nanoTime();
            String why = f.awaitFailure(0, 1, 60_000);
            long tookMs = (System.nanoTime() - calledAt) / 1_000_000;
            assertNotNull(why, "a dead peer called on late was never reported");
            assertTrue(why.contains("rank 1") && why.contains("has not answered"), why);
            assertTrue(tookMs >= timeoutMs - 50, "reported " + tookMs + " ms after the first call, within the timeout");
        }
    }
}
