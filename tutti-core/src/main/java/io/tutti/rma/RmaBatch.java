package io.tutti.rma;

import io.tutti.AccumulateOp;
import io.tutti.Datatype;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Small puts, accumulates, gets and fetching operations (getAccumulate, compare-and-swap) to one
 * target packed into one record ({@code RmaWire.BATCH}), both sides: the origin's reusable buffer per
 * target, and the target's walk that applies the entries in order. A batch's payload is a sequence
 * of entries, each
 *
 * <pre>
 *  0        8              16                 16 + carried bytes
 *  | word   | target byte  | the entry's bytes |  next entry ...
 *            offset
 *  word = bytes &lt;&lt; 32 | kind (PUT, ACC, GET, GET_ACC or CAS) &lt;&lt; 16 | datatype &lt;&lt; 8 | operation   (RmaWire.entry)
 *  carried: a get none, a getAccumulate its origin's bytes (none for NO_OP), a CAS origin then compare
 * </pre>
 *
 * Why so: one record, one header and one answer for many small operations, where each of them as a
 * record of its own cost a datagram and a pass of the target's arrival path; entries are not padded
 * (the kernels read unaligned), so an 8 B put costs 24 bytes of the batch. A batch's replied entries
 * (gets and fetching ones, "gets" below) have consecutive reply numbers (the record's handle names
 * the first, its peer handle how many), and the target answers them all with one {@code REPLIES}
 * record: their bytes one after the other (a fetching entry's are the old values), read where each
 * entry stands in the walk, so a get reads what the puts before it wrote and a fetchAndOp sees the
 * accumulates before it. Their bytes together, like the entries, stay within the batch's bound, so
 * the reply is one frame too.
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
     * Per target: the reply number of the batch's first get or fetching entry (0: none), how many it
     * holds, the bytes they read, and its puts and accumulates (entries answered by no reply).
     */
    private final long[] firstGet;
    private final int[] gets;
    private final int[] getBytes;
    private final int[] writes;

    /**
     * @param ranks the window's ranks
     * @param limit the most payload bytes a batch holds ({@code tutti.rma.batch}); 0 packs nothing
     */
    RmaBatch(int ranks, int limit) {
        this.limit = limit;
        this.buffers = new MemorySegment[ranks];
        this.fill = new int[ranks];
        this.capacity = new int[ranks];
        this.firstGet = new long[ranks];
        this.gets = new int[ranks];
        this.getBytes = new int[ranks];
        this.writes = new int[ranks];
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
     * Whether an entry answered with {@code bytes} bytes of reply (a get, a fetching one), carrying
     * {@code carried} bytes, goes into {@code target}'s batch: the entry and its reply each fit one.
     */
    boolean packsReplied(int target, long carried, long bytes, int frame) {
        return packs(target, carried, frame) && bytes <= capacity[target];
    }

    /** Whether {@code target}'s batch has room for such an entry and its reply (after {@link #packsReplied}). */
    boolean fitsReplied(int target, int carried, int bytes) {
        return fits(target, carried) && getBytes[target] + bytes <= capacity[target];
    }

    /**
     * Adds an entry answered by {@code bytes} bytes of reply (a get, a getAccumulate: GET_ACC, a
     * compare-and-swap: CAS) at {@code at}, carrying {@code carried} bytes of {@code src} (origin,
     * then compare for a CAS; a get none), to {@code target}'s batch (after {@link #packsReplied}, and
     * it {@link #fitsReplied}); {@code reply} is its reply number, the one after the batch's previous
     * replied entry's.
     */
    void addReplied(int target, short kind, int bytes, Datatype type, AccumulateOp op, long at, MemorySegment src,
                    long srcOffset, int carried, long reply) {
        if (gets[target] == 0) {
            firstGet[target] = reply;
        }
        gets[target]++;
        getBytes[target] += bytes;
        append(target, kind, type, op, at, src, srcOffset, carried);
        buffers[target].set(WORD, fill[target] - ENTRY_HEADER - carried, RmaWire.entry(kind, bytes, type, op));
    }

    /** The reply number of the first get or fetching entry in {@code target}'s batch, 0 when it holds none. */
    long firstGet(int target) {
        return gets[target] == 0 ? 0 : firstGet[target];
    }

    /**
     * Whether {@code target}'s batch holds only entries answered by replies (gets, fetching ones):
     * then its {@code REPLIES}, sent once every entry applied, complete it, and it needs no answer.
     */
    boolean onlyReplied(int target) {
        return gets[target] > 0 && writes[target] == 0;
    }

    /** How many gets and fetching entries {@code target}'s batch holds. */
    int gets(int target) {
        return gets[target];
    }

    /**
     * Copies a put or accumulate entry into {@code target}'s batch (after {@link #packs}, and it
     * {@link #fits}): from here on the origin's buffer is free again.
     */
    void add(int target, short kind, Datatype type, AccumulateOp op, long at, MemorySegment src, long srcOffset,
             int bytes) {
        writes[target]++;
        append(target, kind, type, op, at, src, srcOffset, bytes);
    }

    /** Copies an entry in; the buffer is allocated once per target, at its first entry. */
    private void append(int target, short kind, Datatype type, AccumulateOp op, long at, MemorySegment src,
                        long srcOffset, int bytes) {
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
        gets[target] = 0;
        getBytes[target] = 0;
        writes[target] = 0;
    }

    // ------------------------------------------------------------ target side

    /** Where the target's walk reports an entry it cannot apply, and reads what a get asks. */
    interface Refusals {
        void refuse(String cause);

        /** The batch's get number {@code index} (from 0) reads {@code bytes} bytes of {@code memory} at {@code at}. */
        default void read(int index, MemorySegment memory, long at, int bytes) {
        }

        /** The batch's get number {@code index} cannot be served, for {@code cause}. */
        default void refuseGet(int index, String cause) {
            refuse(cause);
        }
    }

    /**
     * Bytes an entry carries after its header: a put's or an accumulate's data, a compare-and-swap's
     * origin and compare, none for a get or a getAccumulate with NO_OP.
     */
    private static long carried(long word) {
        return switch (RmaWire.kind(word)) {
            case RmaWire.GET -> 0;
            case RmaWire.CAS -> 2L * RmaWire.bytes(word);
            case RmaWire.GET_ACC -> RmaWire.op(word) == AccumulateOp.NO_OP ? 0 : RmaWire.bytes(word);
            default -> RmaWire.bytes(word);
        };
    }

    /** Whether an entry of {@code kind} is answered with data: a get or a fetching one. */
    private static boolean replied(short kind) {
        return kind == RmaWire.GET || kind == RmaWire.GET_ACC || kind == RmaWire.CAS;
    }

    /**
     * Whether the batch holds an accumulate, fetching or not (then it is applied under the window's
     * accumulate lock).
     */
    static boolean accumulates(MemorySegment data, long offset, int length) {
        long end = offset + length;
        for (long p = offset; p + ENTRY_HEADER <= end; ) {
            long word = data.get(WORD, p);
            short kind = RmaWire.kind(word);
            if (kind == RmaWire.ACC || kind == RmaWire.GET_ACC || kind == RmaWire.CAS) {
                return true;
            }
            if (RmaWire.bytes(word) < 0) {
                return false;
            }
            p += ENTRY_HEADER + carried(word);
        }
        return false;
    }

    /**
     * Applies the entries of a batch to {@code memory} in order; an entry that cannot be applied is
     * reported to {@code refusals} and skipped, the others apply (as records of their own would), and
     * a batch cut short stops there. A get reads at its place in the order ({@link Refusals#read}),
     * and so does a fetching entry, its old values before it changes them, up to {@code replyBytes}
     * bytes for all of them; one beyond is refused. The caller holds the accumulate lock if
     * {@link #accumulates}.
     *
     * @param rank the target's rank in the window, for the causes
     * @return how many entries were refused
     */
    static int apply(MemorySegment data, long offset, int length, MemorySegment memory, int rank, Refusals refusals) {
        return apply(data, offset, length, memory, rank, Integer.MAX_VALUE, refusals);
    }

    static int apply(MemorySegment data, long offset, int length, MemorySegment memory, int rank, int replyBytes,
                     Refusals refusals) {
        return apply(data, offset, length, memory, Extent.of(memory.byteSize()), rank, replyBytes, refusals);
    }

    /** As above, the entries checked against {@code extent} of {@code memory} (a dynamic window's: its regions). */
    static int apply(MemorySegment data, long offset, int length, MemorySegment memory, Extent extent, int rank,
                     int replyBytes, Refusals refusals) {
        long end = offset + length;
        int refused = 0;
        int gets = 0;
        long read = 0;
        for (long p = offset; p < end; ) {
            long word = end - p >= ENTRY_HEADER ? data.get(WORD, p) : -1;
            int bytes = RmaWire.bytes(word);
            short kind = RmaWire.kind(word);
            if (word == -1 || bytes < 0 || carried(word) > end - p - ENTRY_HEADER) {
                refusals.refuse("a batch whose entry at byte " + (p - offset) + " of " + length + " is cut short");
                return refused + 1;
            }
            long at = data.get(WORD, p + 8);
            long from = p + ENTRY_HEADER;
            long carried = carried(word);
            String cause = kind == RmaWire.PUT || kind == RmaWire.ACC || replied(kind)
                    ? RmaWire.refusal(kind, word, at, bytes, (int) carried, extent, rank)
                    : "an entry of kind " + kind + ", which batches do not carry";
            if (cause == null && replied(kind) && read + bytes > replyBytes) {
                cause = RmaWire.name(kind) + " of " + bytes + " bytes at byte offset " + at + ", beyond the " + replyBytes
                        + " bytes one reply carries";
            }
            if (replied(kind)) {
                if (cause != null) {
                    refusals.refuseGet(gets, cause);
                    refused++;
                } else {
                    // the old values first, then the change: atomic under the caller's accumulate lock
                    refusals.read(gets, memory, at, bytes);
                    read += bytes;
                    if (kind == RmaWire.GET_ACC) {
                        Datatype type = RmaWire.type(word);
                        Accumulation.apply(memory, at, data, from, null, 0, bytes / type.extent(), type,
                                RmaWire.op(word));
                    } else if (kind == RmaWire.CAS) {
                        Accumulation.compareAndSwap(memory, at, data, from, data, from + bytes, null, 0, bytes);
                    }
                }
                gets++;
            } else if (cause != null) {
                refusals.refuse(cause);
                refused++;
            } else if (kind == RmaWire.PUT) {
                MemorySegment.copy(data, from, memory, at, bytes);
            } else {
                Datatype type = RmaWire.type(word);
                Accumulation.apply(memory, at, data, from, null, 0, bytes / type.extent(), type, RmaWire.op(word));
            }
            p = from + carried;
        }
        return refused;
    }
}
