package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import io.tutti.TuttiException;

/**
 * Rank 1 dies abruptly (no close, no shutdown hooks) while rank 0 waits to receive from it; rank 0
 * must get a {@link TuttiException.PeerFailed} that names rank 1, and prints it.
 */
public final class PeerDeath {
    private PeerDeath() {
    }

    public static void main(String[] args) {
        Tutti tutti = Tutti.init(args);
        Communicator w = tutti.world();
        Ranks.barrier(w);
        if (w.rank() == 1) {
            Runtime.getRuntime().halt(7);
        }
        long t0 = System.nanoTime();
        try {
            w.recv(new byte[8], 0, 8, 1, 5);
            System.out.println("received a message nobody sent");
            System.exit(1);
        } catch (TuttiException.PeerFailed e) {
            System.out.printf("caught after %d ms: %s%n", (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
        tutti.close();
    }
}
