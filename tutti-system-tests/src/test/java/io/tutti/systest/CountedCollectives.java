package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Offload;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Tutti;
import java.nio.file.Path;

/**
 * Ranks that run a known set of collectives, then hold still while a test reads their counters.
 * Arguments: the marker directory. Each rank runs {@link #ALLREDUCES} allreduces and {@link #BARRIERS}
 * barriers with the algorithms the job's settings force, {@link #BCASTS} broadcasts with the chain
 * algorithm set on the communicator, and {@link #RUNS} runs of an offloaded barrier; then writes
 * {@code rank-R.done} and waits until {@code go} appears, at most 120 s, calling only
 * {@code Tutti.progress()}.
 */
public final class CountedCollectives {
    static final int ALLREDUCES = 7;
    static final int BARRIERS = 3;
    static final int BCASTS = 2;
    static final int RUNS = 4;

    private CountedCollectives() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int[] out = new int[1];
            for (int i = 0; i < ALLREDUCES; i++) {
                w.allreduce(new int[] {i}, out, ReduceOp.SUM);
            }
            for (int i = 0; i < BARRIERS; i++) {
                w.barrier();
            }
            w.setAlgorithm("bcast", "chain");
            for (int i = 0; i < BCASTS; i++) {
                w.bcast(new long[4], 4, Datatype.LONG, 0);
            }
            Request offloaded = w.barrierInit(Offload.NIC);
            for (int i = 0; i < RUNS; i++) {
                offloaded.start();
                offloaded.waitFor();
            }
            Ranks.holdUntilGo(dir, w.rank(), tutti);
            offloaded.free();
        }
    }
}
