package io.tutti.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.Metrics;
import io.tutti.TuttiException;
import io.tutti.transport.RailCounters;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The counters file: what the owner writes is what a reader of the file reads, cell by cell. */
class CountersTest {
    private static final List<Counters.Operation> OPS = List.of(
            new Counters.Operation("barrier", List.of("dissemination", "linear")),
            new Counters.Operation("allreduce", List.of("recursive-doubling", "ring", "inter")));

    @TempDir
    Path dir;

    private static MemorySegment memory(int size) {
        return Arena.ofAuto().allocate(Counters.fileLength(size, OPS), 128);
    }

    @Test
    void headerAndLabelsDescribeTheRank() {
        MemorySegment s = memory(3);
        Counters.format(s, true, "job-7", 2, 3, 4242, OPS);
        Metrics m = CountersReader.of(s, null).read();
        assertEquals("job-7", m.job());
        assertEquals(2, m.rank());
        assertEquals(3, m.size());
        assertEquals(4242, m.pid());
        assertTrue(m.enabled());
        assertTrue(m.startedMillis() > 0);
        assertEquals(3, m.peers().size());
        assertEquals(List.of("barrier", "allreduce"), CountersReader.of(s, null).operations());
        assertEquals(List.of(List.of("dissemination", "linear"), List.of("recursive-doubling", "ring", "inter")),
                CountersReader.of(s, null).algorithms());
        assertNull(m.blocked());
    }

    @Test
    void trafficIsCountedPerPeerAndPerTransport() {
        MemorySegment s = memory(3);
        Counters c = Counters.format(s, true, "j", 0, 3, 1, OPS);
        c.transport(1, false);
        c.transport(2, true);
        c.sent(1, 10);
        c.sent(1, 20);
        c.sent(2, 1000);
        c.received(2, 7);
        c.tick(System.nanoTime());
        c.received(1, 5);
        Metrics m = CountersReader.of(s, null).read();
        assertEquals(new Metrics.Traffic(2, 30, 1, 5), m.shm());
        assertEquals(new Metrics.Traffic(1, 1000, 1, 7), m.net());
        assertEquals(new Metrics.Traffic(2, 30, 1, 5), m.peers().get(1).traffic());
        assertEquals("shm", m.peers().get(1).transport());
        assertEquals("net", m.peers().get(2).transport());
        assertTrue(m.peers().get(1).lastHeardMillis() >= m.startedMillis());
        assertEquals(new Metrics.Traffic(0, 0, 0, 0), m.peers().get(0).traffic());
    }

    @Test
    void collectivesAreCountedWithLog2LatencyBuckets() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        c.collective(1, 0, 0);
        c.collective(1, 0, c.startTimer(1, 0));
        Metrics m = CountersReader.of(s, null).read();
        assertEquals(1, m.collectives().size(), "operations never called are left out");
        Metrics.Collective all = m.collectives().get(0);
        assertEquals("allreduce", all.operation());
        assertEquals(2, all.calls());
        assertEquals(1, all.timed(), "a call started with 0 is counted, not timed");
        assertTrue(all.percentileNanos(0.5) > 0);
        assertEquals(0, CountersDescriptor.bucket(1));
        assertEquals(10, CountersDescriptor.bucket(1024));
        assertEquals(10, CountersDescriptor.bucket(2047));
        assertEquals(CountersDescriptor.BUCKETS - 1, CountersDescriptor.bucket(Long.MAX_VALUE));
        long[] h = new long[CountersDescriptor.BUCKETS];
        h[3] = 99;
        h[12] = 1;
        Metrics.Collective known = new Metrics.Collective("x", 100, h, List.of());
        assertEquals(16, known.percentileNanos(0.5));
        assertEquals(16, known.percentileNanos(0.99));
        assertEquals(8192, known.percentileNanos(1.0));
    }

    @Test
    void everyCallIsCountedAndTheFirstOfEachSixteenTimed() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        for (int i = 0; i < 2 * Counters.TIMED_EVERY + 1; i++) {
            c.collective(1, 0, c.startTimer(1, 0));
        }
        c.collective(0, 0, c.startTimer(0, 0));
        Metrics m = CountersReader.of(s, null).read();
        Metrics.Collective all = m.collectives().stream().filter(x -> x.operation().equals("allreduce")).findFirst()
                .orElseThrow();
        assertEquals(2 * Counters.TIMED_EVERY + 1, all.calls());
        assertEquals(3, all.timed(), "calls 1, 17 and 33");
        Metrics.Collective other = m.collectives().stream().filter(x -> !x.operation().equals("allreduce"))
                .findFirst().orElseThrow();
        assertEquals(1, other.timed(), "each operation's first call is timed");
    }

    @Test
    void aBlockedCallStartsAtTheCallersClockReading() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        long started = CountersReader.of(s, null).read().startedMillis();
        c.block(Counters.RECV, 1, 0, 0, System.nanoTime() + 5_000_000_000L);
        long since = CountersReader.of(s, null).blocked().sinceMillis();
        assertTrue(since >= started + 5_000 && since < started + 65_000, "since " + since + ", started " + started);
    }

    @Test
    void theBlockedCallNamesCallPeerTagAndContextUntilItEnds() {
        MemorySegment s = memory(4);
        Counters c = Counters.format(s, true, "j", 0, 4, 1, OPS);
        CountersReader r = CountersReader.of(s, null);
        c.block(Counters.RECV, 3, 77, 5, System.nanoTime());
        Metrics.Blocked b = r.blocked();
        assertEquals(new Metrics.Blocked("recv", 3, 77, 5, b.sinceMillis()), b);
        assertTrue(b.sinceMillis() > 0);
        c.unblock();
        assertNull(r.blocked());
        c.operation(1);
        c.block(Counters.WAIT, 2, -1, -1, System.nanoTime());
        assertEquals("allreduce", r.blocked().call());
        c.operation(-1);
        c.block(Counters.WAIT, -1, -1, -1, System.nanoTime());
        assertEquals("wait", r.blocked().call());
        c.block(Counters.SEND, 1, 0, 0, System.nanoTime());
        assertEquals("send", r.blocked().call());
    }

    @Test
    void railsAndTotalsOfTheTransport() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        c.railName(0, "eth0");
        c.railName(1, "eth1");
        c.railName(RailCounters.MAX_RAILS, "ignored");
        c.rail(1, RailCounters.Rail.STATE, RailCounters.BUSY);
        c.rail(1, RailCounters.Rail.RETRANSMITS, 12);
        c.rail(1, RailCounters.Rail.DATAGRAMS_SENT, 340);
        c.rail(RailCounters.MAX_RAILS, RailCounters.Rail.DATAGRAMS_SENT, 1);
        c.total(RailCounters.Total.NAKS_SENT, 4);
        c.total(RailCounters.Total.SRTT_NANOS, 25_000);
        Metrics m = CountersReader.of(s, null).read();
        assertEquals(2, m.rails().size());
        assertEquals(new Metrics.Rail(0, "eth0", "down", 0, 0, 0, 0, 0), m.rails().get(0));
        assertEquals(new Metrics.Rail(1, "eth1", "busy", 340, 0, 0, 12, 0), m.rails().get(1));
        assertEquals(new Metrics.NetTotals(4, 0, 0, 0, 0, 25_000), m.netTotals());
    }

    @Test
    void errorsAndDropsAreCountedByClass() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        c.error(new TuttiException.PeerFailed("x"));
        c.error(new TuttiException.PeerFailed("y"));
        c.error(new TuttiException.Truncation("z"));
        c.error(new IllegalStateException());
        c.dropped();
        Metrics m = CountersReader.of(s, null).read();
        assertEquals(List.of(new Metrics.ErrorCount("peer-failed", 2), new Metrics.ErrorCount("truncation", 1),
                new Metrics.ErrorCount("other", 1)), m.errors());
        assertEquals(1, m.droppedRecords());
    }

    @Test
    void offCountsNothingAndStillNamesTheRank() {
        Counters c = Counters.off("j", 1, 2, 77, OPS);
        c.sent(1, 10);
        c.received(1, 10);
        c.collective(0, 0, c.startTimer(0, 0));
        c.block(Counters.RECV, 1, 1, 1, System.nanoTime());
        c.error(Counters.OTHER);
        Metrics m = c.snapshot();
        assertFalse(m.enabled());
        assertEquals(1, m.rank());
        assertEquals(77, m.pid());
        assertEquals("j", m.job());
        assertEquals(new Metrics.Traffic(0, 0, 0, 0), m.peers().get(1).traffic());
        assertTrue(m.collectives().isEmpty() && m.errors().isEmpty());
        c.offload(Counters.OFFLOAD_RUNS);
        c.offloadFired(1);
        c.inNetwork(Counters.INC_GROUPS);
        assertTrue(c.snapshot().offload().values().stream().allMatch(v -> v == 0));
        assertTrue(c.snapshot().inNetwork().values().stream().allMatch(v -> v == 0));
        assertNull(m.blocked());
        assertEquals(0, c.startTimer(0, 0));
    }

    @Test
    void groupsOfTheTwoWritersNeverShareALine() {
        int errors = Counters.ERRORS.size();
        for (int size : new int[] {1, 2, 3, 17, 1000}) {
            CountersDescriptor.Shape shape = new CountersDescriptor.Shape(errors, size, 54, Counters.OFFLOAD.size(),
                    Counters.IN_NETWORK.size());
            long[] groups = {CountersDescriptor.TRAFFIC_OFFSET, CountersDescriptor.BLOCKED_OFFSET,
                CountersDescriptor.ERRORS_OFFSET, shape.peersOffset(), shape.collectivesOffset(), shape.offloadOffset(),
                shape.inNetworkOffset(), shape.netTotalsOffset(), shape.railsOffset(), shape.commandOffset(),
                shape.answerOffset(), shape.fileLength()};
            for (int i = 0; i < groups.length; i++) {
                assertEquals(0, groups[i] % 128, "group " + i + " of a job of " + size);
                if (i > 0) {
                    assertTrue(groups[i] > groups[i - 1], "group " + i + " of a job of " + size);
                }
            }
            assertTrue(shape.peersOffset() >= CountersDescriptor.ERRORS_OFFSET + errors * 8L);
            assertTrue(shape.inNetworkOffset() >= shape.offloadOffset() + Counters.OFFLOAD.size() * 8L);
            assertTrue(shape.netTotalsOffset() >= shape.inNetworkOffset() + Counters.IN_NETWORK.size() * 8L);
        }
    }

    @Test
    void eachAlgorithmHasItsCallsAndHistogramAndTheOperationTheirSums() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        for (int i = 0; i < 5; i++) {
            c.collective(1, 1, c.startTimer(1, 1));   // ring, blocking
        }
        c.collective(1, 2, 0);                        // inter, nonblocking
        c.collective(1, 0, c.startTimer(1, 0));       // recursive doubling
        c.collective(0, 1, 0);                        // barrier, linear
        Metrics m = CountersReader.of(s, null).read();
        Metrics.Collective allreduce = m.collective("allreduce");
        assertEquals(7, allreduce.calls());
        assertEquals(List.of("recursive-doubling", "ring", "inter"),
                allreduce.algorithms().stream().map(Metrics.Algorithm::name).toList());
        assertEquals(1, allreduce.calls("recursive-doubling"));
        assertEquals(5, allreduce.calls("ring"));
        assertEquals(1, allreduce.calls("inter"));
        assertEquals(1, allreduce.algorithms().get(1).timed(), "ring's first call, not its next four");
        assertEquals(1, allreduce.algorithms().get(0).timed(), "each algorithm's first call is timed");
        assertEquals(0, allreduce.algorithms().get(2).timed());
        assertEquals(2, allreduce.timed(), "the operation's histogram is the sum of its algorithms'");
        Metrics.Collective barrier = m.collective("barrier");
        assertEquals(List.of("linear"), barrier.algorithms().stream().map(Metrics.Algorithm::name).toList(),
                "algorithms that never ran are left out");
        assertEquals(1, barrier.calls("linear"));
        assertEquals(0, barrier.calls("dissemination"));
    }

    @Test
    void offloadAndInNetworkCountersAreReadByName() {
        MemorySegment s = memory(2);
        Counters c = Counters.format(s, true, "j", 0, 2, 1, OPS);
        c.offload(Counters.OFFLOAD_COLLECTIVES);
        c.offload(Counters.OFFLOAD_RUNS);
        c.offload(Counters.OFFLOAD_RUNS);
        c.offloadFired(1);
        c.offloadFired(8);
        c.offloadFired(8);
        c.offloadFired(0);      // not an operation code: nothing
        c.offloadFired(9);
        c.inNetwork(Counters.INC_GROUPS);
        c.inNetwork(Counters.INC_PACKETS_SENT);
        c.inNetwork(Counters.INC_PACKETS_SENT);
        c.inNetwork(Counters.INC_TIMEOUTS);
        Metrics m = CountersReader.of(s, null).read();
        assertEquals(Counters.OFFLOAD, List.copyOf(m.offload().keySet()), "every counter, in the file's order");
        assertEquals(1, m.offload().get("collectives"));
        assertEquals(2, m.offload().get("runs"));
        assertEquals(1, m.offload().get("fired-put"));
        assertEquals(2, m.offload().get("fired-complete"));
        assertEquals(6, m.offload().values().stream().mapToLong(Long::longValue).sum(), "codes 0 and 9 count nothing");
        assertEquals(Counters.IN_NETWORK, List.copyOf(m.inNetwork().keySet()));
        assertEquals(1, m.inNetwork().get("groups"));
        assertEquals(2, m.inNetwork().get("packets-sent"));
        assertEquals(1, m.inNetwork().get("timeouts"));
        assertEquals(4, m.inNetwork().values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void labelsThatDoNotFitAreRefused() {
        List<String> many = java.util.stream.IntStream.range(0, 400).mapToObj(i -> "algorithm-" + i).toList();
        List<Counters.Operation> ops = List.of(new Counters.Operation("allreduce", many));
        MemorySegment s = Arena.ofAuto().allocate(Counters.fileLength(2, ops), 128);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Counters.format(s, true, "j", 0, 2, 1, ops));
        assertTrue(e.getMessage().contains("LABELS_LENGTH"), e.getMessage());
    }

    @Test
    void aReaderOfAFileSeesNothingUntilItIsFormattedAndRefusesAnotherVersion() throws IOException {
        Path file = dir.resolve(CountersDescriptor.fileName(0));
        assertNull(CountersReader.open(file), "no file");
        long length = Counters.fileLength(2, OPS);
        try (Arena arena = Arena.ofShared(); FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
            assertNull(CountersReader.open(file), "zeros: not formatted yet");
            Counters c = Counters.format(s, true, "j", 1, 2, 9, OPS);
            c.sent(0, 3);
            try (CountersReader r = CountersReader.open(file)) {
                assertEquals(1, r.rank());
                assertEquals(new Metrics.Traffic(1, 3, 0, 0), r.read().peers().get(0).traffic());
            }
            s.set(ValueLayout.JAVA_INT, CountersDescriptor.VERSION_OFFSET, CountersDescriptor.VERSION + 1);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> CountersReader.open(file));
            assertTrue(e.getMessage().contains("version"), e.getMessage());
        }
        Files.delete(file);
    }
}
