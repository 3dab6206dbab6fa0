package io.tutti.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of the in-network computing packets that leaders and aggregation switches exchange over
 * UDP: an {@link MessageType#INC_CTRL} packet (query, notify, release and their replies) or an
 * {@link MessageType#INC_DATA} packet (a contribution going up, a result coming down). The header
 * carries the fields of the MPI header of the in-network allreduce paper (its table 1) plus the job
 * id and what loss recovery needs (a 32-bit request id, whose low bits pick the switch slot, the
 * sender's child index in the aggregation tree, and the RESULT and RETRANSMIT flags), and the
 * group token: a random number the sender's notify installed, which every data packet between two
 * members of a group carries (a packet without it is not the group's).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  tag: the INC mark 'TINC'                     |  0
 *  +---------------+---------------+-------------------------------+
 *  |    version    | type CTRL/DATA|             flags             |  4
 *  +---------------+---------------+-------------------------------+
 *  |                    job id (wire job id)                       |  8
 *  +---------------------------------------------------------------+
 *  |          src rank (world rank of a leader; switch id)         | 12
 *  +---------------------------------------------------------------+
 *  |              comm id: the in-network group id                 | 16
 *  +---------------+---------------+-------------------------------+
 *  |    op code    | oper and type |  pkt para num (element count) | 20
 *  +---------------+---------------+-------------------------------+
 *  |         req id: request number, slot = req id mod slots       | 24
 *  +-------------------------------+-------------------------------+
 *  |   child index (in the tree)   |   payload length (bytes)      | 28
 *  +-------------------------------+-------------------------------+
 *  |        group token (64 bits: the sender's, toward the         | 32
 *  |        switch; the receiver's, from the switch)               |
 *  +---------------------------------------------------------------+
 *  |   payload: control fields (CTRL) or elements (DATA), ≤ 256 B  | 40
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The control payload holds the negotiated parameters of the paper's table 2; switches fill in
 * what they support as a query passes (the AND of every switch's masks, the least of their sizes)
 * and a spine adds its load ({@code ava groups}: how many more groups it can host).
 *
 * <pre>
 *  +---------------+---------------+---------------+---------------+
 *  |     kind      | master num    | query/notify  | sup comm type |  0
 *  |               | (Node0/Sock1) |     hop       | (1=allreduce) |
 *  +---------------+---------------+-------------------------------+
 *  |  sup allreduce op (bit per ReduceOp) | sup data type (bit per |  4
 *  |                               |        Datatype)              |
 *  +-------------------------------+-------------------------------+
 *  |  sup max data size (bytes)    |  global group size (leaders)  |  8
 *  +-------------------------------+-------------------------------+
 *  |  local group size (under ToR) |  fail cause                   | 12
 *  +-------------------------------+-------------------------------+
 *  |                 true comm id (the group id)                   | 16
 *  +---------------------------------------------------------------+
 *  |             ava groups: groups the switch can still host      | 20
 *  +---------------------------------------------------------------+
 *  |                  ToR id (the leader's first switch)           | 24
 *  +---------------------------------------------------------------+
 *  |       spine id (query reply: the spine asked; notify: the     | 28
 *  |       chosen spine, 0 when the ToR is the root)               |
 *  +-------------------------------+-------------------------------+
 *  |  ToR index (child of spine)   |  ToR count (spine's children) | 32
 *  +-------------------------------+-------------------------------+
 *  |  uplinks (spines of the ToR)  |  slots (per group, path min)  | 36
 *  +-------------------------------+-------------------------------+
 *  |                origin IPv4 (the leader's address)             | 40
 *  +-------------------------------+-------------------------------+
 *  |  origin port                  |  ToR ava groups               | 44
 *  +-------------------------------+-------------------------------+
 *  |        time: sender's clock, ms since the epoch (64 bits)     | 48
 *  +---------------------------------------------------------------+
 *  |        nonce: random, once per packet sent (64 bits)          | 56
 *  +---------------------------------------------------------------+
 *  |        tag: HMAC-SHA256 over bytes 0 to 63 of the payload     | 64
 *  |        and the header before them, first 16 bytes             |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The last three fields authenticate a control packet where the switch has a key (and are
 * ignored where it has none): see {@code io.tutti.sw.ControlAuth}.
 *
 * All fields little-endian. Decoders check the mark, version, type and lengths before anything
 * else and drop (counting) what does not fit.
 */
public final class IncPacketDescriptor {
    /** 'TINC' read little-endian. */
    public static final int MARK = 0x434E4954;
    public static final byte VERSION = 2;

    public static final int TAG_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int TYPE_OFFSET = 5;
    public static final int FLAGS_OFFSET = 6;
    public static final int JOB_OFFSET = 8;
    public static final int SRC_RANK_OFFSET = 12;
    public static final int GROUP_OFFSET = 16;
    public static final int OP_OFFSET = 20;
    public static final int DATATYPE_OFFSET = 21;
    public static final int COUNT_OFFSET = 22;
    public static final int REQ_OFFSET = 24;
    public static final int CHILD_OFFSET = 28;
    public static final int PAYLOAD_LENGTH_OFFSET = 30;
    public static final int TOKEN_OFFSET = 32;
    public static final int HEADER_LENGTH = 40;

    /** DATA flag: a result travelling down (else a contribution travelling up). */
    public static final short FLAG_RESULT = 1;
    /** DATA flag: the sender sends this contribution again after a timeout. */
    public static final short FLAG_RETRANSMIT = 2;

    /** The paper's limit on the data one packet carries. */
    public static final int MAX_PAYLOAD = 256;
    public static final int MAX_PACKET = HEADER_LENGTH + MAX_PAYLOAD;

    // control payload, offsets from HEADER_LENGTH
    public static final int C_KIND = 0;
    public static final int C_MASTER_NUM = 1;
    public static final int C_HOP = 2;
    public static final int C_COMM_TYPE = 3;
    public static final int C_OPS = 4;
    public static final int C_TYPES = 6;
    public static final int C_MAX_SIZE = 8;
    public static final int C_GLOBAL_SIZE = 10;
    public static final int C_LOCAL_SIZE = 12;
    public static final int C_FAIL = 14;
    public static final int C_TRUE_COMM_ID = 16;
    public static final int C_AVA_GROUPS = 20;
    public static final int C_TOR_ID = 24;
    public static final int C_SPINE_ID = 28;
    public static final int C_TOR_INDEX = 32;
    public static final int C_TOR_COUNT = 34;
    public static final int C_UPLINKS = 36;
    public static final int C_SLOTS = 38;
    public static final int C_ORIGIN_IP = 40;
    public static final int C_ORIGIN_PORT = 44;
    public static final int C_TOR_FREE = 46;
    public static final int C_TIME = 48;
    public static final int C_NONCE = 56;
    public static final int C_TAG = 64;
    /** Bytes of the truncated HMAC-SHA256 tag: 128 bits, as IPsec's HMAC-SHA-256-128 (RFC 4868). */
    public static final int TAG_LENGTH = 16;
    public static final int CONTROL_LENGTH = C_TAG + TAG_LENGTH;

    /** A tagged control packet is fresh while its time is within this of the receiver's clock. */
    public static final long AUTH_WINDOW_MILLIS = 30_000;

    /** Control kinds. */
    public static final byte QUERY = 1;
    public static final byte QUERY_REPLY = 2;
    public static final byte NOTIFY = 3;
    public static final byte NOTIFY_REPLY = 4;
    public static final byte RELEASE = 5;
    public static final byte RELEASE_REPLY = 6;

    /** Fail causes. */
    public static final short OK = 0;
    public static final short FAIL_CAPACITY = 1;
    public static final short FAIL_UNSUPPORTED = 2;
    public static final short FAIL_MISMATCH = 3;
    public static final short FAIL_NO_SPINE = 4;
    /** The switch has a key and the packet no valid tag made with it. */
    public static final short FAIL_AUTH = 5;
    /** The packet's time is outside {@link #AUTH_WINDOW_MILLIS} of the switch's clock. */
    public static final short FAIL_STALE = 6;

    /** Supported collective kinds (sup comm type). */
    public static final byte COMM_ALLREDUCE = 1;

    private IncPacketDescriptor() {
    }

    /** Writes a header at position 0 of {@code b} (little-endian) and sets its limit to header + payload. */
    public static void writeHeader(ByteBuffer b, byte type, short flags, int job, int srcRank, int group, long token,
                                   int op, int datatype, int count, int req, int child, int payloadLength) {
        b.order(ByteOrder.LITTLE_ENDIAN);
        b.clear();
        b.putInt(TAG_OFFSET, MARK);
        b.put(VERSION_OFFSET, VERSION);
        b.put(TYPE_OFFSET, type);
        b.putShort(FLAGS_OFFSET, flags);
        b.putInt(JOB_OFFSET, job);
        b.putInt(SRC_RANK_OFFSET, srcRank);
        b.putInt(GROUP_OFFSET, group);
        b.put(OP_OFFSET, (byte) op);
        b.put(DATATYPE_OFFSET, (byte) datatype);
        b.putShort(COUNT_OFFSET, (short) count);
        b.putInt(REQ_OFFSET, req);
        b.putShort(CHILD_OFFSET, (short) child);
        b.putShort(PAYLOAD_LENGTH_OFFSET, (short) payloadLength);
        b.putLong(TOKEN_OFFSET, token);
        b.limit(HEADER_LENGTH + payloadLength);
    }

    /**
     * Whether {@code b} (position 0, limit = datagram length) holds a well-formed INC packet: the
     * mark, this version, a CTRL or DATA type, and a payload length that matches the datagram (a
     * full control block for CTRL, at most {@link #MAX_PAYLOAD} for DATA).
     */
    public static boolean valid(ByteBuffer b) {
        b.order(ByteOrder.LITTLE_ENDIAN);
        if (b.limit() < HEADER_LENGTH || b.getInt(TAG_OFFSET) != MARK || b.get(VERSION_OFFSET) != VERSION) {
            return false;
        }
        int len = Short.toUnsignedInt(b.getShort(PAYLOAD_LENGTH_OFFSET));
        if (HEADER_LENGTH + len != b.limit()) {
            return false;
        }
        return switch (b.get(TYPE_OFFSET)) {
            case MessageType.INC_CTRL -> len == CONTROL_LENGTH;
            case MessageType.INC_DATA -> len <= MAX_PAYLOAD;
            default -> false;
        };
    }

    /** Whether the datagram starts with the INC mark (else it is an ordinary packet). */
    public static boolean marked(ByteBuffer b) {
        return b.limit() >= 4 && b.order(ByteOrder.LITTLE_ENDIAN).getInt(TAG_OFFSET) == MARK;
    }

    public static byte type(ByteBuffer b) {
        return b.get(TYPE_OFFSET);
    }

    public static short flags(ByteBuffer b) {
        return b.getShort(FLAGS_OFFSET);
    }

    public static int job(ByteBuffer b) {
        return b.getInt(JOB_OFFSET);
    }

    public static int srcRank(ByteBuffer b) {
        return b.getInt(SRC_RANK_OFFSET);
    }

    public static int group(ByteBuffer b) {
        return b.getInt(GROUP_OFFSET);
    }

    public static int op(ByteBuffer b) {
        return Byte.toUnsignedInt(b.get(OP_OFFSET));
    }

    public static int datatype(ByteBuffer b) {
        return Byte.toUnsignedInt(b.get(DATATYPE_OFFSET));
    }

    public static int count(ByteBuffer b) {
        return Short.toUnsignedInt(b.getShort(COUNT_OFFSET));
    }

    public static int req(ByteBuffer b) {
        return b.getInt(REQ_OFFSET);
    }

    public static int child(ByteBuffer b) {
        return Short.toUnsignedInt(b.getShort(CHILD_OFFSET));
    }

    public static int payloadLength(ByteBuffer b) {
        return Short.toUnsignedInt(b.getShort(PAYLOAD_LENGTH_OFFSET));
    }

    public static long token(ByteBuffer b) {
        return b.getLong(TOKEN_OFFSET);
    }

    public static void token(ByteBuffer b, long token) {
        b.putLong(TOKEN_OFFSET, token);
    }

    /** Absolute index of control field {@code field} in the packet. */
    public static int ctrl(int field) {
        return HEADER_LENGTH + field;
    }

    /** Reads an unsigned 16-bit control field. */
    public static int ctrlShort(ByteBuffer b, int field) {
        return Short.toUnsignedInt(b.getShort(HEADER_LENGTH + field));
    }

    public static int ctrlInt(ByteBuffer b, int field) {
        return b.getInt(HEADER_LENGTH + field);
    }

    public static void ctrlShort(ByteBuffer b, int field, int value) {
        b.putShort(HEADER_LENGTH + field, (short) value);
    }

    public static void ctrlInt(ByteBuffer b, int field, int value) {
        b.putInt(HEADER_LENGTH + field, value);
    }

    public static byte kind(ByteBuffer b) {
        return b.get(HEADER_LENGTH + C_KIND);
    }

    /** Human-readable control kind, for logs. */
    public static String kindName(byte kind) {
        return switch (kind) {
            case QUERY -> "QUERY";
            case QUERY_REPLY -> "QUERY_REPLY";
            case NOTIFY -> "NOTIFY";
            case NOTIFY_REPLY -> "NOTIFY_REPLY";
            case RELEASE -> "RELEASE";
            case RELEASE_REPLY -> "RELEASE_REPLY";
            default -> "UNKNOWN(" + kind + ")";
        };
    }

    /** Human-readable fail cause. */
    public static String failName(int cause) {
        return switch (cause) {
            case OK -> "ok";
            case FAIL_CAPACITY -> "switch full (no free group)";
            case FAIL_UNSUPPORTED -> "unsupported";
            case FAIL_MISMATCH -> "group set up differently";
            case FAIL_NO_SPINE -> "spine not reachable from this ToR";
            case FAIL_AUTH -> "not authenticated: the switch takes groups only from leaders with its key,"
                    + " so TUTTI_INC_KEY_FILE must name the switch's key file";
            case FAIL_STALE -> "request outside the " + AUTH_WINDOW_MILLIS / 1000 + " s the switch allows between"
                    + " its clock and the leader's: synchronise the clocks";
            default -> "cause " + cause;
        };
    }
}
