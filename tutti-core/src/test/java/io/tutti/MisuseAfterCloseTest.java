package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Calls after close and null buffers: clear errors of the documented kinds, the same every time. */
@Timeout(120)
class MisuseAfterCloseTest {

    @Test
    void collectivesAndPointToPointAfterCloseAreNotActive() {
        TypedCallsTest.job(2, rank -> {
            Tutti t = Tutti.init(new String[0]);
            Communicator w = t.world();
            w.barrier();
            t.close();
            TuttiException.NotActive e = assertThrows(TuttiException.NotActive.class, w::barrier);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(TuttiException.NotActive.class, () -> w.ibarrier());
            assertThrows(TuttiException.NotActive.class,
                    () -> w.allreduce(new int[1], new int[1], 1, Datatype.INT, ReduceOp.SUM));
            assertThrows(TuttiException.NotActive.class, () -> w.send(new int[1], 0, 1, 1 - w.rank(), 0));
            assertThrows(TuttiException.NotActive.class, t::world);
        });
    }

    @Test
    void initAfterCloseIsRefusedEveryTime() {
        TypedCallsTest.job(2, rank -> {
            Tutti.init(new String[0]).close();
            for (int i = 0; i < 3; i++) {
                TuttiException.NotActive e = assertThrows(TuttiException.NotActive.class,
                        () -> Tutti.init(new String[0]));
                assertTrue(e.getMessage().contains("Tutti.init after close() is refused"), e.getMessage());
            }
        });
    }

    @Test
    void nullArrayBuffersAreInvalidArguments() {
        TypedCallsTest.job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int peer = 1 - w.rank();
                int[] none = null;
                assertNullRefused(() -> w.send(none, 0, 1, peer, 0));
                assertNullRefused(() -> w.send(none, peer, 0));
                assertNullRefused(() -> w.recv(none, 0, 1, peer, 0));
                assertNullRefused(() -> w.isend(none, peer, 0));
                assertNullRefused(() -> w.bcast(none, 1, Datatype.INT, 0));
                assertNullRefused(() -> w.bcast(none, 0));
                assertNullRefused(() -> w.allreduce(none, new int[1], 1, Datatype.INT, ReduceOp.SUM));
                assertNullRefused(() -> w.allreduce(new int[1], none, 1, Datatype.INT, ReduceOp.SUM));
                assertNullRefused(() -> w.allgather(none, new int[2]));
                // and the communicator goes on
                int[] sum = new int[1];
                w.allreduce(new int[] {1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                assertEquals(2, sum[0]);
            }
        });
    }

    private static void assertNullRefused(org.junit.jupiter.api.function.Executable call) {
        TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class, call);
        assertTrue(e.getMessage().contains("null"), e.getMessage());
    }
}
