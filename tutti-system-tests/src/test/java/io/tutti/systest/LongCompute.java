package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.ReduceOp;

/**
 * Two rounds of a pairwise exchange and an all-reduce, with every value checked; between them the
 * last rank computes (sleeps, no Tutti call) for the number of milliseconds in the first argument.
 */
public final class LongCompute {
    private LongCompute() {
    }

    public static void main(String[] args) throws InterruptedException {
        long computeMs = Long.parseLong(args[0]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            int partner = rank ^ 1;
            for (int round = 0; round < 2; round++) {
                if (partner < n) {
                    long[] mine = new long[1000];
                    for (int i = 0; i < mine.length; i++) {
                        mine[i] = rank * 1_000_000L + round * 1000L + i;
                    }
                    long[] theirs = new long[mine.length];
                    w.sendrecv(mine, 0, mine.length, partner, 4, theirs, 0, theirs.length, partner, 4);
                    for (int i = 0; i < theirs.length; i++) {
                        check(theirs[i] == partner * 1_000_000L + round * 1000L + i,
                                "round " + round + ": element " + i + " from rank " + partner + " is " + theirs[i]);
                    }
                }
                long[] sum = new long[1];
                w.allreduce(new long[] {rank + round}, sum, 1, Datatype.LONG, ReduceOp.SUM);
                check(sum[0] == (long) n * (n - 1) / 2 + (long) n * round, "round " + round + ": sum " + sum[0]);
                if (round == 0 && rank == n - 1) {
                    Thread.sleep(computeMs);
                }
            }
            System.out.println("rank " + rank + " of " + n + " (" + io.tutti.runtime.Rank.of(tutti).engine().remotePeers()
                    + " over the network): both rounds ok around " + computeMs + " ms of computing");
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }
}
