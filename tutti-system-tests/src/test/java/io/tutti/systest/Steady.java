package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ranks that keep a steady load for a monitor to show: rounds of an allreduce and a shift (rank r
 * sends {@code 20000 * (r + 1)} bytes to the rank 1, 2, ... n - 1 after it, a different one each
 * round, so every pair talks), every 50 ms, until {@code stop}
 * appears in the marker directory or {@code SECONDS} pass. Writes {@code rank-R.ready} after the
 * first round. A rank that sees a peer fail holds still (at most 60 s) instead of exiting, so the
 * launcher stops it: the killed peer's files stay for its grace period.
 */
public final class Steady {
    private Steady() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long deadline = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            double[] in = new double[16];
            double[] out = new double[16];
            byte[] send = new byte[20_000 * (rank + 1)];
            byte[] recv = new byte[20_000 * n];
            try {
                for (int round = 0; !Files.exists(dir.resolve("stop")) && System.nanoTime() < deadline; round++) {
                    w.allreduce(in, out, ReduceOp.SUM);
                    int shift = 1 + round % (n - 1);
                    Request sent = w.isend(send, (rank + shift) % n, 1);
                    w.recv(recv, 0, recv.length, (rank + n - shift) % n, 1);
                    sent.waitFor();
                    if (round == 0) {
                        Ranks.mark(dir, rank, "ready");
                    }
                    Thread.sleep(50);
                }
            } catch (TuttiException.PeerFailed e) {
                Thread.sleep(60_000);
            }
        }
    }
}
