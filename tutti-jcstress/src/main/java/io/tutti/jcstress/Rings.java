package io.tutti.jcstress;

import io.tutti.os.Memory;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * What the inbound-ring tests share: small native rings (as a mapped file is, so the ring takes
 * its by-address path), records that say who wrote them, and the consumer's check of what it got.
 * A record is known by its body length ({@link #LENGTH}); its body is that record's own byte
 * pattern, which no other record, stale lap or cleared space holds.
 */
final class Rings {
    /** The smallest ring there is: records of up to 1008 body bytes, a quarter of it. */
    static final int CAPACITY = 4096;
    /** Body length of record {@code id}; each one different, so that a length tells the record. */
    static final int[] LENGTH = {40, 100, 200, 24, 496, 1008, 490, 8};

    // verdicts of check(): what the consumer got, against what it should have
    static final int OK = 0;
    static final int TORN = 1;
    static final int LOST = 2;
    static final int EXTRA = 3;
    static final int ORDER = 4;
    static final int CORRUPT = 5;
    static final int REFUSED = 6;

    private static final MemorySegment PATTERNS = patterns();
    private static final MemorySegment PATTERNS_VIA = Memory.via(PATTERNS);
    private static final long PATTERNS_BASE = Memory.base(PATTERNS);
    private static final int PATTERN_STRIDE = 1024;

    private Rings() {
    }

    private static MemorySegment patterns() {
        MemorySegment s = Arena.global().allocate((long) LENGTH.length * PATTERN_STRIDE, 64);
        for (int id = 0; id < LENGTH.length; id++) {
            for (int i = 0; i < PATTERN_STRIDE; i++) {
                s.set(ValueLayout.JAVA_BYTE, (long) id * PATTERN_STRIDE + i, (byte) ((id * 37 + i) % 255 + 1));
            }
        }
        return s;
    }

    /** A fresh zeroed ring of {@link #CAPACITY}, its consumer allowed to sleep on its doorbell if {@code sleeps}. */
    static MemorySegment newRing(boolean sleeps) {
        MemorySegment s = Arena.ofAuto().allocate(InboundRingDescriptor.fileLength(CAPACITY), 4096);
        if (sleeps) {
            InboundRing.allowSleep(s);
        }
        return s;
    }

    /** Claims, writes and commits record {@code id} as a producer does; its position, or -1 if refused. */
    static long put(InboundRing ring, int id) {
        long position = ring.tryClaim(LENGTH[id]);
        if (position >= 0) {
            Memory.copy(PATTERNS_VIA, PATTERNS_BASE + (long) id * PATTERN_STRIDE, ring.via(), ring.bodyAt(position),
                    LENGTH[id]);
            ring.commit(position);
        }
        return position;
    }

    /**
     * Moves an empty ring from position 0 to {@code to} (a multiple of 64) with records that are
     * read and released at once, single-threaded: a test then starts anywhere in a lap, at the wrap
     * or on the second lap, over space a consumer has cleared.
     */
    static void advance(InboundRing producer, InboundRing consumer, long to) {
        InboundRing.RecordHandler drop = (segment, at, length) -> { };
        long at = 0;
        while (at < to) {
            int record = (int) Math.min(CAPACITY / 4, to - at);
            long position = producer.tryClaim(record - InboundRingDescriptor.RECORD_HEADER_LENGTH);
            if (position != at) {
                throw new IllegalStateException("advancing the ring: claim at " + position + ", expected " + at);
            }
            producer.commit(position);
            consumer.read(drop, 1);
            at += record;
        }
        consumer.release();
    }

    /** What a consumer got: the records in the order handed out, and whether each was whole. */
    static final class Seen implements InboundRing.RecordHandler {
        final int[] ids = new int[8];
        final boolean[] whole = new boolean[8];
        int count;
        /** The ring threw: a header with an impossible length. */
        boolean corrupt;

        @Override
        public void onRecord(MemorySegment segment, long bodyOffset, int bodyLength) {
            int id = -1;
            for (int i = 0; i < LENGTH.length; i++) {
                if (LENGTH[i] == bodyLength) {
                    id = i;
                }
            }
            boolean ok = id >= 0 && MemorySegment.mismatch(segment, bodyOffset, bodyOffset + bodyLength, PATTERNS_VIA,
                    PATTERNS_BASE + (long) id * PATTERN_STRIDE, PATTERNS_BASE + (long) id * PATTERN_STRIDE
                            + bodyLength) == -1;
            if (count < ids.length) {
                ids[count] = id;
                whole[count] = ok;
            }
            count++;
        }

        /** Reads up to {@code limit} records into this; how many were handed out. */
        int readFrom(InboundRing consumer, int limit) {
            int before = count;
            try {
                consumer.read(this, limit);
            } catch (IllegalStateException e) {
                corrupt = true;
            }
            return count - before;
        }

        /** The verdict on what was got, against the records {@code expected} in ring order. */
        int check(int... expected) {
            if (corrupt) {
                return CORRUPT;
            }
            int n = Math.min(count, ids.length);
            for (int i = 0; i < n; i++) {
                if (!whole[i]) {
                    return TORN;
                }
            }
            int[] got = Arrays.copyOf(ids, n);
            if (count == expected.length && Arrays.equals(got, expected)) {
                return OK;
            }
            if (count > expected.length) {
                return EXTRA;
            }
            int[] a = got.clone();
            int[] b = expected.clone();
            Arrays.sort(a);
            Arrays.sort(b);
            return count < expected.length ? LOST : Arrays.equals(a, b) ? ORDER : EXTRA;
        }
    }
}
