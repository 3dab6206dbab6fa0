package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;

/**
 * Rank 1 throws after start-up while the others wait for a message from it; with the argument
 * {@code alone}, the others return instead, so that rank 1's failure is the only one.
 */
public final class Boom {
    private Boom() {
    }

    public static void main(String[] args) {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            Ranks.barrier(w);
            if (w.rank() == 1) {
                throw new IllegalStateException("boom");
            }
            if (args.length == 0 || !args[0].equals("alone")) {
                w.recv(new byte[8], 0, 8, 1, 5);
            }
        }
    }
}
