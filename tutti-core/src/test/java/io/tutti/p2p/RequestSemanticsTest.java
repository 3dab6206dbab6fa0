package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.ThreadLauncher;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Semantics of requests: waitAll, waitAny, testAll, persistent requests, probes, messages to oneself.
 * Orderings that matter are forced with handshake messages, never with sleeps.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RequestSemanticsTest {
    private static final int GO = 1000;
    private static final int ACK = 1001;

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(60), body);
    }

    /**
     * The world communicator, once every rank has started (a collective), so that each test's handshakes
     * start from a known state; start-up itself is covered by StartupRaceTest.
     */
    static Communicator started(Tutti t) {
        Communicator w = t.world();
        w.dup();
        return w;
    }

    static byte pattern(int message, int i) {
        return (byte) (i * 31 + message * 7 + (i >>> 8));
    }

    static byte[] bytes(int message, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = pattern(message, i);
        }
        return b;
    }

    static void assertPattern(int message, byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            if (b[i] != pattern(message, i)) {
                fail("message " + message + ": byte " + i + " of " + n + " is " + b[i] + ", expected "
                        + pattern(message, i));
            }
        }
    }

    static void signal(Communicator w, int dest, int tag) {
        w.send(new byte[0], 0, 0, dest, tag);
    }

    static void await(Communicator w, int source, int tag) {
        w.recv(new byte[0], 0, 0, source, tag);
    }

    // ------------------------------------------------------------------ waitAll / waitAny / testAll

    @Test
    void waitAllCompletesEveryRequestAndThrowsTheFirstErrorAfterwards() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    byte[] small = new byte[10];       // the 100-byte message on tag 1 will not fit
                    int[] ints = new int[1000];
                    byte[] large = new byte[50_000];
                    byte[] out = bytes(4, 30_000);
                    Request r1 = w.irecv(small, 0, small.length, 1, 1);
                    Request r2 = w.irecv(ints, 0, ints.length, 1, 2);
                    Request r3 = w.irecv(large, 0, large.length, 1, 3);
                    Request s4 = w.isend(out, 0, out.length, 1, 4);
                    TuttiException.Truncation e = assertThrows(TuttiException.Truncation.class,
                            () -> Request.waitAll(r1, null, r2, r3, s4));
                    assertTrue(e.getMessage().contains("100 bytes"), e.getMessage());
                    assertTrue(r1.isDone() && r2.isDone() && r3.isDone() && s4.isDone(),
                            "every request completed before the error was thrown");
                    assertThrows(TuttiException.Truncation.class, r1::test, "the failed request keeps its error");
                    for (int i = 0; i < ints.length; i++) {
                        assertEquals(i * 3 - 7, ints[i]);
                    }
                    assertPattern(3, large, large.length);
                    Status st = r3.status();
                    assertEquals(1, st.source());
                    assertEquals(3, st.tag());
                    assertEquals(50_000, st.bytes());
                    Request.waitAll();                  // nothing to wait for
                    Request.waitAll((Request) null);
                } else {
                    int[] ints = new int[1000];
                    for (int i = 0; i < ints.length; i++) {
                        ints[i] = i * 3 - 7;
                    }
                    byte[] in = new byte[30_000];
                    Request r = w.irecv(in, 0, in.length, 0, 4);
                    Request a = w.isend(bytes(1, 100), 0, 100, 0, 1);
                    Request b = w.isend(ints, 0, ints.length, 0, 2);
                    Request c = w.isend(bytes(3, 50_000), 0, 50_000, 0, 3);
                    Request.waitAll(a, b, c, r);
                    assertPattern(4, in, in.length);
                }
            }
        });
    }

    @Test
    void waitAnyReturnsACompletedRequestAndSkipsNulls() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    byte[] one = new byte[100];
                    byte[] two = new byte[40_000];
                    Request[] rs = {w.irecv(one, 0, one.length, 1, 1), w.irecv(two, 0, two.length, 1, 2), null};
                    signal(w, 1, GO);
                    // rank 1 sends tag 2 now and tag 1 only after our ACK: the only request that can complete is 1
                    assertEquals(1, Request.waitAny(rs));
                    assertTrue(rs[1].isDone());
                    assertFalse(rs[0].isDone(), "tag 1 has not been sent yet");
                    assertPattern(2, two, two.length);
                    assertEquals(1, Request.waitAny(rs), "a completed request is found again");
                    rs[1] = null;
                    signal(w, 1, ACK);
                    assertEquals(0, Request.waitAny(rs));
                    assertPattern(1, one, one.length);
                    assertEquals(-1, Request.waitAny(null, null));
                    assertEquals(-1, Request.waitAny());
                } else {
                    await(w, 0, GO);
                    w.send(bytes(2, 40_000), 0, 40_000, 0, 2);
                    await(w, 0, ACK);
                    w.send(bytes(1, 100), 0, 100, 0, 1);
                }
            }
        });
    }

    @Test
    void waitAnySkipsInactivePersistentRequests() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    Request idle = w.recvInit(new byte[4], 0, 4, 1, 5); // never started: inactive
                    byte[] in = new byte[4];
                    Request live = w.irecv(in, 0, 4, 1, 6);
                    signal(w, 1, GO);
                    assertEquals(1, Request.waitAny(idle, live), "the inactive request is not 'completed'");
                    assertEquals(-1, Request.waitAny(idle, null), "no active request at all");
                } else {
                    await(w, 0, GO);
                    w.send(new byte[] {1, 2, 3, 4}, 0, 4, 0, 6);
                }
            }
        });
    }

    @Test
    void testAllIsFalseUntilEveryRequestHasCompleted() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    long[] a = new long[10];
                    byte[] b = new byte[70_000];
                    Request ra = w.irecv(a, 0, a.length, 1, 1);
                    Request rb = w.irecv(b, 0, b.length, 1, 2);
                    for (int i = 0; i < 100; i++) {
                        assertFalse(Request.testAll(ra, rb), "nothing has been sent yet");
                    }
                    signal(w, 1, GO);
                    while (!ra.test()) {
                        Thread.onSpinWait();
                    }
                    assertFalse(Request.testAll(ra, rb), "tag 2 is sent only after our ACK");
                    signal(w, 1, ACK);
                    while (!Request.testAll(ra, null, rb)) {
                        Thread.onSpinWait();
                    }
                    assertTrue(ra.isDone() && rb.isDone());
                    assertTrue(ra.test() && rb.test(), "test on a completed request stays true");
                    assertEquals(9L, a[9]);
                    assertPattern(2, b, b.length);
                    assertTrue(Request.testAll());
                    assertTrue(Request.testAll((Request) null));
                } else {
                    long[] a = new long[10];
                    for (int i = 0; i < a.length; i++) {
                        a[i] = i;
                    }
                    await(w, 0, GO);
                    w.send(a, 0, a.length, 0, 1);
                    await(w, 0, ACK);
                    w.send(bytes(2, 70_000), 0, 70_000, 0, 2);
                }
            }
        });
    }

    // ------------------------------------------------------------------ persistent requests

    @ParameterizedTest(name = "{0} ints")
    @ValueSource(ints = {0, 64, 4096, 10_000})   // 0 B, 256 B, exactly the eager limit, 40 KB (rendezvous)
    void aPersistentPairRuns1000TimesWithFreshContentEachTime(int n) {
        final int rounds = 1000;
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                int[] buf = new int[n];
                if (rank == 0) {
                    Request s = w.sendInit(buf, 0, n, 1, 7);
                    for (int round = 0; round < rounds; round++) {
                        for (int i = 0; i < n; i++) {
                            buf[i] = round * 1_000_003 + i;
                        }
                        s.start();
                        Status st = s.waitFor();
                        assertEquals(1, st.source(), "a send's status names the destination");
                    }
                } else {
                    Request r = w.recvInit(buf, 0, n, 0, 7);
                    Status st = new Status();
                    for (int round = 0; round < rounds; round++) {
                        java.util.Arrays.fill(buf, -1);
                        r.start();
                        r.waitFor(st);
                        assertEquals(0, st.source());
                        assertEquals(7, st.tag());
                        assertEquals(4L * n, st.bytes());
                        for (int i = 0; i < n; i++) {
                            if (buf[i] != round * 1_000_003 + i) {
                                fail("round " + round + ": element " + i + " is " + buf[i]);
                            }
                        }
                    }
                    assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG), "no extra message");
                }
            }
        });
    }

    @Test
    void startingAnActivePersistentRequestFails() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    byte[] big = bytes(4, 100_000);
                    Request s = w.sendInit(big, 0, big.length, 1, 4);
                    s.start();
                    // rank 1 posts no receive for tag 4 before our GO: the rendezvous cannot have completed
                    TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class, s::start);
                    assertTrue(e.getMessage().contains("active"), e.getMessage());
                    signal(w, 1, GO);
                    s.waitFor();
                    await(w, 1, ACK);
                    w.send(bytes(3, 10), 0, 10, 1, 3);
                    // the persistent send still works after the refused start
                    s.start();
                    s.waitFor();
                } else {
                    byte[] small = new byte[10];
                    Request r = w.recvInit(small, 0, small.length, 0, 3);
                    r.start();
                    assertThrows(TuttiException.InvalidArgument.class, r::start, "tag 3 comes only after our ACK");
                    await(w, 0, GO);
                    byte[] big = new byte[100_000];
                    w.recv(big, 0, big.length, 0, 4);
                    assertPattern(4, big, big.length);
                    signal(w, 0, ACK);
                    r.waitFor();
                    assertPattern(3, small, 10);
                    java.util.Arrays.fill(big, (byte) 0);
                    w.recv(big, 0, big.length, 0, 4);
                    assertPattern(4, big, big.length);
                    assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG),
                            "the refused start posted no second receive and consumed nothing");
                }
            }
        });
    }

    @Test
    void startOnANonPersistentRequestFails() {
        job(1, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                byte[] in = new byte[4];
                Request r = w.irecv(in, 0, 4, 0, 1);
                assertThrows(TuttiException.InvalidArgument.class, r::start, "an active irecv");
                Request s = w.isend(new byte[] {1, 2, 3, 4}, 0, 4, 0, 1);
                s.waitFor();
                assertThrows(TuttiException.InvalidArgument.class, s::start, "a completed isend");
                r.waitFor();
                TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class, r::start);
                assertTrue(e.getMessage().contains("persistent"), e.getMessage());
                assertArrayEquals(new byte[] {1, 2, 3, 4}, in);
                assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG));
            }
        });
    }

    // ------------------------------------------------------------------ probes

    @Test
    void iprobeSeesNothingThenTheMessageWithItsSize() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 1) {
                    for (int i = 0; i < 50; i++) {
                        assertNull(w.iprobe(0, 11));
                        assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG));
                    }
                    signal(w, 0, GO);
                    Status st;
                    while ((st = w.iprobe(0, 11)) == null) {
                        Thread.onSpinWait();
                    }
                    assertEquals(0, st.source());
                    assertEquals(11, st.tag());
                    assertEquals(8000, st.bytes());
                    Status again = w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                    assertNotNull(again, "iprobe does not consume");
                    assertEquals(11, again.tag(), "the first message in arrival order");
                    long[] exact = new long[st.count(io.tutti.Datatype.LONG)];
                    Status got = w.recv(exact, 0, exact.length, st.source(), st.tag());
                    assertEquals(8000, got.bytes());
                    for (int i = 0; i < exact.length; i++) {
                        assertEquals(i * 5L, exact[i]);
                    }
                    // a rendezvous message: the probe reports its whole length before any data moved
                    while ((st = w.iprobe(Communicator.ANY_SOURCE, 12)) == null) {
                        Thread.onSpinWait();
                    }
                    assertEquals(70_001, st.bytes());
                    byte[] big = new byte[(int) st.bytes()];
                    w.recv(big, 0, big.length, st.source(), st.tag());
                    assertPattern(12, big, big.length);
                    assertNull(w.iprobe(0, 11));
                    assertNull(w.iprobe(0, 12));
                } else {
                    await(w, 1, GO);
                    long[] l = new long[1000];
                    for (int i = 0; i < l.length; i++) {
                        l[i] = i * 5L;
                    }
                    w.send(l, 0, l.length, 1, 11);
                    w.send(bytes(12, 70_001), 0, 70_001, 1, 12);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 12_345, 16_384, 16_385, 250_000})
    void probeThenReceiveExactlyThatSize(int size) {
        job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = started(t);
                if (rank == 0) {
                    for (int k = 0; k < 2; k++) {
                        Status st = w.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                        assertEquals(size + st.source(), st.bytes());
                        assertEquals(20 + st.source(), st.tag());
                        byte[] exact = new byte[(int) st.bytes()];
                        Status got = w.recv(exact, 0, exact.length, st.source(), st.tag());
                        assertEquals(st.source(), got.source());
                        assertEquals(st.bytes(), got.bytes());
                        assertPattern(st.source(), exact, exact.length);
                    }
                    assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG));
                } else {
                    int n = size + rank;
                    w.send(bytes(rank, n), 0, n, 0, 20 + rank);
                }
            }
        });
    }

    // ------------------------------------------------------------------ to oneself

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 100, 16_384, 16_385, 100_000, 1 << 20})
    void messagesToSelfWithTheReceivePostedFirst(int size) {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofConfined()) {
                Communicator w = started(t);
                int me = w.rank();
                // array to array, the receive posted first, then a blocking send
                byte[] in = new byte[size + 3];
                Request r = w.irecv(in, 1, size, me, 5);
                w.send(bytes(me, size), 0, size, me, 5);
                Status st = r.waitFor();
                assertEquals(me, st.source());
                assertEquals(5, st.tag());
                assertEquals(size, st.bytes());
                assertEquals(0, in[0], "nothing before the receive region");
                byte[] region = java.util.Arrays.copyOfRange(in, 1, 1 + size);
                assertPattern(me, region, size);
                assertEquals(0, in[size + 1], "nothing after the receive region");

                // native segments both ways, receive posted first, nonblocking send
                MemorySegment src = arena.allocate(Math.max(1, size)).asSlice(0, size);
                for (int i = 0; i < size; i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, pattern(me + 10, i));
                }
                MemorySegment dst = arena.allocate(Math.max(1, size)).asSlice(0, size);
                Request rr = w.irecv(dst, me, 6);
                Request ss = w.isend(src, me, 6);
                Request.waitAll(ss, rr);
                assertEquals(-1L, src.mismatch(dst), "native self message intact");

                // the send first (unexpected at the receiver), nonblocking so that a large one cannot block
                byte[] late = new byte[size];
                Request s2 = w.isend(bytes(me + 20, size), 0, size, me, 7);
                Request r2 = w.irecv(late, 0, size, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                Request.waitAll(s2, r2);
                assertEquals(me, r2.status().source());
                assertPattern(me + 20, late, size);
                assertNull(w.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG));
            }
        });
    }
}
