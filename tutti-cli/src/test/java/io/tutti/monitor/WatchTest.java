package io.tutti.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.Counters;
import io.tutti.monitor.JobCounters.Liveness;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the watch makes of a job's files over time: liveness, failures kept, samples, the end of a job. */
@Timeout(60)
class WatchTest {
    @TempDir
    Path root;

    private final Set<Long> alive = new HashSet<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);

    private Watch watch(Path dir) {
        return new Watch(() -> dir.toFile().isDirectory() ? List.of(dir) : List.of(), alive::contains, clock::get);
    }

    private static List<Liveness> liveness(JobSnapshot s) {
        return s.ranks().stream().map(JobCounters.Rank::liveness).toList();
    }

    @Test
    void aKilledRankIsFailedAndStaysSoAfterItsRecordGoes() throws Exception {
        Path dir = root.resolve("tutti-j1");
        try (CountersFiles files = new CountersFiles(dir)) {
            files.rank(0, 3, 100);
            files.rank(1, 3, 101);
            files.rank(2, 3, 102);
            alive.addAll(List.of(100L, 101L, 102L));
            Watch w = watch(dir);
            w.tick();
            assertEquals(List.of(Liveness.RUNNING, Liveness.RUNNING, Liveness.RUNNING), liveness(w.job("j1")));
            alive.remove(101L); // killed: its record stays
            alive.remove(102L);
            files.leave(2); // left the job, then exited
            assertEquals(List.of(Liveness.RUNNING, Liveness.FAILED, Liveness.DONE), liveness(w.job("j1")));
            files.leave(1); // the launcher removing the job's files, record first
            clock.addAndGet(250);
            w.tick();
            assertEquals(List.of(Liveness.RUNNING, Liveness.FAILED, Liveness.DONE), liveness(w.job("j1")));
            assertEquals("failed", w.job("j1").alerts().getFirst().kind());
        }
    }

    @Test
    void anEndedJobKeepsItsLastReadingForAWhile() throws Exception {
        Path dir = root.resolve("tutti-j2");
        Watch w = watch(dir);
        try (CountersFiles files = new CountersFiles(dir)) {
            Counters c = files.rank(0, 2, 200);
            files.rank(1, 2, 201);
            alive.addAll(List.of(200L, 201L));
            c.sent(1, 64);
            w.tick();
            assertTrue(w.job("j2").running());
        }
        ShmFiles.deleteTree(dir);
        clock.addAndGet(1000);
        w.tick();
        JobSnapshot ended = w.job("j2");
        assertFalse(ended.running());
        assertEquals(2, ended.ranks().size());
        assertEquals(64, ended.ranks().getFirst().metrics().peers().get(1).traffic().bytesSent());
        assertEquals(1, w.jobs().size());
        clock.addAndGet(Watch.KEEP_ENDED.toMillis() + 1);
        w.tick();
        assertNull(w.job("j2"));
        assertTrue(w.jobs().isEmpty());
    }

    @Test
    void samplesAreKeptEverySecondWithTheRateBetweenRanks() throws Exception {
        Path dir = root.resolve("tutti-j3");
        try (CountersFiles files = new CountersFiles(dir)) {
            Counters c0 = files.rank(0, 2, 300);
            files.rank(1, 2, 301);
            alive.addAll(List.of(300L, 301L));
            Watch w = watch(dir);
            w.tick();
            c0.sent(1, 1000);
            for (int i = 0; i < 4; i++) { // four reads a second, one sample
                clock.addAndGet(Watch.TICK.toMillis());
                w.tick();
            }
            JobSnapshot s = w.job("j3");
            assertEquals(2, s.samples().size(), s.samples()::toString);
            assertEquals(1000, s.samples().get(1).bytesSent() - s.samples().get(0).bytesSent());
            assertEquals(1000.0, s.heatRate()[0][1], 1e-9);
            assertEquals(0.0, s.heatRate()[1][0], 1e-9);
            for (int i = 0; i < Watch.HISTORY * 4 + 8; i++) {
                clock.addAndGet(Watch.TICK.toMillis());
                w.tick();
            }
            assertEquals(Watch.HISTORY, w.job("j3").samples().size());
        }
    }
}
