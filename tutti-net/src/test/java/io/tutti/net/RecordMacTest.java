package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The datagram MAC is HMAC-SHA256 as the JDK computes it, truncated; and the replay window. */
class RecordMacTest {

    @Test
    void macIsTruncatedHmacSha256OverHeaderAndPayload() throws Exception {
        SplittableRandom random = new SplittableRandom(3);
        for (int keyLength : new int[] {1, 14, 32, 64, 65, 100}) {
            byte[] key = new byte[keyLength];
            random.nextBytes(key);
            byte[] frame = new byte[HEADER + 300];
            random.nextBytes(frame);
            Mac jdk = Mac.getInstance("HmacSHA256");
            jdk.init(new SecretKeySpec(key, "HmacSHA256"));
            jdk.update(frame, 0, MAC_OFFSET);
            jdk.update(frame, HEADER, 300);
            byte[] want = Arrays.copyOf(jdk.doFinal(), MAC_LENGTH);
            ByteBuffer direct = ByteBuffer.allocateDirect(frame.length).put(frame).clear();
            // the payload in two parts, as a frame sent from the sender's memory has it
            ByteBuffer tail = ByteBuffer.allocateDirect(100).put(frame, frame.length - 100, 100).flip();
            RecordMac mac = new RecordMac();
            RecordMac.Key k = RecordMac.key(key);
            mac.seal(k, direct, frame.length, tail, true);
            byte[] got = new byte[MAC_LENGTH];
            direct.get(MAC_OFFSET, got);
            assertArrayEquals(want, got, "key of " + keyLength + " bytes");
            assertTrue(mac.verify(k, direct, frame.length, tail, true));
            assertEquals(0, tail.position());
            direct.put(HEADER + 5, (byte) (direct.get(HEADER + 5) ^ 1));
            assertFalse(mac.verify(k, direct, frame.length, tail, true), "payload covered");
            mac.seal(k, direct, frame.length, tail, false);
            assertTrue(mac.verify(k, direct, frame.length, tail, false), "header only: the payload is not covered");
            direct.put(COUNTER_OFFSET, (byte) (direct.get(COUNTER_OFFSET) ^ 1));
            assertFalse(mac.verify(k, direct, frame.length, tail, false), "header covered");
        }
    }

    @Test
    void replayWindowAcceptsEachCounterOnceWithinItsSpan() {
        ReplayWindow w = new ReplayWindow();
        assertFalse(w.accept(0), "counters start at 1");
        assertTrue(w.accept(1));
        assertFalse(w.accept(1));
        assertTrue(w.accept(10));
        // reordered: below the highest, not seen
        assertTrue(w.accept(5));
        assertFalse(w.accept(5));
        assertTrue(w.accept(2));
        assertTrue(w.accept(10 + ReplayWindow.SPAN - 1));
        assertTrue(w.accept(11), "just inside the span");
        assertFalse(w.accept(9), "fell out of the span");
        assertFalse(w.accept(10 + ReplayWindow.SPAN - 1));
        // a jump past the span forgets everything below it
        long far = 100L * ReplayWindow.SPAN;
        assertTrue(w.accept(far));
        assertTrue(w.accept(far - 1));
        assertFalse(w.accept(far - ReplayWindow.SPAN));
        // bits reused after the window moved on are clear
        for (long c = far + 1; c < far + 3L * ReplayWindow.SPAN; c += 7) {
            assertTrue(w.accept(c), "counter " + c);
        }
    }
}
