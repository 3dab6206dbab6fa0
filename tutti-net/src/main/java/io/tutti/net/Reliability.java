package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import io.tutti.transport.RemoteTransport.Sink;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The reliable stream with each peer (ARQ): every datagram of data has a sequence number shared by
 * all rails, so order is kept whichever rail carries it. The receiver acknowledges cumulatively
 * ({@code ack}: everything below has been received; {@code consumed}: everything below has been
 * handed to the engine, which frees its slot), asks again for gaps once they are losses (NAK,
 * {@link #gapCheck}), and the sender retransmits on NAK and on a timeout measured from the
 * round-trip time (Jacobson/Karels, with a floor). Every DATA carries the current acknowledgement,
 * so a standalone ACK goes only when it cannot wait ({@link #acknowledge}). Records larger than a
 * datagram are fragmented and reassembled. On TCP ({@link RailWire#repairsLoss()}) there are no
 * NAKs nor timeout retransmissions; what a rail found down carried is sent again all the same.
 * verification/rails.pml models this stream.
 *
 * <p>Driven under the transport's in-poll flag. The send and receive paths allocate nothing but
 * slot buffers on first use; a record in order and whole in its datagram skips the slot.
 */
final class Reliability {
    /** The retransmission timeout before the first round-trip sample. */
    static final long INITIAL_RTO = 10_000_000L;
    /** Datagrams received (or consumed) since the last acknowledgement that make the next one go at once. */
    static final int ACK_EVERY = 2;

    private final FrameSender sender;
    private final Striping striping;
    private final RailStats stats;
    private final boolean repairsLoss;
    private final int maxPayload;
    private final int maxRecord;
    private final int maxFrags;
    private final int windowBytes;
    private final int slots;
    private final int mask;
    private final long rtoFloor;
    private final long maxRto;
    /** How long an acknowledgement may wait for a DATA to carry it. */
    private final long ackDelay;
    /**
     * A gap that not every rail has passed is taken for a loss after this long: half the RTO floor,
     * so it is asked for before the sender's timeout would resend it.
     */
    private final long reorderTime;
    /** When this rank last read its rails. */
    private long lastLook;
    /**
     * From when a gap's age counts: a pause of this reader itself (descheduled, a collection) longer
     * than {@link #reorderTime} may have left the datagram that fills a gap unread on another rail.
     */
    private long lookingSince;
    /** The segment of the last record sent in place, and a view of it. */
    private MemorySegment viewOf;
    private ByteBuffer tailAsBuffer;

    Reliability(FrameSender sender, Striping striping, RailStats stats, boolean repairsLoss, StreamLimits limits) {
        this.sender = sender;
        this.striping = striping;
        this.stats = stats;
        this.repairsLoss = repairsLoss;
        this.maxPayload = limits.maxPayload();
        this.maxRecord = limits.maxRecord();
        this.maxFrags = limits.maxFrags();
        this.windowBytes = limits.windowBytes();
        this.slots = limits.slots();
        this.mask = slots - 1;
        this.rtoFloor = limits.rtoFloor();
        this.maxRto = limits.maxRto();
        this.ackDelay = limits.ackDelay();
        this.reorderTime = rtoFloor / 2;
    }

    /** Whether the windows to {@code p} take a record of the largest size now (slots and bytes). */
    boolean canSend(Peer p) {
        return p.nextSeq + maxFrags <= p.peerConsumed + slots && p.outstandingBytes + maxRecord <= windowBytes;
    }

    /**
     * Sends the record {@code head} then {@code tail} (none when null) to {@code p}, on the rails
     * {@link Striping#plan} chooses: each fragment copied once, into its slot; or, {@code inPlace},
     * only the part in {@code head}, the slot referring to the part in {@code tail}. Returns what
     * {@link RailsTransport#released} must reach before {@code tail} may change: 0 when nothing
     * was sent in place.
     */
    long send(Peer p, MemorySegment head, long headOffset, int headLength, MemorySegment tail, long tailOffset,
              int tailLength, boolean inPlace, long now) {
        int length = headLength + (tail == null ? 0 : tailLength);
        int pieces = Math.max(1, Striping.ceilDiv(length, maxPayload));
        int count = striping.plan(p, length, pieces);
        boolean batched = striping.batched();
        if (batched) {
            // a batch is one buffer: its frames are copied into it anyway
            inPlace = false;
        }
        ByteBuffer view = null;
        if (inPlace && tail != null && tailLength > 0) {
            if (tail != viewOf) {
                // one view per record's segment (a message's chunks share it), for the CRC
                viewOf = tail;
                tailAsBuffer = tail.asByteBuffer();
            }
            view = tailAsBuffer;
        }
        int fragSize = batched ? maxPayload : Striping.ceilDiv(length, count);
        for (int i = 0; i < count; i++) {
            int fo = Math.min(length, i * fragSize);
            int fl = Math.min(fragSize, length - fo);
            long seq = p.nextSeq++;
            int slot = (int) seq & mask;
            if (p.sendBuf[slot] == null) {
                p.sendBuf[slot] = ByteBuffer.allocateDirect(HEADER + maxPayload);
                p.sendSeg[slot] = MemorySegment.ofBuffer(p.sendBuf[slot]);
            }
            // the part of [fo, fo + fl) in the head, then the part in the tail
            int fromHead = Math.max(0, Math.min(fl, headLength - fo));
            if (fromHead > 0) {
                MemorySegment.copy(head, headOffset + fo, p.sendSeg[slot], HEADER, fromHead);
            }
            long tailAt = tailOffset + (fo + fromHead - headLength);
            if (fl > fromHead && view != null) {
                p.tailView[slot] = view;
                p.tailPosition[slot] = (int) tailAt;
                p.tailAddress[slot] = tail.address() + tailAt;
                p.tailLength[slot] = fl - fromHead;
            } else {
                p.tailView[slot] = null;
                p.tailLength[slot] = 0;
                if (fl > fromHead) {
                    MemorySegment.copy(tail, tailAt, p.sendSeg[slot], HEADER + fromHead, fl - fromHead);
                }
            }
            p.sendLen[slot] = fl;
            p.fragIndex[slot] = i;
            p.fragCount[slot] = count;
            p.recordLength[slot] = length;
            p.fragOffset[slot] = fo;
            p.resent[slot] = false;
            int rail = striping.rail(i);
            p.outstandingBytes += fl;
            striping.carry(p, rail, fl);
            if (batched) {
                int frameLength = frame(p, seq, rail, now);
                sender.stage(p, rail, p.sendBuf[slot], frameLength, now);
            } else {
                transmit(p, seq, rail, now);
            }
        }
        if (batched) {
            boolean left = true;
            for (int r = 0; r < p.railCount; r++) {
                left &= sender.flush(p, r);
            }
            if (left) {
                p.acknowledged();
            }
        }
        return view != null ? p.nextSeq : 0;
    }

    /**
     * Frames DATA {@code seq} for {@code rail} in its slot, in front of its payload, and notes when
     * and where it went; returns its length.
     */
    private int frame(Peer p, long seq, int rail, long now) {
        int slot = (int) seq & mask;
        int len = p.sendLen[slot];
        ByteBuffer b = p.sendBuf[slot];
        sender.header(b, DATA, p, rail, len, now);
        b.putShort(FRAG_INDEX_OFFSET, (short) p.fragIndex[slot]);
        b.putShort(FRAG_COUNT_OFFSET, (short) p.fragCount[slot]);
        b.putLong(SEQ_OFFSET, seq);
        b.putInt(RECORD_LENGTH_OFFSET, p.recordLength[slot]);
        b.putInt(FRAG_OFFSET_OFFSET, p.fragOffset[slot]);
        p.sentAt[slot] = now;
        p.sendRail[slot] = rail;
        stats.railDataSent[rail]++;
        stats.railBytesSent[rail] += len;
        return HEADER + len;
    }

    /** Sends DATA {@code seq} on {@code rail}, on its own; the acknowledgement rides along. */
    private void transmit(Peer p, long seq, int rail, long now) {
        int slot = (int) seq & mask;
        ByteBuffer tail = p.tailView[slot];
        if (tail != null && (p.failure != null || p.peerClosed)) {
            // the sender's memory is its own again once the peer is gone: never read it after that
            return;
        }
        int length = frame(p, seq, rail, now);
        stats.railSendCalls[rail]++;
        if (tail != null) {
            tail.limit(p.tailPosition[slot] + p.tailLength[slot]).position(p.tailPosition[slot]);
        }
        // the acknowledgement rides along (header: the current ack and consumed)
        if (sender.emit(p, rail, p.sendBuf[slot], p.sendSeg[slot], length, tail, p.tailAddress[slot], now)) {
            p.acknowledged();
        }
    }

    /** Sends DATA {@code seq} again: on the next usable rail with {@code rotate}, its load moved along. */
    private void retransmit(Peer p, long seq, boolean rotate, long now) {
        int slot = (int) seq & mask;
        int old = p.sendRail[slot];
        int rail = Striping.resendRail(p, old, rotate);
        striping.move(p, old, rail, p.sendLen[slot]);
        p.resent[slot] = true;
        stats.retransmits++;
        stats.railRetransmits[rail]++;
        transmit(p, seq, rail, now);
    }

    /** Rail {@code r} to {@code p} went down: what it carried and is not yet acknowledged goes again on the others. */
    void resendRail(Peer p, int r, long now) {
        for (long s = p.acked; s < p.nextSeq; s++) {
            if (p.sendRail[(int) s & mask] == r) {
                retransmit(p, s, true, now);
            }
        }
    }

    /**
     * The peer's acknowledgement: frees what it received and takes a round-trip sample from the
     * newest datagram it acknowledges. The receiver holds an acknowledgement up to the ack delay
     * (or until its reply), so a sample is the round trip plus that hold: at most the held limit
     * ({@link FrameSender}), which keeps the timeout above it (the hold is no loss); an
     * acknowledgement held longer ({@code held}: the receiver was away, computing) times nothing.
     */
    void onAck(Peer p, long ack, long consumed, boolean held, long now) {
        if (ack > p.acked) {
            boolean repaired = false;
            for (long s = p.acked; s < ack; s++) {
                int slot = (int) s & mask;
                p.outstandingBytes -= p.sendLen[slot];
                striping.settle(p, p.sendRail[slot], p.sendLen[slot]);
                repaired |= p.resent[slot];
                p.tailView[slot] = null;
            }
            int last = (int) (ack - 1) & mask;
            // Karn: an acknowledgement that waited for a retransmission says nothing about the round trip
            if (!repaired && !held) {
                sampleRtt(p, now - p.sentAt[last]);
            } else {
                p.rto = rto(p);
            }
            p.acked = ack;
        }
        if (consumed > p.peerConsumed) {
            p.peerConsumed = Math.min(consumed, p.acked);
        }
    }

    private void sampleRtt(Peer p, long sample) {
        if (p.srtt == 0) {
            p.srtt = Math.max(1, sample);
            p.rttvar = sample / 2;
        } else {
            long err = sample - p.srtt;
            p.srtt = Math.max(1, p.srtt + err / 8);
            p.rttvar += (Math.abs(err) - p.rttvar) / 4;
        }
        p.rto = rto(p);
    }

    private long rto(Peer p) {
        long r = p.srtt == 0 ? INITIAL_RTO : Math.clamp(p.srtt + 4 * p.rttvar, rtoFloor, maxRto);
        stats.maxRtoSeen = Math.max(stats.maxRtoSeen, r);
        return r;
    }

    /** Whether DATA {@code seq} from {@code p} is the next record in order, with nothing waiting before it. */
    static boolean nextInOrder(Peer p, long seq) {
        return seq == p.expected && p.contig == p.expected;
    }

    /**
     * A DATA from {@code p} on {@code rail}, checked: the next record in order, whole in this
     * datagram, goes to {@code sink} (the owner's poll; none: the agent's) from the wire's buffer,
     * or was placed already ({@code tail}: the part received in place); anything else waits in
     * its slot for {@link #deliver}.
     */
    void onData(Peer p, int rail, ByteBuffer rx, MemorySegment rxSegment, int payload, ByteBuffer tail, Sink sink,
                long now) {
        long seq = rx.getLong(SEQ_OFFSET);
        if (seq > p.railHighest[rail]) {
            p.railHighest[rail] = seq;
        }
        if (seq < p.contig) {
            stats.duplicates++;
            p.ackPending(now);
            p.ackNow = true;
            return;
        }
        if (seq >= p.expected + slots) {
            stats.drop(DropReason.WINDOW);
            return;
        }
        int slot = (int) seq & mask;
        if (p.recvSeq[slot] == seq) {
            stats.duplicates++;
            p.ackPending(now);
            p.ackNow = true;
            return;
        }
        if (payload > maxPayload) {
            stats.drop(DropReason.LENGTH);
            return;
        }
        long contig = p.contig;
        boolean next = seq == p.expected && contig == seq && sink != null && rx.getShort(FRAG_COUNT_OFFSET) == 1;
        if (tail != null && !next) {
            // placed as the next record in order, and now not: cannot be, as nothing ran between the
            // look and the receive; its payload is where it may be written again, and it is resent
            stats.drop(DropReason.FIELD);
            return;
        }
        if (tail != null || (next && sink.accept(p.rank, rxSegment, HEADER, payload))) {
            // the next record in order, whole in this datagram, and taken: delivered from the wire's
            // buffer, as deliver() would have done from the slot one copy later, or with its payload
            // already in place
            if (tail != null) {
                sink.placed(p.rank, rxSegment, HEADER, payload - tail.remaining());
                stats.deliveredPlaced++;
            } else {
                stats.deliveredInPlace++;
            }
            p.expected = p.contig = seq + 1;
        } else {
            if (p.recvBuf[slot] == null) {
                // on first use: a peer whose records all arrive in order, whole, never needs one
                p.recvBuf[slot] = new byte[maxPayload];
                p.recvSeg[slot] = MemorySegment.ofArray(p.recvBuf[slot]);
            }
            rx.get(HEADER, p.recvBuf[slot], 0, payload);
            p.recvLen[slot] = payload;
            p.rFragIndex[slot] = Short.toUnsignedInt(rx.getShort(FRAG_INDEX_OFFSET));
            p.rFragCount[slot] = Short.toUnsignedInt(rx.getShort(FRAG_COUNT_OFFSET));
            p.rRecordLength[slot] = rx.getInt(RECORD_LENGTH_OFFSET);
            p.rFragOffset[slot] = rx.getInt(FRAG_OFFSET_OFFSET);
            p.recvSeq[slot] = seq;
        }
        while (p.recvSeq[(int) p.contig & mask] == p.contig) {
            p.contig++;
        }
        if (p.contig != contig) {
            p.contigAt = now;
        }
        if (seq > p.highest) {
            p.highest = seq;
        }
        gapCheck(p, now);
        p.ackPending(now);
    }

    /**
     * Asks for the first gap below the highest datagram received once it is a loss: at once when
     * every rail in use has delivered a later datagram (each rail keeps order, so whichever rail
     * carried the missing one has lost it), else when the gap has lasted {@link #reorderTime}
     * while this rank read its rails (datagrams on different rails overtake each other by the
     * difference of their queues; a rail that carries nothing now never delivers a later one).
     * Again after a round trip for the same gap (the NAK or the retransmission may be lost too);
     * once nothing has come from the sender for longer than the largest RTO, twice as long after
     * each repeat up to that RTO: a constant repeat to a dead sender kept its wait spinning, never
     * checking liveness (the chaos test's hang, docs/guide/fault-tolerance.md), but a live sender,
     * even one whose window is full, resends on its own timer within the largest RTO, and backing
     * off from it cost 14 % of the bandwidth under 5 % loss, and a fifth more while a sender not
     * heard since the last NAK counted as silent (docs/perf/reliability.md, "The NAK back-off" and
     * "The back-off only after silence").
     */
    void gapCheck(Peer p, long now) {
        if (p.highest < p.contig || repairsLoss) {
            return;
        }
        long from = p.contig;
        if (from != p.gapFrom) {
            p.gapFrom = from;
            p.gapSince = now;
        }
        if (now - Math.max(p.gapSince, lookingSince) < reorderTime) {
            for (int r = 0; r < p.railCount; r++) {
                if (p.usable(r) && p.railHighest[r] < from) {
                    return;
                }
            }
        }
        boolean again = from == p.lastNakFrom;
        if (!again || now - p.nakAt > p.nakEvery) {
            boolean silent = again && now - p.lastHeardAny > maxRto;
            p.nakEvery = silent ? Math.min(2 * p.nakEvery, maxRto) : Math.max(p.srtt, rtoFloor / 4);
            long to = from + 1;
            while (to < p.highest && p.recvSeq[(int) to & mask] != to) {
                to++;
            }
            p.nakWanted = true;
            p.nakFrom = from;
            p.nakTo = to;
        }
    }

    /** A read of the rails starts at {@code now}: after a pause longer than the reordering time, gaps age afresh. */
    void looked(long now) {
        if (now - lastLook > reorderTime) {
            lookingSince = now;
        }
        lastLook = now;
    }

    /** The peer misses {@code [from, to)}: resends what of it has not just been sent. */
    void onNak(Peer p, long from, long to, long now) {
        long end = Math.min(to, p.nextSeq);
        long min = Math.max(p.srtt / 2, rtoFloor / 8);
        for (long s = Math.max(from, p.acked); s < end && s < p.acked + slots; s++) {
            int slot = (int) s & mask;
            if (now - p.sentAt[slot] > min) {
                retransmit(p, s, true, now);
            }
        }
    }

    /** Hands the records that are complete and next in order to the sink. */
    int deliver(Peer p, Sink sink, long now) {
        int work = 0;
        while (p.expected < p.contig) {
            long seq = p.expected;
            int slot = (int) seq & mask;
            int count = p.rFragCount[slot];
            if (count == 1) {
                if (!sink.accept(p.rank, p.recvSeg[slot], 0, p.recvLen[slot])) {
                    break;
                }
            } else {
                int index = p.rFragIndex[slot];
                if (seq >= p.reasmThrough) {
                    if (index == 0) {
                        p.reasmLength = 0;
                        p.reasmNextIndex = 0;
                        p.reasmBroken = false;
                    }
                    int len = p.recvLen[slot];
                    if (index != p.reasmNextIndex || p.rFragOffset[slot] != p.reasmLength
                            || p.reasmLength + len > p.reasm.length) {
                        p.reasmBroken = true;
                    } else {
                        System.arraycopy(p.recvBuf[slot], 0, p.reasm, p.reasmLength, len);
                        p.reasmLength += len;
                        p.reasmNextIndex++;
                    }
                    p.reasmThrough = seq + 1;
                }
                if (index == count - 1) {
                    if (p.reasmBroken || p.reasmLength != p.rRecordLength[slot]) {
                        // cannot happen with a correct sender: the stream is checked datagram by datagram
                        stats.drop(DropReason.FIELD);
                    } else if (!sink.accept(p.rank, p.reasmSeg, 0, p.reasmLength)) {
                        break;
                    }
                }
            }
            p.recvSeq[slot] = -1;
            p.expected++;
            p.ackPending(now);
            work++;
        }
        return work;
    }

    /**
     * The retransmission timeout of {@code p}: when the oldest unacknowledged datagram has waited
     * longer than the RTO, sends it again (and the newest, as a tail probe) and backs the RTO off.
     * Never on a wire that repairs loss itself. Returns the work done.
     */
    int timeout(Peer p, long now) {
        // a failed peer gets none (RailsTransport#housekeeping): its in-place records are not sent
        // again (transmit), so their times would never advance
        if (repairsLoss || p.acked >= p.nextSeq || p.peerClosed || now - p.sentAt[(int) p.acked & mask] <= p.rto) {
            return 0;
        }
        // the oldest only: the receiver's NAKs name the gaps after it once it arrives
        stats.timeouts++;
        retransmit(p, p.acked, true, now);
        long last = p.nextSeq - 1;
        if (last > p.acked && now - p.sentAt[(int) last & mask] > p.rto) {
            // a tail probe: if the newest was lost too, its arrival shows the receiver every gap
            retransmit(p, last, true, now);
        }
        p.rto = Math.min(2 * p.rto, maxRto);
        return 1;
    }

    /**
     * Sends {@code p} the NAK that {@link #gapCheck} wants, or a standalone acknowledgement when it
     * cannot wait for a DATA to carry it: a duplicate arrived (the sender is repairing), the keep-
     * alive agent polls ({@code agent}: the owner is away, no reply is coming), {@link #ACK_EVERY}
     * or more datagrams received or consumed since the last one (so the sender's window, which
     * holds at least two records, never waits on it), or the ack delay ran out. A reply sent within
     * the delay thus carries the acknowledgement of the request: a round trip costs two datagrams.
     * The price: an owner that stops polling right after a record arrived holds its
     * acknowledgement until it polls again or the agent takes over, and the sender may resend
     * meanwhile; the resent copy is a duplicate, acknowledged at once. Returns the work done.
     */
    int acknowledge(Peer p, boolean agent, long now) {
        int ackRail = -1;
        for (int r = 0; r < p.railCount && ackRail < 0; r++) {
            if (p.usable(r)) {
                ackRail = r;
            }
        }
        if (ackRail < 0) {
            return 0;
        }
        if (p.nakWanted) {
            p.nakWanted = false;
            p.lastNakFrom = p.nakFrom;
            p.nakAt = now;
            sender.ack(p, ackRail, true, now);
            return 1;
        }
        if (p.ackNeeded && (p.ackNow || agent || p.contig - p.ackSent >= ACK_EVERY
                || p.expected - p.consumedSent >= ACK_EVERY || now - p.ackPendingSince >= ackDelay)) {
            // else it waits for a DATA to this peer to carry it, or for a later poll; one the
            // wire refused (a full socket buffer, a TCP connection over its queue limit) stays due
            if (sender.ack(p, ackRail, false, now)) {
                stats.acksSent++;
                return 1;
            }
        }
        return 0;
    }

    /** Whether everything sent to {@code p} has been acknowledged, or never will be (closed, failed). */
    static boolean quiescent(Peer p) {
        return p.acked >= p.nextSeq || p.peerClosed || p.failure != null;
    }
}
