package io.tutti.systest;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Windows between processes. {@code kinds}: a window over each rank's own Arena memory (reached
 * by the kernel's cross-process copy) and one Tutti allocates, with puts, gets, accumulates and a
 * fetchAndOp counter, checked, then "windows ok". {@code dead}: rank 1 dies holding the exclusive
 * lock of its window; rank 0, asking for it, must get PeerFailed, and prints "caught after N ms".
 * {@code deadholder [H W]}: rank H (2) takes the exclusive lock of rank 0's window, writes 2 there
 * and kills itself (SIGKILL) holding it; rank W (1) then asks for the same lock, and must get it
 * (rank 0 releases a dead holder's lock, as the rank waiting for it does on shared memory): it reads,
 * adds 1, unlocks, reads again under a shared lock, prints "granted after N ms, read 2 then 3" and
 * tells rank 0, which checks its window holds 3. Other ranks only meet them.
 * {@code deadflush}: rank 1 dies inside rank 0's passive epoch on it; rank 0's put and flush must
 * fail with PeerFailed, and it prints "caught after N ms". {@code deadget}: the same with gets in
 * flight, whose flush or request must fail; {@code deadfetch}: with fetchAndOps, compareAndSwaps and
 * getAccumulates in flight, whose flush or rgetAccumulate's request must fail.
 * {@code dynamic}: each rank attaches two regions of its own memory to a dynamic window and sends
 * their addresses; puts, gets and a fetchAndOp counter reach them through the kernel, checked;
 * an access past a region and a detach of memory not attached fail naming rank and address; an
 * access after the owner detached is refused; then "dynamic ok".
 * {@code large}: rank 0 puts to rank 1's window and gets back, from and into off-heap memory and a
 * heap array, at sizes around the eager limit and of several MiB and with a strided layout whose
 * blocks exceed it, each checked byte for byte; then "large ok".
 */
public final class WindowProcesses {
    private WindowProcesses() {
    }

    public static void main(String[] args) {
        String what = args[0];
        Tutti tutti = Tutti.init(args);
        Communicator w = tutti.world();
        switch (what) {
            case "kinds" -> kinds(w);
            case "dead" -> dead(w);
            case "dynamic" -> dynamic(w);
            case "deadflush" -> deadFlush(w);
            case "deadget" -> deadGet(w);
            case "deadfetch" -> deadFetch(w);
            case "large" -> large(w);
            case "deadholder" -> deadHolder(w, args.length > 1 ? Integer.parseInt(args[1]) : 2,
                    args.length > 2 ? Integer.parseInt(args[2]) : 1);
            default -> throw new IllegalArgumentException(what);
        }
        tutti.close();
    }

    private static void dynamic(Communicator w) {
        int n = w.size();
        int me = w.rank();
        int next = (me + 1) % n;
        try (Arena arena = Arena.ofConfined(); Window win = w.createDynamicWindow()) {
            MemorySegment data = arena.allocate(8L * n, 8);
            MemorySegment counter = arena.allocate(8, 8);
            win.attach(data);
            win.attach(counter);
            long[] at = new long[2 * n];
            w.allgather(new long[] {data.address(), counter.address()}, at, 2, Datatype.LONG);
            win.fence();
            win.put(new long[] {me * 10L + next}, 1, Datatype.LONG, next, at[2 * next] + 8L * me);
            win.fence();
            long[] got = new long[n];
            win.get(got, n, Datatype.LONG, next, at[2 * next]);
            win.fence(Window.MODE_NOSUCCEED);
            for (int r = 0; r < n; r++) {
                int owner = (r + 1) % n;
                check(data.getAtIndex(ValueLayout.JAVA_LONG, r) == (owner == me ? r * 10L + me : 0), "own element " + r);
                check(got[r] == ((r + 1) % n == next ? r * 10L + next : 0), "got element " + r + ": " + got[r]);
            }
            win.lockAll();
            long[] old = new long[1];
            for (int i = 0; i < 20; i++) {
                win.fetchAndOp(new long[] {1}, old, Datatype.LONG, 0, at[1], AccumulateOp.SUM);
            }
            try {
                win.put(new long[2], 2, Datatype.LONG, next, at[2 * next + 1]);
                check(false, "a put of 16 bytes into an 8-byte region was accepted");
            } catch (TuttiException.InvalidArgument e) {
                check(e.getMessage().contains("to rank " + next) && e.getMessage().contains("0x"
                        + Long.toHexString(at[2 * next + 1])), e.getMessage());
            }
            win.unlockAll();
            w.barrier();
            if (me == 0) {
                check(counter.get(ValueLayout.JAVA_LONG, 0) == 20L * n, "counter " + counter.get(ValueLayout.JAVA_LONG, 0));
            }
            try {
                win.detach(data.asSlice(8));
                check(false, "a detach of memory not attached was accepted");
            } catch (TuttiException.InvalidArgument e) {
                check(e.getMessage().contains("rank " + me), e.getMessage());
            }
            win.detach(data);
            w.barrier();
            win.lock(Window.LockType.SHARED, next);
            try {
                win.get(new long[1], 1, Datatype.LONG, next, at[2 * next]);
                check(false, "a get from a detached region was accepted");
            } catch (TuttiException.InvalidArgument e) {
                check(e.getMessage().contains("outside every region rank " + next), e.getMessage());
            }
            win.unlock(next);
            w.barrier();
            win.detach(counter);
        }
        System.out.println("dynamic ok");
    }

    private static void kinds(Communicator w) {
        int n = w.size();
        int me = w.rank();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment own = arena.allocate(8L * n, 8);
            for (Window win : new Window[] {w.createWindow(own, 8), w.allocateWindow(8L * n, 8)}) {
                win.fence();
                for (int t = 0; t < n; t++) {
                    win.put(new long[] {me * 10L + t}, 1, Datatype.LONG, t, me);
                }
                win.fence();
                long[] got = new long[n];
                win.get(got, n, Datatype.LONG, (me + 1) % n, 0);
                win.fence(Window.MODE_NOSUCCEED);
                for (int r = 0; r < n; r++) {
                    check(got[r] == r * 10L + (me + 1) % n, "get of element " + r + ": " + got[r]);
                    check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, r) == r * 10L + me, "own element " + r);
                }
                w.barrier(); // every rank has checked its memory before the counter's epoch writes it
                // a counter at rank 0, element 0: every rank adds 1 fifty times
                win.lockAll();
                long[] old = new long[1];
                for (int i = 0; i < 50; i++) {
                    win.fetchAndOp(new long[] {1}, old, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                }
                win.accumulate(new long[] {me}, 1, Datatype.LONG, 0, 1, AccumulateOp.MAX);
                win.unlockAll();
                w.barrier();
                if (me == 0) {
                    long first = 0L * 10; // rank 0's own put to element 0
                    check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, 0) == first + 50L * n, "counter "
                            + win.segment().getAtIndex(ValueLayout.JAVA_LONG, 0));
                    check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, 1) == Math.max(10L, n - 1), "max");
                }
                win.close();
            }
        }
        if (me == 0) {
            System.out.println("windows ok");
        }
    }

    private static void dead(Communicator w) {
        Window win = w.allocateWindow(8, 8);
        if (w.rank() == 1) {
            win.lock(Window.LockType.EXCLUSIVE, 1);
            Ranks.barrier(w);
            Runtime.getRuntime().halt(7);
        }
        Ranks.barrier(w);
        long t0 = System.nanoTime();
        try {
            win.lock(Window.LockType.EXCLUSIVE, 1);
            System.out.println("took the lock of a dead rank");
            System.exit(1);
        } catch (TuttiException.PeerFailed e) {
            System.out.printf("caught after %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
    }

    private static void deadHolder(Communicator w, int holder, int waiter) {
        Window win = w.allocateWindow(8, 8);
        if (w.rank() == holder) {
            win.lock(Window.LockType.EXCLUSIVE, 0);
            win.put(new long[] {2}, 1, Datatype.LONG, 0, 0);
            win.flush(0);
            Ranks.barrier(w);
            killSelf();
        }
        Ranks.barrier(w);
        byte[] token = new byte[1];
        if (w.rank() == 0) {
            w.recv(token, 0, 1, waiter, 5);
            long held = win.segment().get(ValueLayout.JAVA_LONG, 0);
            check(held == 3, "rank 0's window holds " + held + " after rank 1's epoch");
            System.out.println("window holds 3");
            return;
        }
        if (w.rank() != waiter) {
            return;
        }
        long t0 = System.nanoTime();
        long[] first = new long[1];
        long[] second = new long[1];
        try {
            win.lock(Window.LockType.EXCLUSIVE, 0);
            long waited = (System.nanoTime() - t0) / 1_000_000;
            win.get(first, 1, Datatype.LONG, 0, 0);
            win.flush(0);
            win.put(new long[] {first[0] + 1}, 1, Datatype.LONG, 0, 0);
            win.unlock(0);
            win.lock(Window.LockType.SHARED, 0);
            win.get(second, 1, Datatype.LONG, 0, 0);
            win.unlock(0);
            System.out.printf("granted after %d ms, read %d then %d%n", waited, first[0], second[0]);
        } catch (TuttiException.PeerFailed e) {
            System.out.printf("caught after %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
        w.send(token, 0, 1, 0, 5);
    }

    /** SIGKILL to this process, as a crash: no shutdown hook, nothing closed; a launcher reports it. */
    private static void killSelf() {
        try {
            new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            Thread.sleep(60_000);
        } catch (Exception e) {
            // fall through to halt
        }
        Runtime.getRuntime().halt(7);
    }

    private static void deadFlush(Communicator w) {
        Window win = w.allocateWindow(8, 8);
        win.lockAll();
        Ranks.barrier(w);
        if (w.rank() == 1) {
            Runtime.getRuntime().halt(7);
        }
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < 100_000; i++) {
                win.put(new long[] {i}, 1, Datatype.LONG, 1, 0);
                win.flush(1);
            }
            System.out.println("flushed to a dead rank");
            System.exit(1);
        } catch (TuttiException.PeerFailed e) {
            System.out.printf("caught after %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
    }

    /**
     * Rank 1 dies inside rank 0's passive epoch on it; rank 0 keeps many gets in flight to it, and
     * the flush or the request that waits for their replies must fail with PeerFailed naming rank 1.
     */
    private static void deadGet(Communicator w) {
        repliesOwedByTheDead(w, (win, into, k) -> win.get(into, 1, Datatype.LONG, 1, k % 8),
                (win, into) -> win.rget(into, 1, Datatype.LONG, 1, 0));
    }

    /** As {@link #deadGet} with fetchAndOps, compareAndSwaps and getAccumulates, and rgetAccumulate's request. */
    private static void deadFetch(Communicator w) {
        long[] one = {1};
        repliesOwedByTheDead(w, (win, into, k) -> {
            switch (k % 3) {
                case 0 -> win.fetchAndOp(one, into, Datatype.LONG, 1, k % 8, AccumulateOp.SUM);
                case 1 -> win.compareAndSwap(one, into, into, Datatype.LONG, 1, k % 8);
                default -> win.getAccumulate(one, into, 1, Datatype.LONG, 1, k % 8, AccumulateOp.MAX);
            }
        }, (win, into) -> win.rgetAccumulate(one, into, 1, Datatype.LONG, 1, 0, AccumulateOp.SUM));
    }

    /** One operation whose reply goes to {@code into}, the {@code k}th of a round. */
    private interface Issue {
        void issue(Window win, long[] into, int k);
    }

    /**
     * Rank 1 dies inside rank 0's passive epoch on it; rank 0 keeps 16 operations of {@code issue} in
     * flight to it, then a flush or the wait of {@code request}'s, which must fail with PeerFailed.
     */
    private static void repliesOwedByTheDead(Communicator w, Issue issue,
                                             java.util.function.BiFunction<Window, long[], io.tutti.Request> request) {
        Window win = w.allocateWindow(64, 8);
        win.lockAll();
        Ranks.barrier(w);
        if (w.rank() == 1) {
            Runtime.getRuntime().halt(7);
        }
        long t0 = System.nanoTime();
        long[][] into = new long[16][1];
        try {
            for (int i = 0; i < 100_000; i++) {
                for (int k = 0; k < into.length; k++) {
                    issue.issue(win, into[k], k);
                }
                if (i % 2 == 0) {
                    win.flush(1);
                } else {
                    request.apply(win, into[0]).waitFor();
                }
            }
            System.out.println("answered by a dead rank");
            System.exit(1);
        } catch (TuttiException.PeerFailed e) {
            System.out.printf("caught after %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
    }

    private static void large(Communicator w) {
        int eager = 32 * 1024;
        int[] sizes = {eager - 1, eager, eager + 1, 3 * eager + 5, (5 << 20) + 17};
        long windowBytes = (5 << 20) + 64;
        try (Arena arena = Arena.ofShared(); Window win = w.allocateWindow(windowBytes, 1)) {
            if (w.rank() == 0) {
                MemorySegment src = arena.allocate(windowBytes);
                MemorySegment back = arena.allocate(windowBytes);
                for (int round = 0; round < sizes.length; round++) {
                    int bytes = sizes[round];
                    for (int i = 0; i < bytes; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + round + (i >>> 11)));
                    }
                    win.lock(Window.LockType.EXCLUSIVE, 1);
                    win.put(src, bytes, Datatype.BYTE, 1, 3);
                    win.get(back, bytes, Datatype.BYTE, 1, 3);
                    byte[] heap = new byte[bytes];
                    win.get(heap, bytes, Datatype.BYTE, 1, 3);
                    win.unlock(1);
                    check(back.asSlice(0, bytes).mismatch(src.asSlice(0, bytes)) == -1, "get into off-heap memory of "
                            + bytes + " bytes differs at " + back.asSlice(0, bytes).mismatch(src.asSlice(0, bytes)));
                    check(MemorySegment.ofArray(heap).mismatch(src.asSlice(0, bytes)) == -1, "get into a heap array of "
                            + bytes + " bytes");
                }
                // blocks of 5000 longs (40000 bytes), 300 longs apart
                Window.Vector layout = new Window.Vector(6, 5000, 5300);
                for (long i = 0; i < layout.span(); i++) {
                    src.setAtIndex(ValueLayout.JAVA_LONG, i, 7 * i + 1);
                }
                back.fill((byte) 0);
                win.lock(Window.LockType.EXCLUSIVE, 1);
                win.put(src, Datatype.LONG, layout, 1, 0, layout);
                win.get(back, Datatype.LONG, layout, 1, 0, layout);
                win.unlock(1);
                for (long i = 0; i < layout.span(); i++) {
                    long expected = i % 5300 < 5000 ? 7 * i + 1 : 0;
                    check(back.getAtIndex(ValueLayout.JAVA_LONG, i) == expected, "strided element " + i);
                }
                System.out.println("large ok");
            }
            w.barrier();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("rank check failed: " + what);
        }
    }
}
