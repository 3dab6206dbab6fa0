package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;

/**
 * Rank 1 kills itself; rank 0, once it knows, starts more sends to rank 2 than rank 2's ring holds
 * and closes Tutti without waiting for them, while rank 2 sleeps. Closing must still deliver every
 * one to the live rank 2 though another rank is dead; rank 2 checks each and prints "received all".
 */
public final class FlushPastADeadRank {
    static final int MESSAGES = 200;
    static final int BYTES = 16 * 1024;

    private FlushPastADeadRank() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            w.barrier();
            switch (w.rank()) {
                case 1 -> {
                    new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                    Thread.sleep(60_000);
                }
                case 0 -> {
                    long deadline = System.nanoTime() + 100_000_000_000L;
                    while (w.failedRanks().length == 0) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("rank 1's death was not noticed in 100 s");
                        }
                        Thread.sleep(50);
                    }
                    for (int m = 0; m < MESSAGES; m++) {
                        w.isend(message(m), 2, m);   // never waited for: closing delivers them
                    }
                    System.out.println("rank 0 closes with its sends started");
                }
                default -> {
                    Thread.sleep(4_000);
                    byte[] got = new byte[BYTES];
                    for (int m = 0; m < MESSAGES; m++) {
                        w.recv(got, 0, m);
                        if (!java.util.Arrays.equals(got, message(m))) {
                            throw new IllegalStateException("message " + m + " arrived wrong");
                        }
                    }
                    System.out.println("received all " + MESSAGES);
                }
            }
        }
    }

    private static byte[] message(int m) {
        byte[] b = new byte[BYTES];
        for (int i = 0; i < BYTES; i++) {
            b[i] = (byte) (m * 7 + i);
        }
        return b;
    }
}
