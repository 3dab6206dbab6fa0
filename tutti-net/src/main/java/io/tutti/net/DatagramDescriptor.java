package io.tutti.net;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The layout of one rails datagram, and its checks. Big-endian; every field is checked before
 * it is used, and a datagram that fails a check is dropped with a {@link DropReason}. The TCP
 * rails send the same frames one after another on a connection, each delimited by its payload
 * length.
 *
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+---------------+---------------+
 * |        magic 0x5454 ("TT")    |  version = 2  |     type      |   0
 * +---------------+---------------+---------------+---------------+
 * |                           job id                              |   4
 * +---------------------------------------------------------------+
 * |                         source rank                           |   8
 * +---------------------------------------------------------------+
 * |                       destination rank                        |  12
 * +---------------+---------------+-------------------------------+
 * |  sender rail  |    flags      |        fragment index         |  16
 * +---------------+---------------+-------------------------------+
 * |        fragment count         |    payload length (bytes)     |  20
 * +-------------------------------+-------------------------------+
 * |              sequence number of this DATA (64 bits)           |  24
 * +---------------------------------------------------------------+
 * |      ack: every sequence below it has been received (64)      |  32
 * +---------------------------------------------------------------+
 * |  consumed: every sequence below it has been delivered (64)    |  40
 * +---------------------------------------------------------------+
 * |                   record length (whole record)                |  48
 * +---------------------------------------------------------------+
 * |                 offset of this fragment in the record         |  52
 * +---------------------------------------------------------------+
 * |   session tag (64): names the pair's session; 0 in a HELLO    |  56
 * +---------------------------------------------------------------+
 * |   counter (64): one per datagram sent to this peer, from 1    |  64
 * +---------------------------------------------------------------+
 * |   MAC (128): HMAC-SHA256, truncated, over bytes 0..71 and     |  72
 * |   the payload (a DATA's payload only with the data MAC on)    |
 * |                                                               |
 * |                                                               |
 * +---------------------------------------------------------------+
 * |   CRC32C over bytes 0..87 and the payload                     |  88
 * +---------------------------------------------------------------+
 * |   payload ...                                                 |  92
 * </pre>
 *
 * Why the tag, the counter and the MAC: after the handshake a datagram is trusted only as far
 * as it proves the job's secret, so that nobody who lacks it, on the path or off it, can
 * acknowledge what was not received (which stalls the stream), ask for retransmissions, keep a
 * dead peer alive or say goodbye for it. The tag, derived at the handshake from both ends'
 * nonces ({@link SessionKeys}), drops a stranger's datagram before any MAC is computed; the MAC
 * ({@link RecordMac}, keyed per pair and session; a HELLO's by the job's key) covers every
 * header field, so a DATA's piggybacked acknowledgement is as safe as an ACK's; the counter,
 * checked against a window ({@link ReplayWindow}), drops a datagram seen before. The CRC stays:
 * corruption is counted as such, and the MAC runs only on intact datagrams.
 *
 * <p>Flags: bit 0 ({@link #FLAG_ACK_HELD}) says that the acknowledgement this datagram carries was
 * held by its sender, after what it acknowledges arrived, longer than a round-trip sample may
 * include; the other bits are 0.
 *
 * <p>Payloads by type: DATA a fragment of a record; ACK (also the heartbeat) nothing, or a NAK
 * range {@code [from, to)} of two 64-bit sequences that the receiver misses; HELLO
 * {@code nonce(8) yourNonce(8) flags(1) hmac(32)}; BYE nothing; RAIL (the rails an operator took
 * out of service at the sender, {@link RailService}) {@code epoch(8) echo(8) mask(4) flags(4)}:
 * the sender's state numbered by its epoch, the latest epoch of the receiver's state it has taken,
 * one bit per rail out of service, and bit 0 of the flags asking for the receiver's state back.
 */
public final class DatagramDescriptor {
    private DatagramDescriptor() {
    }

    public static final short MAGIC = 0x5454;
    public static final byte VERSION = 2;

    public static final byte DATA = 1;
    public static final byte ACK = 2;
    public static final byte HELLO = 3;
    public static final byte BYE = 4;
    public static final byte RAIL = 5;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 2;
    public static final int TYPE_OFFSET = 3;
    public static final int JOB_OFFSET = 4;
    public static final int SOURCE_OFFSET = 8;
    public static final int DEST_OFFSET = 12;
    public static final int RAIL_OFFSET = 16;
    public static final int FLAGS_OFFSET = 17;
    public static final int FRAG_INDEX_OFFSET = 18;
    public static final int FRAG_COUNT_OFFSET = 20;
    public static final int PAYLOAD_LENGTH_OFFSET = 22;
    public static final int SEQ_OFFSET = 24;
    public static final int ACK_OFFSET = 32;
    public static final int CONSUMED_OFFSET = 40;
    public static final int RECORD_LENGTH_OFFSET = 48;
    public static final int FRAG_OFFSET_OFFSET = 52;
    public static final int TAG_OFFSET = 56;
    public static final int COUNTER_OFFSET = 64;
    public static final int MAC_OFFSET = 72;
    /** Bytes of the MAC: a truncated HMAC-SHA256 (forging one takes 2^128 tries on average). */
    public static final int MAC_LENGTH = 16;
    public static final int CRC_OFFSET = 88;
    /** Flag: the acknowledgement was held too long to time a round trip by. */
    public static final byte FLAG_ACK_HELD = 1;
    /** Header bytes before the payload. */
    public static final int HEADER = 92;

    /** Payload of a HELLO. */
    public static final int HELLO_PAYLOAD = 8 + 8 + 1 + 32;
    /** Payload of an ACK that carries a NAK range. */
    public static final int NAK_PAYLOAD = 16;
    /** Payload of a RAIL: epoch, echo, mask, flags. */
    public static final int RAIL_PAYLOAD = 8 + 8 + 4 + 4;
    /** RAIL flag: the sender has not yet had the receiver's echo of its state, answer with yours. */
    public static final int RAIL_REPLY = 1;
    /** Largest payload the 16-bit length field can state. */
    public static final int MAX_PAYLOAD = 0xFFFF;
    /** Highest rail index a datagram may name. */
    public static final int MAX_RAILS = 16;

    /** The CRC32C of the datagram of {@code length} bytes at the start of {@code b}; position and limit kept. */
    public static int crc(CRC32C crc, ByteBuffer b, int length) {
        return crc(crc, b, length, null);
    }

    /**
     * The CRC32C of the datagram of {@code length} bytes whose first {@code length - tail.remaining()}
     * bytes are at the start of {@code b} and the rest in {@code tail} (between its position and
     * limit; none when null). Positions and limits kept.
     */
    public static int crc(CRC32C crc, ByteBuffer b, int length, ByteBuffer tail) {
        int pos = b.position();
        int lim = b.limit();
        crc.reset();
        b.limit(CRC_OFFSET).position(0);
        crc.update(b);
        b.limit(tail == null ? length : length - tail.remaining()).position(HEADER);
        crc.update(b);
        b.limit(lim).position(pos);
        if (tail != null) {
            int at = tail.position();
            crc.update(tail);
            tail.position(at);
        }
        return (int) crc.getValue();
    }

    /** Writes the CRC of the datagram of {@code length} bytes at the start of {@code b}. */
    public static void seal(CRC32C crc, ByteBuffer b, int length) {
        b.putInt(CRC_OFFSET, crc(crc, b, length));
    }

    /**
     * Checks a received datagram of {@code length} bytes at the start of {@code b} (big-endian).
     *
     * @return null when every field is within bounds and the CRC matches, else why to drop it
     */
    public static DropReason check(ByteBuffer b, int length, CRC32C crc, int jobId, int me, int size,
                                   int maxRecord) {
        return check(b, length, null, crc, jobId, me, size, maxRecord);
    }

    /**
     * Checks a received datagram of {@code length} bytes whose header and first payload bytes are
     * at the start of {@code b} and whose other {@code tail.remaining()} bytes were received
     * elsewhere, into {@code tail} (none when null): only a DATA's payload may be split so, as no
     * check reads it.
     *
     * @return null when every field is within bounds and the CRC matches, else why to drop it
     */
    public static DropReason check(ByteBuffer b, int length, ByteBuffer tail, CRC32C crc, int jobId, int me,
                                   int size, int maxRecord) {
        int head = tail == null ? length : length - tail.remaining();
        if (b.order() != ByteOrder.BIG_ENDIAN || length < HEADER || head < HEADER || head > b.capacity()
                || (tail != null && b.get(TYPE_OFFSET) != DATA)) {
            return DropReason.SHORT;
        }
        if (b.getShort(MAGIC_OFFSET) != MAGIC) {
            return DropReason.MAGIC;
        }
        if (b.get(VERSION_OFFSET) != VERSION) {
            return DropReason.VERSION;
        }
        int payload = Short.toUnsignedInt(b.getShort(PAYLOAD_LENGTH_OFFSET));
        if (HEADER + payload != length) {
            return DropReason.LENGTH;
        }
        if (b.getInt(CRC_OFFSET) != crc(crc, b, length, tail)) {
            return DropReason.CRC;
        }
        if (b.getInt(JOB_OFFSET) != jobId) {
            return DropReason.JOB;
        }
        if (b.getInt(DEST_OFFSET) != me) {
            return DropReason.DEST;
        }
        int source = b.getInt(SOURCE_OFFSET);
        if (source < 0 || source >= size || source == me) {
            return DropReason.SOURCE;
        }
        int rail = b.get(RAIL_OFFSET);
        long ack = b.getLong(ACK_OFFSET);
        long consumed = b.getLong(CONSUMED_OFFSET);
        if (rail < 0 || rail >= MAX_RAILS || ack < 0 || consumed < 0 || consumed > ack) {
            return DropReason.FIELD;
        }
        switch (b.get(TYPE_OFFSET)) {
            case DATA -> {
                int index = Short.toUnsignedInt(b.getShort(FRAG_INDEX_OFFSET));
                int count = Short.toUnsignedInt(b.getShort(FRAG_COUNT_OFFSET));
                int recordLength = b.getInt(RECORD_LENGTH_OFFSET);
                int fragOffset = b.getInt(FRAG_OFFSET_OFFSET);
                if (count == 0 || index >= count || b.getLong(SEQ_OFFSET) < 0 || recordLength < 0
                        || recordLength > maxRecord || fragOffset < 0 || fragOffset > recordLength - payload
                        || (count == 1 && (fragOffset != 0 || payload != recordLength))) {
                    return DropReason.FIELD;
                }
            }
            case ACK -> {
                if (payload != 0 && payload != NAK_PAYLOAD) {
                    return DropReason.LENGTH;
                }
                if (payload == NAK_PAYLOAD) {
                    long from = b.getLong(HEADER);
                    long to = b.getLong(HEADER + 8);
                    if (from < 0 || to < from) {
                        return DropReason.FIELD;
                    }
                }
            }
            case HELLO -> {
                if (payload != HELLO_PAYLOAD) {
                    return DropReason.LENGTH;
                }
            }
            case BYE -> {
                if (payload != 0) {
                    return DropReason.LENGTH;
                }
            }
            case RAIL -> {
                if (payload != RAIL_PAYLOAD) {
                    return DropReason.LENGTH;
                }
                if (b.getLong(HEADER) < 0 || b.getLong(HEADER + 8) < 0 || b.getInt(HEADER + 16) >>> MAX_RAILS != 0
                        || (b.getInt(HEADER + 20) & ~RAIL_REPLY) != 0) {
                    return DropReason.FIELD;
                }
            }
            default -> {
                return DropReason.TYPE;
            }
        }
        return null;
    }
}
