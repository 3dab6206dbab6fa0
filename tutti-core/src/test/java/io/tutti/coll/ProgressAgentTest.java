package io.tutti.coll;

import io.tutti.ReduceOp;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.p2p.P2pConfig;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Tutti;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** With the progress agent on, collectives advance while the application does not call Tutti at all. */
@Timeout(120)
class ProgressAgentTest {
    static Tutti init() {
        return Tutti.init(Config.defaults().with(P2pConfig.PROGRESS_THREAD, true));
    }

    @Test
    void nonblockingCollectivesCompleteWhileTheApplicationComputes() {
        HostCollectivesTest.job(3, rank -> {
            try (Tutti t = init()) {
                Communicator w = t.world();
                assertTrue(io.tutti.runtime.Rank.of(t).engine().hasProgressAgent());
                for (int round = 0; round < 20; round++) {
                    long[] in = new long[5000];
                    java.util.Arrays.fill(in, rank + round);
                    long[] out = new long[5000];
                    Request r = w.iallreduce(in, out, in.length, Datatype.LONG, ReduceOp.SUM);
                    Request g = w.iallgather(new long[] {rank}, new long[3], 1, Datatype.LONG);
                    // no Tutti call until both are done: only the agent can finish them
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    while (!(r.isDone() && g.isDone())) {
                        assertTrue(System.nanoTime() < deadline, "the agent did not complete the collectives");
                        Thread.onSpinWait();
                    }
                    r.waitFor();
                    g.waitFor();
                    assertEquals(3L * round + 3, out[4999], "round " + round);
                }
            }
        });
    }

    @Test
    void blockingAndPointToPointCallsShareTheEngineWithTheAgent() {
        HostCollectivesTest.job(4, rank -> {
            try (Tutti t = init()) {
                Communicator w = t.world();
                int[] max = new int[1];
                int[] mine = new int[1];
                Request p = w.allreduceInit(mine, max, 1, Datatype.INT, ReduceOp.MAX);
                int[] buf = new int[64];
                for (int i = 0; i < 2000; i++) {
                    mine[0] = rank + i;
                    p.start();
                    int peer = rank ^ 1;
                    w.sendrecv(new int[] {i, rank}, 0, 2, peer, 7, buf, 0, 2, peer, 7);
                    assertEquals(i, buf[0]);
                    assertEquals(peer, buf[1]);
                    p.waitFor();
                    assertEquals(3 + i, max[0], "start " + i);
                    w.barrier();
                }
                p.free();
            }
        });
    }
}
