package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import io.tutti.Window.LockType;
import io.tutti.Window.Vector;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.testing.RankThreads;
import io.tutti.transport.InProcessTransport;
import io.tutti.wire.MessageHeaderDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Puts and gets larger than the eager limit between ranks on different hosts (every pair over the
 * test's in-process transport, which sends payloads from the sender's memory and receives them
 * where the sink places them, as the rails do): the payload leaves from the origin's memory, lands
 * in the target's window (a get's reply in the result), and arrives exact, in order with small
 * operations, refused with its cause when it does not fit.
 */
@Timeout(180)
class LargeRemoteOperationsTest {
    /** The eager limit over the in-process transport: what one record of it carries besides the header. */
    private static final int EAGER = InProcessTransport.MAX_RECORD - MessageHeaderDescriptor.LENGTH;
    private static final int[] SIZES = {EAGER - 1, EAGER, EAGER + 1, 2 * EAGER + 5, (3 << 20) + 17};
    private static final long WINDOW = (3 << 20) + 64;

    private static void job(ThreadLauncher.RankBody body) {
        RankThreads.run(2, Duration.ofSeconds(150), RemoteWindowTest.hosts(2, false), body);
    }

    private static byte pattern(long i, int round) {
        return (byte) (i * 31 + round * 7 + (i >>> 9));
    }

    private static void fill(MemorySegment s, long bytes, int round) {
        for (long i = 0; i < bytes; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(i, round));
        }
    }

    /**
     * Puts at sizes around the eager limit and of several MiB, at an odd offset, from off-heap
     * memory: exact at the target once the flush returns, their payloads sent from the origin's
     * memory and placed in the window (counted by the transport), and nothing beyond them touched.
     */
    @Test
    void largePutsArriveExactFromTheOriginsMemoryIntoTheWindow() {
        long inPlace = InProcessTransport.IN_PLACE.get();
        long placed = InProcessTransport.PLACED.get();
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                MemorySegment src = arena.allocate(SIZES[SIZES.length - 1]);
                try (Window win = w.allocateWindow(rank == 1 ? WINDOW : 0, 1)) {
                    for (int round = 0; round < SIZES.length; round++) {
                        int bytes = SIZES[round];
                        if (rank == 0) {
                            fill(src, bytes, round);
                            win.lock(LockType.EXCLUSIVE, 1);
                            win.put(src, bytes, Datatype.BYTE, 1, 3);
                            win.unlock(1);
                            w.send(new int[] {round}, 0, 1, 1, 5);
                            // the next put overwrites these bytes: not before the target checked them
                            w.recv(new int[1], 0, 1, 1, 6);
                        } else {
                            w.recv(new int[1], 0, 1, 0, 5);
                            MemorySegment m = win.segment();
                            for (long i = 0; i < bytes; i++) {
                                if (m.get(ValueLayout.JAVA_BYTE, 3 + i) != pattern(i, round)) {
                                    throw new AssertionError("put of " + bytes + " bytes: byte " + i + " differs");
                                }
                            }
                            // sizes grow: no earlier put reached the byte after this one
                            assertEquals(0, m.get(ValueLayout.JAVA_BYTE, 3 + bytes), "the byte after the put");
                            assertEquals(0, m.get(ValueLayout.JAVA_BYTE, 2), "the byte before the put");
                            w.send(new int[] {round}, 0, 1, 0, 6);
                        }
                    }
                    w.barrier();
                }
            }
        });
        assertTrue(InProcessTransport.IN_PLACE.get() > inPlace, "no payload left from the origin's memory");
        assertTrue(InProcessTransport.PLACED.get() > placed, "no payload was received into the window");
    }

    /**
     * Gets at sizes around the eager limit and of several MiB: exact, into off-heap memory (whose
     * replies the origin receives in place) and into a heap array (copied); the target sends the
     * large replies from its window's memory.
     */
    @Test
    void largeGetsReturnExactIntoOffHeapAndHeapMemory() {
        long inPlace = InProcessTransport.IN_PLACE.get();
        long placed = InProcessTransport.PLACED.get();
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(WINDOW, 1)) {
                    if (rank == 1) {
                        fill(win.segment(), WINDOW, 9);
                    }
                    w.barrier();
                    if (rank == 0) {
                        win.lock(LockType.SHARED, 1);
                        for (int bytes : SIZES) {
                            MemorySegment into = arena.allocate(bytes + 2);
                            win.get(into.asSlice(1), bytes, Datatype.BYTE, 1, 5);
                            byte[] heap = new byte[bytes];
                            win.get(heap, bytes, Datatype.BYTE, 1, 5);
                            win.flush(1);
                            for (int i = 0; i < bytes; i++) {
                                byte expected = pattern(5 + i, 9);
                                if (into.get(ValueLayout.JAVA_BYTE, 1 + i) != expected || heap[i] != expected) {
                                    throw new AssertionError("get of " + bytes + " bytes: byte " + i + " differs");
                                }
                            }
                            assertEquals(0, into.get(ValueLayout.JAVA_BYTE, 0), "the byte before the result");
                            assertEquals(0, into.get(ValueLayout.JAVA_BYTE, bytes + 1), "the byte after the result");
                        }
                        win.unlock(1);
                    }
                    w.barrier();
                }
            }
        });
        assertTrue(InProcessTransport.IN_PLACE.get() > inPlace, "no reply left from the window's memory");
        assertTrue(InProcessTransport.PLACED.get() > placed, "no reply was received into the result");
    }

    /** A strided put and get whose blocks are larger than the eager limit: each block in place, the gaps untouched. */
    @Test
    void stridedLayoutsWithLargeBlocksArriveExact() {
        int block = EAGER / 8 + 100;      // longs: a block is larger than the eager limit
        int stride = block + 37;
        Vector layout = new Vector(4, block, stride);
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8L * layout.span(), 8)) {
                    if (rank == 0) {
                        MemorySegment src = arena.allocate(8L * layout.span());
                        for (long i = 0; i < layout.span(); i++) {
                            src.setAtIndex(ValueLayout.JAVA_LONG, i, 1000 + i);
                        }
                        win.lock(LockType.EXCLUSIVE, 1);
                        win.put(src, Datatype.LONG, layout, 1, 0, layout);
                        win.flush(1);
                        long[] back = new long[(int) layout.span()];
                        win.get(back, Datatype.LONG, layout, 1, 0, layout);
                        win.unlock(1);
                        for (int b = 0; b < 4; b++) {
                            for (int i = 0; i < stride && b * stride + i < back.length; i++) {
                                int at = b * stride + i;
                                assertEquals(i < block ? 1000 + at : 0, back[at], "element " + at);
                            }
                        }
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * A large put that runs past the end of the target's window (sent past the origin's checks) is
     * refused with its cause, its frame that reaches past the end not written at all, the one inside applied;
     * the next flush is clean and a large put after it lands.
     */
    @Test
    void aRefusedLargePutFailsTheFlushWithItsCause() {
        int window = 4 * EAGER;
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(window, 1)) {
                    if (rank == 0) {
                        RemoteAccess net = ((ShmWindow) win).network();
                        MemorySegment src = arena.allocate(3L * EAGER);
                        fill(src, 3L * EAGER, 1);
                        long at = window - EAGER - 10;
                        win.lock(LockType.EXCLUSIVE, 1);
                        net.put(src, 0, 1, at, 3L * EAGER);
                        TuttiException e = assertThrows(TuttiException.InvalidArgument.class, () -> win.flush(1));
                        assertTrue(e.getMessage().contains("flush on rank 0 to rank 1 failed")
                                && e.getMessage().contains("outside rank 1's window of " + window + " bytes")
                                && e.getMessage().contains("a put of"), e.getMessage());
                        win.flush(1);
                        // frames are of EAGER bytes: the first lies inside, the second reaches past the end
                        byte[] back = new byte[EAGER + 10];
                        win.get(back, back.length, Datatype.BYTE, 1, at);
                        win.flush(1);
                        for (int i = 0; i < back.length; i++) {
                            assertEquals(i < EAGER ? pattern(i, 1) : 0, back[i], "byte " + i
                                    + (i < EAGER ? " of the frame inside the window" : " of the refused frame"));
                        }
                        fill(src, 3L * EAGER, 2);
                        win.put(src, 3 * EAGER, Datatype.BYTE, 1, 0);
                        win.unlock(1);
                        back = new byte[3 * EAGER];
                        win.lock(LockType.SHARED, 1);
                        win.get(back, back.length, Datatype.BYTE, 1, 0);
                        win.unlock(1);
                        for (int i = 0; i < back.length; i++) {
                            assertEquals(pattern(i, 2), back[i], "byte " + i + " of the put after the refusal");
                        }
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * Small puts (batched) and large ones (sent in place) to overlapping bytes of one target, in
     * both orders, and a get right after each (its data read after a flush): every get sees the later one.
     */
    @Test
    void largeAndSmallPutsToOneTargetApplyInOrder() {
        int bytes = 2 * EAGER + 100;
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(bytes, 8)) {
                    if (rank == 0) {
                        MemorySegment big = arena.allocate(bytes);
                        long[] back = new long[bytes / 8];
                        win.lock(LockType.EXCLUSIVE, 1);
                        for (int i = 1; i <= 20; i++) {
                            big.fill((byte) i);
                            int at = (i * 97) % (bytes / 8);
                            // small after large: the small one wins at its place
                            win.put(big, bytes, Datatype.BYTE, 1, 0);
                            win.put(new long[] {-i}, 1, Datatype.LONG, 1, at);
                            win.get(back, back.length, Datatype.LONG, 1, 0);
                            win.flush(1);
                            assertEquals(-i, back[at], "small put after large put " + i);
                            assertEquals(0x0101010101010101L * i, back[(at + 1) % back.length], "large put " + i);
                            // large after small: the large one wins everywhere
                            win.put(new long[] {-i}, 1, Datatype.LONG, 1, at);
                            win.put(big, bytes, Datatype.BYTE, 1, 0);
                            win.get(back, back.length, Datatype.LONG, 1, 0);
                            win.flush(1);
                            assertEquals(0x0101010101010101L * i, back[at], "large put after small put " + i);
                            win.flush(1);
                        }
                        win.unlock(1);
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * Large gets sent from the target's window memory, each followed at once, with no flush between,
     * by a large put to the same bytes: every get reads what was there before its put, however late
     * its reply's frames leave; several large gets in flight are served in order.
     */
    @Test
    void aLargeGetDoesNotSeeTheWriteIssuedAfterIt() {
        int bytes = 4 * EAGER + 3;
        int rounds = 12;
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(bytes, 1)) {
                    if (rank == 1) {
                        fill(win.segment(), bytes, 0);
                    }
                    w.barrier();
                    if (rank == 0) {
                        MemorySegment[] src = new MemorySegment[rounds];
                        MemorySegment[] got = new MemorySegment[rounds];
                        MemorySegment[] twice = new MemorySegment[rounds];
                        win.lock(LockType.EXCLUSIVE, 1);
                        for (int r = 0; r < rounds; r++) {
                            got[r] = arena.allocate(bytes);
                            twice[r] = arena.allocate(bytes);
                            win.get(got[r], bytes, Datatype.BYTE, 1, 0);
                            win.get(twice[r], bytes, Datatype.BYTE, 1, 0);
                            src[r] = arena.allocate(bytes);
                            fill(src[r], bytes, r + 1);
                            win.put(src[r], bytes, Datatype.BYTE, 1, 0);
                        }
                        win.unlock(1);
                        MemorySegment expected = arena.allocate(bytes);
                        for (int r = 0; r < rounds; r++) {
                            fill(expected, bytes, r);
                            assertEquals(-1, got[r].mismatch(expected), "get " + r + ", before put " + (r + 1));
                            assertEquals(-1, twice[r].mismatch(expected), "second get " + r);
                        }
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * rput of a large put from off-heap memory returns a request that completes once the origin
     * buffer is free again; after it the buffer may change without the target seeing it.
     */
    @Test
    void rputOfALargePutCompletesWhenTheBufferIsFree() {
        int bytes = 256 * EAGER;  // more frames than the transport holds at once: some wait at the origin
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(bytes, 1)) {
                    if (rank == 0) {
                        MemorySegment src = arena.allocate(bytes);
                        fill(src, bytes, 4);
                        win.lock(LockType.EXCLUSIVE, 1);
                        Request r = win.rput(src, bytes, Datatype.BYTE, 1, 0);
                        r.waitFor();
                        assertTrue(r.isDone() && r.test(), "the request is done after its wait");
                        src.fill((byte) 0x55);
                        win.flush(1);
                        byte[] back = new byte[bytes];
                        win.get(back, bytes, Datatype.BYTE, 1, 0);
                        win.unlock(1);
                        byte[] expected = new byte[bytes];
                        fill(MemorySegment.ofArray(expected), bytes, 4);
                        assertArrayEquals(expected, back);
                    }
                    w.barrier();
                }
            }
        });
    }
}
