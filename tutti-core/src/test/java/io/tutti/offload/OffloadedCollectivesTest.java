package io.tutti.offload;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Offload;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.ReduceOp;
import io.tutti.bootstrap.ShmFiles;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Offloaded persistent collectives between real ranks (threads), over the engine's PUT and counter
 * packets: results equal the host collectives', started again and again with new data, over shared
 * memory and the network path, driven by waits or by the progress agent.
 */
@Timeout(120)
class OffloadedCollectivesTest {

    private static void job(int n, String path, boolean agent, ThreadLauncher.RankBody body) {
        job(n, path, agent, "recursive-doubling", "auto", body);
    }

    private static void job(int n, String path, boolean agent, String allreduce, String barrier,
                            ThreadLauncher.RankBody body) {
        BiConsumer<Integer, Map<String, String>> env = (r, e) -> {
            e.put("TUTTI_OFFLOAD_ALLREDUCE", allreduce);
            e.put("TUTTI_OFFLOAD_BARRIER", barrier);
            if (path.equals("net")) {
                e.put("TUTTI_TRANSPORT", "net");
                e.put("TUTTI_NET_PROVIDER", "inproc");
            }
            e.put("TUTTI_PROGRESS_THREAD", Boolean.toString(agent));
        };
        String jobId = "f" + Long.toHexString(System.nanoTime());
        ThreadLauncher.Outcome o = ThreadLauncher.run(jobId, ShmFiles.defaultRoot().resolve("tutti-" + jobId), n,
                Duration.ofSeconds(100), body, env);
        ThreadLauncher.RankResult f = o.firstFailure();
        if (!o.succeeded()) {
            AssertionError e = new AssertionError(f != null ? "rank " + f.rank() + " failed" : "timed out");
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1}, agent {2}, allreduce {3}, barrier {4}")
    @CsvSource({"2, shm, false, recursive-doubling, butterfly", "3, shm, true, nic-tree, auto",
        "4, net, false, nic-tree, auto", "5, shm, false, recursive-doubling, linear",
        "6, net, true, recursive-doubling, linear", "7, shm, false, nic-tree, butterfly", "4, shm, false, linear, auto",
        "5, shm, true, auto, auto", "3, net, false, linear, butterfly", "6, shm, false, auto, linear"})
    void offloadedResultsEqualTheHostsRunAfterRun(int n, String path, boolean agent, String allreduceScheme,
                                                  String barrierScheme) {
        job(n, path, agent, allreduceScheme, barrierScheme, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                Random random = new Random(rank * 7919L + n);
                int count = 13; // several 48-byte descriptors of doubles, the last one partial
                double[] in = new double[count];
                double[] nic = new double[count];
                double[] host = new double[count];
                long[] bcast = new long[9];
                int[] mine = new int[5];
                int[] all = new int[5 * n];
                int[] allHost = new int[5 * n];
                Request barrier = w.barrierInit(Offload.NIC);
                Request allreduce = w.allreduceInit(in, nic, count, Datatype.DOUBLE, ReduceOp.SUM, Offload.NIC);
                Request reduce = w.reduceInit(in, host, count, Datatype.DOUBLE, ReduceOp.MAX, n - 1, Offload.NIC);
                Request bc = w.bcastInit(bcast, bcast.length, Datatype.LONG, 1 % n, Offload.NIC);
                Request ag = w.allgatherInit(mine, all, mine.length, Datatype.INT, Offload.NIC);
                boolean shm = path.equals("shm");
                String barrierName = ((OffloadedCollective) barrier).program().name();
                String allreduceName = ((OffloadedCollective) allreduce).program().name();
                // over shared memory the collectives in lockstep write into the peers' areas; the others,
                // and everything over the network, travel as packets
                for (Request r : new Request[] {barrier, allreduce, ag}) {
                    assertEquals(shm, ((OffloadedCollective) r).shared(), ((OffloadedCollective) r).program().name());
                }
                OffloadProgram ar = ((OffloadedCollective) allreduce).program();
                for (int peer = 0; peer < n; peer++) {
                    // a descriptor travels as a packet, and so must the counter adds to the same peer,
                    // which may count it as landed; the barrier's signals and the linear allreduce's
                    // vectors go straight into the peers' areas
                    for (DeferredWork e : ar.list()) {
                        if (e.peer() == peer && (e.op() == OffloadProgram.NIC_REDUCE
                                || e.op() == OffloadProgram.TRIGGERED_BCAST)) {
                            assertFalse(((OffloadedCollective) allreduce).writesInto(peer), "descriptors to " + peer);
                        }
                    }
                    if (shm && peer != rank) {
                        if (barrierName.equals("barrier/linear")) {
                            assertTrue(((OffloadedCollective) barrier).writesInto(peer), "barrier to " + peer);
                        }
                        if (allreduceName.equals("allreduce/linear")) {
                            assertTrue(((OffloadedCollective) allreduce).writesInto(peer), "allreduce to " + peer);
                        }
                    }
                }
                assertFalse(((OffloadedCollective) reduce).shared());
                assertFalse(((OffloadedCollective) bc).shared());
                assertEquals(barrierScheme.equals("linear") || barrierScheme.equals("auto") && shm ? "barrier/linear"
                        : "barrier/butterfly", barrierName);
                if (allreduceScheme.equals("linear") || allreduceScheme.equals("auto") && shm) {
                    assertEquals("allreduce/linear", allreduceName);
                } else if (allreduceScheme.equals("auto")) {
                    assertTrue(allreduceName.startsWith("allreduce/recursive-doubling"), allreduceName);
                }
                double[] reference = new double[count];
                for (int run = 0; run < 60; run++) {
                    for (int i = 0; i < count; i++) {
                        in[i] = random.nextInt(1000) - 500;
                    }
                    barrier.start();
                    barrier.waitFor();
                    allreduce.start();
                    allreduce.waitFor();
                    w.allreduce(in, reference, count, Datatype.DOUBLE, ReduceOp.SUM);
                    assertArrayEquals(reference, nic, "allreduce, run " + run);

                    reduce.start();
                    reduce.waitFor();
                    w.reduce(in, reference, count, Datatype.DOUBLE, ReduceOp.MAX, n - 1);
                    if (rank == n - 1) {
                        assertArrayEquals(reference, host, "reduce, run " + run);
                    }

                    if (rank == 1 % n) {
                        for (int i = 0; i < bcast.length; i++) {
                            bcast[i] = run * 1000L + i;
                        }
                    }
                    bc.start();
                    bc.waitFor();
                    for (int i = 0; i < bcast.length; i++) {
                        assertEquals(run * 1000L + i, bcast[i], "bcast, run " + run);
                    }

                    for (int i = 0; i < mine.length; i++) {
                        mine[i] = rank * 100 + run + i;
                    }
                    ag.start();
                    ag.waitFor();
                    w.allgather(mine, allHost, mine.length, Datatype.INT);
                    assertArrayEquals(allHost, all, "allgather, run " + run);
                }
                for (Request r : new Request[] {barrier, allreduce, reduce, bc, ag}) {
                    r.free();
                }
            }
        });
    }

    @Test
    void theAgentLeavesBuffersConfinedToTheirOwnerToTheOwner() {
        job(3, "shm", true, rank -> {
            try (Tutti t = Tutti.init(new String[0]);
                 java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                Communicator w = t.world();
                java.lang.foreign.MemorySegment in = arena.allocate(8L * 7, 8);
                java.lang.foreign.MemorySegment out = arena.allocate(8L * 7, 8);
                Request r = w.allreduceInit(in, out, 7, Datatype.LONG, ReduceOp.SUM, Offload.NIC);
                for (int run = 0; run < 200; run++) {
                    for (int i = 0; i < 7; i++) {
                        in.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i, (long) run * rank + i);
                    }
                    r.start();
                    Thread.onSpinWait(); // the agent runs while the owner is elsewhere
                    r.waitFor();
                    for (int i = 0; i < 7; i++) {
                        assertEquals((long) run * 3 + 3L * i, out.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i),
                                "run " + run + ", element " + i);
                    }
                }
                r.free();
            }
        });
    }

    @Test
    void aThousandBackToBackBarriersReuseOneCounter() {
        job(4, "shm", false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Request barrier = t.world().barrierInit(Offload.NIC);
                OffloadProgram p = ((OffloadedCollective) barrier).program();
                assertEquals(1, p.counters(), "an offloaded barrier needs one counter");
                for (int i = 0; i < 1000; i++) {
                    barrier.start();
                    barrier.waitFor();
                }
                barrier.free();
            }
        });
    }

    /**
     * Starting and waiting for an offloaded barrier or 8-byte allreduce allocates nothing once warm,
     * on every rank, also when packets of a peer one run ahead are held. The allowance covers a
     * one-off growth of a pool (about 5 KB seen); one small object per start would be 16 B x 4000.
     */
    @Test
    void backToBackStartsAllocateNothing() {
        var bean = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        job(2, "shm", false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Request barrier = t.world().barrierInit(Offload.NIC);
                long[] in = {rank};
                long[] out = new long[1];
                Request sum = t.world().allreduceInit(in, out, 1, Datatype.LONG, ReduceOp.SUM, Offload.NIC);
                for (Request r : new Request[] {barrier, sum}) {
                    for (int i = 0; i < 4_000; i++) {
                        r.start();
                        r.waitFor(null);
                    }
                    long before = bean.getCurrentThreadAllocatedBytes();
                    for (int i = 0; i < 4_000; i++) {
                        r.start();
                        r.waitFor(null);
                    }
                    long bytes = bean.getCurrentThreadAllocatedBytes() - before;
                    assertTrue(bytes < 16_000, "rank " + rank + ": " + bytes + " bytes allocated by 4000 starts of "
                            + ((OffloadedCollective) r).program().name());
                }
                assertEquals(1, out[0]);
                barrier.free();
                sum.free();
            }
        });
    }

    @Test
    void whatTheAluLacksIsRefusedWithAClearMessage() {
        job(2, "shm", false, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                double[] a = new double[4];
                TuttiException e = assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.allreduceInit(a, new double[4], 4, Datatype.DOUBLE, ReduceOp.PROD, Offload.NIC));
                assertTrue(e.getMessage().contains("host path"), e.getMessage());
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.allreduceInit(new byte[4], new byte[4], 4, Datatype.BYTE, ReduceOp.SUM, Offload.NIC));
                assertThrows(TuttiException.InvalidArgument.class,
                        () -> w.allreduceInit(Communicator.IN_PLACE, a, 4, Datatype.DOUBLE, ReduceOp.SUM, Offload.NIC));
            }
        });
    }
}
