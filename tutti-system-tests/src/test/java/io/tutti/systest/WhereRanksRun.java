package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.net.InetAddress;

/**
 * {@link EveryCollective}'s checks, then one line per rank that says where it ran: {@code rank R of
 * N on HOST pid P (K over the network): every collective ok}, the host as its own kernel names it
 * and the pid of its JVM, so that a test sees which ranks shared a host and a JVM.
 */
public final class WhereRanksRun {
    private WhereRanksRun() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            for (int count : EveryCollective.COUNTS) {
                EveryCollective.check(w, count);
            }
            System.out.println("rank " + w.rank() + " of " + w.size() + " on " + InetAddress.getLocalHost().getHostName()
                    + " pid " + ProcessHandle.current().pid() + " (" + io.tutti.runtime.Rank.of(tutti).engine()
                    .remotePeers() + " over the network): every collective ok");
        }
    }
}
