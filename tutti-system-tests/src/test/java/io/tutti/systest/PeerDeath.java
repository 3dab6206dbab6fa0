package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import io.tutti.TuttiException;

/**
 * Rank 1 dies abruptly while rank 0 waits to receive from it; rank 0 must get a
 * {@link TuttiException.PeerFailed} that names rank 1, and prints it with how long it took. Rank 1
 * dies by {@code Runtime.halt} (no close, no shutdown hooks), or as the first argument says:
 * {@code exit} (System.exit), {@code kill} (SIGKILL, as a crash).
 */
public final class PeerDeath {
    private PeerDeath() {
    }

    public static void main(String[] args) {
        Tutti tutti = Tutti.init(args);
        Communicator w = tutti.world();
        Ranks.barrier(w);
        if (w.rank() == 1) {
            String how = args.length > 0 ? args[0] : "halt";
            if (how.equals("exit")) {
                System.exit(7); // as a program that gives up does, its shutdown hooks run
            } else if (how.equals("kill")) {
                // as a crash or the kernel's OOM killer ends it: nothing of the JVM runs
                try {
                    new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                } catch (java.io.IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
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
