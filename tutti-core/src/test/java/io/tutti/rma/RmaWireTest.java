package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The target's check of every record it applies: words only for a refusal, none for a record it takes. */
class RmaWireTest {

    @Test
    void aRecordInsideTheWindowIsTakenWithoutAllocating() {
        Extent window = Extent.of(1 << 20);
        long acc = RmaWire.accumulate(64, Datatype.LONG, AccumulateOp.SUM);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        int rounds = 20_000;
        String last = "";
        for (int pass = 0; pass < 2; pass++) { // the first pass loads and links what the calls need
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < rounds; i++) {
                String a = RmaWire.refusal(RmaWire.PUT, 0, 4096L * (i % 200), 0, 4096, window, 1);
                String b = RmaWire.refusal(RmaWire.ACC, acc, 64L * (i % 1000), 0, 64, window, 1);
                last = a != null ? a : b != null ? b : last;
            }
            long perRecord = (threads.getThreadAllocatedBytes(tid) - before) / (2L * rounds);
            if (pass == 1) {
                assertEquals(0, perRecord, "bytes allocated per record checked");
            }
        }
        assertEquals("", last, "no record inside the window is refused");
    }

    @Test
    void aRefusalSaysWhatWhereAndWhy() {
        Extent window = Extent.of(4096);
        assertNull(RmaWire.refusal(RmaWire.PUT, 0, 4088, 0, 8, window, 3));
        String why = RmaWire.refusal(RmaWire.PUT, 0, 4090, 0, 8, window, 3);
        assertEquals("a put of 8 bytes at byte offset 4090, which lies outside rank 3's window of 4096 bytes", why);
        String acc = RmaWire.refusal(RmaWire.ACC, RmaWire.accumulate(12, Datatype.LONG, AccumulateOp.SUM), 0, 0, 12,
                window, 3);
        assertTrue(acc.startsWith("an accumulate of 12 bytes at byte offset 0, which are not whole elements of"), acc);
    }
}
