package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A job for hosts that share nothing: an all-to-all of 64 KiB with every byte checked and an
 * allreduce, then one line saying how many ranks share this rank's node and how many peers it
 * reaches over the network. Arguments: a directory and, optionally, {@code wait}: then each rank
 * writes {@code rank-R.ready} and waits (at most 120 s) for {@code go} in that directory first.
 */
public final class ClusterJob {
    private ClusterJob() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            if (args.length > 1 && args[1].equals("wait")) {
                Ranks.mark(dir, rank, "ready");
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (!Files.exists(dir.resolve("go")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
            int size = 64 * 1024;
            byte[] out = new byte[size * n];
            byte[] in = new byte[size * n];
            for (int peer = 0; peer < n; peer++) {
                for (int i = 0; i < size; i++) {
                    out[peer * size + i] = (byte) (rank * 31 + peer * 7 + i);
                }
            }
            for (int peer = 0; peer < n; peer++) {
                if (peer != rank) {
                    var recv = w.irecv(in, peer * size, size, peer, 3);
                    w.send(out, peer * size, size, peer, 3);
                    recv.waitFor();
                }
            }
            for (int peer = 0; peer < n; peer++) {
                for (int i = 0; peer != rank && i < size; i++) {
                    if (in[peer * size + i] != (byte) (peer * 31 + rank * 7 + i)) {
                        throw new IllegalStateException("byte " + i + " from rank " + peer + " is wrong");
                    }
                }
            }
            long[] sum = {rank + 1};
            w.allreduce(sum, ReduceOp.SUM);
            if (sum[0] != (long) n * (n + 1) / 2) {
                throw new IllegalStateException("allreduce gave " + sum[0]);
            }
            var engine = io.tutti.runtime.Rank.of(tutti).engine();
            System.out.println("rank " + rank + " of " + n + ": " + engine.localSize() + " on its node, "
                    + engine.remotePeers() + " over the network: exchange and allreduce ok");
        }
    }
}
