package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;

import io.tutti.coll.inc.InNetworkAggregation.Membership;
import io.tutti.wire.MessageType;
import java.nio.ByteBuffer;

/**
 * A leader's control request (query, notify, release) as the switches read it: one writer for the
 * leaders' client ({@link IncClient}) and for the simulator's leaders, so that both speak the same
 * packets to {@link AggregationSwitch}. Untagged: a sender with a key seals it afterwards.
 */
public final class ControlPacket {
    private ControlPacket() {
    }

    /**
     * Writes the request at position 0 of {@code b} (at least {@link io.tutti.wire.IncPacketDescriptor#MAX_PACKET}
     * bytes) and sets its limit; a leader asks for everything (all ops, types, the largest payload and
     * window) and each switch on the path answers with what it supports.
     *
     * @param token   the leader's group token (0 before it joined)
     * @param m       the leader's place in the tree, for a notify or a release; null for a query
     * @param leaders leaders in the group
     */
    public static void write(ByteBuffer b, byte kind, int job, int rank, int group, long token, int child,
                             Membership m, boolean socketMode, int leaders) {
        writeHeader(b, MessageType.INC_CTRL, (short) 0, job, rank, group, token, 0, 0, 0, 0, child, CONTROL_LENGTH);
        for (int i = HEADER_LENGTH; i < HEADER_LENGTH + CONTROL_LENGTH; i++) {
            b.put(i, (byte) 0);
        }
        b.put(ctrl(C_KIND), kind);
        b.put(ctrl(C_MASTER_NUM), (byte) (socketMode ? 1 : 0));
        b.put(ctrl(C_COMM_TYPE), COMM_ALLREDUCE);
        ctrlShort(b, C_OPS, 0xFFFF);
        ctrlShort(b, C_TYPES, 0xFFFF);
        ctrlShort(b, C_MAX_SIZE, MAX_PAYLOAD);
        ctrlShort(b, C_SLOTS, 0xFFFF);
        ctrlShort(b, C_GLOBAL_SIZE, leaders);
        ctrlInt(b, C_TRUE_COMM_ID, group);
        if (m != null) {
            ctrlShort(b, C_LOCAL_SIZE, m.localSize());
            ctrlInt(b, C_SPINE_ID, m.spineId());
            ctrlShort(b, C_TOR_INDEX, m.torIndex());
            ctrlShort(b, C_TOR_COUNT, m.torCount());
        }
    }
}
