package io.tutti.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When a gap in a peer's stream is taken for a loss (a NAK): at once when every rail has passed it,
 * after the reordering time otherwise, counted only while this rank reads its rails, so a pause of
 * the reader itself (descheduled on a busy machine) does not ask again for datagrams that wait
 * unread on its other rail. A gap its sender never fills (it died mid-repair) is asked for ever
 * less often once the sender has been silent longer than the largest RTO, not before: a live
 * sender whose window is full is heard only when its own timer resends.
 */
class GapCheckTest {
    private static final long MS = 1_000_000L;
    private static final long FLOOR = 100 * MS;   // the reordering time is half of it: 50 ms

    private static Reliability reliability() {
        StreamLimits limits = new StreamLimits(1472, 1400, 64 * 1024, 64, 1 << 20, 64, FLOOR, 10 * FLOOR, MS, 8);
        return new Reliability(null, null, new RailStats(List.of("a", "b")), false, limits);
    }

    /** Rank 1 over two working rails, datagram 0 missing and 1 received on rail 0 at {@code at}. */
    private static Peer gapAt(Reliability r, long at) {
        Peer p = new Peer(1, 64, 64 * 1024, 7);
        p.reach(new InetSocketAddress[] {new InetSocketAddress("127.0.0.1", 1), new InetSocketAddress("127.0.0.1", 2)});
        p.railCount = 2;
        for (int k = 0; k < 2; k++) {
            p.authOk[k] = true;
            p.confirmed[k] = true;
        }
        p.highest = 1;
        p.railHighest[0] = 1;
        r.gapCheck(p, at);
        return p;
    }

    @Test
    void aGapIsAskedForOnceItOutlastsTheReorderingTimeWhileTheRailsWereRead() {
        Reliability r = reliability();
        long t = 1_000 * MS;
        r.looked(t);
        Peer p = gapAt(r, t);
        assertFalse(p.nakWanted, "rail 1 has not passed the gap yet");
        for (long at = t; at <= t + 60 * MS; at += 5 * MS) {
            r.looked(at);
            r.gapCheck(p, at);
        }
        assertTrue(p.nakWanted, "read for 60 ms, rail 1 never filled it: a loss");
    }

    @Test
    void aPauseOfTheReaderDoesNotMakeAGapALoss() {
        Reliability r = reliability();
        long t = 1_000 * MS;
        r.looked(t);
        Peer p = gapAt(r, t);
        // the reader is away for 400 ms; its next read meets rail 0 first
        long back = t + 400 * MS;
        r.looked(back);
        r.gapCheck(p, back);
        assertFalse(p.nakWanted, "what fills the gap may wait unread on rail 1");
        for (long at = back; at <= back + 60 * MS; at += 5 * MS) {
            r.looked(at);
            r.gapCheck(p, at);
        }
        assertTrue(p.nakWanted, "read again for 60 ms after the pause: now a loss");
    }

    /**
     * The times of the NAKs for a gap that both rails have passed, over 3 s of polls every 0.1 ms,
     * each NAK sent as acknowledge() sends it; the sender never fills the gap, and a datagram of its
     * comes every {@code heardEvery} ns (0: never; its retransmission is lost, or waits in its queue).
     */
    private static List<Long> naksOver3s(long heardEvery) {
        Reliability r = reliability();
        long t = 1_000 * MS;
        r.looked(t);
        Peer p = gapAt(r, t);
        p.railHighest[1] = 1;   // both rails passed the gap: a loss at once
        List<Long> naks = new ArrayList<>();
        for (long at = t; at <= t + 3_000 * MS; at += MS / 10) {
            if (heardEvery > 0 && (at - t) % heardEvery == 0) {
                p.heard(0, at);
            }
            r.looked(at);
            r.gapCheck(p, at);
            if (p.nakWanted) {
                assertEquals(0, p.nakFrom);
                p.nakWanted = false;
                p.lastNakFrom = p.nakFrom;
                p.nakAt = at;
                naks.add(at);
            }
        }
        return naks;
    }

    private static long longestInterval(List<Long> naks) {
        long longest = 0;
        for (int i = 1; i < naks.size(); i++) {
            longest = Math.max(longest, naks.get(i) - naks.get(i - 1));
        }
        return longest;
    }

    @Test
    void aGapNeverFilledIsAskedForAgainEverLessOftenUpToTheLargestRto() {
        List<Long> naks = naksOver3s(0);
        long lastInterval = 0;
        for (int i = 1; i < naks.size(); i++) {
            long interval = naks.get(i) - naks.get(i - 1);
            assertTrue(interval >= lastInterval, "NAK " + i + " came " + interval + " ns after the one before, "
                    + "sooner than the " + lastInterval + " ns before that");
            lastInterval = interval;
        }
        // 25 ms doubling to the 1 s largest RTO of these limits: 25, 50, 100, 200, 400, 800, 1000 ms
        assertTrue(naks.size() >= 5 && naks.size() <= 9, naks.size() + " NAKs in 3 s");
        assertTrue(lastInterval >= 1_000 * MS && lastInterval <= 1_001 * MS, "the last interval: " + lastInterval);
    }

    @Test
    void aGapToASenderThatIsHeardIsAskedForAgainEveryRoundTrip() {
        List<Long> naks = naksOver3s(MS / 10);
        long longest = longestInterval(naks);
        // a round trip here is the RTO floor / 4 (25 ms): about 120 NAKs in 3 s, none later than that
        assertTrue(longest <= 26 * MS, "a NAK came " + longest + " ns after the one before: it backed off from a"
                + " sender that is heard");
        assertTrue(naks.size() >= 100, naks.size() + " NAKs in 3 s");
    }

    /**
     * A sender whose window is full sends nothing new; it is heard every half second here, when its
     * own timer resends (below the 1 s largest RTO): it is alive, so the gap is asked for every round
     * trip, not ever less often.
     */
    @Test
    void aGapToASenderHeardOnlyByItsTimerIsAskedForAgainEveryRoundTrip() {
        List<Long> naks = naksOver3s(500 * MS);
        long longest = longestInterval(naks);
        assertTrue(longest <= 26 * MS, "a NAK came " + longest + " ns after the one before: it backed off from a"
                + " sender that resends on its timer");
        assertTrue(naks.size() >= 100, naks.size() + " NAKs in 3 s");
    }
}
