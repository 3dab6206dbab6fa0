package io.tutti.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The failure detector and start-up: a peer that published its rails but has not connected yet (a
 * JVM still starting) is not taken for dead on the short silence timeout, a peer silent after it
 * was heard still is, and one that never answers is reported after the start-up bound.
 */
@Timeout(120)
class StartupGraceTest {
    private static final int TIMEOUT_MS = 300;

    private static Map<String, String> settings(String wire, int startTimeoutMs) {
        return Fixture.timeouts(wire, TIMEOUT_MS, startTimeoutMs);
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aPeerStillStartingIsNotDeclaredFailedAndOnceHeardItsSilenceCountsAgain(String wire) throws Exception {
        try (Fixture f = Fixture.starting(2, 1, settings(wire, 60_000))) {
            // rank 1 is still starting for four silence timeouts while rank 0 listens
            long end = System.nanoTime() + 4L * TIMEOUT_MS * 1_000_000L;
            while (System.nanoTime() < end) {
                f.t[0].poll((s, m, o, l) -> true);
                assertNull(f.t[0].failure(1), "rank 1 was judged failed while it was still starting");
                Thread.sleep(1);
            }
            f.connect(1);
            f.awaitHandshake(20_000);
            byte[] b = {4, 5, 6};
            f.t[0].send(1, MemorySegment.ofArray(b), 0, b.length);
            Fixture.Collector got = new Fixture.Collector();
            long until = System.nanoTime() + 20_000_000_000L;
            while (got.got.isEmpty() && System.nanoTime() < until) {
                f.pollAll(null, got);
            }
            assertEquals(1, got.got.size(), "the late rank did not receive");
            assertArrayEquals(b, got.got.get(0));
            // heard once, rank 1 stops for good: the short timeout applies again
            f.t[1].stopKeepAlive();
            long start = System.nanoTime();
            String why = f.awaitFailure(0, 1, 20_000);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(why, "a peer silent after it was heard was not reported");
            assertTrue(why.contains("rank 1") && why.contains("not been heard"), why);
            // the short timeout, not the start-up one (60 s); it counts from the last keep-alive heard,
            // which came before this test stopped them, so no lower bound holds on a loaded machine
            assertTrue(tookMs < 5 * TIMEOUT_MS + 2_000, "reported after " + tookMs + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aPeerThatNeverAnswersIsDeclaredFailedAfterTheStartTimeout(String wire) throws Exception {
        int startMs = 1_000;
        // before the transports exist, so that the bound, which counts from their start, is not undercut
        long start = System.nanoTime();
        try (Fixture f = Fixture.starting(2, 1, settings(wire, startMs))) {
            String why = f.awaitFailure(0, 1, 30_000);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(why, "a peer that never answered was not reported");
            assertTrue(why.contains("rank 1") && why.contains("never finished starting")
                    && why.contains("TUTTI_NET_START_TIMEOUT_MS=" + startMs), why);
            assertTrue(tookMs >= startMs - 50, "reported after " + tookMs + " ms, before the start-up bound");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void underALauncherAPeerNeverHeardIsJudgedOnlyOnceEveryRankHasStartedAndAfterTheStartBound(String wire)
            throws Exception {
        int startMs = 300;
        try (Fixture f = Fixture.launched(2, settings(wire, startMs))) {
            // rank 1 dies before it answers anyone (its launcher would report it); rank 0 calls on it
            // and waits far past the start-up bound while the launcher has not said the job started
            f.t[1].abort();
            long end = System.nanoTime() + 4L * startMs * 1_000_000L;
            while (System.nanoTime() < end) {
                f.t[0].canSend(1);
                f.t[0].poll((s, m, o, l) -> true);
                assertNull(f.t[0].failure(1), "rank 1 was judged while the job was still starting");
                Thread.sleep(1);
            }
            f.store.jobStarted = true;
            long saidAt = System.nanoTime();
            String why = f.awaitFailure(0, 1, 60_000);
            long tookMs = (System.nanoTime() - saidAt) / 1_000_000;
            assertNotNull(why, "a peer that never answered was never judged after the job started");
            assertTrue(why.contains("has not answered"), why);
            assertTrue(tookMs >= startMs - 50, "judged " + tookMs + " ms after the job started, within the start bound");
        }
    }
}
