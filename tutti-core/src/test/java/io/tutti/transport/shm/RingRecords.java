package io.tutti.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The records the inbound-ring stress tests write: every producer has a deterministic sequence of
 * body lengths (so the consumer knows what length each (producer, sequence) must have) and every body
 * is self-describing and checksummed.
 *
 * <pre>
 *  body byte 0        producer id (0..127)
 *  body bytes 1..4    sequence number, little-endian (truncated when the body is shorter)
 *  body bytes 5..12   CRC32C of bytes 0..4 and 13..end, as a long (present when the body has >= 13 bytes)
 *  body bytes 13..    pseudo-random bytes derived from (producer, sequence)
 * </pre>
 *
 * A zero-length body carries nothing, so only producer 0 ever emits one: the consumer attributes empty
 * records to producer 0 and checks that producer 0's next expected length is 0.
 */
final class RingRecords {
    static final int CHECKSUM_AT = 5;
    static final int FILL_AT = 13;
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private RingRecords() {
    }

    /** The deterministic length sequence of one producer. */
    static final class Lengths {
        private final SplittableRandom rnd;
        private final int producer;
        private final int maxBody;

        Lengths(long seed, int producer, int maxBody) {
            this.rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + producer);
            this.producer = producer;
            this.maxBody = maxBody;
        }

        int next() {
            int pick = rnd.nextInt(100);
            int len;
            if (pick < 8) {
                len = producer == 0 ? 0 : 1;
            } else if (pick < 20) {
                len = 1 + rnd.nextInt(15);                        // tiny: 17..31 byte records
            } else if (pick < 35) {
                len = maxBody - rnd.nextInt(Math.min(32, maxBody)); // the largest records, often padded at the wrap
            } else if (pick < 50) {
                // bodies whose record is an exact multiple of 16 and those one byte past it
                int lines = 1 + rnd.nextInt(Math.max(1, (maxBody + 16) / 16 - 1));
                len = Math.min(maxBody, lines * 16 - 16 + (rnd.nextBoolean() ? 0 : 1));
            } else {
                len = rnd.nextInt(maxBody + 1);
            }
            // an empty body cannot say whose it is: only producer 0 writes them
            return len == 0 && producer != 0 ? 1 : len;
        }
    }

    private static long fillSeed(int producer, long sequence) {
        return (sequence * 0xBF58476D1CE4E5B9L) ^ ((long) producer << 56) ^ 0x94D049BB133111EBL;
    }

    /** Writes the body of (producer, sequence) of {@code length} bytes at {@code at}. */
    static void writeBody(MemorySegment s, long at, int producer, int sequence, int length, byte[] scratch) {
        fillExpected(scratch, producer, sequence, length);
        MemorySegment.copy(scratch, 0, s, ValueLayout.JAVA_BYTE, at, length);
    }

    /** The exact bytes the body of (producer, sequence) of {@code length} bytes must hold. */
    static void fillExpected(byte[] out, int producer, int sequence, int length) {
        if (length == 0) {
            return;
        }
        out[0] = (byte) producer;
        for (int i = 1; i < Math.min(5, length); i++) {
            out[i] = (byte) (sequence >>> (8 * (i - 1)));
        }
        if (length > FILL_AT) {
            SplittableRandom r = new SplittableRandom(fillSeed(producer, sequence));
            int i = FILL_AT;
            while (i < length) {
                long v = r.nextLong();
                for (int k = 0; k < 8 && i < length; k++, i++) {
                    out[i] = (byte) (v >>> (8 * k));
                }
            }
        }
        if (length >= FILL_AT) {
            long crc = checksum(out, length);
            MemorySegment.ofArray(out).set(LONG_LE, CHECKSUM_AT, crc);
        } else {
            for (int i = 5; i < length; i++) {
                out[i] = (byte) (0xA5 ^ i ^ producer);
            }
        }
    }

    static long checksum(byte[] body, int length) {
        CRC32C crc = new CRC32C();
        crc.update(body, 0, 5);
        crc.update(body, FILL_AT, length - FILL_AT);
        return crc.getValue();
    }

    /**
     * Writes {@code count} records of {@code producer} into the ring, retrying whenever {@link
     * InboundRing#tryClaim} finds no room.
     *
     * @param onFull called after every refused claim (the argument is the sequence number waiting)
     * @param stop   polled while waiting for room; true abandons the run
     * @return how many claims were refused
     */
    static long produce(InboundRing ring, int producer, int count, long seed, java.util.function.IntConsumer onFull,
                        java.util.function.BooleanSupplier stop) {
        Lengths lengths = new Lengths(seed, producer, ring.maxBodyLength());
        byte[] scratch = new byte[Math.max(16, ring.maxBodyLength())];
        long refused = 0;
        for (int seq = 0; seq < count; seq++) {
            int length = lengths.next();
            long position;
            while ((position = ring.tryClaim(length)) < 0) {
                refused++;
                onFull.accept(seq);
                if (stop.getAsBoolean()) {
                    return refused;
                }
                Thread.yield();
            }
            writeBody(ring.segment(), ring.bodyOffset(position), producer, seq, length, scratch);
            ring.commit(position);
        }
        return refused;
    }

    static int producerOf(MemorySegment s, long at, int length) {
        return length == 0 ? 0 : s.get(ValueLayout.JAVA_BYTE, at);
    }

    /** The sequence number a body carries, or -1 when it is too short to carry a whole one. */
    static int sequenceOf(MemorySegment s, long at, int length) {
        return length >= 5 ? s.get(INT_LE, at + 1) : -1;
    }

    /**
     * Checks a delivered body against what (producer, sequence) must hold: its own checksum first (a torn
     * body), then every byte.
     *
     * @return null if it is right, else a description of the first difference
     */
    static String verify(MemorySegment s, long at, int length, int producer, int sequence, byte[] expected,
                         byte[] actual) {
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at, actual, 0, length);
        if (length >= FILL_AT) {
            long stored = MemorySegment.ofArray(actual).get(LONG_LE, CHECKSUM_AT);
            long computed = checksum(actual, length);
            if (stored != computed) {
                return "torn body: checksum " + Long.toHexString(stored) + " stored, " + Long.toHexString(computed)
                        + " computed";
            }
        }
        fillExpected(expected, producer, sequence, length);
        for (int i = 0; i < length; i++) {
            if (expected[i] != actual[i]) {
                return "body byte " + i + " is " + actual[i] + ", expected " + expected[i];
            }
        }
        return null;
    }
}
