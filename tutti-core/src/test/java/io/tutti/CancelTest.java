package io.tutti;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Request#cancel()}: a receive no message has matched is taken back and completes with a
 * cancelled status, and a message sent afterwards goes to the next receive; a matched receive, a
 * send and a persistent receive's next start are not affected.
 */
@Timeout(120)
class CancelTest {
    @Test
    void anUnmatchedReceiveIsCancelledAndAMatchedOneIsNot() {
        io.tutti.testing.RankThreads.run(2, Duration.ofSeconds(100), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int peer = 1 - rank;
                int[] buf = new int[2];
                Request unmatched = w.irecv(buf, 0, 2, peer, 5);
                assertTrue(unmatched.cancel(), "an unmatched receive is cancelled");
                assertFalse(unmatched.cancel(), "and only once");
                Status s = unmatched.waitFor();
                assertTrue(s.cancelled(), s.toString());
                w.send(new int[1], 0, 1, peer, 4);      // both have cancelled before either sends tag 5
                w.recv(new int[1], 0, 1, peer, 4);
                // the message of that tag, sent now, goes to the next receive
                Request later = w.irecv(buf, 0, 2, peer, 5);
                Request sent = w.isend(new int[] {rank, 7}, 0, 2, peer, 5);
                w.send(new int[1], 0, 1, peer, 6);
                w.recv(new int[1], 0, 1, peer, 6);      // the peer's tag 5 came first: matched by now
                assertFalse(later.cancel(), "a matched receive is not cancelled");
                assertFalse(sent.cancel(), "a send is not cancelled");
                assertFalse(later.waitFor().cancelled());
                sent.waitFor();
                assertArrayEquals(new int[] {peer, 7}, buf);
                // a persistent receive: a start cancelled, the next one receives
                Request p = w.recvInit(buf, 0, 2, peer, 8);
                p.start();
                assertTrue(p.cancel());
                assertTrue(p.waitFor().cancelled());
                w.send(new int[1], 0, 1, peer, 9);      // both have cancelled before either sends tag 8
                w.recv(new int[1], 0, 1, peer, 9);
                p.start();
                w.send(new int[] {rank + 10, 11}, 0, 2, peer, 8);
                assertFalse(p.waitFor().cancelled(), "the next start is not cancelled");
                assertArrayEquals(new int[] {peer + 10, 11}, buf);
                p.free();
            }
        });
    }
}
