package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Revoke, shrink and agree with ranks as threads (which never fail alone: the failure cases run with
 * real processes in the system tests, and the protocol under failures in AgreementPropertyTest).
 */
@Timeout(150)
class RevokeShrinkAgreeTest {

    /**
     * One rank revokes while the others are blocked: in a receive nobody sends, in an allreduce the
     * revoker never enters. Every one of them gets Revoked, and so does every later
     * call; then they all shrink, and the new communicator works.
     */
    @Test
    void aRevokeReachesRanksBlockedInReceivesAndCollectivesAndTheyGoOnShrunk() {
        ConcurrentMap<Integer, String> caught = new ConcurrentHashMap<>();
        TypedCallsTest.job(4, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int me = w.rank();
                w.barrier();
                try {
                    switch (me) {
                        case 0 -> {
                            // let the others block first; the revoke must reach them wherever they wait
                            Thread.sleep(200);
                            w.revoke();
                            assertTrue(w.isRevoked());
                            w.barrier();
                        }
                        case 1 -> w.recv(new int[1], 0, 1, 0, 7);
                        default -> w.allreduce(new int[] {1}, new int[1], 1, Datatype.INT, ReduceOp.SUM);
                    }
                    caught.put(me, "returned");
                } catch (TuttiException.Revoked e) {
                    caught.put(me, "revoked");
                }
                // every later operation fails at once, point-to-point and collective
                assertThrows(TuttiException.Revoked.class, () -> w.send(new int[1], 0, 1, (me + 1) % 4, 1));
                assertThrows(TuttiException.Revoked.class, () -> w.irecv(new int[1], 0, 1, Communicator.ANY_SOURCE, 1));
                assertThrows(TuttiException.Revoked.class, w::barrier);
                assertThrows(TuttiException.Revoked.class, () -> w.bcast(new int[1], 1, Datatype.INT, 0));
                assertThrows(TuttiException.Revoked.class, w::dup);
                Communicator s = w.shrink();
                assertEquals(4, s.size());
                assertEquals(me, s.rank());
                assertFalse(s.isRevoked());
                int[] sum = new int[1];
                s.allreduce(new int[] {me + 1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                assertEquals(10, sum[0]);
                s.send(new int[] {me}, 0, 1, (me + 1) % 4, 3);
                int[] got = new int[1];
                s.recv(got, 0, 1, (me + 3) % 4, 3);
                assertEquals((me + 3) % 4, got[0]);
                assertArrayEquals(new int[0], s.failedRanks());
            }
        });
        for (int r = 0; r < 4; r++) {
            assertEquals("revoked", caught.get(r), "rank " + r + ": " + caught);
        }
    }

    @Test
    void agreeIsTheAndOfEveryRanksFlagAtEveryRankAndWorksOnARevokedCommunicator() {
        TypedCallsTest.job(5, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int me = w.rank();
                assertEquals(0, w.agree(0b11111 & ~(1 << me)));
                assertEquals(0b1010, w.agree(me == 2 ? 0b1110 : 0b1011));
                assertEquals(-1, w.agree(-1));
                w.revoke();
                assertEquals(6, w.agree(me == 4 ? 7 : 6));
                // two communicators' agreements interleave without mixing
                Communicator s = w.shrink();
                assertEquals(1, s.agree(1));
                assertEquals(0, w.agree(me % 2));
                assertArrayEquals(new int[0], w.ackFailed());
            }
        });
    }

    /**
     * A rank returns from agree on its decision, before every peer's DECIDE has come: the run goes
     * on taking them (a run that stopped reposting its receives on deciding left 144 here), so none
     * is left waiting unmatched on the agreement's context, and none is taken by a later agreement
     * (the flags would come out wrong).
     */
    @Test
    void theMessagesOfFinishedAgreementsAreAllTakenAndNoneIsLeftUnmatched() {
        TypedCallsTest.job(5, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int me = w.rank();
                for (int i = 0; i < 200; i++) {
                    assertEquals(2, w.agree(i % 5 == me ? 2 : 3));
                    assertEquals(i % 7 == 0 ? 0 : 1, w.agree(i % 7 == 0 && me == 4 ? 0 : 1));
                }
                // every peer sent its last DECIDE before it entered the barrier
                w.barrier();
                io.tutti.p2p.Engine engine = io.tutti.runtime.Rank.of(t).engine();
                int context = io.tutti.coll.ft.AgreementRun.CONTEXT_BIT; // the world's fault-tolerance context
                long deadline = System.nanoTime() + 20_000_000_000L;
                int[] left = new int[1];
                do {
                    engine.progress();
                    left[0] = 0;
                    engine.locked(() -> engine.forEachUnexpected(context, (source, tag, bytes) -> left[0]++));
                } while (left[0] > 0 && System.nanoTime() < deadline);
                assertEquals(0, left[0], "rank " + me + ": messages of finished agreements left unmatched");
                w.barrier();
            }
        });
    }

    @Test
    void shrinkingTwiceGivesFreshCommunicatorsThatDoNotShareMessages() {
        TypedCallsTest.job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                Communicator a = w.shrink();
                Communicator b = w.shrink();
                int me = w.rank();
                if (me == 0) {
                    a.send(new int[] {1}, 0, 1, 1, 0);
                    b.send(new int[] {2}, 0, 1, 1, 0);
                } else if (me == 1) {
                    int[] got = new int[1];
                    b.recv(got, 0, 1, 0, 0);
                    assertEquals(2, got[0]);
                    a.recv(got, 0, 1, 0, 0);
                    assertEquals(1, got[0]);
                }
                b.barrier();
                if (me == 0) {
                    a.revoke();
                }
                // a revoke is the revoked communicator's only: b goes on, a fails at every rank
                int[] sum = new int[1];
                b.allreduce(new int[] {1}, sum, 1, Datatype.INT, ReduceOp.SUM);
                assertEquals(3, sum[0]);
                assertThrows(TuttiException.Revoked.class, a::barrier);
            }
        });
    }
}
