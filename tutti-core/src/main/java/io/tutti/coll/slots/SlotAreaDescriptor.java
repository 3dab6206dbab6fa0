package io.tutti.coll.slots;

import io.tutti.coll.schedule.Schedule;

/**
 * Layout of a rank's slot area: the shared memory through which the ranks of a communicator that
 * all share one node run small collectives without messages. Each rank owns one area per
 * communicator (file {@code slots-<context>-<world rank>}); it writes its contributions there, and
 * every rank of the communicator reads them.
 *
 * <pre>
 *  +--------------------------------------------------------------+
 *  |  header line (64 B)                                           |  0
 *  |    +0   magic        i32  {@link #MAGIC}                       |
 *  |    +4   slots        i32  {@link #SLOTS}                       |
 *  |    +8   slot bytes   i32  {@link #SLOT_BYTES}                  |
 *  +--------------------------------------------------------------+
 *  |  departures line (64 B), written by the owner as a reader:    | 64
 *  |    +8k  departed[k]  i64  generation + 1 the owner last       |
 *  |                           finished reading from slot k of    |
 *  |                           every rank's area                   |
 *  +--------------------------------------------------------------+
 *  |  slot 0: +0  stamp  i64 generation + 1 of the contribution   | 128
 *  |          +8  length i32 bytes of the contribution              |
 *  |          +12 cpu    i32 processor the owner published it from  |
 *  |                         (-1 unknown)                          |
 *  |          +16 SLOT_BYTES of data, the stamp's line first        |
 *  |  slot 1 ... slot SLOTS-1, each SLOT_STRIDE bytes              |
 *  +--------------------------------------------------------------+
 * </pre>
 *
 * Generations number the communicator's slot exchanges; every rank hands them out in the order
 * collective calls start, so a generation means the same exchange on every rank. Generation
 * {@code g} uses slot {@code g % SLOTS} of every area. The owner publishes its contribution with a
 * release store of the stamp after the data; a reader takes it once the stamp equals {@code g + 1}
 * (acquire load), copies it, and after reading every rank's slot stores {@code g + 1} into its own
 * {@code departed[g % SLOTS]} (release). The owner overwrites a slot only when every rank's
 * departure for the slot's previous generation is visible (acquire loads), so a contribution is
 * never replaced under a reader. A short contribution shares the stamp's cache line: it crosses
 * from core to core as one line. So does the processor: a rank that waits for an owner reads where
 * the owner ran from the owner's previous slot, a line it has read already and nobody has written
 * since, so the hint costs no cache miss (a field in the header, rewritten at every publish, did). Readers compare the length with their own, so ranks that make
 * different calls are told so instead of reading each other's data as theirs.
 */
public final class SlotAreaDescriptor {
    public static final int MAGIC = 0x534C4F54; // "SLOT"
    public static final int MAGIC_OFFSET = 0;
    public static final int SLOTS_OFFSET = 4;
    public static final int SLOT_BYTES_OFFSET = 8;
    public static final int DEPARTURES_OFFSET = 64;
    public static final int FIRST_SLOT_OFFSET = 128;
    public static final int STAMP_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int CPU_OFFSET = 12;
    public static final int DATA_OFFSET = 16;

    /** Slots per area: how many exchanges may be under way at once before a writer waits for readers. */
    public static final int SLOTS = 8;
    /**
     * Bytes of data per slot: what the schedules' SLOTS steps carry at most ({@link Schedule#SLOT_BYTES});
     * longer contributions go in several exchanges. Every rank uses the same.
     */
    public static final int SLOT_BYTES = Schedule.SLOT_BYTES;
    public static final int SLOT_STRIDE = 4096;

    private SlotAreaDescriptor() {
    }

    /** File size of an area. */
    public static long fileLength() {
        return FIRST_SLOT_OFFSET + (long) SLOTS * SLOT_STRIDE;
    }

    public static long slotOffset(int slot) {
        return FIRST_SLOT_OFFSET + (long) slot * SLOT_STRIDE;
    }

    public static long departureOffset(int slot) {
        return DEPARTURES_OFFSET + 8L * slot;
    }

    /** The file name of a rank's area for the communicator with collective context {@code context}. */
    public static String fileName(int context, int worldRank) {
        return "slots-" + context + "-" + worldRank;
    }
}
