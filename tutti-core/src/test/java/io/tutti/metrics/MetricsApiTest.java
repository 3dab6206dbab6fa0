package io.tutti.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Communicator;
import io.tutti.Config;
import io.tutti.Datatype;
import io.tutti.Metrics;
import io.tutti.Offload;
import io.tutti.ReduceOp;
import io.tutti.Request;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.offload.OffloadedCollective;
import io.tutti.runtime.Rank;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
    void collectivesAreCountedByTheAlgorithmThatRanThem() {
        job(rank -> {
            try (Tutti t = Tutti.init(Config.defaults().with("tutti.coll.allreduce", "ring")
                    .with("tutti.coll.barrier", "linear"))) {
                Communicator w = t.world();
                int[] out = new int[1];
                for (int i = 0; i < 3; i++) {
                    w.allreduce(new int[] {i}, out, ReduceOp.SUM);
                }
                w.iallreduce(new int[] {1}, out, 1, Datatype.INT, ReduceOp.SUM).waitFor();
                w.setAlgorithm("allreduce", "recursive-doubling");
                // each algorithm times its own first call and one in 16 after it: the 1st and the 17th here
                for (int i = 0; i < Counters.TIMED_EVERY + 1; i++) {
                    w.allreduce(new int[] {i}, out, ReduceOp.SUM);
                }
                w.barrier();
                Metrics m = t.metrics();
                Metrics.Collective all = m.collective("allreduce");
                assertEquals(4 + Counters.TIMED_EVERY + 1, all.calls());
                assertEquals(List.of("recursive-doubling", "ring"),
                        all.algorithms().stream().map(Metrics.Algorithm::name).toList(), "only those that ran");
                assertEquals(4, all.calls("ring"), "the nonblocking one too");
                assertEquals(Counters.TIMED_EVERY + 1, all.calls("recursive-doubling"));
                assertEquals(1, all.algorithms().get(1).timed(), "the ring's first call");
                assertEquals(2, all.algorithms().get(0).timed(), "recursive doubling's 1st and 17th calls");
                assertEquals(3, all.timed());
                Metrics.Collective barrier = m.collective("barrier");
                assertEquals(1, barrier.calls());
                assertEquals(1, barrier.calls("linear"));
                assertTrue(m.offload().values().stream().allMatch(v -> v == 0), "no offloaded collective: " + m.offload());
                assertTrue(m.inNetwork().values().stream().allMatch(v -> v == 0), m.inNetwork().toString());
            }
        });
    }

    @Test
    void theOffloadEngineCountsItsRunsAndTheEntriesItFired() {
        int runs = 5;
        job(rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                Request barrier = w.barrierInit(Offload.NIC);
                for (int i = 0; i < runs; i++) {
                    barrier.start();
                    barrier.waitFor();
                }
                Metrics m = t.metrics();
                Map<String, Long> o = m.offload();
                assertEquals(1, o.get("collectives"), o.toString());
                assertEquals(runs, o.get("runs"), o.toString());
                assertEquals(runs, o.get("fired-complete"), "a run completes when its COMPLETE entry fires: " + o);
                long fired = o.entrySet().stream().filter(e -> e.getKey().startsWith("fired-"))
                        .mapToLong(Map.Entry::getValue).sum();
                int entries = ((OffloadedCollective) barrier).program().entries();
                assertTrue(entries > 1);
                assertEquals((long) runs * entries, fired, "every run fires each of the program's entries once: " + o);
                assertNull(m.collective("barrier"), "an offloaded run is not a host collective call");
                barrier.free();
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
