package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A record sent as a header and a payload apart arrives as the two joined: whole in one frame, and
 * cut into frames that split the header, the payload and the seam between them.
 */
@Timeout(60)
class TwoPartSendTest {

    @ParameterizedTest(name = "{0}, mtu {1}")
    @CsvSource({"udp, 0", "udp, 156", "udp, 1500", "tcp, 0"})
    void theHeaderAndThePayloadArriveJoined(String wire, int mtu) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("TUTTI_NET", wire);
        if (mtu > 0) {
            settings.put("TUTTI_NET_MTU", Integer.toString(mtu));
        }
        try (Fixture f = new Fixture(2, settings); Arena arena = Arena.ofConfined()) {
            f.awaitHandshake(5000);
            int[][] shapes = {{72, 0}, {72, 1}, {0, 300}, {72, 9000}, {100, 1000}, {5, 3}};
            for (int[] shape : shapes) {
                int headLength = shape[0];
                int tailLength = shape[1];
                MemorySegment head = arena.allocate(headLength + 16);
                MemorySegment tail = arena.allocate(tailLength + 16);
                byte[] expect = new byte[headLength + tailLength];
                for (int i = 0; i < headLength; i++) {
                    head.set(ValueLayout.JAVA_BYTE, 3 + i, (byte) (i * 7 + 1));
                    expect[i] = (byte) (i * 7 + 1);
                }
                for (int i = 0; i < tailLength; i++) {
                    tail.set(ValueLayout.JAVA_BYTE, 11 + i, (byte) (i * 13 + 5));
                    expect[headLength + i] = (byte) (i * 13 + 5);
                }
                Fixture.Collector got = new Fixture.Collector();
                f.t[0].send(1, head, 3, headLength, tail, 11, tailLength);
                f.awaitRecord(1, got);
                assertEquals(1, got.got.size(), "one record for " + headLength + " + " + tailLength + " bytes");
                assertArrayEquals(expect, got.got.get(0), headLength + " + " + tailLength + " bytes");
            }
        }
    }
}
