package io.tutti.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.Metrics;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.runtime.Rank;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code Tutti.metrics()} in ranks that run as threads: exact counts on, nothing (and no file) off. */
@Timeout(60)
class MetricsApiTest {
    private static void job(ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(2, Duration.ofSeconds(40), body);
    }

    @Test
    void aRankSeesWhatItSentReceivedAndCalled() {
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                byte[] b = new byte[100];
                for (int i = 0; i < 3; i++) {
                    if (rank == 0) {
                        w.send(b, 1, i);
                    } else {
                        w.recv(b, 0, i);
                    }
                }
                Metrics m = t.metrics();
                assertTrue(m.enabled());
                assertEquals(rank, m.rank());
                assertEquals(2, m.size());
                Metrics.Traffic peer = m.peers().get(1 - rank).traffic();
                assertEquals(rank == 0 ? new Metrics.Traffic(3, 300, 0, 0) : new Metrics.Traffic(0, 0, 3, 300), peer);
                assertEquals(peer, m.shm());
                assertEquals(new Metrics.Traffic(0, 0, 0, 0), m.net());
                w.allreduce(new int[] {1}, new int[1], ReduceOp.SUM);
                m = t.metrics();
                Metrics.Collective all = m.collectives().get(0);
                assertEquals("allreduce", all.operation());
                assertEquals(1, all.calls());
                assertEquals(1, all.timed());
                assertNull(m.blocked(), "the calling rank is in no call");
                assertTrue(Files.exists(Rank.of(t).job().jobDir().resolve(CountersDescriptor.fileName(rank))));
                w.barrier();
            }
        });
    }

    @Test
    void offNothingIsCountedAndNoFileIsMade() {
        job(rank -> {
            try (Tutti t = Tutti.init(Config.defaults().with(CountersConfig.ENABLED, false))) {
                Communicator w = t.world();
                w.allreduce(new int[] {1}, new int[1], ReduceOp.SUM);
                Metrics m = t.metrics();
                assertFalse(m.enabled());
                assertEquals(rank, m.rank());
                assertTrue(m.collectives().isEmpty());
                assertEquals(0, m.shm().messagesSent() + m.shm().messagesReceived());
                assertFalse(Files.exists(Rank.of(t).job().jobDir().resolve(CountersDescriptor.fileName(rank))));
                w.barrier();
            }
        });
    }
}
