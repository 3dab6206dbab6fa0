package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class PointToPointTest {

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(40), body);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8, 1000, 16384, 16388, 32768, 32772, 100_000, 1 << 20, 3_000_001})
    void arraysOfEverySizeArriveIntact(int bytes) {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int n = bytes / 4;
                int[] data = new int[n];
                if (rank == 0) {
                    for (int i = 0; i < n; i++) {
                        data[i] = i * 31 + 7;
                    }
                    w.send(data, 0, n, 1, 5);
                    int[] back = new int[n];
                    Status s = w.recv(back, 0, n, 1, 6);
                    assertEquals(1, s.source());
                    assertEquals(6, s.tag());
                    assertEquals(4L * n, s.bytes());
                    for (int i = 0; i < n; i++) {
                        assertEquals(i * 31 + 8, back[i], "element " + i);
                    }
                } else {
                    Status s = w.recv(data, 0, n, 0, 5);
                    assertEquals(0, s.source());
                    for (int i = 0; i < n; i++) {
                        data[i]++;
                    }
                    w.send(data, 0, n, 0, 6);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"native-native", "native-heap", "heap-native"})
    void largeMessagesTakeEverySingleCopyRoute(String route) {
        int bytes = 5_000_003;
        job(2, rank -> {
            try (Tutti t = Tutti.init(Config.defaults().with(P2pConfig.SINGLE_COPY, true)); Arena arena = Arena.ofConfined()) {
                Communicator w = t.world();
                assertEquals(io.tutti.os.SingleCopy.platformSupported(), io.tutti.runtime.Rank.of(t).engine().singleCopyEnabled());
                boolean nativeHere = rank == 0 ? route.startsWith("native") : route.endsWith("native");
                MemorySegment buf = nativeHere ? arena.allocate(bytes) : MemorySegment.ofArray(new byte[bytes]);
                if (rank == 0) {
                    for (int i = 0; i < bytes; i++) {
                        buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
                    }
                    w.send(buf, 1, 1);
                } else {
                    Status s = w.recv(buf, 0, 1);
                    assertEquals(bytes, s.bytes());
                    for (int i = 0; i < bytes; i++) {
                        if (buf.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 13)) {
                            fail("byte " + i + " differs");
                        }
                    }
                }
            }
        });
    }

    @Test
    void wildcardsAndOrderAreKept() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                if (rank != 0) {
                    for (int i = 0; i < 200; i++) {
                        long[] msg = {rank, i};
                        w.send(msg, 0, 2, 0, i % 3);
                    }
                } else {
                    int[] next = new int[4];
                    long[] msg = new long[2];
                    for (int k = 0; k < 600; k++) {
                        Status s = w.recv(msg, 0, 2, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                        assertEquals(s.source(), (int) msg[0]);
                        assertEquals(next[s.source()]++, (int) msg[1], "non-overtaking order from " + s.source());
                        assertEquals(msg[1] % 3, s.tag());
                    }
                }
            }
        });
    }

    @Test
    void truncationIsReportedAndBothSidesGoOn() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                for (int size : new int[] {100, 200_000}) {
                    if (rank == 0) {
                        w.send(new byte[size], 0, size, 1, 0);
                    } else {
                        TuttiException.Truncation e = assertThrows(TuttiException.Truncation.class,
                                () -> w.recv(new byte[10], 0, 10, 0, 0));
                        assertTrue(e.getMessage().contains(size + " bytes"), e.getMessage());
                    }
                }
                // still usable afterwards
                byte[] one = {42};
                if (rank == 0) {
                    w.send(one, 0, 1, 1, 9);
                } else {
                    w.recv(one, 0, 1, 0, 9);
                    assertEquals(42, one[0]);
                }
            }
        });
    }

    @Test
    void badArgumentsFailFast() {
        job(1, rank -> {
            Tutti t = Tutti.init(new String[0]);
            Communicator w = t.world();
            assertThrows(TuttiException.InvalidArgument.class, () -> w.send(new byte[1], 0, 1, 5, 0));
            assertThrows(TuttiException.InvalidArgument.class, () -> w.send(new byte[1], 0, 1, 0, -3));
            assertThrows(TuttiException.InvalidArgument.class, () -> w.send(new byte[1], 0, 2, 0, 0));
            assertThrows(TuttiException.InvalidArgument.class, () -> w.recv(new byte[1], 0, 1, -7, 0));
            t.close();
            assertThrows(TuttiException.NotActive.class, () -> w.send(new byte[1], 0, 1, 0, 0));
        });
    }

    @Test
    void nonblockingProbeSendrecvAndSplit() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int right = (rank + 1) % 4;
                int left = (rank + 3) % 4;
                double[] out = {rank, rank * 2.5};
                double[] in = new double[2];
                Status s = w.sendrecv(out, 0, 2, right, 1, in, 0, 2, left, 1);
                assertEquals(left, s.source());
                assertEquals(left, (int) in[0]);

                Communicator half = w.split(rank % 2, -rank);
                assertEquals(2, half.size());
                assertEquals(rank < 2 ? 1 : 0, half.rank(), "key -rank reverses the order");
                int peer = 1 - half.rank();
                byte[] b = new byte[3];
                Request r = half.irecv(b, 0, 3, peer, 77);
                half.isend(new byte[] {(byte) rank, 1, 2}, 0, 3, peer, 77).waitFor();
                r.waitFor();
                assertEquals(half.worldRank(peer), b[0]);

                // a message on world with the same tag is not seen by half
                if (rank == 0) {
                    w.send(new int[] {5}, 0, 1, 2, 77);
                }
                if (rank == 2) {
                    Status p = w.probe(0, 77);
                    assertEquals(4, p.bytes());
                    assertNull(half.iprobe(Communicator.ANY_SOURCE, 77));
                    int[] x = new int[1];
                    w.recv(x, 0, 1, 0, 77);
                    assertEquals(5, x[0]);
                }
                Communicator d = w.dup();
                assertNotEquals(w.context(), d.context());
                assertNotEquals(d.context(), half.context());
            }
        });
    }
}
