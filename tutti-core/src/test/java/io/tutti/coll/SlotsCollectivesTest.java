package io.tutti.coll;

import io.tutti.ReduceOp;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Topology;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shared-memory slot collectives on real engines (ranks as threads, areas in the job directory). */
@Timeout(120)
class SlotsCollectivesTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void allreduceAndBarrierThroughSlots(int n) {
        HostCollectivesTest.job(n, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                w.setAlgorithm("allreduce", Selector.SLOTS);
                w.setAlgorithm("barrier", Selector.SLOTS);
                // a non-commutative operation comes out in rank order
                long[] out = new long[4];
                w.allreduce(HostCollectivesTest.matrix(rank), out, 4, Datatype.LONG, HostCollectivesTest.MATMUL);
                assertArrayEquals(HostCollectivesTest.product(n), out, "matrix product in rank order");
                // 0, 1, and more than one slot (510 longs per slot), separate and in place
                for (int count : new int[] {0, 1, 510, 511, 3000}) {
                    HostCollectivesTest.allreduceSums(w, count);
                    w.barrier();
                }
            }
        });
    }

    /** More calls in flight than an area has slots: writers wait for readers, nothing is overwritten. */
    @Test
    void moreOutstandingCallsThanSlots() {
        int calls = 3 * io.tutti.coll.slots.SlotAreaDescriptor.SLOTS + 1;
        HostCollectivesTest.job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                w.setAlgorithm("allreduce", Selector.SLOTS);
                w.setAlgorithm("barrier", Selector.SLOTS);
                for (int round = 0; round < 20; round++) {
                    int[][] in = new int[calls][];
                    int[][] out = new int[calls][];
                    Request[] rq = new Request[calls + 1];
                    for (int k = 0; k < calls; k++) {
                        // 600 ints: a call of one exchange; every fifth call 1100 ints, two exchanges
                        int count = k % 5 == 0 ? 1100 : 600;
                        in[k] = new int[count];
                        java.util.Arrays.fill(in[k], rank * 1000 + k + round);
                        out[k] = new int[count];
                        rq[k] = w.iallreduce(in[k], out[k], count, Datatype.INT, ReduceOp.SUM);
                    }
                    rq[calls] = w.ibarrier();
                    // completed in reverse order of their start
                    for (int k = calls; k >= 0; k--) {
                        rq[k].waitFor();
                    }
                    for (int k = 0; k < calls; k++) {
                        int expected = 6000 + 4 * (k + round);
                        for (int v : out[k]) {
                            assertEquals(expected, v, "round " + round + " call " + k);
                        }
                    }
                }
                long[] in = new long[2];
                long[] out = new long[2];
                Request p = w.allreduceInit(in, out, 2, Datatype.LONG, ReduceOp.MAX);
                for (int k = 0; k < 1000; k++) {
                    in[0] = k + rank;
                    in[1] = -rank;
                    p.start();
                    p.waitFor();
                    assertEquals(k + 3L, out[0], "start " + k);
                    assertEquals(0L, out[1], "start " + k);
                }
                p.free();
            }
        });
    }

    /**
     * Once found by the random-call property: a rank that finished its exchanges and closed removed
     * its area before a slower rank had mapped it, and that rank waited for the file for ever. Ranks
     * now map every area before they publish anything.
     */
    @Test
    void ranksThatLeaveAtOnceStrandNobody() {
        for (int job = 0; job < 30; job++) {
            int slow = job % 4;
            HostCollectivesTest.job(4, rank -> {
                try (Tutti t = Tutti.init(new String[0])) {
                    Communicator w = t.world();
                    w.setAlgorithm("barrier", Selector.SLOTS);
                    if (rank == slow) {
                        Thread.onSpinWait();
                        Thread.yield();
                    }
                    long[] sum = new long[1];
                    w.setAlgorithm("allreduce", Selector.SLOTS);
                    w.allreduce(new long[] {rank}, sum, 1, Datatype.LONG, ReduceOp.SUM);
                    assertEquals(6L, sum[0]);
                    w.barrier();
                }
            });
        }
    }

    @Test
    void ranksInDifferentCallsAreToldSo() {
        HostCollectivesTest.job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                w.setAlgorithm("allreduce", Selector.SLOTS);
                int count = rank + 1;
                io.tutti.TuttiException.InvalidArgument e = assertThrows(io.tutti.TuttiException.InvalidArgument.class,
                        () -> w.allreduce(new long[count], new long[count], count, Datatype.LONG, ReduceOp.SUM));
                assertTrue(e.getMessage().contains("contributes " + 8 * (2 - rank) + " bytes"), e.getMessage());
            }
        });
    }

    @Test
    void selectorUsesSlotsOnlyWhereTheyRunAndPay() {
        Selector a = new Selector(Map.of());
        CollectiveCall small = new CollectiveCall(Kind.ALLREDUCE, 8, 8, 0, false, true, null, null, null, null, false);
        CollectiveCall barrier = new CollectiveCall(Kind.BARRIER, 0, 1, 0, false, true, null, null, null, null, false);
        CollectiveCall large = new CollectiveCall(Kind.ALLREDUCE, 1 << 20, 8, 0, false, true, null, null, null, null,
                false);
        Topology shared = new Topology(new int[4], new int[4], true, true);
        Topology sharedWithCores = new Topology(new int[4], new int[4], false, true);
        Topology network = new Topology(new int[4], new int[4], true, false);
        assertEquals(Selector.SLOTS, a.choose(small, 4, shared, null));
        assertEquals(Selector.SLOTS, a.choose(barrier, 4, shared, null));
        assertEquals(Selector.SLOTS, a.choose(barrier, 4, sharedWithCores, null));
        assertEquals("recursive-doubling", a.choose(small, 4, sharedWithCores, null));
        assertNotEquals(Selector.SLOTS, a.choose(large, 4, shared, null));
        assertNotEquals(Selector.SLOTS, a.choose(small, 4, network, null));
        assertNotEquals(Selector.SLOTS, a.choose(barrier, 4, network, null));
    }
}
