package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every rank reads its own configuration (environment, system properties). Ranks whose eager limits
 * differ must still talk, or fail at start-up with a clear message, never crash in the receive path.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MixedConfigTest {

    @Test
    void anUnexpectedEagerMessageLargerThanTheReceiversOwnLimitIsDelivered() {
        ThreadLauncher.Outcome o = ThreadLauncher.run(2, Duration.ofSeconds(30), rank -> {
            Config config = rank == 0 ? Config.defaults() : Config.defaults().with(P2pConfig.EAGER_LIMIT, 512);
            try (Tutti t = Tutti.init(config)) {
                Communicator w = t.world();
                w.dup(); // both ranks are up
                byte[] data = new byte[10_000];
                if (rank == 0) {
                    for (int i = 0; i < data.length; i++) {
                        data[i] = (byte) (i * 7);
                    }
                    w.send(data, 0, data.length, 1, 1); // eager by rank 0's limit
                    w.send(new byte[0], 0, 0, 1, 2);
                } else {
                    w.recv(new byte[0], 0, 0, 0, 2);    // tag 1 arrives first and is queued as unexpected
                    w.recv(data, 0, data.length, 0, 1);
                    for (int i = 0; i < data.length; i++) {
                        assertEquals((byte) (i * 7), data[i], "byte " + i);
                    }
                }
            }
        });
        ThreadLauncher.RankResult f = o.firstFailure();
        assertTrue(o.succeeded(), f == null ? "timed out" : "rank " + f.rank() + ": " + f.failure());
    }
}
