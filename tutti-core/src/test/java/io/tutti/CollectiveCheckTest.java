package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With {@code TUTTI_CHECK=collectives}, the mismatches that do not stall a call (another
 * reduction, another datatype of the same size, every rank its own root) fail on every rank with
 * both calls named, and the ranks go on.
 */
@Timeout(120)
class CollectiveCheckTest {

    private static void refused(Runnable call, String... words) {
        TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class, call::run);
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "'" + w + "' in: " + e.getMessage());
        }
    }

    @Test
    void mismatchesThatDoNotStallAreCaughtOnEveryRank() {
        TypedCallsTest.job(2, rank -> {
            try (Tutti t = Tutti.init(Config.defaults().with("tutti.check", "collectives"))) {
                Communicator w = t.world();
                int me = w.rank();
                int other = 1 - me;
                refused(() -> w.allreduce(new int[] {1}, new int[1], 1, Datatype.INT,
                        me == 0 ? ReduceOp.SUM : ReduceOp.MAX), "SUM", "MAX", "rank " + other);
                refused(() -> {
                    if (me == 0) {
                        w.allreduce(new int[2], new int[2], 2, Datatype.INT, ReduceOp.SUM);
                    } else {
                        w.allreduce(new long[1], new long[1], 1, Datatype.LONG, ReduceOp.SUM);
                    }
                }, "INT", "LONG");
                refused(() -> w.bcast(new int[4], 4, Datatype.INT, me), "root 0", "root 1");
                int[] sum = new int[1];
                w.allreduce(new int[] {me + 1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                assertEquals(3, sum[0]);
            }
        });
    }

    @Test
    void checkSettingIsCheckedItself() {
        assertThrows(TuttiException.InvalidArgument.class, () -> io.tutti.coll.CollConfig.from(
                Config.defaults().with("tutti.check", "everything")));
        assertTrue(io.tutti.coll.CollConfig.from(Config.defaults().with("tutti.check", "collectives")).check());
        assertFalse(io.tutti.coll.CollConfig.from(Config.defaults()).check());
    }
}
