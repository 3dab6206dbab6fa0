package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Metrics;
import io.tutti.ReduceOp;
import io.tutti.Tutti;

/**
 * Known collectives and one large message, for the flight-recorder events and
 * {@code Tutti.metrics()}: five allreduces, rank 0 sends rank 1 {@link #BIG} bytes with tag 3,
 * a barrier; then each rank prints "rank R: OPERATION CALLS calls, TIMED timed" per operation.
 */
public final class Recorded {
    static final int BIG = 200_000;

    private Recorded() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            for (int i = 0; i < 5; i++) {
                w.allreduce(new int[] {1}, new int[1], ReduceOp.SUM);
            }
            byte[] big = new byte[BIG];
            if (w.rank() == 0) {
                w.send(big, 1, 3);
            } else if (w.rank() == 1) {
                w.recv(big, 0, 3);
            }
            w.barrier();
            for (Metrics.Collective c : tutti.metrics().collectives()) {
                System.out.println("rank " + w.rank() + ": " + c.operation() + " " + c.calls() + " calls, " + c.timed()
                        + " timed");
            }
        }
    }
}
