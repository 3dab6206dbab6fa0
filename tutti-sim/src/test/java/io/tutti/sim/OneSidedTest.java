package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-sided model's rules, checked on round LogGP figures where each round's time can be added up by hand. */
class OneSidedTest {
    private static final long L = 1000;
    private static final long OS = 100;
    private static final long OR = 50;
    private static final SimParams P = SimParams.defaults().with(Map.of("L", "1000", "o_s", "100", "o_r", "50",
            "g", "10", "G", "1", "O", "0", "reduce_per_byte", "2"));

    private static double round(OneSided.Pattern pat) {
        return OneSided.nanosPerRound(new LogGPNetwork(L), P, pat, 10);
    }

    @Test
    void aSmallPutAndItsFlushAreOneRecordAndOneAnswer() {
        // the batch record (24 bytes) out, taken in with (24 - 1) G, the answer back
        assertEquals(OS + L + OR + 23 + OS + L + OR, round(OneSided.Pattern.of(OneSided.Kind.PUT, 8, 1)));
    }

    @Test
    void aWindowOfSmallPutsTravelsAsOneBatch() {
        assertEquals(OS + L + OR + (64 * 24 - 1) + OS + L + OR, round(OneSided.Pattern.of(OneSided.Kind.PUT, 8, 64)));
    }

    @Test
    void withoutPackingEachPutIsARecordAndTheRoundTakesLonger() {
        double packed = round(OneSided.Pattern.of(OneSided.Kind.PUT, 8, 64));
        double unpacked = round(new OneSided.Pattern(OneSided.Kind.PUT, 8, 64, 0, 64 * 1024));
        // 64 sends of o_s each on the origin, then the last one's flight and answer, at least
        assertTrue(unpacked >= 64 * OS + L + OR + OS + L + OR, unpacked + " ns");
        assertTrue(unpacked > packed, unpacked + " against " + packed);
    }

    @Test
    void aFullBatchLeavesBeforeTheEntryThatDoesNotFit() {
        // 8192 / 24 = 341 entries fill a batch (8184 bytes); the 342nd starts the next, so 400 puts are two
        // records: the first leaves at 0 and keeps the NIC until 10 + 8183; the second (59 entries, 1416 bytes)
        // leaves then, arrives at 9293 and waits for the target's CPU (free at 1100 + 50 + 8183 = 9333), which
        // takes it in until 9333 + 50 + 1415 = 10798 and answers both: 10798 + 100 + 1000 + 50
        assertEquals(11948, round(OneSided.Pattern.of(OneSided.Kind.PUT, 8, 400)));
    }

    @Test
    void aLargePutIsARecordOfItsOwnAndPaysGPerByteOnArrival() {
        long s = 1 << 20;
        assertEquals(OS + L + OR + (s - 1) + OS + L + OR, round(OneSided.Pattern.of(OneSided.Kind.PUT, s, 1)));
    }

    @Test
    void anAccumulateAddsTheTargetsReduction() {
        assertEquals(2 * 24, round(OneSided.Pattern.of(OneSided.Kind.ACCUMULATE, 8, 1))
                - round(OneSided.Pattern.of(OneSided.Kind.PUT, 8, 1)));
    }

    @Test
    void aSmallGetIsABatchEntryAndItsReplyHoldsItsBytes() {
        // the batch (one 16-byte entry) out, taken in with (16 - 1) G, the reply of 8 bytes back
        assertEquals(OS + L + OR + 15 + OS + L + OR + 7, round(OneSided.Pattern.of(OneSided.Kind.GET, 8, 1)));
    }

    @Test
    void aWindowOfSmallGetsIsOneBatchAndOneReply() {
        // 64 entries of 16 bytes out, one reply of 64 x 8 bytes back, and no acknowledgement
        assertEquals(OS + L + OR + (64 * 16 - 1) + OS + L + OR + (64 * 8 - 1),
                round(OneSided.Pattern.of(OneSided.Kind.GET, 8, 64)));
    }

    @Test
    void aBatchLeavesBeforeAGetWhoseReplyWouldNotFit() {
        // two gets of 4 KiB fill a batch's 8192 bytes of replies, so the third starts a second batch: the
        // first (32 bytes) leaves at 0, the second (16 bytes) at the flush, 100. The target takes the first
        // in until 1100 + 50 + 31 = 1181 and answers 8192 bytes (its NIC busy until 1181 + 10 + 8191 =
        // 9382), takes the second in until 1346, answers 4096 bytes when its NIC is free: sent at 9482,
        // there at 10482. The origin takes the first reply in from 2281 until 2281 + 50 + 8191 = 10522,
        // the second until 10522 + 50 + 4095 = 14667.
        assertEquals(14667, round(OneSided.Pattern.of(OneSided.Kind.GET, 4096, 3)));
    }

    @Test
    void aLargeGetIsARequestAndAReplyOfItsBytes() {
        long s = 1 << 20;
        assertEquals(OS + L + OR + OS + L + OR + (s - 1), round(OneSided.Pattern.of(OneSided.Kind.GET, s, 1)));
    }

    @Test
    void withoutPackingEachGetIsARequestAndAReply() {
        assertEquals(OS + L + OR + OS + L + OR + 7, round(new OneSided.Pattern(OneSided.Kind.GET, 8, 1, 0, 64 * 1024)));
    }

    @Test
    void bandwidthIsTheWindowsBytesOverTheRound() {
        OneSided.Pattern pat = OneSided.Pattern.of(OneSided.Kind.PUT, 1 << 20, 64);
        double mbs = OneSided.mbPerSecond(new LogGPNetwork(L), P, pat, 4);
        // G = 1 ns/B is 1000 MB/s; the window's records queue behind one another at the target
        assertTrue(mbs > 900 && mbs < 1000, mbs + " MB/s");
    }

    @Test
    void aBadPatternIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> OneSided.Pattern.of(OneSided.Kind.PUT, 8, 0));
    }
}
