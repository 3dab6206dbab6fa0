package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.nio.file.Path;

/**
 * Every rank records its pid, then all exchange a token; then rank 1 calls {@code System.exit(3)}
 * while the others sleep, so only the launcher can end them. Argument: the pid directory.
 */
public final class ExitAfterExchange {
    private ExitAfterExchange() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        Tutti tutti = Tutti.init(args);
        Communicator w = tutti.world();
        Ranks.mark(dir, w.rank(), "pid");
        Ranks.barrier(w);
        if (w.rank() == 1) {
            System.exit(3);
        }
        Thread.sleep(120_000);
    }
}
