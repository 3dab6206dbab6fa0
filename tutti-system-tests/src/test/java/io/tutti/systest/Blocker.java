package io.tutti.systest;

import io.tutti.Communicator;
import java.nio.file.Path;

/**
 * Ranks that block forever. Arguments: the pid directory and a victim rank. The victim sleeps and
 * every other rank receives from it; with victim -1, rank r receives from rank r+1, which never
 * sends. Each rank writes {@code rank-R.ready} just before it blocks.
 */
public final class Blocker {
    private Blocker() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        int victim = Integer.parseInt(args[1]);
        Communicator w = Ranks.ready(dir, args);
        int rank = w.rank();
        if (rank == victim) {
            Thread.sleep(600_000);
        } else {
            int source = victim >= 0 ? victim : (rank + 1) % w.size();
            w.recv(new byte[8], 0, 8, source, 5);
        }
    }
}
