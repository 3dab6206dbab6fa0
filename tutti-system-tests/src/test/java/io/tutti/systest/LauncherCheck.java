package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.runtime.Rank;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A rank program for foreign launchers: a token round, then allreduce, bcast and allgather with
 * every value checked, and one line per rank naming its launcher, host and network peers. With
 * {@code --await FILE}, rank 0 first prints its pid and waits (at most 90 s) for FILE to exist,
 * and at the end prints how many packets its network transport dropped (to test an intruder).
 */
public final class LauncherCheck {
    private LauncherCheck() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            Path await = args.length == 2 && args[0].equals("--await") ? Path.of(args[1]) : null;
            if (await != null && rank == 0) {
                System.out.println("rank 0 pid " + ProcessHandle.current().pid() + " waits for " + await);
                long end = System.nanoTime() + 90_000_000_000L;
                while (!Files.exists(await) && System.nanoTime() < end) {
                    Thread.sleep(50);
                }
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
            if (await != null && rank == 0) {
                System.out.println("rank 0 dropped " + me.engine().droppedPackets() + " packets");
            }
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
