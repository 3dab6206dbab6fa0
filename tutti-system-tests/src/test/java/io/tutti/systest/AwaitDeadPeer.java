package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.TuttiException;
import java.nio.file.Path;

/**
 * Arguments: the pid directory and a victim rank. The victim sleeps until it is killed; every other
 * rank receives from it, and when that fails with {@link TuttiException.PeerFailed} prints
 * {@code rank R caught at <epoch ms>: <message>} and ends normally. Each rank writes
 * {@code rank-R.pid}, then {@code rank-R.ready} just before it blocks.
 */
public final class AwaitDeadPeer {
    private AwaitDeadPeer() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        int victim = Integer.parseInt(args[1]);
        Communicator w = Ranks.ready(dir, args);
        int rank = w.rank();
        if (rank == victim) {
            // alive until it is killed; the rails' keep-alive agent keeps it heard while it sleeps
            Thread.sleep(600_000);
            return;
        }
        try {
            w.recv(new byte[8], 0, 8, victim, 5);
            System.out.println("rank " + rank + " received a message nobody sent");
            System.exit(1);
        } catch (TuttiException.PeerFailed e) {
            System.out.println("rank " + rank + " caught at " + System.currentTimeMillis() + ": " + e.getMessage());
        }
        // the dead peer would make a collective close wait for it: leave without one
        System.exit(0);
    }
}
