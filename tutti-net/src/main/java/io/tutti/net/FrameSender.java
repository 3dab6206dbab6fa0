package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Puts frames on the wire: writes the header every frame carries (with the current acknowledgement
 * of the peer's stream), seals it with the session's tag, a new counter, the MAC
 * ({@link RecordMac}) and the CRC32C, applies the injected send faults ({@link FaultInjection}: a
 * frame held back leaves after the next one on its rail) and hands it to the {@link RailWire}, one
 * per call or, for the frames of one record on one rail, in a batch that leaves in one system call
 * ({@link RailWire#sendBatch}).
 * Frames without a slot of their own (ACK, NAK, heartbeat, RAIL, BYE) are built in one buffer here.
 *
 * <p>Driven under the transport's in-poll flag; allocates nothing but a rail's batch buffer, once.
 */
final class FrameSender {
    private final RailWire wire;
    private final FaultInjection faults;
    private final RailStats stats;
    private final int jobId;
    private final int rank;
    /**
     * An acknowledgement sent this long after what it acknowledges arrived is flagged
     * {@link DatagramDescriptor#FLAG_ACK_HELD}: the sender takes no round-trip sample from it.
     */
    private final long heldLimit;
    private final CRC32C crc = new CRC32C();
    private final RecordMac mac = new RecordMac();
    /** The job's key: it MACs HELLOs, sent before a session exists. */
    private final RecordMac.Key jobKey;
    /** Whether a DATA's MAC covers its payload too ({@link NetConfig#macData()}); its header always. */
    private final boolean macData;
    /** The frames built here, and a corrupted copy of any frame. */
    private final ByteBuffer tx = ByteBuffer.allocateDirect(1 << 16);
    /** Per rail: the frames of the record being sent that leave in one system call ({@link RailWire#sendBatch}). */
    private final ByteBuffer[] batch;
    private final int[] batchLength;
    private final int[] batchCount;

    FrameSender(RailWire wire, FaultInjection faults, RailStats stats, int jobId, int rank, long heldLimit, int rails,
                RecordMac.Key jobKey, boolean macData) {
        this.jobKey = jobKey;
        this.macData = macData;
        this.wire = wire;
        this.faults = faults;
        this.stats = stats;
        this.jobId = jobId;
        this.rank = rank;
        this.heldLimit = heldLimit;
        this.batch = new ByteBuffer[rails];
        this.batchLength = new int[rails];
        this.batchCount = new int[rails];
    }

    /** Writes a frame header into {@code b}: {@link #tx}, a HELLO's buffer, or a DATA slot's frame. */
    void header(ByteBuffer b, byte type, Peer p, int rail, int payload, long now) {
        b.clear();
        b.putShort(MAGIC_OFFSET, MAGIC);
        b.put(VERSION_OFFSET, VERSION);
        b.put(TYPE_OFFSET, type);
        b.putInt(JOB_OFFSET, jobId);
        b.putInt(SOURCE_OFFSET, rank);
        b.putInt(DEST_OFFSET, p.rank);
        b.put(RAIL_OFFSET, (byte) rail);
        b.put(FLAGS_OFFSET, now - p.contigAt > heldLimit ? FLAG_ACK_HELD : 0);
        b.putShort(FRAG_INDEX_OFFSET, (short) 0);
        b.putShort(FRAG_COUNT_OFFSET, (short) 0);
        b.putShort(PAYLOAD_LENGTH_OFFSET, (short) payload);
        b.putLong(SEQ_OFFSET, 0);
        b.putLong(ACK_OFFSET, p.contig);
        b.putLong(CONSUMED_OFFSET, p.expected);
        b.putInt(RECORD_LENGTH_OFFSET, 0);
        b.putInt(FRAG_OFFSET_OFFSET, 0);
    }

    /** Sends an ACK (with a NAK of {@code p.nakFrom..nakTo} if {@code nak}); whether it left. */
    boolean ack(Peer p, int rail, boolean nak, long now) {
        header(tx, ACK, p, rail, nak ? NAK_PAYLOAD : 0, now);
        if (nak) {
            tx.putLong(HEADER, p.nakFrom);
            tx.putLong(HEADER + 8, p.nakTo);
            stats.naksSent++;
        }
        if (emit(p, rail, tx, HEADER + (nak ? NAK_PAYLOAD : 0), now)) {
            p.acknowledged();
            return true;
        }
        return false;
    }

    /**
     * Sends {@code p} on {@code rail} the rails out of service here ({@code mask}) as of
     * {@code epoch}, the latest epoch of {@code p}'s state taken ({@code echo}), and whether an
     * answer is wanted.
     */
    void railState(Peer p, int rail, long epoch, long echo, int mask, boolean reply, long now) {
        header(tx, RAIL, p, rail, RAIL_PAYLOAD, now);
        tx.putLong(HEADER, epoch);
        tx.putLong(HEADER + 8, echo);
        tx.putInt(HEADER + 16, mask);
        tx.putInt(HEADER + 20, reply ? RAIL_REPLY : 0);
        emit(p, rail, tx, HEADER + RAIL_PAYLOAD, now);
    }

    /** Says goodbye to {@code p} on {@code rail}. */
    void bye(Peer p, int rail, long now) {
        header(tx, BYE, p, rail, 0, now);
        emit(p, rail, tx, HEADER, now);
    }

    /**
     * Seals the frame in {@code b}, applies the injected faults and sends it.
     *
     * @return whether it left (an injected drop counts as left: it is lost on the way); false when
     *         the wire refused it, so what it would have acknowledged is still to acknowledge
     */
    boolean emit(Peer p, int rail, ByteBuffer b, int length, long now) {
        return emit(p, rail, b, null, length, null, 0, now);
    }

    /**
     * As {@link #emit(Peer, int, ByteBuffer, int, long)}, for a frame whose last {@code tail.remaining()}
     * bytes are not in {@code b} (also {@code head}) but at {@code tailAddress} (none when null).
     */
    boolean emit(Peer p, int rail, ByteBuffer b, MemorySegment head, int length, ByteBuffer tail, long tailAddress,
                 long now) {
        ByteBuffer frame = sealAndInject(p, rail, b, length, tail, now);
        if (frame == null) {
            return true;
        }
        boolean left = tail != null && frame == b ? wire.send(p.rank, rail, head, length - tail.remaining(),
                tailAddress, tail.remaining()) : wire.send(p.rank, rail, frame, length);
        faults.sendHeld(rail, wire);
        if (left) {
            return true;
        }
        if (frame.get(TYPE_OFFSET) == DATA) {
            // as good as lost: retransmission (UDP) or the rail's failure (TCP) takes it from here
            stats.sendFailures++;
            stats.railSendFailures[rail]++;
        }
        return false;
    }

    /**
     * Adds the framed DATA in {@code frame} to {@code rail}'s batch (sent by {@link #flush}); a full
     * batch leaves first. An injected drop leaves it out.
     */
    void stage(Peer p, int rail, ByteBuffer frame, int length, long now) {
        ByteBuffer sealed = sealAndInject(p, rail, frame, length, null, now);
        if (sealed == null) {
            return;
        }
        if (batchLength[rail] + length > UdpSegmentation.MAX_BYTES
                || batchCount[rail] == UdpSegmentation.MAX_SEGMENTS) {
            flush(p, rail);
        }
        ByteBuffer b = batch[rail];
        if (b == null) {
            b = batch[rail] = ByteBuffer.allocateDirect(UdpSegmentation.MAX_BYTES);
        }
        if (batchCount[rail] == 0) {
            // the wire set the limit to the last batch's length
            b.clear();
        }
        b.put(batchLength[rail], sealed, 0, length);
        batchLength[rail] += length;
        batchCount[rail]++;
    }

    /** Sends {@code rail}'s batch; whether it left (true when it was empty). */
    boolean flush(Peer p, int rail) {
        int length = batchLength[rail];
        int frames = batchCount[rail];
        if (frames == 0) {
            return true;
        }
        batchLength[rail] = 0;
        batchCount[rail] = 0;
        stats.railSendCalls[rail]++;
        boolean left = frames == 1 ? wire.send(p.rank, rail, batch[rail], length)
                : wire.sendBatch(p.rank, rail, batch[rail], length);
        faults.sendHeld(rail, wire);
        if (!left) {
            stats.sendFailures += frames;
            stats.railSendFailures[rail] += frames;
        }
        return left;
    }

    /**
     * Seals the frame in {@code b} (and {@code tail}, its last bytes, when not null) and applies the
     * injected faults: returns the frame to send, null when an injected drop takes it or it is held
     * back to be overtaken ({@link FaultInjection#holdSent}). A corrupted frame is a whole copy in
     * {@link #tx}: a DATA slot, and the sender's memory, keep their intact bytes for a retransmission.
     */
    private ByteBuffer sealAndInject(Peer p, int rail, ByteBuffer b, int length, ByteBuffer tail, long now) {
        byte type = b.get(TYPE_OFFSET);
        boolean hello = type == HELLO;
        // only rails the handshake confirmed carry other frames: the session exists by then
        SessionKeys session = p.session;
        b.putLong(TAG_OFFSET, hello ? 0 : session.tag());
        b.putLong(COUNTER_OFFSET, ++p.txCounter);
        mac.seal(hello ? jobKey : session.key(), b, length, tail, type != DATA || macData);
        b.putInt(CRC_OFFSET, crc(crc, b, length, tail));
        p.lastSent[rail] = now;
        if (faults.dropSent(rail)) {
            return null;
        }
        ByteBuffer frame = b;
        if (faults.corruptSent(rail)) {
            if (b != tx) {
                FaultInjection.copy(b, length, tail, tx);
            }
            faults.flip(tx, length, null);
            frame = tx;
        }
        return faults.holdSent(p.rank, rail, frame, length, frame == tx ? null : tail) ? null : frame;
    }
}
