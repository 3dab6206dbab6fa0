package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Metrics;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.metrics.RailControl;
import io.tutti.monitor.JobCounters;
import io.tutti.transport.RailCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's copies of remote ranks' counters: what status reads from them, and what is refused. */
@Timeout(60)
class CounterCopiesTest {
    @TempDir
    Path root;

    /** Rank {@code rank}'s counters file of a job of two, as the rank would send it, after {@code sends} sends. */
    private static byte[] countersOf(int rank, int sends, Arena arena) {
        MemorySegment s = arena.allocate(Counters.fileLength(2, List.of(new Counters.Operation("barrier", List.of("linear")))), 8);
        Counters c = Counters.format(s, true, "beef", rank, 2, 4242, List.of(new Counters.Operation("barrier", List.of("linear"))));
        c.railName(0, "eth0");
        c.transport(1 - rank, true);
        for (int i = 0; i < sends; i++) {
            c.sent(1 - rank, 100);
            c.collective(0, 0, 0);
            c.offload(Counters.OFFLOAD_RUNS);
            c.inNetwork(Counters.INC_PACKETS_SENT);
        }
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aCopyShowsItsRanksCountersAndTheLaunchersWordOnItsLife() {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared(); CounterCopies copies = new CounterCopies(dir)) {
            copies.copied(1, "counters-1", countersOf(1, 3, arena));
            List<JobCounters.Rank> ranks = JobCounters.ranks(dir, pid -> false);
            assertEquals(1, ranks.size());
            Metrics m = ranks.getFirst().metrics();
            assertEquals(1, m.rank());
            assertEquals(4242, m.pid());
            assertEquals(3, m.net().messagesSent());
            assertEquals(300, m.net().bytesSent());
            assertEquals(3, m.collective("barrier").calls("linear"), "the copy carries the collectives by algorithm");
            assertEquals(3, m.offload().get("runs"), "the offload counters");
            assertEquals(3, m.inNetwork().get("packets-sent"), "and the in-network ones");
            assertEquals(JobCounters.Liveness.RUNNING, ranks.getFirst().liveness(), "its pid is not alive here,"
                    + " the launcher's word is what counts");

            copies.copied(1, "counters-1", countersOf(1, 5, arena));
            assertEquals(5, JobCounters.read(dir).getFirst().net().messagesSent(), "a later copy refreshes");
            copies.ended(1, true);
            assertEquals(JobCounters.Liveness.FAILED, JobCounters.ranks(dir, pid -> true).getFirst().liveness());
            copies.copied(1, "counters-1", countersOf(1, 6, arena));
            JobCounters.Rank after = JobCounters.ranks(dir, pid -> true).getFirst();
            assertEquals(JobCounters.Liveness.FAILED, after.liveness(), "a late copy does not revive it");
            assertEquals(6, after.metrics().net().messagesSent());
        }
    }

    @Test
    void aRankWritesOnlyItsOwnCopyAndAnOwnFileHereIsLeftAlone() throws Exception {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared(); CounterCopies copies = new CounterCopies(dir)) {
            copies.copied(1, "counters-0", countersOf(0, 1, arena));
            copies.copied(1, "../counters-1", countersOf(1, 1, arena));
            copies.copied(1, "counters-1", countersOf(0, 1, arena));
            copies.copied(1, "counters-1", new byte[100]);
            assertFalse(copies.keeps(1));
            assertEquals(List.of(), JobCounters.read(dir));

            // rank 0 shares this host's /dev/shm: its own file is here, and stays its own
            MemorySegment own = ShmFiles.createAndMap(dir.resolve("counters-0"), Counters.fileLength(2, List.of(new Counters.Operation("barrier", List.of("linear")))), arena);
            Counters.format(own, true, "beef", 0, 2, 1, List.of(new Counters.Operation("barrier", List.of("linear")))).sent(1, 1);
            copies.copied(0, "counters-0", countersOf(0, 9, arena));
            assertFalse(copies.keeps(0));
            assertEquals(0, own.get(ValueLayout.JAVA_INT, CountersDescriptor.COPY_OFFSET));
            assertEquals(JobCounters.Liveness.RUNNING, JobCounters.ranks(dir, pid -> pid == 1).getFirst().liveness());
        }
        assertTrue(Files.exists(dir.resolve("counters-0")));
    }

    @Test
    void theForwardingThreadStartsWithTheFirstCopy() {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared(); CounterCopies copies = new CounterCopies(dir)) {
            copies.forward((rank, command) -> true);
            copies.copied(0, "counters-0", new byte[100]);
            assertFalse(copies.forwarding(), "no copy kept, nothing to look at: a job on one host keeps no thread");
            copies.copied(1, "counters-1", countersOf(1, 1, arena));
            assertTrue(copies.forwarding(), "the first copy starts it");
        }
    }

    @Test
    void aRailCommandPostedInACopyGoesToItsRankAndItsAnswerComesBack() throws Exception {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared(); CounterCopies copies = new CounterCopies(dir)) {
            copies.copied(1, "counters-1", countersOf(1, 1, arena));
            List<long[]> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.Future<List<RailControl.Outcome>> operator = java.util.concurrent.Executors
                    .newVirtualThreadPerTaskExecutor().submit(() -> RailControl.apply(dir, "eth0", true, -1,
                            Duration.ofSeconds(30)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (sent.isEmpty() && System.nanoTime() < deadline) {
                copies.forwardOnce((rank, command) -> sent.add(new long[] {rank, command}));
                Thread.sleep(5);
            }
            assertEquals(1, sent.size(), "the command went to its rank once");
            long command = sent.getFirst()[1];
            assertEquals(1, sent.getFirst()[0]);
            assertEquals(RailCounters.RAIL_DOWN, RailCounters.operation(command));
            assertEquals(0, RailCounters.rail(command));
            // the rank's next copy, its own words zero, leaves the posted command alone
            copies.copied(1, "counters-1", countersOf(1, 2, arena));
            copies.forwardOnce((rank, c) -> sent.add(new long[] {rank, c}));
            assertEquals(1, sent.size(), "forwarded once, not again at each look");
            copies.answered(1, RailCounters.answer(command, RailCounters.LAST_RAIL));
            List<RailControl.Outcome> out = operator.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(1, out.size());
            assertFalse(out.getFirst().done());
            assertTrue(out.getFirst().message().contains("is its last rail in service"), out::toString);
        }
    }

    @Test
    void aCommandForARankThatEndsOrCannotBeReachedIsAnsweredAtOnce() throws Exception {
        Path dir = ShmFiles.createJobDirectory(root.resolve("tutti-beef"));
        try (Arena arena = Arena.ofShared(); CounterCopies copies = new CounterCopies(dir);
             RailControl c = RailControl.open(create(copies, dir, arena));
             var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            // the rank's connection is gone: the launcher answers at once
            var unreachable = pool.submit(() -> c.command(RailCounters.RAIL_UP, 0, Duration.ofSeconds(30)));
            awaitPosted(c, 1);
            copies.forwardOnce((rank, command) -> false);
            RailControl.Outcome o = unreachable.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(o.message().contains("the rank ended first"), o::toString);

            // forwarded, then the rank ends before it answers: answered when it ends
            List<Long> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
            var pending = pool.submit(() -> c.command(RailCounters.RAIL_UP, 0, Duration.ofSeconds(30)));
            awaitPosted(c, 2);
            copies.forwardOnce((rank, command) -> sent.add(command));
            assertEquals(1, sent.size());
            copies.ended(1, true);
            o = pending.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(o.message().contains("the rank ended first"), o::toString);

            // and a rank that has ended is not commanded at all
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> RailControl.apply(dir, "0", true, -1, Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("rank(s) [1] of job beef ran on other hosts and have ended"),
                    e.getMessage());
        }
    }

    private static Path create(CounterCopies copies, Path dir, Arena arena) {
        copies.copied(1, "counters-1", countersOf(1, 1, arena));
        return dir.resolve("counters-1");
    }

    /** Waits until the {@code seq}-th command is posted in {@code c}'s file. */
    private static void awaitPosted(RailControl c, int seq) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (RailCounters.sequence(c.commandWord()) < seq && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(seq, RailCounters.sequence(c.commandWord()));
    }
}
