import io.tutti.Communicator;
import io.tutti.Intercommunicator;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.util.List;

/**
 * Time to shrink and to respawn 1 of N ranks (docs/perf/reliability.md, "Respawn"): rank N-2 kills
 * itself (SIGKILL) after 20 allreduces; the survivors notice, revoke, shrink, spawn one new rank of
 * this program and merge with it, then run an allreduce over all N. Rank 0 prints the time of each
 * phase; the new rank prints the time from its JVM's start to the end of the merge.
 * Run: tutti run -n 8 --on-failure continue respawn-2026-11-28.java
 */
class Respawn {
    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Intercommunicator parent = tutti.parent();
            if (parent != null) {
                Communicator all = parent.merge(true);
                all.allreduce(new long[] {1}, ReduceOp.SUM);
                // the JVM's own record of its start: /proc's start time is read against a boot time in whole seconds
                long startedMs = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
                System.out.printf("new rank: JVM start to merged %d ms%n", System.currentTimeMillis() - startedMs);
                return;
            }
            Communicator w = tutti.world();
            int n = w.size();
            long noticed;
            try {
                for (int i = 0; ; i++) {
                    if (i == 20 && w.rank() == n - 2) {
                        new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start()
                                .waitFor();
                        Thread.sleep(60_000);
                    }
                    w.allreduce(new long[] {1}, ReduceOp.SUM);
                }
            } catch (TuttiException.PeerFailed | TuttiException.Revoked e) {
                noticed = System.nanoTime();
                w.revoke();
            }
            Communicator s = w.shrink();
            long shrunk = System.nanoTime();
            Intercommunicator fresh = s.spawn("Respawn", List.of(), 1, 0);
            long spawned = System.nanoTime();
            Communicator all = fresh.merge(false);
            long[] sum = {1};
            all.allreduce(sum, ReduceOp.SUM);
            long merged = System.nanoTime();
            if (sum[0] != n) {
                throw new IllegalStateException("allreduce over the merged ranks gave " + sum[0]);
            }
            if (s.rank() == 0) {
                System.out.printf("rank 0 of %d: shrink %.1f ms, spawn %.1f ms, merge and allreduce %.1f ms%n", n,
                        (shrunk - noticed) / 1e6, (spawned - shrunk) / 1e6, (merged - spawned) / 1e6);
            }
        }
    }
}
