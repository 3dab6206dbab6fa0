package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The datagram checks never throw, and whatever they accept has every field within bounds. */
class DecoderFuzzTest {
    private static final int MAX_RECORD = 65608;

    @Property(tries = 3000)
    void randomBytesNeverThrow(@ForAll @Size(max = 300) byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        b.put(0, bytes);
        assertDoesNotThrow(() -> DatagramDescriptor.check(b, bytes.length, new CRC32C(), 5, 0, 4, MAX_RECORD));
    }

    /**
     * Datagrams of the right job whose fields take small values around their bounds, resealed so
     * that the CRC passes: the checks decide on the fields alone.
     */
    @Property(tries = 5000)
    void resealedFieldsNeverThrowAndAcceptedOnesAreInBounds(@ForAll("fields") int[] f,
                                                           @ForAll @IntRange(min = -1, max = 300) int recordLength,
                                                           @ForAll @IntRange(min = -1, max = 300) int fragOffset,
                                                           @ForAll @IntRange(max = 200) int payload) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        b.putShort(DatagramDescriptor.MAGIC_OFFSET, DatagramDescriptor.MAGIC);
        b.put(DatagramDescriptor.VERSION_OFFSET, DatagramDescriptor.VERSION);
        b.put(DatagramDescriptor.TYPE_OFFSET, (byte) f[0]);
        b.putInt(DatagramDescriptor.JOB_OFFSET, 5);
        b.putInt(DatagramDescriptor.SOURCE_OFFSET, f[1]);
        b.putInt(DatagramDescriptor.DEST_OFFSET, 0);
        b.put(DatagramDescriptor.RAIL_OFFSET, (byte) f[2]);
        b.putShort(DatagramDescriptor.FRAG_INDEX_OFFSET, (short) f[3]);
        b.putShort(DatagramDescriptor.FRAG_COUNT_OFFSET, (short) f[4]);
        b.putShort(DatagramDescriptor.PAYLOAD_LENGTH_OFFSET, (short) payload);
        b.putLong(DatagramDescriptor.SEQ_OFFSET, f[5]);
        b.putLong(DatagramDescriptor.ACK_OFFSET, f[6]);
        b.putLong(DatagramDescriptor.CONSUMED_OFFSET, f[7]);
        b.putInt(DatagramDescriptor.RECORD_LENGTH_OFFSET, recordLength);
        b.putInt(DatagramDescriptor.FRAG_OFFSET_OFFSET, fragOffset);
        b.putLong(DatagramDescriptor.HEADER, f[8]);
        b.putLong(DatagramDescriptor.HEADER + 8, f[9]);
        int length = DatagramDescriptor.HEADER + payload;
        CRC32C crc = new CRC32C();
        DatagramDescriptor.seal(crc, b, length);
        DropReason why = DatagramDescriptor.check(b, length, crc, 5, 0, 4, MAX_RECORD);
        Statistics.label("outcome").collect(why == null ? "accepted" : "dropped");
        // the property means something only if both outcomes occur
        Statistics.label("outcome").coverage(c -> {
            c.check("accepted").count(n -> n > 0);
            c.check("dropped").count(n -> n > 0);
        });
        if (why == null) {
            assertTrue(f[1] > 0 && f[1] < 4, "source");
            assertTrue(f[2] >= 0 && f[6] >= 0 && f[7] >= 0 && f[7] <= f[6], "rail and acknowledgements");
            assertTrue(f[0] >= DatagramDescriptor.DATA && f[0] <= DatagramDescriptor.BYE, "type");
            if (f[0] == DatagramDescriptor.DATA) {
                int index = f[3] & 0xFFFF;
                int count = f[4] & 0xFFFF;
                assertTrue(count > 0 && index < count && f[5] >= 0 && recordLength >= 0 && fragOffset >= 0
                        && fragOffset + payload <= recordLength, "fragment");
            }
        }
    }

    @Provide
    Arbitrary<int[]> fields() {
        // small values around the bounds make both outcomes likely
        return Arbitraries.integers().between(-1, 4).array(int[].class).ofSize(10);
    }

    @Property(tries = 2000)
    void flippingAnyBitOfAValidDatagramIsCaught(@ForAll @IntRange(max = 159) int bit) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        b.putShort(DatagramDescriptor.MAGIC_OFFSET, DatagramDescriptor.MAGIC)
                .put(DatagramDescriptor.VERSION_OFFSET, DatagramDescriptor.VERSION)
                .put(DatagramDescriptor.TYPE_OFFSET, DatagramDescriptor.DATA).putInt(DatagramDescriptor.JOB_OFFSET, 5)
                .putInt(DatagramDescriptor.SOURCE_OFFSET, 2)
                .putShort(DatagramDescriptor.FRAG_COUNT_OFFSET, (short) 1)
                .putShort(DatagramDescriptor.PAYLOAD_LENGTH_OFFSET, (short) 100)
                .putInt(DatagramDescriptor.RECORD_LENGTH_OFFSET, 100);
        int length = DatagramDescriptor.HEADER + 100;
        CRC32C crc = new CRC32C();
        DatagramDescriptor.seal(crc, b, length);
        assertNull(DatagramDescriptor.check(b, length, crc, 5, 0, 4, MAX_RECORD));
        int at = bit / 8 < 20 ? bit / 8 : DatagramDescriptor.HEADER + bit / 8 - 20;
        b.put(at, (byte) (b.get(at) ^ (1 << (bit % 8))));
        assertNotNull(DatagramDescriptor.check(b, length, crc, 5, 0, 4, MAX_RECORD));
    }
}
