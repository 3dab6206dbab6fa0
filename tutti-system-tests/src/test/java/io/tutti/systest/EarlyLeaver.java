package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Three ranks; rank 2 closes Tutti and exits right after the start. Rank 1 waits until rank 2's
 * process is gone, then sends to rank 0, whose receive from any source must get it (a rank that
 * ended cleanly has not failed); rank 0's receive from rank 2 itself must then fail with
 * {@link TuttiException.PeerFailed} saying that rank closed. Argument: the pid directory.
 */
public final class EarlyLeaver {
    private EarlyLeaver() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Tutti tutti = Tutti.init(args);
        Communicator w = tutti.world();
        Ranks.mark(dir, w.rank(), "pid");
        Ranks.barrier(w);
        byte[] b = new byte[8];
        switch (w.rank()) {
            case 2 -> tutti.close();
            case 1 -> {
                long pid = Long.parseLong(Files.readString(dir.resolve("rank-2.pid")).trim());
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    if (System.nanoTime() > deadline) {
                        System.out.println("rank 2 did not exit within 60 s");
                        System.exit(2);
                    }
                    Thread.sleep(20);
                }
                // rank 0 has been waiting meanwhile, checking its peers every liveness period
                Thread.sleep(300);
                w.send(b, 0, 8, 0, 7);
                w.recv(b, 0, 1, 0, 8);
                tutti.close();
            }
            default -> {
                Status s = w.recv(b, 0, 8, Communicator.ANY_SOURCE, 7);
                System.out.println("wildcard receive from rank " + s.source());
                try {
                    w.recv(b, 0, 8, 2, 9);
                    System.out.println("received from a closed rank");
                    System.exit(1);
                } catch (TuttiException.PeerFailed e) {
                    System.out.println("closed rank reported: " + e.getMessage());
                }
                w.send(b, 0, 1, 1, 8);
                tutti.close();
            }
        }
    }
}
