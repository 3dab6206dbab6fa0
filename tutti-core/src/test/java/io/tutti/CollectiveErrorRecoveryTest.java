package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** After a collective fails with InvalidArgument, every rank goes on: later calls on the communicator work. */
@Timeout(120)
class CollectiveErrorRecoveryTest {

    /** The sequence, shrunk: mismatched allreduce, a gather where every rank is root, a mismatched bcast, then a barrier. */
    @Test
    void aBarrierAfterMismatchedCollectivesCompletes() {
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        TypedCallsTest.job(2, rank -> {
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
        // each mismatch was reported where it shows: both ranks of the allreduce, the bcast's non-root
        for (String call : List.of("allreduce 0", "allreduce 1", "gather 0", "gather 1", "bcast 1")) {
            assertTrue(errors.stream().anyMatch(e -> e.startsWith(call + ": ")), call + " not reported: " + errors);
        }
    }
}
