package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import io.tutti.Window.LockType;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.reduce.Reduction;
import io.tutti.testing.RankThreads;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Windows whose ranks are on different hosts, ranks as threads over the test's in-process network
 * transport: either every pair over the network ({@code net}) or two hosts whose ranks share
 * memory among themselves ({@code mixed}), so that one window uses both paths on one target.
 */
@Timeout(180)
class RemoteWindowTest {

    private static void job(int n, boolean mixed, ThreadLauncher.RankBody body) {
        RankThreads.run(n, Duration.ofSeconds(120), hosts(n, mixed), body);
    }

    /** Ranks below half on host a, the others on host b; or every pair over the network. */
    static BiConsumer<Integer, Map<String, String>> hosts(int n, boolean mixed) {
        return (rank, env) -> {
            env.put("TUTTI_NET_PROVIDER", "inproc");
            if (mixed) {
                env.put(LaunchEnvironment.HOST, rank < n / 2 ? "a" : "b");
            } else {
                env.put("TUTTI_TRANSPORT", "net");
            }
        };
    }

    /** A distributed counter: fetchAndOp SUM from every rank, each old value seen once, none lost. */
    @ParameterizedTest(name = "mixed={0}")
    @ValueSource(booleans = {false, true})
    void fetchAndOpFromEveryRankCountsEachIncrementOnce(boolean mixed) {
        int n = 4;
        int each = 150;
        boolean[] seen = new boolean[n * each];
        job(n, mixed, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(rank == 0 ? 8 : 0, 8)) {
                    long[] one = {1};
                    long[] old = new long[1];
                    win.lockAll();
                    for (int i = 0; i < each; i++) {
                        win.fetchAndOp(one, old, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                        win.flush(0); // the old value is defined once the flush returns
                        synchronized (seen) {
                            assertFalse(seen[(int) old[0]], "old value " + old[0] + " returned twice");
                            seen[(int) old[0]] = true;
                        }
                    }
                    win.unlockAll();
                    w.barrier();
                    if (rank == 0) {
                        assertEquals((long) n * each, win.segment().get(ValueLayout.JAVA_LONG, 0));
                    }
                }
            }
        });
    }

    /** A read-increment-write under an exclusive lock, from ranks of both hosts: the lock excludes across paths. */
    @Test
    void exclusiveLocksExcludeAcrossHosts() {
        int n = 4;
        int each = 60;
        job(n, true, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8, 8)) {
                    long[] v = new long[1];
                    for (int i = 0; i < each; i++) {
                        win.lock(LockType.EXCLUSIVE, 1);
                        win.get(v, 1, Datatype.LONG, 1, 0);
                        win.flush(1);
                        v[0]++;
                        Thread.yield(); // widen the window for a second writer, were the lock to let one in
                        win.put(v, 1, Datatype.LONG, 1, 0);
                        win.unlock(1);
                    }
                    w.barrier();
                    win.lock(LockType.SHARED, 1);
                    win.get(v, 1, Datatype.LONG, 1, 0);
                    win.unlock(1);
                    assertEquals((long) n * each, v[0]);
                }
            }
        });
    }

    /**
     * The target takes no part: it waits on a latch, calling nothing of Tutti, while an origin on the
     * other host locks it, puts, gets, accumulates, swaps and unlocks. Its progress agent serves them.
     */
    @ParameterizedTest(name = "mixed={0}")
    @ValueSource(booleans = {false, true})
    void passiveTargetOperationsProgressWhileTheTargetComputes(boolean mixed) {
        CountDownLatch originDone = new CountDownLatch(1);
        job(2, mixed, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(1024, 8)) {
                    if (rank == 1) {
                        assertTrue(originDone.await(60, TimeUnit.SECONDS),
                                "the origin's passive epoch did not finish while the target computed");
                    } else {
                        long[] data = new long[100];
                        for (int i = 0; i < data.length; i++) {
                            data[i] = i * 7L;
                        }
                        win.lock(LockType.EXCLUSIVE, 1);
                        win.put(data, 100, Datatype.LONG, 1, 0);
                        win.flush(1);
                        long[] back = new long[100];
                        win.get(back, 100, Datatype.LONG, 1, 0);
                        win.flush(1);
                        assertArrayEquals(data, back);
                        win.accumulate(new long[] {5}, 1, Datatype.LONG, 1, 1, AccumulateOp.SUM);
                        long[] old = new long[1];
                        win.fetchAndOp(new long[] {1}, old, Datatype.LONG, 1, 1, AccumulateOp.SUM);
                        win.flush(1);
                        assertEquals(12, old[0]);
                        win.compareAndSwap(new long[] {99}, new long[] {13}, old, Datatype.LONG, 1, 1);
                        win.flush(1);
                        assertEquals(13, old[0]);
                        win.unlock(1);
                        originDone.countDown();
                    }
                    w.barrier();
                    if (rank == 1) {
                        assertEquals(99, win.segment().get(ValueLayout.JAVA_LONG, 8));
                        assertEquals(14, win.segment().get(ValueLayout.JAVA_LONG, 16));
                    }
                }
            }
        });
    }

    /** A put and a get larger than a frame (many records) and not a multiple of one, under fence, intact both ways. */
    @Test
    void largePutsAndGetsCrossIntact() {
        int bytes = (1 << 20) + 13;
        job(2, false, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofConfined()) {
                Communicator w = t.world();
                MemorySegment mine = arena.allocate(bytes);
                for (int i = 0; i < bytes; i++) {
                    mine.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + rank));
                }
                try (Window win = w.createWindow(arena.allocate(bytes), 1)) {
                    int peer = 1 - rank;
                    win.fence();
                    win.put(mine, bytes, Datatype.BYTE, peer, 0);
                    win.fence();
                    MemorySegment back = arena.allocate(bytes);
                    win.get(back, bytes, Datatype.BYTE, peer, 0);
                    win.fence(Window.MODE_NOSUCCEED);
                    assertEquals(-1, back.mismatch(mine), "the round trip through rank " + peer + "'s window");
                    for (int i = 0; i < bytes; i += 4099) {
                        assertEquals((byte) (i * 31 + peer), win.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
                    }
                }
            }
        });
    }

    /**
     * Accumulates from one origin keep their order at the target while a peer of the target's host
     * holds its accumulate lock much of the time (long accumulates of its own), so that records
     * wait: PROD by 3 then SUM i, repeated, gives one value only in the order issued.
     */
    @Test
    void accumulatesFromOneOriginApplyInOrderUnderContention() {
        int n = 4;
        int each = 1000;
        int big = 1 << 16;
        long expected = 0;
        for (int i = 1; i <= each; i++) {
            expected = expected * 3 + i;
        }
        long result = expected;
        java.util.concurrent.atomic.AtomicBoolean originDone = new java.util.concurrent.atomic.AtomicBoolean();
        job(n, true, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8L * (1 + big), 8)) {
                    long[] ones = new long[big];
                    java.util.Arrays.fill(ones, 1);
                    win.lockAll();
                    if (rank == 2) {
                        for (int i = 1; i <= each; i++) {
                            win.accumulate(new long[] {3}, 1, Datatype.LONG, 0, 0, AccumulateOp.PROD);
                            win.accumulate(new long[] {i}, 1, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                        }
                        win.flush(0);
                        originDone.set(true);
                    } else if (rank == 1) {
                        // a peer of the target's host: long holds of its accumulate lock until the origin is done
                        while (!originDone.get()) {
                            win.accumulate(ones, big, Datatype.LONG, 0, 1, AccumulateOp.SUM);
                        }
                    }
                    win.unlockAll();
                    w.barrier();
                    if (rank == 0) {
                        assertEquals(result, win.segment().get(ValueLayout.JAVA_LONG, 0));
                    }
                }
            }
        });
    }

    /** Every accumulate operation on every type, into a rank on the other host, against the kernels. */
    @Test
    void everyOperationOnEveryTypeAcrossTheNetwork() {
        job(2, false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(256, 1)) {
                    for (Datatype type : Datatype.values()) {
                        for (AccumulateOp op : AccumulateOp.values()) {
                            if (op.reduceOp() == null || op.reduceOp().supports(type)) {
                                oneAccumulate(win, rank, type, op);
                            }
                        }
                    }
                }
            }
        });
    }

    private static void oneAccumulate(Window win, int rank, Datatype type, AccumulateOp op) {
        int count = 5;
        int bytes = count * type.extent();
        Random rnd = new Random(type.ordinal() * 31L + op.ordinal());
        byte[] before = new byte[bytes];
        byte[] origin = new byte[bytes];
        rnd.nextBytes(before);
        rnd.nextBytes(origin);
        if (type.base() == Datatype.FLOAT || type.base() == Datatype.DOUBLE) {
            for (int i = 0; i < bytes; i++) {
                before[i] &= 0x3F; // no NaN patterns
                origin[i] &= 0x3F;
            }
        }
        win.fence();
        if (rank == 0) {
            win.put(before, bytes, Datatype.BYTE, 1, 8);
        }
        win.fence();
        byte[] old = new byte[bytes];
        if (rank == 0) {
            win.getAccumulate(MemorySegment.ofArray(origin), MemorySegment.ofArray(old), count, type, 1, 8, op);
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
            byte[] got = new byte[bytes];
            win.get(got, bytes, Datatype.BYTE, 1, 8);
            win.fence(Window.MODE_NOSUCCEED);
            assertArrayEquals(expected, got, op + " on " + type);
            assertArrayEquals(before, old, "getAccumulate's old values, " + op + " on " + type);
        } else {
            win.fence(Window.MODE_NOSUCCEED);
        }
    }

    /** Every pair over the network, small operations batched in at most {@code batch} bytes. */
    private static void batched(int n, String batch, ThreadLauncher.RankBody body) {
        BiConsumer<Integer, Map<String, String>> net = hosts(n, false);
        RankThreads.run(n, Duration.ofSeconds(120), (rank, env) -> {
            net.accept(rank, env);
            env.put("TUTTI_RMA_BATCH", batch);
        }, body);
    }

    /**
     * Many small puts and accumulates in one passive epoch, batches split at a small bound, at the
     * default and with batching off: the target holds every put and the sum of every accumulate
     * once the origin's flush returns (the target is told by a message after it).
     */
    @ParameterizedTest(name = "batch={0}")
    @ValueSource(strings = {"64", "8192", "0"})
    void smallOperationsInManyBatchesAllApply(String batch) {
        int puts = 700;
        batched(2, batch, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8L * (puts + 1), 8)) {
                    if (rank == 0) {
                        long[] v = new long[1];
                        win.lock(LockType.SHARED, 1);
                        for (int i = 0; i < puts; i++) {
                            v[0] = 1000L + i;
                            win.put(v, 1, Datatype.LONG, 1, i);           // v is reused at once: copied into the batch
                            win.accumulate(new long[] {i}, 1, Datatype.LONG, 1, puts, AccumulateOp.SUM);
                        }
                        win.flush(1);
                        w.send(new int[] {1}, 0, 1, 1, 5);
                        win.unlock(1);
                    } else {
                        w.recv(new int[1], 0, 1, 0, 5);
                        for (int i = 0; i < puts; i++) {
                            assertEquals(1000L + i, win.segment().get(ValueLayout.JAVA_LONG, 8L * i), "put " + i);
                        }
                        assertEquals((long) puts * (puts - 1) / 2, win.segment().get(ValueLayout.JAVA_LONG, 8L * puts));
                    }
                    w.barrier();
                }
            }
        });
    }

    /** A flush sends a batch that is far from full: the target sees the three puts after it. */
    @Test
    void aFlushCompletesAPartialBatch() {
        batched(2, "8192", rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(64, 8)) {
                    if (rank == 0) {
                        win.lock(LockType.EXCLUSIVE, 1);
                        for (int i = 0; i < 3; i++) {
                            win.put(new long[] {7 + i}, 1, Datatype.LONG, 1, i);
                        }
                        win.flush(1);
                        w.send(new int[] {1}, 0, 1, 1, 5);
                        int[] seen = new int[1];
                        w.recv(seen, 0, 1, 1, 6);
                        win.unlock(1);
                        assertEquals(3, seen[0], "puts the target held after the flush");
                    } else {
                        w.recv(new int[1], 0, 1, 0, 5);
                        int seen = 0;
                        for (int i = 0; i < 3; i++) {
                            seen += win.segment().get(ValueLayout.JAVA_LONG, 8L * i) == 7 + i ? 1 : 0;
                        }
                        w.send(new int[] {seen}, 0, 1, 0, 6);
                    }
                    w.barrier();
                }
            }
        });
    }

    /** A get after puts to the same bytes, with no flush between, reads what they wrote: the batch goes first. */
    @Test
    void aGetSeesThePutsBeforeIt() {
        batched(2, "8192", rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(64, 8)) {
                    if (rank == 0) {
                        long[] back = new long[2];
                        long[] old = new long[1];
                        win.lock(LockType.EXCLUSIVE, 1);
                        for (int i = 1; i <= 50; i++) {
                            win.put(new long[] {i, -i}, 2, Datatype.LONG, 1, 0);
                            win.get(back, 2, Datatype.LONG, 1, 0);
                            win.flush(1);
                            assertArrayEquals(new long[] {i, -i}, back, "get after put " + i);
                            win.accumulate(new long[] {10}, 1, Datatype.LONG, 1, 2, AccumulateOp.SUM);
                            win.fetchAndOp(new long[] {1}, old, Datatype.LONG, 1, 2, AccumulateOp.SUM);
                            win.flush(1);
                            assertEquals(11L * i - 1, old[0], "fetchAndOp after accumulate " + i);
                        }
                        win.unlock(1);
                    }
                    w.barrier();
                }
            }
        });
    }

    /** Every pair over the network, batches of {@code batch} bytes, reply tables of {@code replies} slots. */
    private static void gets(int n, String batch, String replies, ThreadLauncher.RankBody body) {
        BiConsumer<Integer, Map<String, String>> net = hosts(n, false);
        RankThreads.run(n, Duration.ofSeconds(120), (rank, env) -> {
            net.accept(rank, env);
            env.put("TUTTI_RMA_BATCH", batch);
            env.put("TUTTI_RMA_REPLIES", replies);
        }, body);
    }

    /**
     * Many gets in flight to one target, each right after a put to the same bytes, with no flush
     * between: packed in batches or each a record, with a reply table of 2 slots (full most of the
     * time: a get waits for the oldest reply) and of 64, and gets of 8 B and of 20 KB (above the
     * batch, a record each). After the flush every get holds what the put before it wrote, and the
     * requests of rget complete with their data. The gets to the other target interleave.
     */
    @ParameterizedTest(name = "batch={0} replies={1}")
    @org.junit.jupiter.params.provider.CsvSource({"8192,2", "8192,64", "0,2", "64,4"})
    void manyGetsInFlightReadThePutsBeforeThem(String batch, String replies) {
        int rounds = 400;
        int slots = 8;
        int big = 2560; // longs: 20 KB, more than a batch
        gets(3, batch, replies, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8L * (slots + big), 8)) {
                    if (rank == 2) {
                        win.segment().set(ValueLayout.JAVA_LONG, 0, 77);
                    }
                    w.barrier();
                    if (rank == 0) {
                        long[][] got = new long[rounds][1];
                        long[][] large = new long[rounds / 50][];
                        io.tutti.Request[] requests = new io.tutti.Request[rounds];
                        long[] other = new long[rounds];
                        MemorySegment others = MemorySegment.ofArray(other);
                        win.lockAll();
                        for (int i = 0; i < rounds; i++) {
                            win.put(new long[] {i}, 1, Datatype.LONG, 1, i % slots);
                            if (i % 3 == 0) {
                                requests[i] = win.rget(got[i], 1, Datatype.LONG, 1, i % slots);
                            } else {
                                win.get(got[i], 1, Datatype.LONG, 1, i % slots);
                            }
                            win.get(others.asSlice(8L * i, 8), 1, Datatype.LONG, 2, 0);
                            if (i % 50 == 0) {
                                long[] fill = new long[big];
                                java.util.Arrays.fill(fill, i);
                                win.put(fill, big, Datatype.LONG, 1, slots);
                                large[i / 50] = new long[big];
                                win.get(large[i / 50], big, Datatype.LONG, 1, slots);
                            }
                        }
                        for (int i = 0; i < rounds; i += 3) {
                            requests[i].waitFor();
                            assertEquals(i, got[i][0], "rget " + i + " once its request completed");
                        }
                        win.flush(1);
                        win.flush(2);
                        for (int i = 0; i < rounds; i++) {
                            assertEquals(i, got[i][0], "get " + i + " after the put to the same bytes");
                        }
                        for (int i = 0; i < rounds; i++) {
                            assertEquals(77, other[i], "get " + i + " from rank 2");
                        }
                        for (int k = 0; k < large.length; k++) {
                            for (int j = 0; j < big; j += 97) {
                                assertEquals(50L * k, large[k][j], "large get " + k + ", element " + j);
                            }
                        }
                        win.unlockAll();
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * Many fetching operations in one passive epoch with no flush between, each checked after one
     * flush against what it must see: a fetchAndOp right after an accumulate to the same element
     * sees it and every one before; chained compare-and-swaps each win and the ones between lose;
     * getAccumulates of three elements (every third an rgetAccumulate, its request waited for first)
     * and of 20 KB (above the batch: records of their own) read what the ones before them left; an
     * atomic get (NO_OP) reads the counter; fetchAndOps to the other target interleave, their results
     * in a confined arena's memory. Batched or not, reply tables of 2 slots (full most of the time) to 64.
     */
    @ParameterizedTest(name = "batch={0} replies={1}")
    @org.junit.jupiter.params.provider.CsvSource({"8192,2", "8192,64", "0,2", "64,4"})
    void manyFetchingOperationsInOneEpochSeeEverythingBeforeThem(String batch, String replies) {
        int rounds = 300;
        int big = 2560; // longs: 20 KB
        gets(3, batch, replies, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofConfined()) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(8L * (8 + big), 8)) {
                    if (rank == 0) {
                        long[] fetched = new long[rounds];
                        long[] won = new long[rounds];
                        long[] lost = new long[rounds];
                        long[] peeked = new long[rounds];
                        long[][] triple = new long[rounds][3];
                        long[][] large = new long[rounds / 100][];
                        io.tutti.Request[] requests = new io.tutti.Request[rounds];
                        MemorySegment other = arena.allocate(8L * rounds, 8);
                        long[] ones = new long[big];
                        java.util.Arrays.fill(ones, 1);
                        win.lockAll();
                        for (int i = 0; i < rounds; i++) {
                            win.accumulate(new long[] {10}, 1, Datatype.LONG, 1, 0, AccumulateOp.SUM);
                            win.fetchAndOp(new long[] {1}, slot(fetched, i), Datatype.LONG, 1, 0, AccumulateOp.SUM);
                            win.compareAndSwap(new long[] {i + 1}, new long[] {i}, slot(won, i), Datatype.LONG, 1, 1);
                            win.compareAndSwap(new long[] {-5}, new long[] {-1}, slot(lost, i), Datatype.LONG, 1, 1);
                            long[] next = {i + 1, i + 1, i + 1};
                            if (i % 3 == 0) {
                                requests[i] = win.rgetAccumulate(next, triple[i], 3, Datatype.LONG, 1, 2,
                                        AccumulateOp.REPLACE);
                            } else {
                                win.getAccumulate(next, triple[i], 3, Datatype.LONG, 1, 2, AccumulateOp.REPLACE);
                            }
                            win.getAccumulate(null, slot(peeked, i), 1, Datatype.LONG, 1, 0, AccumulateOp.NO_OP);
                            win.fetchAndOp(new long[] {1}, other.asSlice(8L * i, 8), Datatype.LONG, 2, 0,
                                    AccumulateOp.SUM);
                            if (i % 100 == 0) {
                                large[i / 100] = new long[big];
                                win.getAccumulate(ones, large[i / 100], big, Datatype.LONG, 1, 8, AccumulateOp.SUM);
                            }
                        }
                        for (int i = 0; i < rounds; i += 3) {
                            requests[i].waitFor();
                            assertArrayEquals(new long[] {i, i, i}, triple[i], "rgetAccumulate " + i + " once its"
                                    + " request completed");
                        }
                        win.flush(1);
                        win.flush(2);
                        for (int i = 0; i < rounds; i++) {
                            assertEquals(11L * i + 10, fetched[i], "fetchAndOp " + i + " after the accumulate before it");
                            assertEquals(i, won[i], "compareAndSwap " + i + " that wins");
                            assertEquals(i + 1, lost[i], "compareAndSwap " + i + " that loses");
                            assertArrayEquals(new long[] {i, i, i}, triple[i], "getAccumulate " + i);
                            assertEquals(11L * i + 11, peeked[i], "atomic get " + i);
                            assertEquals(i, other.getAtIndex(ValueLayout.JAVA_LONG, i), "fetchAndOp " + i + " to rank 2");
                        }
                        for (int k = 0; k < large.length; k++) {
                            for (int j = 0; j < big; j += 97) {
                                assertEquals(k, large[k][j], "large getAccumulate " + k + ", element " + j);
                            }
                        }
                        win.unlockAll();
                    }
                    w.barrier();
                }
            }
        });
    }

    /** Element {@code i} of {@code a}, as a one-element result buffer. */
    private static MemorySegment slot(long[] a, int i) {
        return MemorySegment.ofArray(a).asSlice(8L * i, 8);
    }

    /**
     * rgetAccumulate's request completes when its reply is in, not when the call returns: packed in
     * a batch it has not even left then; waiting for it or testing it sends the batch. Either way its
     * result then holds the old values.
     */
    @Test
    void rgetAccumulatesRequestCompletesWithItsReply() {
        batched(2, "8192", rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(64, 8)) {
                    if (rank == 0) {
                        win.lock(LockType.SHARED, 1);
                        win.put(new long[] {3, 4}, 2, Datatype.LONG, 1, 0);
                        long[] old = new long[2];
                        io.tutti.Request r = win.rgetAccumulate(new long[] {1, 1}, old, 2, Datatype.LONG, 1, 0,
                                AccumulateOp.SUM);
                        assertFalse(r.isDone(), "complete before its batch left");
                        r.waitFor();
                        assertTrue(r.isDone());
                        assertArrayEquals(new long[] {3, 4}, old);
                        long[] again = new long[2];
                        io.tutti.Request q = win.rgetAccumulate(new long[] {1, 1}, again, 2, Datatype.LONG, 1, 0,
                                AccumulateOp.SUM);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        while (!q.test()) {
                            assertTrue(System.nanoTime() < deadline, "rgetAccumulate's request never tested complete");
                            Thread.onSpinWait();
                        }
                        assertArrayEquals(new long[] {4, 5}, again);
                        assertTrue(win.rgetAccumulate(new long[0], new long[0], 0, Datatype.LONG, 1, 0,
                                AccumulateOp.SUM).isDone(), "no elements: complete at once");
                        win.unlock(1);
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * Two origins on the other host (batched) and one on the target's host (its shared memory)
     * accumulate into one location: atomic per element, none lost, the batches under the lock.
     */
    @Test
    void accumulatesFromSeveralOriginsToOneLocationLoseNothing() {
        int n = 4;
        int each = 3000;
        RankThreads.run(n, Duration.ofSeconds(120), (rank, env) -> {
            hosts(n, true).accept(rank, env);
            env.put("TUTTI_RMA_BATCH", "256");
        }, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(rank == 0 ? 8 : 0, 8)) {
                    win.lockAll();
                    if (rank != 0) {
                        long[] one = {rank};
                        for (int i = 0; i < each; i++) {
                            win.accumulate(one, 1, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                        }
                    }
                    win.unlockAll();
                    w.barrier();
                    if (rank == 0) {
                        assertEquals((1L + 2 + 3) * each, win.segment().get(ValueLayout.JAVA_LONG, 0));
                    }
                }
            }
        });
    }

    /**
     * A put the target cannot apply, in the middle of a batch (sent past the origin's checks), is
     * answered with its cause: the flush fails naming the target and the offset, the puts around it
     * apply, and the next flush is clean; a refused get or fetching operation fails the flush that
     * completes it, or the wait of its request, and the others around it get their data.
     */
    @Test
    void aRefusedOperationFailsTheFlushWithItsCause() {
        batched(2, "8192", rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                try (Window win = w.allocateWindow(64, 8)) {
                    if (rank == 0) {
                        RemoteAccess net = ((ShmWindow) win).network();
                        MemorySegment v = MemorySegment.ofArray(new long[] {42});
                        win.lock(LockType.EXCLUSIVE, 1);
                        win.put(new long[] {1}, 1, Datatype.LONG, 1, 0);
                        net.put(v, 0, 1, 4096, 8);
                        win.put(new long[] {3}, 1, Datatype.LONG, 1, 2);
                        TuttiException e = assertThrows(TuttiException.InvalidArgument.class, () -> win.flush(1));
                        assertTrue(e.getMessage().contains("flush on rank 0 to rank 1 failed")
                                && e.getMessage().contains("a put of 8 bytes at byte offset 4096")
                                && e.getMessage().contains("outside rank 1's window of 64 bytes"), e.getMessage());
                        win.flush(1);
                        long[] back = new long[3];
                        win.get(back, 3, Datatype.LONG, 1, 0);
                        // a refused get, packed between two others, fails the flush; the others get their data
                        long[] before = new long[1];
                        long[] after = new long[1];
                        win.get(before, 1, Datatype.LONG, 1, 2);
                        net.get(MemorySegment.ofArray(new long[1]), 0, 1, 64, 8);
                        win.get(after, 1, Datatype.LONG, 1, 0);
                        e = assertThrows(TuttiException.InvalidArgument.class, () -> win.flush(1));
                        assertTrue(e.getMessage().contains("flush on rank 0 to rank 1 failed")
                                && e.getMessage().contains("a get of 8 bytes at byte offset 64"), e.getMessage());
                        assertArrayEquals(new long[] {1, 0, 3}, back, "the puts around the refused one");
                        assertEquals(3, before[0], "the get before the refused one");
                        assertEquals(1, after[0], "the get after the refused one");
                        // a get too large for a batch, refused, fails its request's wait
                        net.get(MemorySegment.ofArray(new long[2048]), 0, 1, 8, 8 * 2048);
                        e = assertThrows(TuttiException.InvalidArgument.class,
                                () -> net.getCompletion(1).waitFor());
                        assertTrue(e.getMessage().contains("rget on rank 0 to rank 1 failed")
                                && e.getMessage().contains("a get of 16384 bytes at byte offset 8"), e.getMessage());
                        // a refused fetchAndOp, packed between two others, fails the flush; the others
                        // get their old values
                        long[] first = new long[1];
                        long[] last = new long[1];
                        win.fetchAndOp(new long[] {1}, first, Datatype.LONG, 1, 0, AccumulateOp.SUM);
                        net.accumulate(v, 0, MemorySegment.ofArray(new long[1]), 0, 1, Datatype.LONG, 1, 64,
                                AccumulateOp.SUM);
                        win.compareAndSwap(new long[] {9}, new long[] {2}, last, Datatype.LONG, 1, 0);
                        e = assertThrows(TuttiException.InvalidArgument.class, () -> win.flush(1));
                        assertTrue(e.getMessage().contains("flush on rank 0 to rank 1 failed")
                                && e.getMessage().contains("a getAccumulate of 8 bytes at byte offset 64"),
                                e.getMessage());
                        assertEquals(1, first[0], "the fetchAndOp before the refused one");
                        assertEquals(2, last[0], "the compareAndSwap after the refused one");
                        // a refused rgetAccumulate fails its request's wait
                        net.accumulate(v, 0, MemorySegment.ofArray(new long[1]), 0, 1, Datatype.LONG, 1, 64,
                                AccumulateOp.SUM);
                        e = assertThrows(TuttiException.InvalidArgument.class,
                                () -> net.getCompletion(1, "rgetAccumulate").waitFor());
                        assertTrue(e.getMessage().contains("rgetAccumulate on rank 0 to rank 1 failed")
                                && e.getMessage().contains("a getAccumulate of 8 bytes at byte offset 64"),
                                e.getMessage());
                        net.accumulate(v, 0, null, 0, 1, Datatype.LONG, 1, -8, AccumulateOp.SUM);
                        e = assertThrows(TuttiException.InvalidArgument.class, () -> win.unlock(1));
                        assertTrue(e.getMessage().contains("unlock on rank 0 to rank 1 failed")
                                && e.getMessage().contains("an accumulate of 8 bytes at byte offset -8"), e.getMessage());
                        // the epoch ended and the lock was released all the same
                        win.lock(LockType.SHARED, 1);
                        win.unlock(1);
                    }
                    w.barrier();
                }
            }
        });
    }

    /**
     * A dynamic window across hosts: each rank attaches a region and tells the others its address;
     * puts, gets, accumulates and fetches land in the target's region, over the network and, mixed,
     * over shared memory too; an address outside the target's regions, which an origin across the
     * network cannot check, fails the flush naming the rank and the address, and a detached region
     * takes nothing more.
     */
    @ParameterizedTest(name = "mixed={0}")
    @ValueSource(booleans = {false, true})
    void aDynamicWindowAcrossHostsReachesTheRegionsItsTargetsAttached(boolean mixed) {
        int n = 4;
        job(n, mixed, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                try (Window win = w.createDynamicWindow()) {
                    MemorySegment region = arena.allocate(8 * 16, 8);
                    win.attach(region);
                    long[] addresses = new long[n];
                    w.allgather(new long[] {region.address()}, addresses, 1, Datatype.LONG);
                    int next = (rank + 1) % n;
                    int prev = (rank + n - 1) % n;
                    win.fence();
                    // element i of the next rank's region: this rank's number times 100 plus i
                    long[] values = new long[16];
                    for (int i = 0; i < 16; i++) {
                        values[i] = rank * 100L + i;
                    }
                    win.put(values, 16, Datatype.LONG, next, addresses[next]);
                    win.fence();
                    for (int i = 0; i < 16; i++) {
                        assertEquals(prev * 100L + i, region.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
                    }
                    // the accumulates below may land as soon as their origin has left the fence: not before
                    // rank 0 has read its region (without this, rank 0 once saw 306 for 300)
                    w.barrier();
                    // every rank adds its rank + 1 to element 0 of rank 0's region and fetches element 1
                    long[] got = new long[16];
                    long[] old = new long[1];
                    win.lockAll();
                    win.accumulate(new long[] {rank + 1}, 1, Datatype.LONG, 0, addresses[0], AccumulateOp.SUM);
                    win.fetchAndOp(new long[] {1}, old, Datatype.LONG, 0, addresses[0] + 8, AccumulateOp.SUM);
                    win.get(got, 16, Datatype.LONG, next, addresses[next]);
                    win.flushAll();
                    assertTrue(old[0] >= (n - 1) * 100L + 1 && old[0] < (n - 1) * 100L + 1 + n, "fetched " + old[0]);
                    for (int i = next == 0 ? 2 : 0; i < 16; i++) {
                        // rank 0's first two elements change under the others' accumulates and fetches
                        assertEquals(rank * 100L + i, got[i], "element " + i + " got back");
                    }
                    win.unlockAll();
                    w.barrier();
                    if (rank == 0) {
                        long sum = 0;
                        for (int r = 0; r < n; r++) {
                            sum += r + 1;
                        }
                        assertEquals((n - 1) * 100L + sum, region.getAtIndex(ValueLayout.JAVA_LONG, 0), "the accumulates");
                        assertEquals((n - 1) * 100L + 1 + n, region.getAtIndex(ValueLayout.JAVA_LONG, 1), "the fetches");
                    }
                    w.barrier();
                    // past the end of the next rank's region: refused there, the flush says so
                    boolean across = !mixed || (rank < n / 2) != (next < n / 2);
                    win.lock(LockType.EXCLUSIVE, next);
                    if (across) {
                        win.put(new long[2], 2, Datatype.LONG, next, addresses[next] + 8 * 15);
                        TuttiException e = assertThrows(TuttiException.InvalidArgument.class, () -> win.flush(next));
                        assertTrue(e.getMessage().contains("to rank " + next + " failed")
                                && e.getMessage().contains("a put of 16 bytes at address 0x"
                                        + Long.toHexString(addresses[next] + 8 * 15))
                                && e.getMessage().contains("outside every region rank " + next + " has attached"),
                                e.getMessage());
                    } else {
                        TuttiException e = assertThrows(TuttiException.InvalidArgument.class,
                                () -> win.put(new long[2], 2, Datatype.LONG, next, addresses[next] + 8 * 15));
                        assertTrue(e.getMessage().contains("outside every region rank " + next), e.getMessage());
                    }
                    win.unlock(next);
                    w.barrier();
                    // once detached (and every rank knows it), a region takes nothing more
                    win.detach(region);
                    w.barrier();
                    if (across) {
                        win.lock(LockType.EXCLUSIVE, next);
                        win.put(new long[1], 1, Datatype.LONG, next, addresses[next]);
                        TuttiException e = assertThrows(TuttiException.InvalidArgument.class, () -> win.unlock(next));
                        assertTrue(e.getMessage().contains("(0 attached"), e.getMessage());
                    }
                    w.barrier();
                }
            }
        });
    }

    /** Errors name the ranks and offsets; kinds that need one host say so. */
    @Test
    void misuseAcrossHostsFailsClearly() {
        job(2, false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                TuttiException e = assertThrows(TuttiException.class, () -> w.allocateSharedWindow(64, 8));
                assertTrue(e.getMessage().contains("allocateSharedWindow needs every rank"), e.getMessage());
                try (Window win = w.allocateWindow(64 * (rank + 1), 8)) {
                    int other = 1 - rank;
                    win.fence();
                    e = assertThrows(TuttiException.InvalidArgument.class,
                            () -> win.put(new long[2], 2, Datatype.LONG, other, 8L * (other + 1) - 1));
                    assertTrue(e.getMessage().contains("to rank " + other) && e.getMessage().contains("window of "
                            + 64 * (other + 1) + " bytes"), e.getMessage());
                    // fetching operations too are refused in the call, before anything is sent
                    long past = 8L * (other + 1);
                    e = assertThrows(TuttiException.InvalidArgument.class, () -> win.fetchAndOp(new long[1],
                            new long[1], Datatype.LONG, other, past, AccumulateOp.SUM));
                    assertTrue(e.getMessage().contains("getAccumulate from rank " + rank + " to rank " + other)
                            && e.getMessage().contains("byte offset " + 8 * past), e.getMessage());
                    e = assertThrows(TuttiException.InvalidArgument.class, () -> win.compareAndSwap(new long[1],
                            new long[1], new long[1], Datatype.LONG, other, past));
                    assertTrue(e.getMessage().contains("compareAndSwap from rank " + rank), e.getMessage());
                    win.fence(Window.MODE_NOSUCCEED);
                }
            }
        });
    }
}
