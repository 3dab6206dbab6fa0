package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Liveness without the application: a rank that computes (does not call the transport) for longer
 * than the failure timeout stays alive to its peers, and a rank that was itself away does not
 * condemn its peers on the time it did not listen.
 */
@Timeout(60)
class KeepAliveTest {
    private static final int TIMEOUT_MS = 300;

    private static Map<String, String> settings(String wire) {
        Map<String, String> m = new HashMap<>();
        m.put("TUTTI_NET", wire);
        m.put("TUTTI_NET_TIMEOUT_MS", Integer.toString(TIMEOUT_MS));
        return m;
    }

    private static byte[] record(int round, int from) {
        byte[] b = new byte[200 + round];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 13 + round * 7 + from);
        }
        return b;
    }

    /** Both ranks send one record to the other and poll until both arrived; checks their bytes. */
    private static void exchange(Fixture f, int round) {
        Fixture.Collector[] got = {new Fixture.Collector(), new Fixture.Collector()};
        for (int r = 0; r < 2; r++) {
            byte[] b = record(round, r);
            assertTrue(f.t[r].canSend(1 - r), "rank " + r + " cannot send in round " + round + ": "
                    + f.t[r].failure(1 - r));
            f.t[r].send(1 - r, MemorySegment.ofArray(b), 0, b.length);
        }
        long end = System.nanoTime() + 5_000_000_000L;
        while ((got[0].got.isEmpty() || got[1].got.isEmpty()) && System.nanoTime() < end) {
            f.pollAll(got);
        }
        for (int r = 0; r < 2; r++) {
            assertNull(f.t[r].failure(1 - r), "rank " + r + " judged rank " + (1 - r) + " failed");
            assertEquals(1, got[r].got.size(), "round " + round + ": rank " + r + " got " + got[r].got.size());
            assertArrayEquals(record(round, 1 - r), got[r].got.get(0), "round " + round + " at rank " + r);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aRankThatComputesForThreeTimeoutsIsNotDeclaredFailed(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire))) {
            assertTrue(f.t[0].keepAliveThread().isDaemon());
            assertEquals("tutti-net-keepalive-1", f.t[1].keepAliveThread().getName());
            f.awaitHandshake(5000);
            exchange(f, 1);
            // rank 1 computes: nobody calls it for 3 timeouts; rank 0 keeps polling and sends it a
            // record, which rank 1's agent acknowledges and keeps for rank 1's next poll
            byte[] early = record(9, 0);
            f.t[0].send(1, MemorySegment.ofArray(early), 0, early.length);
            long end = System.nanoTime() + 3L * TIMEOUT_MS * 1_000_000L;
            while (System.nanoTime() < end) {
                f.t[0].poll((s, m, o, l) -> true);
                assertNull(f.t[0].failure(1), "rank 1 was judged failed while it computed");
                Thread.sleep(1);
            }
            assertTrue(f.t[0].quiescent(), "the record sent to the computing rank was not acknowledged");
            Fixture.Collector late = new Fixture.Collector();
            f.t[1].poll(late);
            assertEquals(1, late.got.size(), "rank 1's first poll after computing does not deliver what came");
            assertArrayEquals(early, late.got.get(0));
            exchange(f, 2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void bothRanksComputingForThreeTimeoutsStayAlive(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire))) {
            f.awaitHandshake(5000);
            exchange(f, 1);
            Thread.sleep(3L * TIMEOUT_MS);
            // each comes back and judges before it sends: its peer's agent kept it informed
            for (int r = 0; r < 2; r++) {
                f.t[r].poll((s, m, o, l) -> true);
                assertNull(f.t[r].failure(1 - r), "rank " + r + " judged its computing peer failed");
            }
            exchange(f, 2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aRankAwayLongerThanTheTimeoutDoesNotJudgeItsPeerOnTheTimeItDidNotListen(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire))) {
            f.awaitHandshake(5000);
            exchange(f, 1);
            // both processes stop (no agent, no poll) for 3 timeouts: every 'last heard' is stale
            f.t[0].stopKeepAlive();
            f.t[1].stopKeepAlive();
            Thread.sleep(3L * TIMEOUT_MS);
            // each resumes and hears nothing: what was queued for it is lost, as from a full socket
            // buffer (acknowledgements only: nothing is outstanding); the silence it did not listen
            // to does not count
            for (int r = 0; r < 2; r++) {
                f.t[r].injectFaults(0, 0, 0, 1.0, 0);
                f.t[r].poll((s, m, o, l) -> true);
                assertNull(f.t[r].failure(1 - r), "rank " + r + " judged its peer on the time it was away itself");
                f.t[r].injectFaults(0, 0, 0, 0, 0);
            }
            exchange(f, 2);
            // the rule does not hide a peer that stays silent once this rank listens again
            long start = System.nanoTime();
            String why = f.awaitFailure(0, 1, 5000);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(why, "a peer silent after we resumed was not reported");
            assertTrue(why.contains("rank 1") && why.contains("not been heard"), why);
            assertTrue(tookMs >= TIMEOUT_MS - 50 && tookMs < 5 * TIMEOUT_MS, "reported after " + tookMs + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void pollsThatTakeOnlyHeartbeatsReportNoWork(String wire) throws Exception {
        try (Fixture f = new Fixture(2, settings(wire))) {
            f.awaitHandshake(5000);
            exchange(f, 1);
            long settle = System.nanoTime() + 10_000_000_000L;
            while (!(f.t[0].quiescent() && f.t[1].quiescent()) && System.nanoTime() < settle) {
                f.pollAll();
            }
            Thread.sleep(50);
            f.pollAll();
            // three silence timeouts: both stay alive only through the heartbeats they take, and a
            // wait must not take those for progress, or it would never back off
            int work = 0;
            long end = System.nanoTime() + 3L * TIMEOUT_MS * 1_000_000L;
            while (System.nanoTime() < end) {
                work += f.pollAll();
                Thread.sleep(1);
            }
            assertNull(f.t[0].failure(1), "rank 0 judged rank 1 failed");
            assertNull(f.t[1].failure(0), "rank 1 judged rank 0 failed");
            assertEquals(0, work, "heartbeats were reported as work");
            exchange(f, 2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void closeStopsTheAgent(String wire) throws Exception {
        Fixture f = new Fixture(2, settings(wire));
        Thread agent = f.t[0].keepAliveThread();
        assertTrue(agent.isAlive());
        f.close();
        agent.join(5000);
        assertFalse(agent.isAlive(), "the keep-alive agent outlived close");
    }
}
