package io.tutti.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.transport.RailCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rail command channel of the counters file ({@link RailControl}): a command is posted once the
 * previous one is answered, the answer comes back to the one who posted it, and a job, rank or
 * rail that is not there is said so.
 */
@Timeout(60)
class RailControlTest {
    private static final List<Counters.Operation> OPS = List.of(new Counters.Operation("barrier", List.of("linear")));
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final Arena arena = Arena.ofShared();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> transports = new ArrayList<>();
    /** The ranks' writers, by file. */
    private final Map<Path, Counters> written = new HashMap<>();

    @AfterEach
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : transports) {
            t.join(10_000);
        }
        arena.close();
    }

    /** A job directory with ranks {@code ranks}, each with the rails {@code rails}. */
    private Path job(String id, int[] ranks, List<String> rails) {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-" + id));
        for (int r : ranks) {
            MemorySegment s = ShmFiles.createAndMap(dir.resolve(CountersDescriptor.fileName(r)),
                    Counters.fileLength(4, OPS), arena);
            Counters c = Counters.format(s, true, id, r, 4, 100 + r, OPS);
            written.put(dir.resolve(CountersDescriptor.fileName(r)), c);
            for (int i = 0; i < rails.size(); i++) {
                c.railName(i, rails.get(i));
            }
        }
        return dir;
    }

    /**
     * A transport's side of rank {@code rank}'s file (its {@link Counters}): takes each new command
     * and answers it, refusing rail {@code last} as the last in service, until the test ends.
     */
    private void answering(Path dir, int rank, int last) {
        RailCounters file = written.get(dir.resolve(CountersDescriptor.fileName(rank)));
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            int taken = 0;
            while (running.get()) {
                long command = file.railCommand();
                if (RailCounters.sequence(command) != taken) {
                    taken = RailCounters.sequence(command);
                    file.railAnswer(command, RailCounters.rail(command) == last
                            && RailCounters.operation(command) == RailCounters.RAIL_DOWN
                            ? RailCounters.LAST_RAIL : RailCounters.DONE);
                }
                Thread.onSpinWait();
            }
        });
        transports.add(t);
    }

    @Test
    void aCommandIsAnsweredAndARefusalSaysWhy() throws Exception {
        Path dir = job("a1", new int[] {0, 1}, List.of("10.100.0.1", "10.101.0.1"));
        answering(dir, 0, 0);
        answering(dir, 1, 0);
        List<RailControl.Outcome> down = RailControl.apply(dir, "10.101.0.1", true, -1, WAIT);
        assertEquals(2, down.size());
        for (RailControl.Outcome o : down) {
            assertTrue(o.done(), o.message());
            assertEquals(1, o.rail());
            assertEquals("rail 1 (10.101.0.1) out of service", o.message());
        }
        List<RailControl.Outcome> last = RailControl.apply(dir, "0", true, 1, WAIT);
        assertEquals(1, last.size());
        assertEquals(1, last.get(0).rank());
        assertFalse(last.get(0).done());
        assertTrue(last.get(0).message().contains("last rail in service"), last.get(0).message());
        assertTrue(RailControl.apply(dir, "1", false, 0, WAIT).get(0).done());
    }

    @Test
    void aSecondCommandWaitsUntilTheFirstIsAnswered() throws Exception {
        Path dir = job("a2", new int[] {0}, List.of("eth0", "eth1"));
        try (RailControl c = RailControl.open(dir.resolve("counters-0"))) {
            long first = c.tryPost(RailCounters.RAIL_DOWN, 1);
            assertEquals(1, RailCounters.sequence(first));
            assertEquals(0, c.tryPost(RailCounters.RAIL_UP, 1), "posted over an unanswered command");
            RailControl.Outcome stuck = c.command(RailCounters.RAIL_UP, 1, Duration.ofMillis(50));
            assertFalse(stuck.done());
            assertTrue(stuck.message().contains("still unanswered"), stuck.message());
            answering(dir, 0, -1);
            RailControl.Outcome up = c.command(RailCounters.RAIL_UP, 1, WAIT);
            assertTrue(up.done(), up.message());
            assertEquals(2, RailCounters.sequence(c.commandWord()));
        }
    }

    @Test
    void aJobRankOrRailThatIsNotThereIsNamed() throws Exception {
        Path dir = job("a3", new int[] {0}, List.of("eth0", "eth1"));
        IllegalArgumentException noJob = assertThrows(IllegalArgumentException.class,
                () -> RailControl.apply(root.resolve("tutti-nope"), "0", true, -1, WAIT));
        assertTrue(noJob.getMessage().startsWith("no job nope on this host"), noJob.getMessage());
        IllegalArgumentException noRank = assertThrows(IllegalArgumentException.class,
                () -> RailControl.apply(dir, "0", true, 3, WAIT));
        assertTrue(noRank.getMessage().contains("has no rank 3"), noRank.getMessage());
        IllegalArgumentException noRail = assertThrows(IllegalArgumentException.class,
                () -> RailControl.apply(dir, "eth7", true, -1, WAIT));
        assertEquals("rank 0 has no rail eth7; its rails: 0 (eth0), 1 (eth1)", noRail.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RailControl.apply(dir, "2", true, -1, WAIT));
        Path shmOnly = job("a4", new int[] {0}, List.of());
        IllegalArgumentException noRails = assertThrows(IllegalArgumentException.class,
                () -> RailControl.apply(shmOnly, "0", true, -1, WAIT));
        assertTrue(noRails.getMessage().contains("has network rails"), noRails.getMessage());
    }

    @Test
    void aFileOthersMayWriteIsRefused() throws Exception {
        Path dir = job("a5", new int[] {0}, List.of("eth0", "eth1"));
        Files.setPosixFilePermissions(dir.resolve("counters-0"), PosixFilePermissions.fromString("rw-rw-rw-"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RailControl.apply(dir, "0", true, -1, WAIT));
        assertTrue(e.getMessage().contains("may be written by others"), e.getMessage());
        assertNotEquals(0, Files.size(dir.resolve("counters-0")));
    }
}
