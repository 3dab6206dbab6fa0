package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of the NIC's reduction and broadcast descriptors ([NIC-reduce] figure 2 and §3.2): the
 * descriptor a host posts, which is also the packet the NIC sends. One descriptor carries at most
 * {@value #PAYLOAD} bytes of data, so a longer message is split over {@link #parts(long)}
 * descriptors, each counted on arrival.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-------+---------------+---------------+---------------+
 *  |R|C|S|M| epoch |     Rtype     |     Type      |    Branch     |  0
 *  +-+-+-+-+-------+---------------+---------------+---------------+
 *  |                         Source rank                           |  4
 *  +-------------------------------+---------------+---------------+
 *  |             Part              |     Count     |  Error vector |  8
 *  +---------------+---------------+---------------+---------------+
 *  |    Counter    |                    CPCnt                      | 12
 *  +---------------+-----------------------------------------------+
 *  |                                                               | 16
 *  |          Data: 48 bytes (12 x 32-bit or 6 x 64-bit values,    |
 *  |          or value/location pairs for MAXLOC and MINLOC)       |
 *  |                                                               |
 *  +---------------------------------------------------------------+ 64
 * </pre>
 *
 * <ul>
 *   <li><b>R</b> (Rflag): reduction descriptor (1) or broadcast descriptor (0).</li>
 *   <li><b>C</b> (CP): the packet adds 1 to the target's counter {@code Counter} on arrival.</li>
 *   <li><b>S</b> (SwpFlag), <b>M</b> (SwpMp): data exchange in the sending module, and whether the
 *       arriving packet goes to the host's receive queue; kept for fidelity, Tutti sets them 0.</li>
 *   <li><b>epoch</b>: the low 4 bits of the persistent request's start count, so that a packet of the
 *       next start that arrives before the target re-armed can be held back.</li>
 *   <li><b>Rtype</b>, <b>Type</b>: {@link OffloadAlu.Op} and {@link OffloadAlu.Type} ordinals;
 *       the receiver compares them with its own, as [NIC-reduce]'s NIC compares Rtype.</li>
 *   <li><b>Branch</b>: inputs the receiver accumulates before its own descriptor fires.</li>
 *   <li><b>Part</b>: which {@value #PAYLOAD}-byte slice of the message, <b>Count</b>: its bytes.</li>
 *   <li><b>CPCnt</b>: the trigger threshold of the posted descriptor (its counter level).</li>
 * </ul>
 *
 * The destination rank is not repeated: the link's header carries it. Header fields are
 * little-endian; data is in the ALU's byte order. Static accessors only (a flyweight over any
 * segment), so encoding and decoding allocate nothing.
 */
public final class ReductionDescriptor {
    /** Bytes of one descriptor. */
    public static final int SIZE = 64;
    /** Data bytes one descriptor carries ([NIC-reduce]'s limit). */
    public static final int PAYLOAD = 48;
    public static final int FLAGS_OFFSET = 0;
    public static final int RTYPE_OFFSET = 1;
    public static final int TYPE_OFFSET = 2;
    public static final int BRANCH_OFFSET = 3;
    public static final int SOURCE_OFFSET = 4;
    public static final int PART_OFFSET = 8;
    public static final int COUNT_OFFSET = 10;
    public static final int ERROR_OFFSET = 11;
    public static final int COUNTER_OFFSET = 12;
    public static final int CPCNT_OFFSET = 12; // low 24 bits of the word above the counter byte
    public static final int DATA_OFFSET = 16;

    public static final int FLAG_REDUCE = 0x01;
    public static final int FLAG_CP = 0x02;
    public static final int FLAG_SWP = 0x04;
    public static final int FLAG_SWPMP = 0x08;
    public static final int MAX_CPCNT = (1 << 24) - 1;

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ReductionDescriptor() {
    }

    /** Descriptors needed for {@code bytes} of data (at least one, so an empty message still counts). */
    public static int parts(long bytes) {
        return (int) Math.max(1, (bytes + PAYLOAD - 1) / PAYLOAD);
    }

    /**
     * Writes a whole descriptor at {@code at}: header fields, then {@code count} data bytes from
     * {@code data} at {@code dataOffset}; the unused data bytes are zeroed.
     */
    public static void encode(MemorySegment d, long at, boolean reduce, int epoch, OffloadAlu.Op op,
                              OffloadAlu.Type type, int branch, int source, int part, int count, int counter,
                              int cpcnt, MemorySegment data, long dataOffset) {
        if (count < 0 || count > PAYLOAD || branch < 0 || branch > 255 || part < 0 || part > 0xFFFF
                || counter < 0 || counter > 255 || cpcnt < 0 || cpcnt > MAX_CPCNT) {
            throw new IllegalArgumentException("descriptor field out of range: count " + count + ", branch " + branch
                    + ", part " + part + ", counter " + counter + ", CPCnt " + cpcnt);
        }
        int flags = FLAG_CP | (reduce ? FLAG_REDUCE : 0) | ((epoch & 0xF) << 4);
        d.set(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET, (byte) flags);
        d.set(ValueLayout.JAVA_BYTE, at + RTYPE_OFFSET, (byte) (op == null ? 0 : op.ordinal()));
        d.set(ValueLayout.JAVA_BYTE, at + TYPE_OFFSET, (byte) (type == null ? 0 : type.ordinal()));
        d.set(ValueLayout.JAVA_BYTE, at + BRANCH_OFFSET, (byte) branch);
        d.set(LE_INT, at + SOURCE_OFFSET, source);
        d.set(LE_SHORT, at + PART_OFFSET, (short) part);
        d.set(ValueLayout.JAVA_BYTE, at + COUNT_OFFSET, (byte) count);
        d.set(ValueLayout.JAVA_BYTE, at + ERROR_OFFSET, (byte) 0);
        d.set(LE_INT, at + COUNTER_OFFSET, (cpcnt << 8) | counter);
        if (count > 0) {
            MemorySegment.copy(data, dataOffset, d, at + DATA_OFFSET, count);
        }
        for (int i = count; i < PAYLOAD; i++) {
            d.set(ValueLayout.JAVA_BYTE, at + DATA_OFFSET + i, (byte) 0); // no slice: encoding must not allocate
        }
    }

    public static boolean reduce(MemorySegment d, long at) {
        return (d.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) & FLAG_REDUCE) != 0;
    }

    public static boolean cp(MemorySegment d, long at) {
        return (d.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) & FLAG_CP) != 0;
    }

    public static int epoch(MemorySegment d, long at) {
        return (d.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) >> 4) & 0xF;
    }

    public static int rtype(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_BYTE, at + RTYPE_OFFSET) & 0xFF;
    }

    public static int type(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_BYTE, at + TYPE_OFFSET) & 0xFF;
    }

    public static int branch(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_BYTE, at + BRANCH_OFFSET) & 0xFF;
    }

    public static int source(MemorySegment d, long at) {
        return d.get(LE_INT, at + SOURCE_OFFSET);
    }

    public static int part(MemorySegment d, long at) {
        return d.get(LE_SHORT, at + PART_OFFSET) & 0xFFFF;
    }

    public static int count(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_BYTE, at + COUNT_OFFSET) & 0xFF;
    }

    public static int errorVector(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_BYTE, at + ERROR_OFFSET) & 0xFF;
    }

    public static int counter(MemorySegment d, long at) {
        return d.get(LE_INT, at + COUNTER_OFFSET) & 0xFF;
    }

    public static int cpcnt(MemorySegment d, long at) {
        return d.get(LE_INT, at + CPCNT_OFFSET) >>> 8;
    }
}
