package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Synchronous sends ({@link Communicator#issend}, {@code ssend}, {@code ssendInit}), over shared
 * memory and over the network path: at every length, from 0 bytes to past the rendezvous
 * threshold, the send stays incomplete until the receiver has posted its receive, which it does
 * only after the sender has seen that (a "go" message in between), and then it completes with the
 * data delivered.
 */
@Timeout(180)
class SynchronousSendTest {
    private static final int[] LENGTHS = {0, 8, 1000, 200_000};
    private static final int GO = 99;

    /** Two ranks over shared memory, or over the network path (the in-process provider). */
    private static void job(boolean network, io.tutti.bootstrap.ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(2, Duration.ofSeconds(150), (rank, env) -> {
            if (network) {
                env.put("TUTTI_NET_PROVIDER", "inproc");
                env.put("TUTTI_TRANSPORT", "net");
            }
        }, body);
    }

    /** Rank 0's side: the request stays incomplete through 50 tests and sleeps, then "go", then it completes. */
    private static void holdsUntilReceived(Communicator w, Request r, String what) throws InterruptedException {
        for (int i = 0; i < 50; i++) {
            assertFalse(r.test(), what + ": complete before the receive was posted (test " + i + ")");
            Thread.sleep(2);
        }
        w.send(new byte[1], 0, 1, 1, GO);
        r.waitFor();
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    @ParameterizedTest(name = "network={0}")
    @ValueSource(booleans = {false, true})
    void aSynchronousSendCompletesOnlyOnceItsReceiveHasStarted(boolean network) {
        job(network, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                for (int n : LENGTHS) {
                    if (rank == 0) {
                        byte[] data = pattern(n, n);
                        holdsUntilReceived(w, w.issend(data, 0, n, 1, 1), "issend of " + n + " bytes");
                    } else {
                        w.recv(new byte[1], 0, 1, 0, GO, null);
                        byte[] got = new byte[n];
                        Status s = w.recv(got, 0, n, 0, 1);
                        assertEquals(n, s.bytes(), n + " bytes");
                        assertArrayEquals(pattern(n, n), got, n + " bytes delivered");
                    }
                }
                // a segment, and the blocking form (which the receiver lets return by receiving)
                // shared: the in-process network path reads the sender's segment on the receiver's thread
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment seg = arena.allocate(64);
                    if (rank == 0) {
                        seg.copyFrom(MemorySegment.ofArray(pattern(64, 3)));
                        holdsUntilReceived(w, w.issend(seg, 8, 48, 1, 2), "issend of a segment");
                        w.ssend(seg, 0, 64, 1, 3);
                    } else {
                        w.recv(new byte[1], 0, 1, 0, GO, null);
                        byte[] got = new byte[48];
                        w.recv(got, 0, 48, 0, 2, null);
                        assertArrayEquals(java.util.Arrays.copyOfRange(pattern(64, 3), 8, 56), got, "the segment's bytes");
                        byte[] all = new byte[64];
                        w.recv(all, 0, 64, 0, 3, null);
                        assertArrayEquals(pattern(64, 3), all, "ssend's bytes");
                    }
                }
            }
        });
    }

    /**
     * A small synchronous send that waits in the sender's backlog behind a full ring (2 MB of eager
     * messages into a 1 MiB ring) still goes by rendezvous when the backlog drains.
     */
    @Test
    void aSynchronousSendQueuedBehindAFullRingStillWaitsForItsReceive() {
        int fillers = 2000;
        job(false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                byte[] filler = new byte[1024];
                if (rank == 0) {
                    Request[] sent = new Request[fillers];
                    for (int i = 0; i < fillers; i++) {
                        sent[i] = w.isend(filler, 0, filler.length, 1, 3);
                    }
                    holdsUntilReceived(w, w.issend(new byte[8], 0, 8, 1, 1), "an issend behind a full ring");
                    Request.waitAll(sent);
                } else {
                    for (int i = 0; i < fillers; i++) {
                        w.recv(filler, 0, filler.length, 0, 3, null);
                    }
                    w.recv(new byte[1], 0, 1, 0, GO, null);
                    w.recv(new byte[8], 0, 8, 0, 1, null);
                }
            }
        });
    }

    @ParameterizedTest(name = "network={0}")
    @ValueSource(booleans = {false, true})
    void aPersistentSynchronousSendHoldsAtEachStart(boolean network) {
        job(network, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int[] data = new int[4];
                Request r = rank == 0 ? w.ssendInit(data, 0, 4, 1, 5) : w.recvInit(data, 0, 4, 0, 5);
                for (int round = 0; round < 3; round++) {
                    if (rank == 0) {
                        java.util.Arrays.fill(data, round + 10);
                        r.start();
                        holdsUntilReceived(w, r, "start " + round + " of ssendInit");
                    } else {
                        w.recv(new byte[1], 0, 1, 0, GO, null);
                        r.start();
                        r.waitFor();
                        assertArrayEquals(new int[] {round + 10, round + 10, round + 10, round + 10}, data,
                                "start " + round);
                    }
                }
                r.free();
            }
        });
    }
}
