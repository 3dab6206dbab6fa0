package io.tutti.coll.slots;

import io.tutti.os.Memory;
import static io.tutti.coll.slots.SlotAreaDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One rank's slot area over shared memory (layout and protocol in {@link SlotAreaDescriptor}).
 * The owner writes slots and departures; any rank reads them. Each method states its ordering.
 */
public final class SlotArea {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment segment;
    /** The area through {@link Memory}: the segment to copy slot data through, and the area's offset in it. */
    private final MemorySegment via;
    private final long base;

    /** Wraps a mapped area; throws if it is not one (or has another geometry than this build's). */
    public SlotArea(MemorySegment segment) {
        if (segment.byteSize() < fileLength() || (int) INT.getVolatile(segment, (long) MAGIC_OFFSET) != MAGIC
                || segment.get(ValueLayout.JAVA_INT, SLOTS_OFFSET) != SLOTS
                || segment.get(ValueLayout.JAVA_INT, SLOT_BYTES_OFFSET) != SLOT_BYTES) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes is not a slot area of "
                    + SLOTS + " slots of " + SLOT_BYTES + " bytes (ranks of different builds?)");
        }
        this.segment = segment;
        this.via = Memory.via(segment);
        this.base = Memory.base(segment);
    }

    /** Writes the header of a fresh (zero-filled) area; call before any other rank can map it. */
    public static void format(MemorySegment segment) {
        segment.set(ValueLayout.JAVA_INT, SLOTS_OFFSET, SLOTS);
        segment.set(ValueLayout.JAVA_INT, SLOT_BYTES_OFFSET, SLOT_BYTES);
        INT.setRelease(segment, (long) MAGIC_OFFSET, MAGIC);
    }

    public MemorySegment segment() {
        return segment;
    }

    /** The segment through which {@link #dataAt} addresses slot data ({@link Memory}). */
    public MemorySegment via() {
        return via;
    }

    /** Offset in {@link #via()} of slot {@code slot}'s data. */
    public long dataAt(int slot) {
        return base + dataOffset(slot);
    }

    /** Offset in {@link #segment()} of slot {@code slot}'s data. */
    public static long dataOffset(int slot) {
        return slotOffset(slot) + DATA_OFFSET;
    }

    /** Reader: the generation + 1 slot {@code slot} holds (acquire: its data may be read after). */
    public long stamp(int slot) {
        return (long) LONG.getAcquire(segment, slotOffset(slot) + STAMP_OFFSET);
    }

    /**
     * Owner: publishes slot {@code slot}'s {@code length} bytes of data as generation
     * {@code stamp - 1}, from processor {@code cpu} (-1 unknown): plain stores of the length and the
     * processor, then a release store of the stamp, after the data writes.
     */
    public void publish(int slot, long length, int cpu, long stamp) {
        segment.set(ValueLayout.JAVA_INT, slotOffset(slot) + LENGTH_OFFSET, (int) length);
        segment.set(ValueLayout.JAVA_INT, slotOffset(slot) + CPU_OFFSET, cpu);
        LONG.setRelease(segment, slotOffset(slot) + STAMP_OFFSET, stamp);
    }

    /** Reader, after {@link #stamp} showed the generation: the length its owner published (plain read). */
    public long length(int slot) {
        return segment.get(ValueLayout.JAVA_INT, slotOffset(slot) + LENGTH_OFFSET);
    }

    /**
     * Reader, after {@link #stamp} showed the generation: the processor its owner published it from,
     * or -1 (plain read; a hint, not a guarantee).
     */
    public int cpu(int slot) {
        return segment.get(ValueLayout.JAVA_INT, slotOffset(slot) + CPU_OFFSET);
    }

    /** Owner's last stamp in {@code slot} (plain read: only the owner writes it). */
    public long ownStamp(int slot) {
        return segment.get(ValueLayout.JAVA_LONG, slotOffset(slot) + STAMP_OFFSET);
    }

    /** The generation + 1 this area's owner last finished reading from slot {@code slot} (acquire). */
    public long departed(int slot) {
        return (long) LONG.getAcquire(segment, departureOffset(slot));
    }

    /** Owner: has finished reading generation {@code stamp - 1} from every area (release, after the reads). */
    public void depart(int slot, long stamp) {
        LONG.setRelease(segment, departureOffset(slot), stamp);
    }
}
