package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.runtime.Rank;
import java.net.InetAddress;

/**
 * A rank program for foreign launchers: a token round, then allreduce, bcast and allgather with
 * every value checked, and one line per rank naming its launcher, host and network peers. With
 * {@code --idle SECONDS} it only drives progress that long (beside an {@link Intruder}); with
 * {@code --crash} every rank halts after start-up, leaving its job directory behind.
 */
public final class LauncherCheck {
    private LauncherCheck() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            if (args.length == 1 && args[0].equals("--crash")) {
                w.barrier();
                System.out.println("rank " + w.rank() + " crashes");
                System.out.flush();
                Runtime.getRuntime().halt(3); // no close, no shutdown hook: as a killed process
            }
            if (args.length == 2 && args[0].equals("--idle")) {
                idle(w, Long.parseLong(args[1]));
                return;
            }
            long[] token = new long[1];
            if (rank == 0) {
                token[0] = 1;
                w.send(token, 0, 1, 1 % n, 1);
                w.recv(token, 0, 1, n - 1, 1);
                check(token[0] == n, "token " + token[0] + " after a round of " + n);
            } else {
                w.recv(token, 0, 1, rank - 1, 1);
                token[0]++;
                w.send(token, 0, 1, (rank + 1) % n, 1);
            }
            long[] sum = new long[1];
            w.allreduce(new long[] {rank + 1}, sum, 1, Datatype.LONG, ReduceOp.SUM);
            check(sum[0] == (long) n * (n + 1) / 2, "allreduce sum " + sum[0]);
            int root = n - 1;
            int[] value = {rank == root ? 4242 : -1};
            w.bcast(value, 1, Datatype.INT, root);
            check(value[0] == 4242, "bcast got " + value[0]);
            int[] all = new int[n];
            w.allgather(new int[] {rank * 10}, all, 1, Datatype.INT);
            for (int r = 0; r < n; r++) {
                check(all[r] == r * 10, "allgather slot " + r + " holds " + all[r]);
            }
            w.barrier();
            Rank me = Rank.of(tutti);
            System.out.println("rank " + rank + " of " + n + " on " + InetAddress.getLocalHost().getHostName()
                    + ": launcher " + me.job().launcher() + ", " + me.engine().remotePeers()
                    + " over the network, checks ok");
        }
    }

    /** Sends a word to the last rank (an intruder) and drives progress for {@code seconds}. */
    private static void idle(Communicator w, long seconds) throws InterruptedException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        String failure = "none";
        try {
            w.isend(new long[] {w.rank()}, 0, 1, w.size() - 1, 5);
            while (System.nanoTime() < end) {
                w.iprobe(Communicator.ANY_SOURCE, 999);
                Thread.sleep(10);
            }
        } catch (io.tutti.TuttiException e) {
            failure = e.getMessage(); // the intruder is never heard: its failure is expected
        }
        System.out.println("rank " + w.rank() + " idled; peer failure: " + failure);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
