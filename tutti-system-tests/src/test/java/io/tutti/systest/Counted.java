package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Tutti;
import java.nio.file.Path;

/**
 * Ranks that exchange a known set of messages, then hold still while a test reads their counters.
 * Arguments: the marker directory and the rounds. In each round every rank sends every other rank
 * one eager message of {@link #length} bytes (a blocking send, which the rings take at once); then
 * each starts a send of {@link #BIG} bytes (a rendezvous) to its successor. After every receive has completed a rank writes
 * {@code rank-R.done} and waits until {@code go} appears, at most 120 s, calling only
 * {@code Tutti.progress()} (which sends and receives nothing of its own): a peer's last
 * acknowledgements over a lossy rail may still be due.
 */
public final class Counted {
    /** Longer than the eager limit: goes by the rendezvous protocol. */
    static final int BIG = 100_000;

    private Counted() {
    }

    /** The length of the message of round {@code i} from rank {@code from}. */
    static int length(int from, int i) {
        return 10 + 7 * from + i;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int rank = w.rank();
            int n = w.size();
            for (int i = 0; i < rounds; i++) {
                for (int d = 0; d < n; d++) {
                    if (d != rank) {
                        w.send(new byte[length(rank, i)], d, i);
                    }
                }
            }
            Request big = w.isend(new byte[BIG], (rank + 1) % n, 1000);
            for (int i = 0; i < rounds; i++) {
                for (int s = 0; s < n; s++) {
                    if (s != rank) {
                        w.recv(new byte[length(s, i)], s, i);
                    }
                }
            }
            w.recv(new byte[BIG], (rank + n - 1) % n, 1000);
            big.waitFor();
            Ranks.holdUntilGo(dir, rank, tutti);
        }
    }
}
