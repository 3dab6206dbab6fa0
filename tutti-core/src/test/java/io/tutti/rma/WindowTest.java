package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import io.tutti.Window.LockType;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.reduce.Reduction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Windows over shared memory through the public API, ranks as threads: every window kind, the
 * atomicity of accumulates and atomics under contention, the passive lock's exclusion, every
 * accumulate operation on every type against the reduction kernels, and the errors.
 */
@Timeout(180)
class WindowTest {
    private static final java.lang.invoke.VarHandle FLAG = ValueLayout.JAVA_BYTE.varHandle();

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(120), body);
    }

    /** fetchAndOp SUM from every rank at once: each old value is seen exactly once, none lost. */
    @Test
    void fetchAndOpCountsEveryIncrementOnce() {
        int n = 4;
        int each = 300;
        boolean[] seen = new boolean[n * each];
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(rank == 0 ? 8 : 0, 8)) {
                    long[] one = {1};
                    long[] old = new long[1];
                    win.lockAll();
                    for (int i = 0; i < each; i++) {
                        win.fetchAndOp(one, old, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                        synchronized (seen) {
                            assertTrue(!seen[(int) old[0]], "old value " + old[0] + " returned twice");
                            seen[(int) old[0]] = true;
                        }
                    }
                    win.unlockAll();
                    win.fence();
                    if (rank == 0) {
                        assertEquals((long) n * each, win.segment().get(ValueLayout.JAVA_LONG, 0));
                    }
                    win.fence(Window.MODE_NOSUCCEED);
                }
            }
        });
    }

    /** A read-increment-write by get and put under an exclusive lock loses nothing: the lock excludes. */
    @Test
    void exclusiveLockExcludes() {
        int n = 3;
        int each = 200;
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8, 8)) {
                    long[] v = new long[1];
                    for (int i = 0; i < each; i++) {
                        win.lock(LockType.EXCLUSIVE, 1);
                        win.get(v, 1, Datatype.LONG, 1, 0);
                        v[0]++;
                        Thread.yield(); // widen the window for a second writer, were the lock to let one in
                        win.put(v, 1, Datatype.LONG, 1, 0);
                        win.unlock(1);
                    }
                    // shared readers see the final count once everyone is done
                    w.barrier();
                    win.lock(LockType.SHARED, 1);
                    win.get(v, 1, Datatype.LONG, 1, 0);
                    win.unlock(1);
                    assertEquals((long) n * each, v[0]);
                }
            }
        });
    }

    /** compareAndSwap from every rank on one word: exactly one rank wins, all see the winner. */
    @Test
    void compareAndSwapHasOneWinner() {
        int n = 4;
        AtomicReference<Integer> winner = new AtomicReference<>();
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment mem = arena.allocate(16, 8);
                    mem.set(ValueLayout.JAVA_INT, 4, -1);
                    try (Window win = w.createWindow(mem, 4)) {
                        win.fence();
                        int[] result = new int[1];
                        win.compareAndSwap(new int[] {rank}, new int[] {-1}, result, Datatype.INT, 2, 1);
                        if (result[0] == -1 && !winner.compareAndSet(null, rank)) {
                            fail("a second rank won the swap: " + rank);
                        }
                        win.fence();
                        int[] now = new int[1];
                        win.get(now, 1, Datatype.INT, 2, 1);
                        win.fence(Window.MODE_NOSUCCEED);
                        assertTrue(now[0] >= 0 && now[0] < n, "the word holds " + now[0]);
                        assertTrue(result[0] == -1 || result[0] == now[0], "a losing swap returned " + result[0]);
                    }
                }
            }
        });
    }

    /** Every accumulate operation on every type it supports, into rank 1, against the kernels. */
    @Test
    void everyOperationOnEveryTypeGivesTheKernelsResult() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateSharedWindow(256, 1)) {
                    for (Datatype type : Datatype.values()) {
                        for (AccumulateOp op : AccumulateOp.values()) {
                            if (op.reduceOp() != null && !op.reduceOp().supports(type)) {
                                continue;
                            }
                            oneAccumulate(win, rank, type, op);
                        }
                    }
                }
            }
        });
    }

    private static void oneAccumulate(Window win, int rank, Datatype type, AccumulateOp op) {
        int count = 5;
        long bytes = (long) count * type.extent();
        Random rnd = new Random(type.ordinal() * 31L + op.ordinal());
        byte[] before = new byte[(int) bytes];
        byte[] origin = new byte[(int) bytes];
        rnd.nextBytes(before);
        rnd.nextBytes(origin);
        sanitise(type, before);
        sanitise(type, origin);
        MemorySegment target = win.sharedSegment(1);
        win.fence();
        if (rank == 1) {
            MemorySegment.copy(MemorySegment.ofArray(before), 0, target, 8, bytes);
        }
        win.fence();
        MemorySegment old = MemorySegment.ofArray(new byte[(int) bytes]);
        if (rank == 0) {
            win.getAccumulate(MemorySegment.ofArray(origin), old, count, type, 1, 8, op);
        }
        win.fence();
        if (rank == 0) {
            byte[] expected = before.clone();
            if (op == AccumulateOp.REPLACE) {
                expected = origin.clone();
            } else if (op != AccumulateOp.NO_OP) {
                Reduction.apply(op.reduceOp(), type, MemorySegment.ofArray(expected), 0, MemorySegment.ofArray(origin),
                        0, count);
            }
            byte[] got = new byte[(int) bytes];
            MemorySegment.copy(target, 8, MemorySegment.ofArray(got), 0, bytes);
            assertArrayEquals(expected, got, op + " on " + type);
            assertArrayEquals(before, old.toArray(ValueLayout.JAVA_BYTE), "getAccumulate's old values, " + op + " on "
                    + type);
        }
        win.fence(Window.MODE_NOSUCCEED);
    }

    /** Random bytes, but no NaN patterns (NaN payloads need not survive arithmetic bit for bit). */
    private static void sanitise(Datatype type, byte[] b) {
        if (type.base() == Datatype.FLOAT || type.base() == Datatype.DOUBLE) {
            for (int i = 0; i < b.length; i++) {
                b[i] &= 0x3F;
            }
        }
    }

    /** A direct ByteBuffer, an Arena segment and memory Tutti allocates all take puts and gets. */
    @Test
    void everyWindowKindTakesPutsAndStridedGets() {
        job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                ByteBuffer direct = ByteBuffer.allocateDirect(80);
                Window[] windows = {w.createWindow(direct, 8), w.createWindow(arena.allocate(80, 8), 8),
                    w.allocateWindow(80, 8), w.allocateSharedWindow(80, 8)};
                for (Window win : windows) {
                    int next = (rank + 1) % 3;
                    long[] mine = new long[10];
                    for (int i = 0; i < 10; i++) {
                        mine[i] = rank * 100L + i;
                    }
                    win.fence();
                    // elements 0, 2, 4 to the same places of the next rank, then 0..4 to its places 5..9
                    win.put(mine, Datatype.LONG, new Window.Vector(3, 1, 2), next, 0, new Window.Vector(3, 1, 2));
                    win.put(mine, 5, Datatype.LONG, next, 5);
                    win.fence();
                    long[] back = new long[10];
                    win.get(back, Datatype.LONG, new Window.Vector(2, 2, 5), next, 0, new Window.Vector(1, 4, 4));
                    win.fence(Window.MODE_NOSUCCEED);
                    int prev = (rank + 2) % 3;
                    long[] own = win.segment().toArray(ValueLayout.JAVA_LONG);
                    assertArrayEquals(new long[] {prev * 100L, 0, prev * 100L + 2, 0, prev * 100L + 4, prev * 100L,
                        prev * 100L + 1, prev * 100L + 2, prev * 100L + 3, prev * 100L + 4}, own, "strided and plain puts");
                    // back: the next rank's elements 0..3, in two blocks of two at 0 and 5
                    long[] nextOwn = new long[] {rank * 100L, 0, rank * 100L + 2, 0};
                    long[] got = {back[0], back[1], back[5], back[6]};
                    assertArrayEquals(nextOwn, got, "strided get");
                    win.close();
                }
            }
        });
    }

    /** Two windows at once on split communicators and the world: each rank's parts stay apart. */
    @Test
    void windowsOfSeveralCommunicatorsStayApart() {
        job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                Communicator half = w.split(rank % 2, rank);
                try (Window a = w.allocateWindow(8, 8); Window b = half.allocateWindow(8, 8);
                     Window c = half.allocateWindow(8, 8)) {
                    a.fence();
                    b.fence();
                    c.fence();
                    a.put(new long[] {100 + rank}, 1, Datatype.LONG, (rank + 1) % 4, 0);
                    b.put(new long[] {200 + rank}, 1, Datatype.LONG, (half.rank() + 1) % 2, 0);
                    c.accumulate(new long[] {300 + rank}, 1, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                    a.fence(Window.MODE_NOSUCCEED);
                    b.fence(Window.MODE_NOSUCCEED);
                    c.fence(Window.MODE_NOSUCCEED);
                    assertEquals(100 + (rank + 3) % 4, a.segment().get(ValueLayout.JAVA_LONG, 0));
                    int partner = rank ^ 2; // the other rank of the same half
                    assertEquals(200 + partner, b.segment().get(ValueLayout.JAVA_LONG, 0));
                    long sum = half.rank() == 0 ? 300 + rank + 300 + partner : 0;
                    assertEquals(sum, c.segment().get(ValueLayout.JAVA_LONG, 0));
                }
            }
        });
    }

    /** Stores through sharedSegment are loads of the peers, ordered by the fence. */
    @Test
    void sharedWindowsAreLoadsAndStores() {
        int n = 4;
        job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateSharedWindow(8L * (n + rank), 8)) {
                    win.fence();
                    for (int r = 0; r < n; r++) {
                        assertEquals(8L * (n + r), win.byteSize(r));
                        win.sharedSegment(r).setAtIndex(ValueLayout.JAVA_LONG, rank, rank + 1000L);
                    }
                    assertThrows(IndexOutOfBoundsException.class,
                            () -> win.sharedSegment(0).get(ValueLayout.JAVA_LONG, 8L * n));
                    win.fence(Window.MODE_NOSUCCEED);
                    for (int i = 0; i < n; i++) {
                        assertEquals(i + 1000L, win.segment().getAtIndex(ValueLayout.JAVA_LONG, i));
                    }
                }
            }
        });
    }

    /** Each misuse fails with its own error, naming the ranks and the offset, and the window stays usable. */
    @Test
    void misuseFailsClearly() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.createWindow(MemorySegment.ofArray(new long[4]), 8));
                assertThrows(TuttiException.InvalidArgument.class, () -> w.createWindow(ByteBuffer.allocate(8), 8));
                assertThrows(TuttiException.InvalidArgument.class, () -> w.allocateWindow(8, 0));
                try (Window win = w.allocateWindow(32, 4)) {
                    int other = 1 - rank;
                    TuttiException e = assertThrows(TuttiException.Synchronization.class,
                            () -> win.put(new int[1], 1, Datatype.INT, other, 0));
                    assertTrue(e.getMessage().contains("rank " + other) && e.getMessage().contains("displacement 0"),
                            e.getMessage());
                    win.fence();
                    e = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new int[2], 2, Datatype.INT, other, 7));
                    assertTrue(e.getMessage().contains("rank " + other) && e.getMessage().contains("byte offset 28")
                            && e.getMessage().contains("32 bytes"), e.getMessage());
                    assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new int[1], 1, Datatype.INT, other, -1));
                    assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new long[1], 1, Datatype.INT, other, 0));
                    assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.accumulate(new double[1], 1, Datatype.DOUBLE, other, 0, AccumulateOp.BAND));
                    assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new int[1], 1, Datatype.INT, 2, 0));
                    assertThrows(TuttiException.InvalidArgument.class, () -> win.sharedSegment(other));
                    assertThrows(TuttiException.Synchronization.class, () -> win.rput(new int[1], 1, Datatype.INT,
                            other, 0));
                    // a fence epoch with operations must end before a lock epoch
                    win.put(new int[] {7}, 1, Datatype.INT, other, 1);
                    assertThrows(TuttiException.Synchronization.class, () -> win.lock(LockType.SHARED, other));
                    win.fence(Window.MODE_NOSUCCEED);
                    assertThrows(TuttiException.Synchronization.class,
                            () -> win.put(new int[1], 1, Datatype.INT, other, 0));
                    assertThrows(TuttiException.Synchronization.class, () -> win.unlock(other));
                    assertThrows(TuttiException.Synchronization.class, win::complete);
                    assertThrows(TuttiException.Synchronization.class, win::waitExposure);
                    assertThrows(TuttiException.Synchronization.class, () -> win.flush(other));
                    win.lock(LockType.SHARED, other);
                    assertThrows(TuttiException.Synchronization.class, () -> win.lock(LockType.SHARED, other));
                    assertThrows(TuttiException.Synchronization.class, win::fence);
                    int[] seven = new int[1];
                    win.rget(seven, 1, Datatype.INT, other, 1).waitFor();
                    win.unlock(other);
                    assertEquals(7, seven[0]);
                    w.barrier();
                }
            }
        });
    }

    /** A target that dies while holding the lock fails the rank waiting for it with PeerFailed, not a hang. */
    @Test
    void aDeadLockHolderFailsTheWaiter() {
        Map<Integer, Throwable> errors = new ConcurrentHashMap<>();
        ThreadLauncher.Outcome o = ThreadLauncher.run(2, Duration.ofSeconds(60), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8, 8)) {
                    if (rank == 1) {
                        win.lock(LockType.EXCLUSIVE, 1);
                        w.barrier();
                        throw new IllegalStateException("rank 1 dies holding its lock");
                    }
                    w.barrier();
                    try {
                        win.lock(LockType.EXCLUSIVE, 1);
                    } catch (Throwable e) {
                        errors.put(rank, e);
                        throw e;
                    }
                }
            }
        });
        assertTrue(!o.timedOut(), "the waiter hung");
        assertTrue(errors.get(0) instanceof TuttiException.PeerFailed, "rank 0 got " + errors.get(0));
    }

    /** A rank that dies before a fence fails the others' fence. */
    @Test
    void aDeadRankFailsTheFence() {
        Map<Integer, Throwable> errors = new ConcurrentHashMap<>();
        ThreadLauncher.Outcome o = ThreadLauncher.run(3, Duration.ofSeconds(60), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                Window win = w.allocateSharedWindow(rank == 2 ? 8 : 0, 1);
                MemorySegment flags = win.sharedSegment(2);
                if (rank == 2) {
                    // dies once both others are about to fence; not closed: closing is collective
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    while (((byte) FLAG.getVolatile(flags, 0L) == 0 || (byte) FLAG.getVolatile(flags, 1L) == 0)
                            && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    throw new IllegalStateException("rank 2 dies before the fence");
                }
                try {
                    FLAG.setVolatile(flags, (long) rank, (byte) 1);
                    win.fence();
                    win.fence();
                } catch (Throwable e) {
                    errors.put(rank, e);
                    throw e;
                }
            }
        });
        assertTrue(!o.timedOut(), "a fence hung");
        for (int r = 0; r < 2; r++) {
            assertTrue(errors.get(r) instanceof TuttiException.PeerFailed, "rank " + r + " got " + errors.get(r));
        }
    }
}
