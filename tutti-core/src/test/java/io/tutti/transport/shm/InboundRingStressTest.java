package io.tutti.transport.shm;

import io.tutti.bootstrap.ShmFiles;
import static io.tutti.transport.shm.InboundRingDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stress of the multi-producer inbound ring across processes (producers in a child JVM and in threads
 * of this one), plus its edge cases. Every record is delivered exactly once, in each producer's order,
 * untorn, and refused claims that are retried lose nothing. The memory ordering of each ring method
 * between threads is checked by the jcstress tests of module tutti-jcstress ({@code InboundRing*}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InboundRingStressTest {
    private static final long SEED = 0x5EED_1234L;

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ the checking consumer

    /**
     * Checks every record the ring hands out against each producer's deterministic sequence, and the
     * ring's layout: each record starts where the previous ended, or at 0 after a padding record.
     */
    static final class Checker implements InboundRing.RecordHandler {
        /** Where the ring's offset 0 is in the segment the ring hands bodies in ({@link #origin}). */
        long origin;
        final int producers;
        final int[] counts;
        final int[] nextSequence;
        final int[] expectedLength;
        final RingRecords.Lengths[] lengths;
        final int capacity;
        final byte[] expected;
        final byte[] actual;
        long total;
        long paddings;
        long expectedStart;

        Checker(int producers, int[] counts, long seed, int capacity, int maxBody) {
            this.producers = producers;
            this.counts = counts;
            this.capacity = capacity;
            this.nextSequence = new int[producers];
            this.expectedLength = new int[producers];
            this.lengths = new RingRecords.Lengths[producers];
            for (int p = 0; p < producers; p++) {
                lengths[p] = new RingRecords.Lengths(seed, p, maxBody);
                expectedLength[p] = counts[p] > 0 ? lengths[p].next() : -1;
            }
            this.expected = new byte[Math.max(16, maxBody)];
            this.actual = new byte[Math.max(16, maxBody)];
        }

        long expectedTotal() {
            long t = 0;
            for (int c : counts) {
                t += c;
            }
            return t;
        }

        @Override
        public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
            long start = bodyOffset - origin - RECORD_HEADER_LENGTH;
            if (start != expectedStart) {
                if (start != 0) {
                    throw new AssertionError("record " + total + " starts at " + start + ", expected "
                            + expectedStart + " (or 0 after padding)");
                }
                paddings++;
            }
            expectedStart = (start + align(RECORD_HEADER_LENGTH + bodyLength)) % capacity;

            int p = RingRecords.producerOf(segment, bodyOffset, bodyLength);
            if (p < 0 || p >= producers) {
                throw new AssertionError("record " + total + " names producer " + p);
            }
            int seq = nextSequence[p];
            if (seq >= counts[p]) {
                throw new AssertionError("producer " + p + " wrote only " + counts[p]
                        + " records, yet another arrived (duplicate?) of length " + bodyLength);
            }
            if (bodyLength != expectedLength[p]) {
                throw new AssertionError("producer " + p + " record " + seq + " has length " + bodyLength
                        + ", expected " + expectedLength[p] + " (ring index " + start + ", record " + total
                        + " overall): a record was lost, duplicated or reordered");
            }
            int carried = RingRecords.sequenceOf(segment, bodyOffset, bodyLength);
            if (carried >= 0 && carried != seq) {
                throw new AssertionError("producer " + p + ": record " + carried + " arrived where " + seq
                        + " was due (lost, duplicated or out of order)");
            }
            String bad = RingRecords.verify(segment, bodyOffset, bodyLength, p, seq, expected, actual);
            if (bad != null) {
                throw new AssertionError("producer " + p + " record " + seq + " (length " + bodyLength + "): " + bad);
            }
            nextSequence[p] = seq + 1;
            expectedLength[p] = seq + 1 < counts[p] ? lengths[p].next() : -1;
            total++;
        }

        String state() {
            return "received " + total + " of " + expectedTotal() + ", next per producer "
                    + java.util.Arrays.toString(nextSequence);
        }
    }

    private static MemorySegment newRing(Path file, int capacity, Arena arena) {
        return ShmFiles.createAndMap(file, InboundRingDescriptor.fileLength(capacity), arena);
    }

    private static void checkProducers(AtomicReference<Throwable> failure, Checker checker) {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("a producer failed (" + checker.state() + ")", t);
        }
    }

    // ------------------------------------------------------------------ across processes

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void producersInAnotherProcessAndInThisOneShareTheRing() throws Exception {
        int capacity = 8192;
        int threadsHere = 2;
        int producers = threadsHere + 1;
        int childProducer = threadsHere;
        int[] counts = {15000, 15000, 20000};
        long seed = SEED ^ 0xC0FFEE;
        Path file = dir.resolve("ring-xproc");
        Path childLog = dir.resolve("child.log");
        try (Arena arena = Arena.ofShared()) {
            InboundRing ring = new InboundRing(newRing(file, capacity, arena));
            Checker checker = new Checker(producers, counts, seed, capacity, ring.maxBodyLength());
            checker.origin = origin(ring);

            String java = ProcessHandle.current().info().command().orElseThrow(
                    () -> new AssertionError("cannot tell which java binary runs this test"));
            ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                    "-Xmx64m", "-cp", System.getProperty("java.class.path"), InboundRingProducerMain.class.getName(),
                    file.toString(), Integer.toString(childProducer), Integer.toString(counts[childProducer]),
                    Long.toString(seed));
            pb.redirectErrorStream(true);
            pb.redirectOutput(childLog.toFile());
            Process child = pb.start();
            AtomicReference<Throwable> producerFailure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            try {
                for (int p = 0; p < threadsHere; p++) {
                    final int id = p;
                    InboundRing mine = new InboundRing(ring.segment());
                    threads.add(Thread.ofPlatform().daemon().name("producer-" + p).start(() -> {
                        try {
                            RingRecords.produce(mine, id, counts[id], seed, seq -> { }, stop::get);
                        } catch (Throwable t) {
                            producerFailure.compareAndSet(null, t);
                        }
                    }));
                }
                long lastProgress = System.nanoTime();
                while (checker.total < checker.expectedTotal()) {
                    int n = ring.read(checker, 32);
                    if (n > 0) {
                        lastProgress = System.nanoTime();
                        continue;
                    }
                    checkProducers(producerFailure, checker);
                    if (!child.isAlive() && child.exitValue() != 0) {
                        fail("the producer process exited with " + child.exitValue() + ": " + log(childLog));
                    }
                    assertTrue(System.nanoTime() - lastProgress < TimeUnit.SECONDS.toNanos(45),
                            "no record for 45 s: " + checker.state() + "; child alive " + child.isAlive() + ": "
                                    + log(childLog));
                    Thread.yield();
                }
                assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the producer process did not exit");
                assertEquals(0, child.exitValue(), log(childLog));
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
                checkProducers(producerFailure, checker);
                assertEquals(0, ring.read(checker, 100));
                for (int p = 0; p < producers; p++) {
                    assertEquals(counts[p], checker.nextSequence[p], "records of producer " + p);
                }
            } finally {
                stop.set(true);
                child.destroyForcibly();
                child.waitFor(10, TimeUnit.SECONDS);
                for (Thread t : threads) {
                    t.join(5000);
                }
            }
        }
    }

    private static String log(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "(no output)";
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }

    // ------------------------------------------------------------------ edge cases

    /**
     * The offset at which a ring hands out the body of a record at ring offset {@code x}, minus
     * {@code x}: the ring's address when it hands bodies out by address ({@link Memory}), else 0.
     */
    static long origin(InboundRing ring) {
        return ring.bodyAt(0) - ring.bodyOffset(0);
    }

    /** Collects what the ring hands out. */
    static final class Collect implements InboundRing.RecordHandler {
        final List<byte[]> bodies = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        /** Where the ring's offset 0 is in the segment the ring hands bodies in ({@link #origin}). */
        long origin;

        @Override
        public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
            byte[] b = new byte[bodyLength];
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, bodyOffset, b, 0, bodyLength);
            bodies.add(b);
            offsets.add(bodyOffset - origin);
        }
    }

    private static long put(InboundRing ring, int length, int fill) {
        long pos = ring.tryClaim(length);
        assertTrue(pos >= 0, "claim of " + length + " bytes refused");
        ring.segment().asSlice(ring.bodyOffset(pos), length).fill((byte) fill);
        ring.commit(pos);
        return pos;
    }

    @Test
    void claimsLargerThanTheLimitOrNegativeAreRejectedClearly() {
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            int max = ring.maxBodyLength();
            assertEquals(4096 / 4 - 16, max);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(max + 1));
            assertTrue(e.getMessage().contains(Integer.toString(max + 1)), e.getMessage());
            assertTrue(e.getMessage().contains(Integer.toString(max)), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(Integer.MAX_VALUE));
            assertThrows(IllegalArgumentException.class, () -> ring.tryClaim(-1));
            // nothing was reserved by the failed claims
            assertTrue(ring.tryClaim(max) >= 0);
        }
    }

    @Test
    void capacityMustBeAPowerOfTwoOfAtLeast4096() {
        assertThrows(IllegalArgumentException.class, () -> InboundRingDescriptor.fileLength(2048));
        assertThrows(IllegalArgumentException.class, () -> InboundRingDescriptor.fileLength(6000));
        assertEquals(4096 + TRAILER_LENGTH, InboundRingDescriptor.fileLength(4096));
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> new InboundRing(arena.allocate(6000 + TRAILER_LENGTH)));
            assertThrows(IllegalArgumentException.class, () -> new InboundRing(arena.allocate(TRAILER_LENGTH)));
            assertThrows(IllegalArgumentException.class, () -> new InboundRing(arena.allocate(100)));
        }
    }

    @Test
    void aFullRingRefusesClaimsAndRecoversOnceTheConsumerReads() {
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            int max = ring.maxBodyLength(); // a record of max is exactly a quarter of the ring
            for (int i = 0; i < 4; i++) {
                put(ring, max, i);
            }
            assertEquals(-1, ring.tryClaim(max));
            assertEquals(-1, ring.tryClaim(0), "not even an empty record fits");
            assertEquals(-1, ring.tryClaim(0), "refusing does not change the state");
            Collect c = new Collect();
            c.origin = origin(ring);
            assertEquals(1, ring.read(c, 1));
            long pos = ring.tryClaim(max);
            assertTrue(pos >= 0, "room again after one record was read");
            ring.segment().asSlice(ring.bodyOffset(pos), max).fill((byte) 9);
            ring.commit(pos);
            assertEquals(-1, ring.tryClaim(0));
            assertEquals(4, ring.read(c, 10));
            assertEquals(5, c.bodies.size());
            int[] fills = {0, 1, 2, 3, 9};
            for (int i = 0; i < 5; i++) {
                assertEquals(max, c.bodies.get(i).length);
                for (byte b : c.bodies.get(i)) {
                    assertEquals(fills[i], b);
                }
            }
            // the ring is empty: the whole capacity is free again
            for (int i = 0; i < 4; i++) {
                put(ring, max, 20 + i);
            }
            assertEquals(-1, ring.tryClaim(0));
        }
    }

    @Test
    void anUncommittedClaimHoldsBackLaterCommittedRecords() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = newRing(dir.resolve("r"), 4096, arena);
            InboundRing consumer = new InboundRing(seg);
            InboundRing producerA = new InboundRing(seg);
            InboundRing producerB = new InboundRing(seg);
            long a = producerA.tryClaim(40);
            assertTrue(a >= 0);
            producerA.segment().asSlice(producerA.bodyOffset(a), 40).fill((byte) 'A');
            put(producerB, 10, 'B');
            put(producerB, 20, 'C');

            Collect c = new Collect();
            c.origin = origin(consumer);
            assertFalse(consumer.hasRecord(), "the record at the head is not committed");
            assertEquals(0, consumer.read(c, 10), "the consumer stops at the uncommitted record");
            assertEquals(0, consumer.read(c, 10));
            assertTrue(c.bodies.isEmpty());

            producerA.commit(a);
            assertTrue(consumer.hasRecord());
            assertEquals(1, consumer.read(c, 1), "the limit is respected");
            assertEquals(2, consumer.read(c, 10));
            assertEquals(List.of(40, 10, 20), c.bodies.stream().map(b -> b.length).toList());
            assertEquals('A', c.bodies.get(0)[0]);
            assertEquals('B', c.bodies.get(1)[0]);
            assertEquals('C', c.bodies.get(2)[0]);
            assertEquals(0, consumer.read(c, 0));
        }
    }

    @Test
    void anUncommittedPaddedClaimAtTheWrapHoldsBackWhatFollows() {
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            Collect c = new Collect();
            c.origin = origin(ring);
            // move the tail to 4096 - 48
            put(ring, 1008, 1);
            put(ring, 1008, 2);
            put(ring, 1008, 3);
            put(ring, 1008 - 48, 4);
            assertEquals(4, ring.read(c, 10));
            // 48 bytes to the end; a 100-byte body (128-byte record) needs padding
            long pos = ring.tryClaim(100);
            assertEquals(0, pos & (4096 - 1), "the record after the padding starts at index 0");
            assertEquals(4096, pos, "the position counts the 48 bytes of padding");
            put(ring, 5, 'Z');
            assertEquals(0, ring.read(c, 10), "the padding is committed but the record after it is not");
            ring.segment().asSlice(ring.bodyOffset(pos), 100).fill((byte) 'P');
            ring.commit(pos);
            assertEquals(2, ring.read(c, 10));
            assertEquals(100, c.bodies.get(4).length);
            assertEquals('P', c.bodies.get(4)[99]);
            assertEquals(5, c.bodies.get(5).length);
        }
    }

    @Test
    void exactFitAtTheEndNeedsNoPaddingAndOneMoreByteDoes() {
        // records take whole 64-byte lines
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            Collect c = new Collect();
            c.origin = origin(ring);
            put(ring, 1008, 1);
            put(ring, 1008, 2);
            put(ring, 1008, 3);
            put(ring, 1008 - 64, 4); // tail at 4096 - 64
            assertEquals(4, ring.read(c, 10));
            long exact = put(ring, 48, 5); // a 64-byte record fits exactly
            assertEquals(4096 - 64, exact, "no padding for an exact fit");
            long next = put(ring, 0, 6);
            assertEquals(4096, next, "the next record starts the second lap at index 0");
            assertEquals(2, ring.read(c, 10));
            assertEquals(16, c.offsets.get(5) - 0, "the empty record's body is at 16");
            // now leave 64 bytes at the end: a record of 65 bytes (128 aligned) must be padded
            put(ring, 1008, 7);
            put(ring, 1008, 8);
            put(ring, 1008, 9);
            put(ring, 880, 10); // from index 64: 3 x 1024 + 896 ends at 4096 - 64
            assertEquals(4, ring.read(c, 10));
            long tailIndex = (c.offsets.get(9) - 16 + align(16 + 880)) % 4096;
            assertEquals(4096 - 64, tailIndex);
            long padded = put(ring, 49, 11);
            assertEquals(0, padded & 4095, "a 128-byte record does not fit 64 bytes: padded to the next lap");
            long after = put(ring, 0, 12);
            assertEquals(128, after & 4095, "the record after it follows the padded one's two lines");
            assertEquals(2, ring.read(c, 10));
            assertEquals(49, c.bodies.get(10).length);
            assertEquals(11, c.bodies.get(10)[0]);
            assertEquals(0, c.bodies.get(11).length);
        }
    }

    @Test
    void compactEagerRecordsGoToTheirOwnHandlerMethodInRingOrder() {
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            put(ring, 5, 1);
            long pos = ring.tryClaim(CompactRecordDescriptor.EAGER_LENGTH + 8, InboundRingDescriptor.TYPE_EAGER);
            CompactRecordDescriptor.write(ring.segment(), ring.bodyOffset(pos), 7, 3, 42, 8);
            ring.commit(pos);
            assertEquals(64, pos, "a short record takes one line");
            List<String> seen = new ArrayList<>();
            InboundRing.RecordHandler h = new InboundRing.RecordHandler() {
                @Override
                public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
                    seen.add("message " + bodyLength);
                }

                @Override
                public void onCompact(int type, MemorySegment segment, long bodyOffset, int bodyLength) {
                    seen.add((type == TYPE_EAGER ? "eager " : "type " + type + " ") + bodyLength + " context " + CompactRecordDescriptor.context(segment, bodyOffset)
                            + " source " + CompactRecordDescriptor.source(segment, bodyOffset) + " tag "
                            + CompactRecordDescriptor.tag(segment, bodyOffset) + " payload "
                            + CompactRecordDescriptor.payloadLength(segment, bodyOffset));
                }
            };
            assertEquals(2, ring.read(h, 10));
            assertEquals(List.of("message 5", "eager 24 context 7 source 3 tag 42 payload 8"), seen);
            // a handler that takes no compact records (an outbox's) refuses one loudly
            pos = ring.tryClaim(CompactRecordDescriptor.EAGER_LENGTH, InboundRingDescriptor.TYPE_EAGER);
            ring.commit(pos);
            assertThrows(IllegalStateException.class, () -> ring.read((segment, off, len) -> { }, 10));
        }
    }

    @Test
    void freshZeroedMemoryHoldsNoRecordAndStaleLapsAreNotRecords() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = newRing(dir.resolve("r"), 4096, arena);
            InboundRing ring = new InboundRing(seg);
            assertFalse(ring.hasRecord());
            Collect c = new Collect();
            assertEquals(0, ring.read(c, 100));
            assertNotEquals(0L, InboundRing.stampOf(0), "a stamp is never 0");
            // a stamp of 0 with a plausible length and type is still no record
            seg.set(ValueLayout.JAVA_INT, LENGTH_OFFSET, 32);
            seg.set(ValueLayout.JAVA_INT, TYPE_OFFSET, TYPE_MESSAGE);
            assertEquals(0, ring.read(c, 100));
            // a complete lap, then nothing: the old stamps of lap 0 do not look like lap 1's
            for (int i = 0; i < 4; i++) {
                put(ring, 1008, i);
            }
            assertEquals(4, ring.read(c, 100));
            assertFalse(ring.hasRecord());
            assertEquals(0, ring.read(c, 100), "lap 0's records are not read again in lap 1");
        }
    }

    @Test
    void aHandlerThatThrowsDoesNotSeeTheRecordAgain() {
        try (Arena arena = Arena.ofConfined()) {
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), 4096, arena));
            put(ring, 8, 1);
            put(ring, 8, 2);
            assertThrows(IllegalStateException.class, () -> ring.read((s, at, len) -> {
                throw new IllegalStateException("handler failed");
            }, 10));
            Collect c = new Collect();
            assertEquals(1, ring.read(c, 10));
            assertEquals(2, c.bodies.get(0)[0]);
        }
    }

    @Test
    void staleBodyBytesOfAnEarlierLapAreNotMistakenForARecord() {
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 4096;
            InboundRing ring = new InboundRing(newRing(dir.resolve("r"), capacity, arena));
            // lap 0: a record at 0 whose body, at ring index 64 (the next cache line, where a record of
            // lap 1 may start), holds what a committed record at position capacity + 64 would look
            // like: stamp ~(capacity + 64), length 48, type MESSAGE
            long p0 = ring.tryClaim(200);
            assertEquals(0, p0);
            MemorySegment body = ring.segment().asSlice(ring.bodyOffset(p0), 200);
            body.fill((byte) 0x11);
            long forgedAt = ALIGNMENT - RECORD_HEADER_LENGTH; // ring index 64, relative to the body at 16
            body.set(ValueLayout.JAVA_LONG, forgedAt + STAMP_OFFSET, InboundRing.stampOf(capacity + ALIGNMENT));
            body.set(ValueLayout.JAVA_INT, forgedAt + LENGTH_OFFSET, 48);
            body.set(ValueLayout.JAVA_INT, forgedAt + TYPE_OFFSET, TYPE_MESSAGE);
            ring.commit(p0);
            // fill the rest of lap 0 and read everything
            put(ring, 1008, 2);
            put(ring, 1008, 3);
            put(ring, 1008, 4);
            put(ring, capacity - 3 * 1024 - align(16 + 200) - 16, 5);
            Collect c = new Collect();
            assertEquals(5, ring.read(c, 100));
            // lap 1: one committed 48-byte record at position capacity; the next record would start at
            // capacity + 64, where nothing has been claimed
            put(ring, 32, 6);
            assertEquals(1, ring.read(c, 1));
            assertEquals(0, ring.read(c, 100), "stale body bytes of lap 0 were delivered as a record of lap 1");
        }
    }
}
