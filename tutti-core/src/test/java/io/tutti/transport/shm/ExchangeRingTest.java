package io.tutti.transport.shm;

import io.tutti.bootstrap.ShmFiles;
import static io.tutti.transport.shm.ExchangeRingDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The single-producer single-consumer chunk ring of the rendezvous pipeline. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExchangeRingTest {
    @TempDir
    Path dir;

    private MemorySegment create(Arena arena, String name, int slots, int chunk) {
        MemorySegment s = ShmFiles.createAndMap(dir.resolve(name), fileLength(slots, chunk), arena);
        ExchangeRing.format(s, slots, chunk);
        return s;
    }

    /** The chunk with sequence number {@code seq}: its header fields and its data are all functions of seq. */
    static long handleOf(long seq) {
        return seq * 0x9E3779B97F4A7C15L ^ 0x1234_5678_9ABC_DEF0L;
    }

    static long offsetOf(long seq) {
        return (seq & 1) == 0 ? seq * 4093 : Long.MIN_VALUE + seq * 65537L; // any 64-bit value passes through
    }

    static int lengthOf(long seq, int chunk) {
        SplittableRandom r = new SplittableRandom(seq);
        return switch (r.nextInt(6)) {
            case 0 -> 0;
            case 1 -> chunk;
            case 2 -> chunk - 1;
            case 3 -> 1 + r.nextInt(64);
            default -> r.nextInt(chunk + 1);
        };
    }

    static byte dataByte(long seq, int i) {
        long x = (seq << 20) + i;
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 29;
        return (byte) x;
    }

    @ParameterizedTest(name = "{0} slots of {1} bytes")
    @CsvSource({"2, 4096", "3, 4096", "4, 4096", "2, 8192"})
    void aProducerAndAConsumerThreadPassEveryChunkIntactAndInOrder(int slots, int chunk) throws Exception {
        final int chunks = 100_000;
        try (Arena arena = Arena.ofShared()) {
            create(arena, "dx", slots, chunk);
            // each side maps the file on its own, as two processes would
            ExchangeRing producer = new ExchangeRing(ShmFiles.mapExisting(dir.resolve("dx"), arena));
            ExchangeRing consumer = new ExchangeRing(ShmFiles.mapExisting(dir.resolve("dx"), arena));
            assertEquals(chunk, producer.chunk());
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread t = Thread.ofPlatform().daemon().name("dx-producer").start(() -> {
                try {
                    byte[] buf = new byte[chunk];
                    for (long seq = 0; seq < chunks; seq++) {
                        long slot;
                        while ((slot = producer.tryAcquireSlot()) < 0) {
                            if (stop.get()) {
                                return;
                            }
                            Thread.yield();
                        }
                        if (slot % slotLength(chunk) != 0 || slot >= slots * slotLength(chunk)) {
                            throw new AssertionError("slot offset " + slot + " is not a slot boundary");
                        }
                        int n = lengthOf(seq, chunk);
                        for (int i = 0; i < n; i++) {
                            buf[i] = dataByte(seq, i);
                        }
                        MemorySegment.copy(buf, 0, producer.segment(), ValueLayout.JAVA_BYTE,
                                ExchangeRing.dataOffset(slot), n);
                        producer.publish(slot, handleOf(seq), offsetOf(seq), n);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            try {
                byte[] got = new byte[chunk];
                long lastProgress = System.nanoTime();
                for (long seq = 0; seq < chunks; ) {
                    long slot = consumer.peekSlot();
                    if (slot < 0) {
                        if (failure.get() != null) {
                            throw new AssertionError("the producer failed at chunk " + seq, failure.get());
                        }
                        assertTrue(System.nanoTime() - lastProgress < TimeUnit.SECONDS.toNanos(30),
                                "no chunk for 30 s after " + seq);
                        Thread.yield();
                        continue;
                    }
                    assertEquals(slot, consumer.peekSlot(), "peeking twice shows the same slot");
                    assertEquals(handleOf(seq), consumer.slotHandle(slot), "handle of chunk " + seq);
                    assertEquals(offsetOf(seq), consumer.slotOffset(slot), "offset of chunk " + seq);
                    int n = consumer.slotDataLength(slot);
                    assertEquals(lengthOf(seq, chunk), n, "length of chunk " + seq);
                    MemorySegment.copy(consumer.segment(), ValueLayout.JAVA_BYTE, ExchangeRing.dataOffset(slot),
                            got, 0, n);
                    for (int i = 0; i < n; i++) {
                        if (got[i] != dataByte(seq, i)) {
                            fail("chunk " + seq + " byte " + i + " is " + got[i] + ", expected " + dataByte(seq, i));
                        }
                    }
                    consumer.release();
                    seq++;
                    lastProgress = System.nanoTime();
                }
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(t.isAlive());
                if (failure.get() != null) {
                    throw new AssertionError("the producer failed", failure.get());
                }
                assertEquals(-1, consumer.peekSlot(), "nothing after the last chunk");
            } finally {
                stop.set(true);
                t.join(5000);
            }
        }
    }

    @Test
    void emptyAndFullEdges() {
        int slots = 3;
        int chunk = 4096;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = create(arena, "dx", slots, chunk);
            ExchangeRing p = new ExchangeRing(s);
            ExchangeRing c = new ExchangeRing(s);
            assertEquals(-1, c.peekSlot(), "a fresh ring is empty");
            long first = p.tryAcquireSlot();
            assertEquals(0, first);
            assertEquals(first, p.tryAcquireSlot(), "acquiring without publishing gives the same slot");
            assertEquals(-1, c.peekSlot(), "an acquired but unpublished slot is invisible");
            for (int i = 0; i < slots; i++) {
                long slot = p.tryAcquireSlot();
                assertEquals(i * slotLength(chunk), slot);
                p.publish(slot, 100 + i, 1000L * i, i);
            }
            assertEquals(-1, p.tryAcquireSlot(), "all slots are full");
            assertEquals(-1, p.tryAcquireSlot());
            assertEquals(0, c.peekSlot());
            assertEquals(100, c.slotHandle(0));
            c.release();
            long again = p.tryAcquireSlot();
            assertEquals(0, again, "the freed slot is reused");
            p.publish(again, 103, 3000, 3);
            assertEquals(-1, p.tryAcquireSlot());
            for (int i = 1; i <= slots; i++) {
                long slot = c.peekSlot();
                assertEquals((i % slots) * slotLength(chunk), slot);
                assertEquals(100 + i, c.slotHandle(slot));
                assertEquals(1000L * i, c.slotOffset(slot));
                assertEquals(i, c.slotDataLength(slot));
                c.release();
            }
            assertEquals(-1, c.peekSlot(), "empty again");
            assertEquals(slotLength(chunk), p.tryAcquireSlot(), "the producer continues where it stopped");
        }
    }

    @Test
    void aRingMappedAgainContinuesFromTheSharedPositions() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = create(arena, "dx", 2, 4096);
            ExchangeRing p = new ExchangeRing(s);
            p.publish(p.tryAcquireSlot(), 1, 0, 10);
            ExchangeRing c = new ExchangeRing(s); // attaches after one chunk was published
            assertEquals(0, c.peekSlot());
            c.release();
            ExchangeRing p2 = new ExchangeRing(s); // a producer attaching later starts at the shared tail
            assertEquals(slotLength(4096), p2.tryAcquireSlot());
        }
    }

    @Test
    void geometryIsValidated() {
        assertThrows(IllegalArgumentException.class, () -> fileLength(1, 4096));
        assertThrows(IllegalArgumentException.class, () -> fileLength(2, 2048));
        assertThrows(IllegalArgumentException.class, () -> fileLength(2, 4096 + 1));
        assertEquals(2 * (4096 + 64) + TRAILER_LENGTH, fileLength(2, 4096));
        assertEquals(0, slotLength(4096) % 64, "slots are multiples of 64 bytes");
        try (Arena arena = Arena.ofConfined()) {
            // never formatted: all zero
            MemorySegment zero = ShmFiles.createAndMap(dir.resolve("zero"), fileLength(2, 4096), arena);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ExchangeRing(zero));
            assertTrue(e.getMessage().contains("geometry"), e.getMessage());

            // a trailer that says another chunk size than the file has room for
            MemorySegment wrongChunk = create(arena, "wrong-chunk", 2, 4096);
            wrongChunk.set(ValueLayout.JAVA_INT, 2 * slotLength(4096) + CHUNK_OFFSET, 8192);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(wrongChunk));

            // a trailer that says another slot count
            MemorySegment wrongSlots = create(arena, "wrong-slots", 4, 4096);
            wrongSlots.set(ValueLayout.JAVA_INT, 4 * slotLength(4096) + SLOTS_OFFSET, 3);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(wrongSlots));

            // one slot, negative values
            MemorySegment oneSlot = create(arena, "one", 2, 4096);
            oneSlot.set(ValueLayout.JAVA_INT, 2 * slotLength(4096) + SLOTS_OFFSET, 1);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(oneSlot));
            MemorySegment negative = create(arena, "neg", 2, 4096);
            negative.set(ValueLayout.JAVA_INT, 2 * slotLength(4096) + CHUNK_OFFSET, -4096);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(negative));

            // a file longer than its trailer says: the trailer is not where the geometry puts it
            MemorySegment longer = ShmFiles.createAndMap(dir.resolve("longer"), fileLength(2, 4096) + 64, arena);
            ExchangeRing.format(longer, 2, 4096);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(longer));
        }
    }

    @Test
    void aSegmentTooShortForATrailerIsRejectedAsABadGeometry() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tiny = arena.allocate(100);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(tiny));
            MemorySegment empty = arena.allocate(0);
            assertThrows(IllegalStateException.class, () -> new ExchangeRing(empty));
        }
    }

    @Test
    void aChunkThatIsNotAMultipleOf64IsRejectedAsABadGeometry() {
        try (Arena arena = Arena.ofConfined()) {
            int chunk = 4100; // slot length 4164: slot 1's 8-byte header fields are misaligned
            MemorySegment s = ShmFiles.createAndMap(dir.resolve("odd"), 2 * slotLength(chunk) + TRAILER_LENGTH,
                    arena);
            ExchangeRing.format(s, 2, chunk);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ExchangeRing(s));
            assertTrue(e.getMessage().contains("4100"), e.getMessage());
        }
    }
}
