package io.tutti.systest;

import io.tutti.bootstrap.RendezvousClient;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;

/**
 * A process that knows a job's id and its launcher's address (both public) but not its secret, and
 * tries to join it as rank 0. Prints {@code refused: ...} or {@code ACCEPTED}. Arguments: the
 * rendezvous address and the job id.
 */
public final class ForeignRank {
    private ForeignRank() {
    }

    public static void main(String[] args) {
        byte[] guess = new byte[32];
        new SecureRandom().nextBytes(guess);
        try (RendezvousClient c = RendezvousClient.connect(List.of(args[0]), args[1], 0, guess,
                Duration.ofSeconds(20), why -> { })) {
            System.out.println("ACCEPTED at " + c.address());
        } catch (IOException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
