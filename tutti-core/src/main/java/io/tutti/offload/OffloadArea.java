package io.tutti.offload;

import io.tutti.os.Memory;
import static io.tutti.offload.OffloadAreaDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One rank's offload area over shared memory (layout and protocol in {@link OffloadAreaDescriptor}).
 * The owner and its node's peers hold it mapped; counter words are reached by their offsets in
 * {@link #segment()}, the temporary buffers through {@link #via()}.
 */
public final class OffloadArea {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment segment;
    private final MemorySegment via;
    private final long base;
    private final int counters;
    private final long tempBytes;

    /** Wraps a mapped area; throws if it is not one. */
    public OffloadArea(MemorySegment segment) {
        if (segment.byteSize() < FIRST_BLOCK_OFFSET || (int) INT.getVolatile(segment, (long) MAGIC_OFFSET) != MAGIC) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes is not an offload area");
        }
        this.counters = segment.get(ValueLayout.JAVA_INT, COUNTERS_OFFSET);
        this.tempBytes = segment.get(ValueLayout.JAVA_LONG, TEMP_BYTES_OFFSET);
        if (counters < 0 || tempBytes < 0 || segment.byteSize() < fileLength(counters, tempBytes)) {
            throw new IllegalArgumentException("offload area of " + segment.byteSize() + " bytes cannot hold "
                    + counters + " counters and " + tempBytes + " bytes of temp");
        }
        this.segment = segment;
        this.via = Memory.via(segment);
        this.base = Memory.base(segment);
    }

    /** Writes the header of a fresh (zero-filled) area; call before any other rank can map it. */
    public static void format(MemorySegment segment, int counters, long tempBytes) {
        segment.set(ValueLayout.JAVA_INT, COUNTERS_OFFSET, counters);
        segment.set(ValueLayout.JAVA_LONG, TEMP_BYTES_OFFSET, tempBytes);
        segment.set(ValueLayout.JAVA_INT, CPU_OFFSET, -1);
        INT.setRelease(segment, (long) MAGIC_OFFSET, MAGIC);
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Owner: notes the processor it runs on (opaque store: a hint for waiting peers, not a guarantee). */
    public void cpu(int cpu) {
        INT.setOpaque(segment, (long) CPU_OFFSET, cpu);
    }

    /** The processor the owner ran on when it last started a run, or -1 (opaque load; a hint). */
    public int cpu() {
        return (int) INT.getOpaque(segment, (long) CPU_OFFSET);
    }

    /** Counters of the owner's program. */
    public int counters() {
        return counters;
    }

    /** Length of each parity's temporary buffer. */
    public long tempBytes() {
        return tempBytes;
    }

    /** Offset in {@link #segment()} of counter {@code counter}'s level in parity {@code parity}. */
    public long counterOffset(int parity, int counter) {
        return OffloadAreaDescriptor.counterOffset(counters, tempBytes, parity, counter);
    }

    /** Parity {@code parity}'s temporary buffer, as a slice of {@link #segment()}. */
    public MemorySegment temp(int parity) {
        return segment.asSlice(tempOffset(counters, tempBytes, parity), tempBytes);
    }

    /** The segment through which {@link #tempAt} addresses the temporary buffers ({@link Memory}). */
    public MemorySegment via() {
        return via;
    }

    /** Offset in {@link #via()} of parity {@code parity}'s temporary buffer. */
    public long tempAt(int parity) {
        return base + tempOffset(counters, tempBytes, parity);
    }
}
