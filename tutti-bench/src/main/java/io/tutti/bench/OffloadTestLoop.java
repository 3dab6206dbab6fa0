package io.tutti.bench;

import io.tutti.Communicator;
import io.tutti.Offload;
import io.tutti.Request;
import io.tutti.Tutti;

/**
 * Whether an offloaded barrier advances while the application does something else: rounds of
 * 200 000 runs of an offloaded persistent barrier, each (0) started and waited for, (1) started,
 * tested once and waited for, or (2) started, followed by 300 ns of the application's own work,
 * tested and waited for. Rank 0 prints the time per run and how many tests found the run complete.
 *
 * <pre>
 * ./tutti run -n 2 io.tutti.bench.OffloadTestLoop
 * </pre>
 */
public class OffloadTestLoop {
    public static void main(String[] args) {
        try (Tutti t = Tutti.init(args)) {
            Communicator w = t.world();
            Request barrier = w.barrierInit(Offload.NIC);
            int runs = 200_000;
            for (int round = 0; round < 6; round++) {
                int mode = round % 3;
                w.barrier();
                long t0 = System.nanoTime();
                int completeAtTest = 0;
                for (int i = 0; i < runs; i++) {
                    barrier.start();
                    if (mode == 2) {
                        long end = System.nanoTime() + 300;
                        while (System.nanoTime() < end) {
                            Thread.onSpinWait();
                        }
                    }
                    if (mode >= 1 && barrier.test()) {
                        completeAtTest++;
                    }
                    barrier.waitFor(null);
                }
                long ns = (System.nanoTime() - t0) / runs;
                if (w.rank() == 0) {
                    System.out.println("round " + round + " mode " + mode + ": " + ns + " ns per run, complete at the test in "
                            + completeAtTest + " of " + runs);
                }
            }
            barrier.free();
        }
    }
}
