package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Small puts and accumulates to one target packed into one record ({@code RmaWire.BATCH}), both
 * sides: the origin's reusable buffer per target, and the target's walk that applies the entries in
 * order. A batch's payload is a sequence of entries, each
 *
 * <pre>
 *  0        8              16                 16 + bytes
 *  | word   | target byte  | the entry's bytes |  next entry ...
 *            offset
 *  word = bytes &lt;&lt; 32 | kind (PUT or ACC) &lt;&lt; 16 | datatype &lt;&lt; 8 | operation   (RmaWire.entry)
 * </pre>
 *
 * Why so: one record, one header and one answer for many small operations, where each of them as a
 * record of its own cost a datagram and a pass of the target's arrival path; entries are not padded
 * (the kernels read unaligned), so an 8 B put costs 24 bytes of the batch.
 *
 * <p>Threads: the origin side is the window owner's; the static target side runs on whoever holds
 * the engine.
 */
final class RmaBatch {
    /** Bytes of an entry's word and target offset. */
    static final int ENTRY_HEADER = 16;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The configured bound of a batch's payload; 0 when packing is off. */
    private final int limit;
    /** Per target: its buffer (allocated at the first entry), the bytes in it, and its capacity. */
    private final MemorySegment[] buffers;
    private final int[] fill;
    private final int[] capacity;

    /**
     * @param ranks the window's ranks
     * @param limit the most payload bytes a batch holds ({@code tutti.rma.batch}); 0 packs nothing
     */
    RmaBatch(int ranks, int limit) {
        this.limit = limit;
        this.buffers = new MemorySegment[ranks];
        this.fill = new int[ranks];
        this.capacity = new int[ranks];
    }

    /**
     * Whether an entry of {@code bytes} bytes to {@code target} goes into its batch, whose records
     * carry at most {@code frame} payload bytes (the transport's frame); larger ones go as records
     * of their own.
     */
    boolean packs(int target, long bytes, int frame) {
        if (limit == 0) {
            return false;
        }
        if (capacity[target] == 0) {
            capacity[target] = Math.min(limit, frame);
        }
        return ENTRY_HEADER + bytes <= capacity[target];
    }

    /** Whether {@code target}'s batch has room for an entry of {@code bytes} bytes (after {@link #packs}). */
    boolean fits(int target, int bytes) {
        return fill[target] + ENTRY_HEADER + bytes <= capacity[target];
    }

    /**
     * Copies an entry into {@code target}'s batch (after {@link #packs}, and it {@link #fits}): from
     * here on the origin's buffer is free again. The buffer is allocated once per target, at its
     * first entry.
     */
    void add(int target, short kind, Datatype type, AccumulateOp op, long at, MemorySegment src, long srcOffset,
             int bytes) {
        MemorySegment b = buffers[target];
        if (b == null) {
            b = Arena.ofAuto().allocate(capacity[target], 8);
            buffers[target] = b;
        }
        int p = fill[target];
        b.set(WORD, p, RmaWire.entry(kind, bytes, type, op));
        b.set(WORD, p + 8, at);
        MemorySegment.copy(src, srcOffset, b, p + ENTRY_HEADER, bytes);
        fill[target] = p + ENTRY_HEADER + bytes;
    }

    /** Whether {@code target}'s batch holds entries not sent yet. */
    boolean pending(int target) {
        return fill[target] > 0;
    }

    /** {@code target}'s batch, its payload the first {@link #length} bytes. */
    MemorySegment buffer(int target) {
        return buffers[target];
    }

    int length(int target) {
        return fill[target];
    }

    /** The batch was handed to the transport (which copied it): the buffer is empty again. */
    void sent(int target) {
        fill[target] = 0;
    }

    // ------------------------------------------------------------ target side

    /** Where the target's walk reports an entry it cannot apply. */
    interface Refusals {
        void refuse(String cause);
    }

    /** Whether the batch holds an accumulate (then it is applied under the window's accumulate lock). */
    static boolean accumulates(MemorySegment data, long offset, int length) {
        long end = offset + length;
        for (long p = offset; p + ENTRY_HEADER <= end; ) {
            long word = data.get(WORD, p);
            if (RmaWire.kind(word) == RmaWire.ACC) {
                return true;
            }
            int bytes = RmaWire.bytes(word);
            if (bytes < 0) {
                return false;
            }
            p += ENTRY_HEADER + bytes;
        }
        return false;
    }

    /**
     * Applies the entries of a batch to {@code memory} in order; an entry that cannot be applied is
     * reported to {@code refusals} and skipped, the others apply (as records of their own would), and
     * a batch cut short stops there. The caller holds the accumulate lock if {@link #accumulates}.
     *
     * @param rank the target's rank in the window, for the causes
     * @return how many entries were refused
     */
    static int apply(MemorySegment data, long offset, int length, MemorySegment memory, int rank, Refusals refusals) {
        long end = offset + length;
        long windowBytes = memory.byteSize();
        int refused = 0;
        for (long p = offset; p < end; ) {
            long word = end - p >= ENTRY_HEADER ? data.get(WORD, p) : -1;
            int bytes = RmaWire.bytes(word);
            short kind = RmaWire.kind(word);
            if (word == -1 || bytes < 0 || bytes > end - p - ENTRY_HEADER) {
                refusals.refuse("a batch whose entry at byte " + (p - offset) + " of " + length + " is cut short");
                return refused + 1;
            }
            long at = data.get(WORD, p + 8);
            long from = p + ENTRY_HEADER;
            String cause = kind == RmaWire.PUT || kind == RmaWire.ACC
                    ? RmaWire.refusal(kind, word, at, 0, bytes, windowBytes, rank)
                    : "an entry of kind " + kind + ", which batches do not carry";
            if (cause != null) {
                refusals.refuse(cause);
                refused++;
            } else if (kind == RmaWire.PUT) {
                MemorySegment.copy(data, from, memory, at, bytes);
            } else {
                Datatype type = RmaWire.type(word);
                Accumulation.apply(memory, at, data, from, null, 0, bytes / type.extent(), type, RmaWire.op(word));
            }
            p = from + bytes;
        }
        return refused;
    }
}
