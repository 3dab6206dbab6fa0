package io.tutti.systest;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.Window;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One-sided communication between hosts: a distributed counter (every rank draws tickets with
 * fetchAndOp from rank 0, each ticket drawn once: half read after a flush each, half in flight at
 * once and read after one flush) and a 1-D halo exchange (each rank puts its edge
 * cells into its neighbours' halo windows between fences), compared bit for bit with the same
 * stencil computed by one rank alone; and gets in flight (every rank puts into its own slots of
 * its peers' windows and gets each back right after, with no flush between, and gets a large part
 * of every window, all completed by one flush); and a dynamic window (each rank attaches a region
 * and puts a block larger than a batch into the next rank's between fences, then gets it back).
 * Prints "rank R of N: counter ok, halo ok, gets ok, dynamic ok".
 */
public final class WindowsAcrossHosts {
    private static final int TICKETS = 200;
    private static final int CELLS = 500;
    private static final int STEPS = 30;

    private WindowsAcrossHosts() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            counter(w);
            halo(w);
            gets(w);
            dynamic(w);
            System.out.println("rank " + w.rank() + " of " + w.size() + ": counter ok, halo ok, gets ok, dynamic ok");
        }
    }

    private static void counter(Communicator w) {
        int n = w.size();
        try (Window win = w.allocateWindow(w.rank() == 0 ? 8 : 0, 8)) {
            long[] one = {1};
            long[] ticket = new long[1];
            long[] mine = new long[TICKETS];
            win.lockAll();
            // half drawn one at a time, each read after its flush; half in flight at once, into
            // their own slots, all read after one flush
            for (int i = 0; i < TICKETS / 2; i++) {
                win.fetchAndOp(one, ticket, Datatype.LONG, 0, 0, AccumulateOp.SUM);
                win.flush(0);
                mine[i] = ticket[0];
            }
            for (int i = TICKETS / 2; i < TICKETS; i++) {
                win.fetchAndOp(one, MemorySegment.ofArray(mine).asSlice(8L * i, 8), Datatype.LONG, 0, 0,
                        AccumulateOp.SUM);
            }
            win.flush(0);
            for (int i = 1; i < TICKETS; i++) {
                check(mine[i] > mine[i - 1], "tickets of one rank grow");
            }
            win.unlockAll();
            long[] all = new long[TICKETS * n];
            w.allgather(mine, all, TICKETS, Datatype.LONG);
            boolean[] seen = new boolean[TICKETS * n];
            for (long t : all) {
                check(t >= 0 && t < seen.length && !seen[(int) t], "ticket " + t + " drawn once");
                seen[(int) t] = true;
            }
        }
    }

    private static void halo(Communicator w) {
        int n = w.size();
        int me = w.rank();
        double[] a = new double[CELLS + 2];
        for (int i = 1; i <= CELLS; i++) {
            a[i] = start(me * CELLS + i - 1);
        }
        double[] next = new double[CELLS + 2];
        // element 0: the left halo, written by the left neighbour; element 1: the right one
        try (Window win = w.allocateWindow(16, 8)) {
            win.fence();
            for (int s = 0; s < STEPS; s++) {
                if (me > 0) {
                    win.put(new double[] {a[1]}, 1, Datatype.DOUBLE, me - 1, 1);
                }
                if (me < n - 1) {
                    win.put(new double[] {a[CELLS]}, 1, Datatype.DOUBLE, me + 1, 0);
                }
                win.fence();
                a[0] = me == 0 ? 0 : win.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0);
                a[CELLS + 1] = me == n - 1 ? 0 : win.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 1);
                step(a, next, CELLS);
                double[] t = a;
                a = next;
                next = t;
                // nobody puts the next step's edges before every rank has read this step's halos
                win.fence();
            }
            win.fence(Window.MODE_NOSUCCEED);
        }
        double[] whole = new double[n * CELLS + 2];
        for (int i = 1; i <= n * CELLS; i++) {
            whole[i] = start(i - 1);
        }
        double[] wholeNext = new double[whole.length];
        for (int s = 0; s < STEPS; s++) {
            step(whole, wholeNext, n * CELLS);
            double[] t = whole;
            whole = wholeNext;
            wholeNext = t;
        }
        for (int i = 1; i <= CELLS; i++) {
            check(Double.compare(a[i], whole[me * CELLS + i]) == 0, "cell " + (me * CELLS + i - 1) + " after "
                    + STEPS + " steps: " + a[i] + ", alone " + whole[me * CELLS + i]);
        }
    }

    private static void gets(Communicator w) {
        int n = w.size();
        int me = w.rank();
        int slots = 64;
        int big = 4096; // longs: 32 KiB, more than a batch
        int rounds = 300;
        try (Window win = w.allocateWindow(8L * (slots * n + big), 8)) {
            for (int i = 0; i < big; i++) {
                win.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, (long) slots * n + i,
                        me * 1_000_000L + i);
            }
            w.barrier();
            long[][] got = new long[rounds][1];
            long[][] large = new long[n][big];
            win.lockAll();
            for (int i = 0; i < rounds; i++) {
                int t = (me + 1 + i % Math.max(1, n - 1)) % n;
                long at = (long) me * slots + i % slots;
                win.put(new long[] {10L * i + me}, 1, Datatype.LONG, t, at);
                win.get(got[i], 1, Datatype.LONG, t, at);
            }
            for (int t = 0; t < n; t++) {
                win.get(large[t], big, Datatype.LONG, t, (long) slots * n);
            }
            win.flushAll();
            for (int i = 0; i < rounds; i++) {
                check(got[i][0] == 10L * i + me, "get " + i + " read " + got[i][0] + ", the put before it wrote "
                        + (10L * i + me));
            }
            for (int t = 0; t < n; t++) {
                for (int i = 0; i < big; i++) {
                    check(large[t][i] == t * 1_000_000L + i, "element " + i + " of rank " + t + "'s window");
                }
            }
            win.unlockAll();
            // nobody frees the window while a peer still reads it
            w.barrier();
        }
    }

    private static void dynamic(Communicator w) {
        int n = w.size();
        int me = w.rank();
        int longs = 4096; // 32 KiB: more than a batch, so frames of a large put land in the region
        try (Arena arena = Arena.ofShared(); Window win = w.createDynamicWindow()) {
            MemorySegment region = arena.allocate(8L * longs, 8);
            win.attach(region);
            long[] addresses = new long[n];
            w.allgather(new long[] {region.address()}, addresses, 1, Datatype.LONG);
            int next = (me + 1) % n;
            int prev = (me + n - 1) % n;
            long[] block = new long[longs];
            for (int i = 0; i < longs; i++) {
                block[i] = me * 1_000_000L + i;
            }
            win.fence();
            win.put(block, longs, Datatype.LONG, next, addresses[next]);
            win.fence();
            for (int i = 0; i < longs; i++) {
                check(region.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i) == prev * 1_000_000L + i,
                        "element " + i + " of the dynamic region, put by rank " + prev);
            }
            long[] back = new long[longs];
            win.lockAll();
            win.get(back, longs, Datatype.LONG, next, addresses[next]);
            win.flushAll();
            win.unlockAll();
            check(java.util.Arrays.equals(back, block), "the block got back from rank " + next);
            // nobody detaches while a peer still reads
            w.barrier();
            win.detach(region);
        }
    }

    private static double start(int cell) {
        return (cell * 37 % 101) / 7.0;
    }

    /** One stencil step over cells 1..cells of {@code a} (0 and cells + 1 are the halos) into {@code next}. */
    private static void step(double[] a, double[] next, int cells) {
        for (int i = 1; i <= cells; i++) {
            next[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("check failed: " + what);
        }
    }
}
