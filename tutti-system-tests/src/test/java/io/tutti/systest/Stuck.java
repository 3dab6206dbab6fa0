package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.nio.file.Path;

/**
 * Ranks that hang in known calls, for the stuck view: rank 1 receives from rank 0 with tag 77,
 * which rank 0 never sends (rank 0 sleeps, outside any call); the others wait in a barrier that
 * ranks 0 and 1 never join. Argument: the marker directory; each rank writes {@code rank-R.ready}
 * just before its call.
 */
public final class Stuck {
    private Stuck() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        Communicator w = Tutti.init(args).world();
        int rank = w.rank();
        Ranks.mark(dir, rank, "ready");
        if (rank == 0) {
            Thread.sleep(600_000);
        } else if (rank == 1) {
            w.recv(new byte[8], 0, 77);
        } else {
            w.barrier();
        }
    }
}
