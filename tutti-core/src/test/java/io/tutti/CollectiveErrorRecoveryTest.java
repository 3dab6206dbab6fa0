package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** After a collective fails with InvalidArgument, every rank goes on: later calls on the communicator work. */
@Timeout(120)
class CollectiveErrorRecoveryTest {

    static void job(int n, ThreadLauncher.RankBody body) {
        ThreadLauncher.Outcome o = ThreadLauncher.run(n, Duration.ofSeconds(90), body);
        if (!o.succeeded()) {
            ThreadLauncher.RankResult f = o.firstFailure();
            AssertionError e = new AssertionError(f != null ? "rank " + f.rank() + " failed" : "hung: ranks "
                    + o.stillRunning() + " still running");
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }

    /** The sequence, shrunk: mismatched allreduce, a gather where every rank is root, a mismatched bcast, then a barrier. */
    @Test
    void aBarrierAfterMismatchedCollectivesCompletes() {
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int me = w.rank();
                int[] a = new int[20];
                int[] b = new int[20];
                try {
                    w.allreduce(a, b, me == 0 ? 10 : 20, Datatype.INT, ReduceOp.SUM);
                } catch (TuttiException.InvalidArgument e) {
                    errors.add("allreduce " + me + ": " + e.getMessage());
                }
                int[] recv = new int[4];
                try {
                    w.gather(new int[4], recv, 4, Datatype.INT, me);
                } catch (TuttiException.InvalidArgument e) {
                    errors.add("gather " + me + ": " + e.getMessage());
                }
                try {
                    w.bcast(new int[8], me == 0 ? 4 : 8, Datatype.INT, 0);
                } catch (TuttiException.InvalidArgument e) {
                    errors.add("bcast " + me + ": " + e.getMessage());
                }
                w.barrier();
                int[] sum = new int[1];
                w.allreduce(new int[] {me + 1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                assertEquals(3, sum[0]);
            }
        });
        System.out.println(String.join("\n", errors));
    }
}
