package io.tutti.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class Bcl3BandwidthTest {
    private static final double B = 1e9; // a node bandwidth of 1 GB/s
    private static final double EPS = 1e-6;

    @Test
    void ceilLog2IsTheRoundsOfABinaryTree() {
        assertEquals(0, Bcl3Bandwidth.ceilLog2(1));
        assertEquals(1, Bcl3Bandwidth.ceilLog2(2));
        assertEquals(2, Bcl3Bandwidth.ceilLog2(3));
        assertEquals(2, Bcl3Bandwidth.ceilLog2(4));
        assertEquals(3, Bcl3Bandwidth.ceilLog2(5));
        assertEquals(6, Bcl3Bandwidth.ceilLog2(64));
        assertEquals(7, Bcl3Bandwidth.ceilLog2(65));
        assertThrows(IllegalArgumentException.class, () -> Bcl3Bandwidth.ceilLog2(0));
    }

    @Test
    void bandwidthIsMsgLenTimesNTimesMessagesOverTTotal() {
        // eq. 5.6: 1 MB to 3 other processes in 1 ms = 3 GB/s; T_Total/N = 1 ms whatever N is
        assertEquals(3e9, Bcl3Bandwidth.bandwidth("bcast", 1_000_000, 4, 1e-3), EPS);
        assertEquals(3e9, Bcl3Bandwidth.bandwidth("reduce", 1_000_000, 4, 1e-3), EPS);    // eq. 5.8
        assertEquals(3e9, Bcl3Bandwidth.bandwidth("scatter", 1_000_000, 4, 1e-3), EPS);   // eq. 5.10
        assertEquals(3e9, Bcl3Bandwidth.bandwidth("gather", 1_000_000, 4, 1e-3), EPS);    // eq. 5.11
        assertEquals(4e9, Bcl3Bandwidth.bandwidth("shift", 1_000_000, 4, 1e-3), EPS);     // eq. 5.12: P
        assertEquals(12e9, Bcl3Bandwidth.bandwidth("alltoall", 1_000_000, 4, 1e-3), EPS); // eq. 5.14: (P-1)P
        assertEquals(3e9, Bcl3Bandwidth.bandwidth("allreduce", 1_000_000, 4, 1e-3), EPS);
        assertEquals(12e9, Bcl3Bandwidth.bandwidth("allgather", 1_000_000, 4, 1e-3), EPS);
        assertEquals(12e9, Bcl3Bandwidth.bandwidth("reducescatter", 1_000_000, 4, 1e-3), EPS);
        assertThrows(IllegalArgumentException.class, () -> Bcl3Bandwidth.bandwidth("barrier", 8, 4, 1e-3));
    }

    @Test
    void boundsFollowBcl3() {
        // eq. 5.7 / 5.9: (P-1) B / ceil(log2 P)
        assertEquals(B, Bcl3Bandwidth.bound("bcast", 2, B), EPS);
        assertEquals(1.5 * B, Bcl3Bandwidth.bound("bcast", 4, B), EPS);
        assertEquals(63 * B / 6, Bcl3Bandwidth.bound("bcast", 64, B), EPS);
        assertEquals(4 * B / 3, Bcl3Bandwidth.bound("reduce", 5, B), EPS); // ceil(log2 5) = 3
        // scatter and gather: the root's link
        assertEquals(B, Bcl3Bandwidth.bound("scatter", 16, B), EPS);
        assertEquals(B, Bcl3Bandwidth.bound("gather", 16, B), EPS);
        // eq. 5.13 and 5.15: P B / 2
        assertEquals(8 * B, Bcl3Bandwidth.bound("shift", 16, B), EPS);
        assertEquals(8 * B, Bcl3Bandwidth.bound("alltoall", 16, B), EPS);
        // by analogy: allreduce = reduce + bcast; allgather and reducescatter as alltoall
        assertEquals(0.75 * B, Bcl3Bandwidth.bound("allreduce", 4, B), EPS);
        assertEquals(2 * B, Bcl3Bandwidth.bound("allgather", 4, B), EPS);
        assertEquals(2 * B, Bcl3Bandwidth.bound("reducescatter", 4, B), EPS);
        assertTrue(Double.isNaN(Bcl3Bandwidth.bound("bcast", 1, B)));
    }

    @Test
    void aTreeAtItsBoundTakesCeilLog2MessageTimes() {
        // the derivation of eq. 5.7: T_Total/N = ceil(log2 P) * T_l with T_l = MsgLen / B_Node
        int p = 8;
        long msgLen = 65536;
        double tl = msgLen / B;
        double measured = Bcl3Bandwidth.bandwidth("bcast", msgLen, p, Bcl3Bandwidth.ceilLog2(p) * tl);
        assertEquals(Bcl3Bandwidth.bound("bcast", p, B), measured, 1e-3);
        // eq. 5.13: a shift at its bound takes two message times
        assertEquals(Bcl3Bandwidth.bound("shift", p, B), Bcl3Bandwidth.bandwidth("shift", msgLen, p, 2 * tl), 1e-3);
        // eq. 5.15: an all-to-all at its bound takes 2(P-1) message times
        assertEquals(Bcl3Bandwidth.bound("alltoall", p, B),
                Bcl3Bandwidth.bandwidth("alltoall", msgLen, p, 2 * (p - 1) * tl), 1e-3);
    }

    @Test
    void everyOperationIsDescribedWithItsReference() {
        for (String op : CollectiveOp.NAMES) {
            String d = Bcl3Bandwidth.describe(op);
            if (Bcl3Bandwidth.inBcl3(op)) {
                assertTrue(d.contains("eq. 5.") || d.contains("eq. 5.5"), d);
            } else {
                assertTrue(d.startsWith("not in [BCL-3]"), d);
            }
        }
        assertTrue(Bcl3Bandwidth.describe("bcast").contains("table 5.11"));
        assertTrue(Bcl3Bandwidth.describe("alltoall").contains("eq. 5.15"));
        assertFalse(Bcl3Bandwidth.hasBandwidth("barrier"));
    }
}
