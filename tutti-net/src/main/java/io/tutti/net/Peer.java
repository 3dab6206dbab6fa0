package io.tutti.net;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What this rank knows of one remote rank: its rails (addresses, handshake, health, load), its
 * failure, and both directions of the reliable stream with it. Plain state in one object, so that
 * the per-message paths read it without a hop; each group is driven by the part of the transport
 * named at it, always under the transport's in-poll flag.
 */
final class Peer {
    final int rank;

    // the rails and their handshake (Handshake)
    /** The challenge this rank sends {@link #rank} on every rail. */
    final long myNonce;
    /** The rails to this peer: as many as both ends have, known from {@link RailsTransport#connect()}. */
    int railCount;
    InetSocketAddress[] addr;
    /** Per rail, who passed the challenge: an address (UDP) or a connection (TCP). */
    Object[] authAddr;
    boolean[] authOk;
    /** Per rail: the peer has said it authenticated us too. */
    boolean[] confirmed;
    long[] peerNonce;
    long[] lastHello;
    /** The pair's session, from the first rail authenticated on ({@link Handshake}); null before. */
    SessionKeys session;
    /** The counter of the last datagram sent to the peer ({@link DatagramDescriptor#COUNTER_OFFSET}). */
    long txCounter;
    /** The counters of the datagrams accepted from the peer: a replay is dropped. */
    final ReplayWindow replay = new ReplayWindow();

    // the rails taken out of service by an operator (RailService)
    /** Per rail: {@link RailService#LOCAL} (by this rank's operator) and {@link RailService#REMOTE} (the peer's). */
    byte[] admin;
    /** Per rail: out of service, as {@link #admin} says unless it is the pair's last rail that works. */
    boolean[] outOfService;
    /** Some rail has an {@link #admin} bit: {@link RailService#refresh} has work. */
    boolean anyAdmin;
    /** The latest epoch of this rank's rail state the peer has said it took; of the peer's, taken here. */
    long railEpochAcked;
    long peerRailEpoch;
    /** When this rank's rail state last went to the peer. */
    long railSentAt;

    // the rails' health (Liveness)
    boolean[] down;
    /** Per rail: a rail state event said it went down, and none yet that it is up again (Liveness). */
    boolean[] downReported;
    long[] lastHeard;
    long[] lastSent;
    long lastHeardAny;
    /** A valid frame has come from the peer: until then it may still be starting ({@link Liveness}). */
    boolean heardOnce;
    /**
     * This rank has begun the handshake with the peer: its first send, the peer's first HELLO, or a
     * wait on it ({@link RailsTransport#contact}). Until then nothing goes to the peer, not even heartbeats.
     */
    boolean contacted;
    String failure;
    boolean peerClosed;

    // the rails' load (Striping)
    long[] railOutstanding;
    int roundRobin;

    // sending (Reliability)
    long nextSeq;
    long acked;
    long peerConsumed;
    long outstandingBytes;
    /**
     * Per slot: the DATA frame, header room then payload, framed in place on every
     * (re)transmission so that it goes to the wire without another copy; direct, allocated on
     * first use. And the same memory as a segment, to copy records in.
     */
    final ByteBuffer[] sendBuf;
    final MemorySegment[] sendSeg;
    final int[] sendLen;
    final long[] sentAt;
    final int[] sendRail;
    final boolean[] resent;
    final int[] fragIndex;
    final int[] fragCount;
    final int[] recordLength;
    final int[] fragOffset;
    /**
     * Per slot, a DATA sent in place: the last {@code tailLength} bytes of its payload are not
     * in the slot but in the sender's memory, at {@code tailAddress}, and {@code tailView} (a
     * view of the sender's segment, shared by the slots of one record) from {@code tailPosition}.
     * No view: the whole payload is in the slot.
     */
    final ByteBuffer[] tailView;
    final int[] tailPosition;
    final long[] tailAddress;
    final int[] tailLength;
    long srtt;
    long rttvar;
    long rto = Reliability.INITIAL_RTO;

    // receiving (Reliability)
    long expected;
    long contig;
    final byte[][] recvBuf;
    final MemorySegment[] recvSeg;
    final long[] recvSeq;
    final int[] recvLen;
    final int[] rFragIndex;
    final int[] rFragCount;
    final int[] rRecordLength;
    final int[] rFragOffset;
    final byte[] reasm;
    final MemorySegment reasmSeg;
    int reasmLength;
    int reasmNextIndex;
    long reasmThrough;
    boolean reasmBroken;
    /** Something arrived or was consumed that no acknowledgement sent has stated yet. */
    boolean ackNeeded;
    /** A duplicate arrived: the sender is repairing, acknowledge without delay. */
    boolean ackNow;
    /** When {@link #ackNeeded} was set: the delay counts from the oldest unacknowledged news. */
    long ackPendingSince;
    /** The ack and consumed fields of the last acknowledgement that left. */
    long ackSent;
    long consumedSent;
    /** When contig last advanced: how long the acknowledgement of it has been held. */
    long contigAt;
    boolean nakWanted;
    long nakFrom;
    long nakTo;
    long lastNakFrom = -1;
    long highest = -1;
    /** Per rail: the highest sequence number received on it. */
    long[] railHighest;
    /** The gap below which everything has arrived, and since when it has been that gap. */
    long gapFrom = -1;
    long gapSince;
    long nakAt;
    /**
     * How long before the same gap is asked for again: a round trip, doubled with each repeat to
     * a sender not heard since the NAK before, up to the largest RTO, so a sender that died
     * mid-repair is not asked a thousand times a second.
     */
    long nakEvery;

    Peer(int rank, int slots, int maxRecord, long nonce) {
        this.rank = rank;
        this.myNonce = nonce;
        sendBuf = new ByteBuffer[slots];
        sendSeg = new MemorySegment[slots];
        sendLen = new int[slots];
        sentAt = new long[slots];
        sendRail = new int[slots];
        resent = new boolean[slots];
        fragIndex = new int[slots];
        fragCount = new int[slots];
        recordLength = new int[slots];
        fragOffset = new int[slots];
        tailView = new ByteBuffer[slots];
        tailPosition = new int[slots];
        tailAddress = new long[slots];
        tailLength = new int[slots];
        recvBuf = new byte[slots][];
        recvSeg = new MemorySegment[slots];
        recvSeq = new long[slots];
        Arrays.fill(recvSeq, -1);
        recvLen = new int[slots];
        rFragIndex = new int[slots];
        rFragCount = new int[slots];
        rRecordLength = new int[slots];
        rFragOffset = new int[slots];
        reasm = new byte[maxRecord];
        reasmSeg = MemorySegment.ofArray(reasm);
    }

    /** Takes the peer's published rail addresses and makes the per-rail state for them; no rail counts yet. */
    void reach(InetSocketAddress[] addresses) {
        int n = addresses.length;
        addr = addresses;
        authAddr = new Object[n];
        authOk = new boolean[n];
        confirmed = new boolean[n];
        down = new boolean[n];
        admin = new byte[n];
        outOfService = new boolean[n];
        downReported = new boolean[n];
        peerNonce = new long[n];
        lastHeard = new long[n];
        lastSent = new long[n];
        lastHello = new long[n];
        railOutstanding = new long[n];
        railHighest = new long[n];
        Arrays.fill(railHighest, -1);
    }

    /** Whether both ends of rail {@code r} have passed each other's challenge. */
    boolean confirmed(int r) {
        return authOk[r] && confirmed[r];
    }

    /** Whether rail {@code r} carries data now: confirmed, not down, and in service. */
    boolean usable(int r) {
        return authOk[r] && confirmed[r] && !down[r] && !outOfService[r];
    }

    /** Whether rail {@code r} works, in service or not: confirmed and not down. */
    boolean working(int r) {
        return authOk[r] && confirmed[r] && !down[r];
    }

    /** Whether a frame from {@code from} on rail {@code r} comes from the one who passed the challenge there. */
    boolean authenticated(int r, Object from) {
        return authOk[r] && from.equals(authAddr[r]);
    }

    /** A valid frame from the peer arrived on rail {@code r}; a rail that answers again rejoins. */
    void heard(int r, long now) {
        lastHeard[r] = now;
        lastHeardAny = now;
        heardOnce = true;
        down[r] = false;
    }

    /** An acknowledgement of everything received and consumed so far has left: nothing is pending. */
    void acknowledged() {
        ackNeeded = false;
        ackNow = false;
        ackSent = contig;
        consumedSent = expected;
    }

    /** Something to acknowledge: the delay counts from the oldest news not yet acknowledged. */
    void ackPending(long now) {
        if (!ackNeeded) {
            ackNeeded = true;
            ackPendingSince = now;
        }
    }
}
