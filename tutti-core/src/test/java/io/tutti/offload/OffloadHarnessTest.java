package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The harness' own checks, and persistent use: back-to-back runs of one program with counters wrapping. */
class OffloadHarnessTest {
    /** A 4-rank butterfly barrier with linear buckets (+1 each): round 2 can fire on round 2's arrival alone. */
    static OffloadProgram[] linearButterfly(long completeAt) {
        OffloadProgram[] p = new OffloadProgram[4];
        for (int r = 0; r < 4; r++) {
            p[r] = new OffloadProgram.Builder("barrier/linear", "broken", r, 4).arrivals(2)
                    .remoteAdd(0, 0, r ^ 1, 1, 0)
                    .remoteAdd(1, 1, r ^ 2, 1, 1)
                    .complete(completeAt, 2)
                    .counterAdd(completeAt, 2, -completeAt)
                    .build();
        }
        return p;
    }

    @Test
    @Timeout(30)
    void earlyFiringIsCaught() {
        int caught = 0;
        for (long seed = 0; seed < 200; seed++) {
            try {
                new OffloadHarness(linearButterfly(2), seed).run();
            } catch (OffloadHarness.Failure f) {
                assertTrue(f.getMessage().contains("fired early"), f.getMessage());
                caught++;
            }
        }
        assertTrue(caught > 0, "some order delivers round 2's add before round 1's");
        // the 2^n program for the same barrier survives the same orders
        for (long seed = 0; seed < 200; seed++) {
            new OffloadHarness(OffloadPlans.programs(OffloadPlans.Coll.BARRIER, 4, 0, 0, null, null), seed).run();
        }
    }

    @Test
    @Timeout(30)
    void neverFiringIsCaught() {
        // two ranks signal each other once, but wait for a level of 2
        OffloadProgram[] p = new OffloadProgram[2];
        for (int r = 0; r < 2; r++) {
            p[r] = new OffloadProgram.Builder("pair", "broken", r, 2).arrivals(1).remoteAdd(0, 0, 1 - r, 1, 0)
                    .complete(2, 1).counterAdd(2, 1, -2).build();
        }
        var f = assertThrows(OffloadHarness.Failure.class, () -> new OffloadHarness(p, 1).run());
        assertTrue(f.getMessage().contains("never fires"), f.getMessage());
        assertTrue(f.getMessage().contains("COMPLETE, Th 2"), f.getMessage());
    }

    /** 10^4 back-to-back barriers: each rank restarts as soon as its own run completes. */
    @Test
    @Timeout(120)
    void tenThousandBarriers() {
        for (int n : new int[] {8, 6}) {
            OffloadHarness h = new OffloadHarness(OffloadPlans.programs(OffloadPlans.Coll.BARRIER, n, 0, 0, null, null),
                    n);
            h.run(10_000, new BarrierOrderObserver(n));
            for (int r = 0; r < n; r++) {
                assertEquals(10_000, h.engine(r).completedRuns());
                assertEquals(0, h.counter(r, 0).level(), "wrapped to 0");
            }
            assertTrue(h.heldBack() > 0, "some run's packets arrived before their target restarted");
        }
    }

    /** Back-to-back data collectives, with new inputs at every start, checked at every completion. */
    @Test
    @Timeout(120)
    void backToBackWithData() {
        int runs = 2_000;
        // allreduce and reduce: sum of (rank * 1000 + run) over the ranks
        for (boolean all : new boolean[] {true, false}) {
            int n = 7;
            OffloadHarness h = new OffloadHarness(OffloadPlans.programs(all ? OffloadPlans.Coll.ALLREDUCE
                    : OffloadPlans.Coll.REDUCE, n, 64, 2, OffloadAlu.Op.ADD, OffloadAlu.Type.INT64), 11);
            h.run(runs, new OffloadHarness.Observer() {
                @Override
                public void started(int rank, int run) {
                    MemorySegment in = h.memory(rank, OffloadProgram.SEND_BUFFER);
                    for (int i = 0; i < 8; i++) {
                        in.setAtIndex(ValueLayout.JAVA_LONG, i, rank * 1000L + run + i);
                    }
                }

                @Override
                public void completed(int rank, int run) {
                    if (all || rank == 2) {
                        MemorySegment out = h.memory(rank, OffloadProgram.RECV_BUFFER);
                        for (int i = 0; i < 8; i++) {
                            assertEquals(1000L * n * (n - 1) / 2 + (long) n * (run + i),
                                    out.getAtIndex(ValueLayout.JAVA_LONG, i), "run " + run + " rank " + rank);
                        }
                    }
                }
            });
            for (int r = 0; r < n; r++) {
                assertEquals(0, h.counter(r, 0).level());
            }
        }
        // allgather: block of rank r in run k is (r, k)
        int n = 6;
        OffloadHarness g = new OffloadHarness(OffloadPlans.programs(OffloadPlans.Coll.ALLGATHER, n, 8, 0, null, null), 5);
        g.run(runs, new OffloadHarness.Observer() {
            @Override
            public void started(int rank, int run) {
                g.memory(rank, OffloadProgram.SEND_BUFFER).set(ValueLayout.JAVA_LONG, 0, rank * 100_000L + run);
            }

            @Override
            public void completed(int rank, int run) {
                for (int r = 0; r < n; r++) {
                    assertEquals(r * 100_000L + run, g.memory(rank, OffloadProgram.RECV_BUFFER)
                            .getAtIndex(ValueLayout.JAVA_LONG, r), "run " + run + " rank " + rank);
                }
            }
        });
        // bcast: the root's data changes every run
        OffloadHarness b = new OffloadHarness(OffloadPlans.programs(OffloadPlans.Coll.BCAST, 9, 8, 3, null, null), 7);
        b.run(runs, new OffloadHarness.Observer() {
            @Override
            public void started(int rank, int run) {
                if (rank == 3) {
                    b.memory(rank, OffloadProgram.RECV_BUFFER).set(ValueLayout.JAVA_LONG, 0, 77L * run);
                }
            }

            @Override
            public void completed(int rank, int run) {
                assertEquals(77L * run, b.memory(rank, OffloadProgram.RECV_BUFFER).get(ValueLayout.JAVA_LONG, 0));
            }
        });
    }

    /** Firing and delivering allocate nothing once the packet pool has grown. */
    @Test
    @Timeout(60)
    void steadyStateAllocatesNothing() {
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        OffloadHarness h = new OffloadHarness(OffloadPlans.programs(OffloadPlans.Coll.ALLREDUCE, 8, 200, 0,
                OffloadAlu.Op.ADD, OffloadAlu.Type.FLOAT64), 3);
        h.run(2_000, null);
        long before = bean.getCurrentThreadAllocatedBytes();
        h.run(10_000, null);
        long bytes = bean.getCurrentThreadAllocatedBytes() - before;
        assertTrue(bytes < 100_000, bytes + " bytes allocated over 10^4 runs of " + h.packets() / 12_000 + " packets");
    }
}
