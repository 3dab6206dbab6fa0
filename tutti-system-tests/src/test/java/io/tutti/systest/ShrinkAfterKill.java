package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.util.Arrays;

/**
 * Ranks run allreduces until one of them (the last but one) kills itself with SIGKILL mid-run;
 * whichever survivor notices first (PeerFailed) revokes the world, which frees the others from
 * wherever they wait (Revoked). The survivors shrink, check the new communicator's group, run
 * collectives and point-to-point on it, agree, acknowledge the failure, and exit 0 printing
 * "survivor ok". Each survivor also prints how long its shrink took.
 */
public final class ShrinkAfterKill {
    private ShrinkAfterKill() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            int n = w.size();
            int me = w.rank();
            int victim = n - 2;
            int[] sum = new int[1];
            try {
                for (int i = 0; ; i++) {
                    if (i == 20 && me == victim) {
                        new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid()))
                                .start().waitFor();
                        Thread.sleep(60_000);
                    }
                    w.allreduce(new int[] {1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                    check(sum[0] == n, "allreduce before the failure gave " + sum[0]);
                    if (i % 3 == 0) {
                        // point-to-point around the ring, so some ranks wait on live peers only
                        int[] got = new int[1];
                        w.sendrecv(new int[] {me}, 0, 1, (me + 1) % n, 9, got, 0, 1, (me + n - 1) % n, 9);
                    }
                }
            } catch (TuttiException.PeerFailed e) {
                System.out.println("rank " + me + " noticed: " + e.getMessage());
                w.revoke();
            } catch (TuttiException.Revoked e) {
                System.out.println("rank " + me + " was told: " + e.getMessage());
            }
            long start = System.nanoTime();
            Communicator s = w.shrink();
            // for the record (docs/guide/fault-tolerance.md), not checked: a figure for a quiet machine
            System.out.printf("rank %d shrank in %.2f ms%n", me, (System.nanoTime() - start) / 1e6);
            int[] expected = new int[n - 1];
            for (int r = 0, i = 0; r < n; r++) {
                if (r != victim) {
                    expected[i++] = r;
                }
            }
            check(s.size() == n - 1, "shrunk to " + s.size() + " ranks");
            int[] worlds = new int[n - 1];
            s.allgather(new int[] {me}, worlds);
            check(Arrays.equals(worlds, expected), "shrunk group " + Arrays.toString(worlds));
            check(s.rank() == (me < victim ? me : me - 1), "rank " + me + " became " + s.rank());
            s.allreduce(new int[] {me + 1}, sum, 1, Datatype.INT, ReduceOp.SUM);
            check(sum[0] == n * (n + 1) / 2 - (victim + 1), "allreduce on the shrunk communicator gave " + sum[0]);
            int[] root = {s.rank() == 0 ? 4242 : 0};
            s.bcast(root, 1, Datatype.INT, 0);
            check(root[0] == 4242, "bcast gave " + root[0]);
            int[] got = new int[1];
            s.sendrecv(new int[] {me}, 0, 1, (s.rank() + 1) % s.size(), 5, got, 0, 1,
                    (s.rank() + s.size() - 1) % s.size(), 5);
            check(got[0] == worlds[(s.rank() + s.size() - 1) % s.size()], "ring on the shrunk communicator gave "
                    + got[0]);
            check(s.agree(me == 0 ? 3 : 7) == 3, "agree on the shrunk communicator");
            // on the old one: the failure must be acknowledged before agree reports no error
            check(Arrays.equals(w.failedRanks(), new int[] {victim}), "failed " + Arrays.toString(w.failedRanks()));
            try {
                w.agree(1);
                check(false, "agree with an unacknowledged failure returned");
            } catch (TuttiException.PeerFailed e) {
                check(e.getMessage().contains("rank(s) " + victim), e.getMessage());
            }
            check(Arrays.equals(w.ackFailed(), new int[] {victim}), "acknowledged");
            check(w.agree(me == 1 ? 1 : 3) == 1, "agree on the revoked world");
            s.barrier();
            System.out.println("survivor ok " + me);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("FAILED: " + what);
            System.exit(3);
        }
    }
}
