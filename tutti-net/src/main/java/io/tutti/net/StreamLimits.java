package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.HEADER;
import static io.tutti.net.DatagramDescriptor.MAX_PAYLOAD;

/**
 * The sizes and timers of the rails' stream, derived once from {@link NetConfig} and checked: a
 * setting out of its range is an error that names it and says what it may be.
 *
 * @param mtu         the frame size, header included
 * @param maxPayload  the payload bytes of one frame
 * @param maxRecord   the largest record one send takes
 * @param maxFrags    the frames of the largest record, rounded up to a whole number per rail
 * @param windowBytes unacknowledged bytes per peer: the setting, but room for at least two records
 * @param slots       sequence numbers in flight per peer and direction (a power of two)
 * @param rtoFloor    the least retransmission timeout (ns)
 * @param maxRto      the largest retransmission timeout (ns): at most 200 ms and half the rail timeout
 * @param ackDelay    how long an acknowledgement may wait for a DATA to carry it (ns)
 * @param heldLimit   an acknowledgement held longer than this after what it acknowledges arrived
 *                    times no round trip (ns): the ack delay and a quarter of the floor
 */
record StreamLimits(int mtu, int maxPayload, int maxRecord, int maxFrags, int windowBytes, int slots, long rtoFloor,
                    long maxRto, long ackDelay, long heldLimit) {
    private static final long MS = 1_000_000L;
    private static final int LOOPBACK_MTU = 65000;
    private static final int ETHERNET_MTU = 1472;

    /** The limits of {@code rails} rails, all on loopback or not ({@code loopback}). */
    static StreamLimits of(NetConfig config, int rails, boolean loopback) {
        boolean tcp = config.tcp();
        // TCP streams frames: no path MTU to respect, the largest frame the header can state
        int mtu = config.mtu() > 0 ? config.mtu() : loopback || tcp ? LOOPBACK_MTU : ETHERNET_MTU;
        int mtuMax = tcp ? HEADER + MAX_PAYLOAD : 65507;
        if (mtu < HEADER + 64 || mtu > mtuMax) {
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.MTU) + " must be in " + (HEADER + 64)
                    + ".." + mtuMax + ", not " + mtu);
        }
        int maxPayload = Math.min(mtu - HEADER, MAX_PAYLOAD);
        int maxRecord = config.maxRecord();
        if (maxRecord < 128) {
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.MAX_RECORD) + " must be at least 128");
        }
        int pieces = Striping.ceilDiv(maxRecord, maxPayload);
        int maxFrags = Striping.ceilDiv(pieces, rails) * rails;
        if (maxFrags > 0xFFFF) {
            throw new IllegalArgumentException("a record of " + maxRecord + " bytes needs more than 65535 datagrams");
        }
        int windowBytes = Math.max(config.windowBytes(), 2 * maxRecord);
        int want = Math.max(Math.max(64, 2 * maxFrags), Math.min(4096, (int) (2L * windowBytes / maxPayload)));
        int slots = Integer.highestOneBit(want - 1) << 1;
        long rtoFloor = Math.max(1, config.rtoFloorMicros()) * 1000L;
        long maxRto = Math.max(rtoFloor, Math.min(200 * MS, config.railTimeoutMillis() * MS / 2));
        if (config.ackDelayMicros() < 0 || config.ackDelayMicros() * 1000L > rtoFloor / 2) {
            // longer, and a held acknowledgement would pass for a loss and be answered by a retransmission
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.ACK_DELAY_US) + " must be in 0.."
                    + rtoFloor / 2000 + " (half of " + NetConfig.envName(NetConfig.RTO_FLOOR_US) + "), not "
                    + config.ackDelayMicros());
        }
        long ackDelay = config.ackDelayMicros() * 1000L;
        return new StreamLimits(mtu, maxPayload, maxRecord, maxFrags, windowBytes, slots, rtoFloor, maxRto, ackDelay,
                ackDelay + rtoFloor / 4);
    }
}
