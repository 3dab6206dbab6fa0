package io.tutti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.testing.Allocation;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Point-to-point on {@link ByteBuffer}s: the bytes between position and limit go, whichever buffers
 * a rank alternates between and however it moves their positions, and a ping-pong over a send and a
 * receive buffer allocates nothing once warm.
 */
@Timeout(180)
class ByteBufferCallsTest {
    private static void job(io.tutti.bootstrap.ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(2, Duration.ofSeconds(150), body);
    }

    @Test
    void theBytesBetweenPositionAndLimitGoWhateverBuffersAlternate() {
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int peer = 1 - rank;
                ByteBuffer a = ByteBuffer.allocateDirect(64);
                ByteBuffer b = ByteBuffer.allocateDirect(64);
                ByteBuffer c = ByteBuffer.allocate(64);
                ByteBuffer[] buffers = {a, b, c, a, a, b, c, c, b};
                for (int i = 0; i < buffers.length; i++) {
                    ByteBuffer buf = buffers[i];
                    int from = i % 5;
                    buf.clear().position(from).limit(from + 8 + i);
                    if (rank == 0) {
                        for (int k = from; k < buf.limit(); k++) {
                            buf.put(k, (byte) (i * 31 + k));
                        }
                        w.send(buf, peer, i);
                    } else {
                        Status s = w.recv(buf, peer, i);
                        assertEquals(8 + i, s.bytes(), "message " + i);
                        for (int k = from; k < buf.limit(); k++) {
                            assertEquals((byte) (i * 31 + k), buf.get(k), "message " + i + ", byte " + k);
                        }
                        assertEquals(from, buf.position(), "the position is left where it was");
                    }
                }
            }
        });
    }

    /** The least of five rounds of 300 exchanges: less than a byte per exchange (an object is 16 at least). */
    @Test
    void aPingPongOverTwoDirectBuffersAllocatesNothing() {
        Allocation.assumeCounted();
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int peer = 1 - rank;
                ByteBuffer out = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
                ByteBuffer in = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
                Status status = new Status();
                Runnable exchange = () -> {
                    if (rank == 0) {
                        w.send(out, peer, 1);
                        w.recv(in, peer, 2, status);
                    } else {
                        w.recv(in, peer, 1, status);
                        w.send(out, peer, 2);
                    }
                };
                int calls = 300;
                for (int i = 0; i < 600; i++) {
                    exchange.run();
                }
                long least = Allocation.least(5, calls, exchange);
                assertTrue(least < calls, "rank " + rank + ": " + least + " bytes allocated by " + calls
                        + " exchanges (the least of 5 rounds)");
            }
        });
    }
}
