package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import io.tutti.transport.Placement;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The network rails: records to ranks on other hosts go as frames over one or more rails (one per
 * interface), on UDP ({@link UdpWire}, the default) or TCP ({@link TcpWire}), chosen by
 * {@link NetConfig#NET}; polled from {@link #poll} by the application's thread (or the engine's progress
 * agent), and by a keep-alive agent of their own while the application computes. Everything but the
 * wire is the same on both, as described below; on TCP, which repairs loss itself, there are no
 * NAKs nor timeout retransmissions, and a connection that ends without a BYE is the peer's failure.
 *
 * <p>Per peer, every datagram of data has a sequence number shared by all rails, so order is kept
 * whichever rail carries it. The receiver acknowledges cumulatively ({@code ack}: everything below
 * has been received; {@code consumed}: everything below has been handed to the engine, which frees
 * its slot), asks again for gaps once they are losses (NAK: when every rail has passed the gap, as
 * each rail keeps order, or after half the RTO floor), and the sender retransmits on NAK and on a timeout measured
 * from the round-trip time (Jacobson/Karels, with a floor). Every DATA carries the current
 * acknowledgement, so a standalone ACK goes only when it cannot wait for one: at once for a NAK, a
 * duplicate (the sender is repairing), {@value #ACK_EVERY} or more datagrams received or consumed
 * since the last acknowledgement (so the sender's window, which holds at least two records, never
 * waits on it) and in the keep-alive agent's polls (the owner is away: no reply is coming);
 * otherwise by the first poll after {@link NetConfig#ackDelayMicros()}. A reply sent within the
 * delay thus carries the acknowledgement of the request: a round trip costs two datagrams. The
 * price: an owner that stops polling right after a record arrived (it computes) holds that
 * record's acknowledgement until it polls again or its keep-alive agent takes over, and the
 * sender may time out and resend meanwhile (as for a record that arrives while the owner
 * computes); the resent copy is a duplicate, acknowledged at once when read. Records
 * larger than a datagram are fragmented and reassembled; records above
 * {@link NetConfig#stripeMin()} are split over the rails that are not BUSY, fragment by fragment in
 * turn (equal fragments; full-size ones where the wire batches, so that a record's fragments for
 * one rail leave in one system call, {@link RailWire#sendBatch}).
 * Every datagram carries a CRC32C and the job id, and a source is heard only after it answered a
 * HELLO challenge with an HMAC-SHA256 over the job secret.
 * Idle rails carry heartbeats; a rail silent while another is heard is down (its unacknowledged
 * data moves to the others) until it is heard again; a peer silent on every rail has failed.
 *
 * <p>Liveness does not depend on the application calling in. A {@link KeepAliveAgent} (a daemon
 * thread, {@code tutti-net-keepalive-<rank>}) polls the rails itself when the owner has not polled
 * them for half a heartbeat interval: it reads the sockets, acknowledges, retransmits, sends the
 * heartbeats and judges silence, but delivers nothing (records wait in the transport, their
 * window unconsumed, until the owner polls: the sink is the owner's). And a peer is judged silent
 * only on time this rank was listening: silence is measured from the later of its last frame and
 * the moment this rank resumed polling after a gap longer than two heartbeat intervals (a process
 * that was stopped, or starved of the CPU), so our own absence never condemns a peer whose frames
 * we could not read or that were lost from a full socket buffer meanwhile.
 *
 * <p>Thread-safe by exclusion: every method that touches the state takes the {@code inPoll} flag
 * (a compare-and-set from 0 to 1, acquire; released by a store of 0, release), so the owner's
 * thread and the keep-alive agent see each other's writes and never run the protocol at once. The
 * owner waits for the flag (the agent holds it for one bounded poll); the agent only tries it. The
 * engine still drives the transport from one thread at a time, as {@link RemoteTransport} says.
 */
public final class RailsTransport implements RemoteTransport {
    private static final long MS = 1_000_000L;
    private static final long HELLO_INTERVAL = 20 * MS;
    private static final long INITIAL_RTO = 10 * MS;
    private static final int LOOPBACK_MTU = 65000;
    private static final int ETHERNET_MTU = 1472;
    /** Datagrams received (or consumed) since the last acknowledgement that make the next one go at once. */
    private static final int ACK_EVERY = 2;

    private final int rank;
    private final int size;
    private final int jobId;
    private final NetConfig config;
    private final RemoteTransportProvider.Context context;
    private final RailWire wire;
    private final RailTable table;
    private final List<String> railNames;
    private final RailWire.Receiver receiver = new RailWire.Receiver() {
        @Override
        public void frame(int rail, Object from, ByteBuffer frame, MemorySegment segment, int length) {
            received(rail, from, frame, segment, length, null);
        }

        @Override
        public boolean place(int rail, Object from, ByteBuffer head, MemorySegment segment, int available, int length,
                             Placement into) {
            return placeable(rail, from, head, segment, available, length, into);
        }

        @Override
        public void placedFrame(int rail, Object from, ByteBuffer frame, MemorySegment segment, int length,
                                Placement placed) {
            received(rail, from, frame, segment, length, placed.view);
        }

        @Override
        public void lost(int peer, int rail, String why) {
            connectionLost(peer, rail, why);
        }

        @Override
        public void opened(int peer, int rail) {
            Peer p = peers[peer];
            if (p != null && rail < p.railCount) {
                sendHello(p, rail);
            }
        }

        @Override
        public void garbled(DropReason why) {
            drop(why);
        }
    };
    private final Peer[] peers;
    private final int mtu;
    private final int maxPayload;
    private final int maxRecord;
    private final int windowBytes;
    private final int slots;
    private final int mask;
    private final int maxFrags;
    private final long rtoFloor;
    private final long maxRto;
    /** How long an acknowledgement may wait for a DATA to carry it. */
    private final long ackDelay;
    /**
     * An acknowledgement sent this long after what it acknowledges arrived is flagged
     * {@link DatagramDescriptor#FLAG_ACK_HELD}: the sender takes no round-trip sample from it.
     */
    private final long heldLimit;
    /**
     * A gap that not every rail has passed is taken for a loss after this long: half the RTO floor,
     * so it is asked for before the sender's timeout would resend it.
     */
    private final long reorderTime;
    private final long[] drops = new long[DropReason.values().length];
    private long retransmits;
    private long duplicates;
    /** Records handed to the sink straight from the wire's buffer, not through a slot. */
    private long deliveredInPlace;
    /** Records whose payload the wire received straight into its destination. */
    private long deliveredPlaced;
    /** The sink of the owner's poll in progress, for in-order records as they arrive; null otherwise. */
    private Sink sink;
    private long naksSent;
    private long acksSent;
    private long injected;
    private long sendFailures;
    private long railsDowned;
    private long timeouts;
    /** Per rail: DATA datagrams and their payload bytes sent (retransmissions included), retransmissions, refusals. */
    private final long[] railDataSent;
    private final long[] railBytesSent;
    private final long[] railRetransmits;
    private final long[] railSendFailures;
    /** Per rail: system calls that sent DATA (one per datagram, or per batch). */
    private final long[] railSendCalls;
    /** Per rail: DATA datagrams received, and of them duplicates. */
    private final long[] railDataReceived;
    private long maxRtoSeen;
    private final CRC32C crc = new CRC32C();
    private final Mac mac;
    private final ByteBuffer macInput = ByteBuffer.allocate(4 * 4 + 8 + 8);
    private final byte[] macOut = new byte[32];
    private final byte[] macIn = new byte[32];
    private final ByteBuffer tx;
    /** Whether the wire sends frames gathered from a slot's header and the sender's memory. */
    private final boolean gathers;
    /** The segment of the last record sent in place, and a view of it. */
    private MemorySegment viewOf;
    private ByteBuffer tailAsBuffer;
    /** Per rail: the frames of the record being sent that leave in one system call ({@link RailWire#sendBatch}). */
    private final ByteBuffer[] batch;
    private final int[] batchLength;
    private final int[] batchCount;
    private final SplittableRandom random;
    private final double[] txDrop;
    private final double[] txCorrupt;
    private final double[] rxDrop;
    private final double[] rxCorrupt;
    private final int[] railScratch;
    private final int[] railScratch2;
    /** The time of the current operation (nanoTime), read once per poll or send. */
    private long now;
    private boolean connected;
    private boolean closed;
    /**
     * 1 while a thread runs the protocol; only through {@link #IN_POLL}: taken by compare-and-set
     * (volatile, so acquire), given back by a release store.
     */
    @SuppressWarnings("unused")
    private int inPoll;
    /** nanoTime of the owner's latest poll: written opaque by the owner, read opaque by the agent. */
    private long ownerPolledAt;
    /** The start of the latest poll by either thread (under the flag). */
    private long lastPollAt;
    /** Since when this rank has been listening without a gap: silence is not counted before it (under the flag). */
    private long listeningSince;
    /** The owner is away after this long without a poll: the agent takes over. */
    private final long takeover;
    /** A pause between polls longer than this was an absence: silence is counted again from its end. */
    private final long listenGap;
    /** Written by {@link #connect()}, read by {@link #close()}: the engine orders the two. */
    private KeepAliveAgent agent;

    private static final VarHandle IN_POLL;
    private static final VarHandle OWNER_POLLED_AT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            IN_POLL = l.findVarHandle(RailsTransport.class, "inPoll", int.class);
            OWNER_POLLED_AT = l.findVarHandle(RailsTransport.class, "ownerPolledAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What this rank knows of one remote rank: both directions of the reliable stream, and its rails. */
    private static final class Peer {
        final int rank;
        final long myNonce;
        int railCount;
        InetSocketAddress[] addr;
        /** Per rail, who passed the challenge: an address (UDP) or a connection (TCP). */
        Object[] authAddr;
        boolean[] authOk;
        boolean[] confirmed;
        boolean[] down;
        long[] peerNonce;
        long[] lastHeard;
        long[] lastSent;
        long[] lastHello;
        long[] railOutstanding;
        long lastHeardAny;
        int roundRobin;
        String failure;
        boolean peerClosed;

        // sending
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
        long rto = INITIAL_RTO;

        // receiving
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
            java.util.Arrays.fill(recvSeq, -1);
            recvLen = new int[slots];
            rFragIndex = new int[slots];
            rFragCount = new int[slots];
            rRecordLength = new int[slots];
            rFragOffset = new int[slots];
            reasm = new byte[maxRecord];
            reasmSeg = MemorySegment.ofArray(reasm);
        }

        boolean confirmed(int r) {
            return authOk[r] && confirmed[r];
        }

        boolean usable(int r) {
            return authOk[r] && confirmed[r] && !down[r];
        }
    }

    /** Opens the rails and publishes their addresses under {@code rails}. */
    RailsTransport(RemoteTransportProvider.Context c) {
        this.context = c;
        this.rank = c.rank();
        this.size = c.size();
        this.jobId = c.wireJobId();
        this.config = NetConfig.from(c.settings());
        List<String> names = config.rails().isEmpty() ? List.of("127.0.0.1") : config.rails();
        if (names.size() > MAX_RAILS) {
            throw new IllegalArgumentException("at most " + MAX_RAILS + " rails, not " + names.size());
        }
        List<InetAddress> addresses = new ArrayList<>();
        boolean loopback = true;
        for (String name : names) {
            InetAddress a = railAddress(name);
            addresses.add(a);
            loopback &= a.isLoopbackAddress();
        }
        boolean tcp = config.tcp();
        // TCP streams frames: no path MTU to respect, the largest frame the header can state
        this.mtu = config.mtu() > 0 ? config.mtu() : loopback || tcp ? LOOPBACK_MTU : ETHERNET_MTU;
        int mtuMax = tcp ? HEADER + MAX_PAYLOAD : 65507;
        if (mtu < HEADER + 64 || mtu > mtuMax) {
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.MTU) + " must be in " + (HEADER + 64)
                    + ".." + mtuMax + ", not " + mtu);
        }
        this.maxPayload = Math.min(mtu - HEADER, MAX_PAYLOAD);
        this.maxRecord = config.maxRecord();
        if (maxRecord < 128) {
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.MAX_RECORD) + " must be at least 128");
        }
        int n = names.size();
        int pieces = ceilDiv(maxRecord, maxPayload);
        this.maxFrags = ceilDiv(pieces, n) * n;
        if (maxFrags > 0xFFFF) {
            throw new IllegalArgumentException("a record of " + maxRecord + " bytes needs more than 65535 datagrams");
        }
        this.windowBytes = Math.max(config.windowBytes(), 2 * maxRecord);
        int want = Math.max(Math.max(64, 2 * maxFrags), Math.min(4096, (int) (2L * windowBytes / maxPayload)));
        this.slots = Integer.highestOneBit(want - 1) << 1;
        this.mask = slots - 1;
        this.rtoFloor = Math.max(1, config.rtoFloorMicros()) * 1000L;
        this.maxRto = Math.max(rtoFloor, Math.min(200 * MS, config.railTimeoutMillis() * MS / 2));
        if (config.ackDelayMicros() < 0 || config.ackDelayMicros() * 1000L > rtoFloor / 2) {
            // longer, and a held acknowledgement would pass for a loss and be answered by a retransmission
            throw new IllegalArgumentException(NetConfig.envName(NetConfig.ACK_DELAY_US) + " must be in 0.."
                    + rtoFloor / 2000 + " (half of " + NetConfig.envName(NetConfig.RTO_FLOOR_US) + "), not "
                    + config.ackDelayMicros());
        }
        this.ackDelay = config.ackDelayMicros() * 1000L;
        this.heldLimit = ackDelay + rtoFloor / 4;
        this.reorderTime = rtoFloor / 2;
        long heartbeat = Math.max(1, config.heartbeatMillis()) * MS;
        this.takeover = Math.max(MS, heartbeat / 2);
        // above the agent's cadence (takeover plus one period of a quarter heartbeat), with room for jitter
        this.listenGap = 2 * heartbeat;
        this.tx = ByteBuffer.allocateDirect(1 << 16);
        this.random = new SplittableRandom(new SecureRandom().nextLong());
        this.txDrop = new double[n];
        this.txCorrupt = new double[n];
        this.rxDrop = new double[n];
        this.rxCorrupt = new double[n];
        for (int r = 0; r < n; r++) {
            txDrop[r] = config.fault(NetConfig.DROP, false, r);
            txCorrupt[r] = config.fault(NetConfig.CORRUPT, false, r);
            rxDrop[r] = config.fault(NetConfig.DROP, true, r);
            rxCorrupt[r] = config.fault(NetConfig.CORRUPT, true, r);
            if (tcp && txDrop[r] + txCorrupt[r] + rxDrop[r] + rxCorrupt[r] > 0) {
                throw new IllegalArgumentException("fault injection (" + NetConfig.envName(NetConfig.DROP) + ", "
                        + NetConfig.envName(NetConfig.CORRUPT) + ") needs the UDP rails, whose loss the rails repair;"
                        + " on TCP a lost frame is never sent again: unset it or set "
                        + NetConfig.envName(NetConfig.NET) + "=udp");
            }
        }
        this.railScratch = new int[n];
        this.railScratch2 = new int[n];
        this.railDataSent = new long[n];
        this.railBytesSent = new long[n];
        this.railRetransmits = new long[n];
        this.railSendFailures = new long[n];
        this.railSendCalls = new long[n];
        this.batch = new ByteBuffer[n];
        this.batchLength = new int[n];
        this.batchCount = new int[n];
        this.railDataReceived = new long[n];
        try {
            this.mac = Mac.getInstance("HmacSHA256");
            // without a launcher secret, first contact proves only knowledge of the job id
            byte[] key = c.secret() != null && c.secret().length > 0 ? c.secret()
                    : ("tutti-job-" + jobId).getBytes(StandardCharsets.US_ASCII);
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
        }
        this.railNames = List.copyOf(names);
        this.wire = tcp ? new TcpWire(rank, addresses, size, windowBytes) : new UdpWire(addresses, size, config.gso() ? mtu : 0, config.place());
        this.gathers = wire.gathers();
        try {
            this.table = RailTable.open(c.jobDir(), c.host(), rank, size, n);
        } catch (RuntimeException e) {
            wire.close();
            throw e;
        }
        StringBuilder published = new StringBuilder();
        for (InetSocketAddress local : wire.localAddresses()) {
            published.append(published.isEmpty() ? "" : ",").append(local.getAddress().getHostAddress()).append(':')
                    .append(local.getPort());
        }
        SecureRandom nonces = new SecureRandom();
        this.peers = new Peer[size];
        for (int r = 0; r < size; r++) {
            if (r != rank && c.remote()[r]) {
                long nonce;
                do {
                    nonce = nonces.nextLong();
                } while (nonce == 0);
                peers[r] = new Peer(r, slots, maxRecord, nonce);
            }
        }
        c.put("rails", published.toString());
    }

    /** The IPv4 address of a rail: an interface's first IPv4 address, or an IPv4 literal. */
    static InetAddress railAddress(String name) {
        try {
            if (name.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
                return InetAddress.getByName(name);
            }
            NetworkInterface ni = NetworkInterface.getByName(name);
            if (ni == null) {
                throw new IllegalArgumentException("no network interface named '" + name + "' for a rail ("
                        + NetConfig.envName(NetConfig.RAILS) + ")");
            }
            for (Enumeration<InetAddress> e = ni.getInetAddresses(); e.hasMoreElements(); ) {
                InetAddress a = e.nextElement();
                if (a instanceof Inet4Address) {
                    return a;
                }
            }
            throw new IllegalArgumentException("network interface '" + name + "' has no IPv4 address");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look up the rail '" + name + "': " + e.getMessage(), e);
        }
    }

    @Override
    public void connect() throws TimeoutException {
        for (Peer p : peers) {
            if (p == null) {
                continue;
            }
            String[] theirs = context.get("rails", p.rank).split(",");
            int n = Math.min(theirs.length, railNames.size());
            InetSocketAddress[] addr = new InetSocketAddress[n];
            for (int r = 0; r < n; r++) {
                int colon = theirs[r].lastIndexOf(':');
                try {
                    addr[r] = new InetSocketAddress(InetAddress.getByName(theirs[r].substring(0, colon)),
                            Integer.parseInt(theirs[r].substring(colon + 1)));
                } catch (IOException | RuntimeException e) {
                    throw new IllegalStateException("rank " + p.rank + " published a bad rail address '"
                            + theirs[r] + "'", e);
                }
            }
            p.addr = addr;
            p.authAddr = new Object[n];
            p.authOk = new boolean[n];
            p.confirmed = new boolean[n];
            p.down = new boolean[n];
            p.peerNonce = new long[n];
            p.lastHeard = new long[n];
            p.lastSent = new long[n];
            p.lastHello = new long[n];
            p.railOutstanding = new long[n];
            p.railHighest = new long[n];
            java.util.Arrays.fill(p.railHighest, -1);
            wire.connect(p.rank, addr);
        }
        now = System.nanoTime();
        for (Peer p : peers) {
            if (p != null) {
                p.lastHeardAny = now;
                java.util.Arrays.fill(p.lastHeard, now);
                p.railCount = p.addr.length;
                for (int r = 0; r < p.railCount; r++) {
                    sendHello(p, r);
                }
            }
        }
        lastPollAt = now;
        listeningSince = now;
        OWNER_POLLED_AT.setOpaque(this, now);
        connected = true;
        // Thread.start orders everything above before the agent's first cycle
        agent = new KeepAliveAgent(this, takeover / 2, "tutti-net-keepalive-" + rank);
        agent.start();
    }

    /**
     * Takes the flag for the calling thread, waiting while the keep-alive agent holds it (for one
     * poll at most). Acquire: what the previous holder wrote is visible.
     */
    private void enter() {
        if (!IN_POLL.compareAndSet(this, 0, 1)) {
            awaitFlag();
        }
    }

    private void awaitFlag() {
        for (int spins = 0; !IN_POLL.compareAndSet(this, 0, 1); spins++) {
            if (spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** Gives the flag back. Release: what this holder wrote is visible to the next. */
    private void exit() {
        IN_POLL.setRelease(this, 0);
    }

    /**
     * One duty cycle of the keep-alive agent: when the owner has not polled for half a heartbeat
     * interval and the flag is free, polls without delivering. Never waits for the flag.
     *
     * @return the work done, 0 when the owner is about or holds the flag
     */
    int keepAlive() {
        if (System.nanoTime() - (long) OWNER_POLLED_AT.getOpaque(this) < takeover
                || !IN_POLL.compareAndSet(this, 0, 1)) {
            return 0;
        }
        try {
            return poll0(null);
        } finally {
            exit();
        }
    }

    @Override
    public int maxRecordLength() {
        return maxRecord;
    }

    @Override
    public int frameRecordLength() {
        return Math.min(maxRecord, maxPayload);
    }

    @Override
    public boolean canSend(int dest) {
        enter();
        try {
            return canSend0(dest);
        } finally {
            exit();
        }
    }

    private boolean canSend0(int dest) {
        Peer p = peers[dest];
        if (p == null || !connected || closed || p.failure != null) {
            return false;
        }
        boolean any = false;
        for (int r = 0; r < p.railCount && !any; r++) {
            any = p.confirmed(r);
        }
        return any && p.nextSeq + maxFrags <= p.peerConsumed + slots
                && p.outstandingBytes + maxRecord <= windowBytes;
    }

    @Override
    public void send(int dest, MemorySegment record, long offset, int length) {
        sendTwo(dest, record, offset, length, null, 0, 0, false);
    }

    @Override
    public void send(int dest, MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                     long payloadOffset, int payloadLength) {
        sendTwo(dest, header, headerOffset, headerLength, payload, payloadOffset, payloadLength, false);
    }

    /**
     * {@inheritDoc} Where the wire gathers frames ({@link RailWire#gathers()}) and the payload is
     * off-heap, each frame's payload part leaves from the payload's memory: only the header is
     * copied, into the slot, and a retransmission reads the payload again.
     */
    @Override
    public long sendInPlace(int dest, MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                            long payloadOffset, int payloadLength) {
        return sendTwo(dest, header, headerOffset, headerLength, payload, payloadOffset, payloadLength,
                gathers && payload.isNative() && payload.byteSize() <= Integer.MAX_VALUE);
    }

    /** {@link #send0} under the flag: every send's way in. */
    private long sendTwo(int dest, MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                         long payloadOffset, int payloadLength, boolean inPlace) {
        enter();
        try {
            return send0(dest, header, headerOffset, headerLength, payload, payloadOffset, payloadLength, inPlace);
        } finally {
            exit();
        }
    }

    /** {@inheritDoc} Every record below the peer's cumulative acknowledgement. */
    @Override
    public long released(int dest) {
        enter();
        try {
            Peer p = dest >= 0 && dest < size ? peers[dest] : null;
            return p == null ? Long.MAX_VALUE : p.acked;
        } finally {
            exit();
        }
    }

    /**
     * Sends the record {@code head} then {@code tail} (none when null): each fragment copied once,
     * into its slot; or, {@code inPlace}, only the part in {@code head}, the slot referring to the
     * part in {@code tail}. Returns what {@link #released} must reach before {@code tail} may
     * change: 0 when nothing was sent in place.
     */
    private long send0(int dest, MemorySegment head, long headOffset, int headLength, MemorySegment tail,
                       long tailOffset, int tailLength, boolean inPlace) {
        Peer p = dest >= 0 && dest < size ? peers[dest] : null;
        if (p == null || !connected) {
            throw new IllegalArgumentException("rank " + dest + " is not reached through the network rails");
        }
        int length = headLength + (tail == null ? 0 : tailLength);
        if (headLength < 0 || tailLength < 0 || length < 0 || length > maxRecord) {
            throw new IllegalArgumentException("record of " + length + " bytes exceeds " + maxRecord);
        }
        now = System.nanoTime();
        int n = usableRails(p, railScratch);
        int pieces = Math.max(1, ceilDiv(length, maxPayload));
        int count;
        int stripe;
        int single = 0;
        int[] use = railScratch;
        if (length > config.stripeMin() && n > 1) {
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (table.load(railScratch[i]) <= config.busyBytes()) {
                    railScratch2[k++] = railScratch[i];
                }
            }
            if (k > 0) {
                use = railScratch2;
            } else {
                k = n;
            }
            stripe = k;
            count = ceilDiv(pieces, k) * k;
        } else {
            stripe = 1;
            count = pieces;
            single = pickFree(p, n);
        }
        // frames of one size, so that those of a rail can leave in one system call: the last of
        // the record, the only shorter one, is the last of its rail's batch
        boolean batched = pieces > 1 && batchable(use, stripe, single);
        if (batched) {
            count = pieces;
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
        int fragSize = batched ? maxPayload : ceilDiv(length, count);
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
            int rail = stripe > 1 ? use[i % stripe] : single;
            p.outstandingBytes += fl;
            p.railOutstanding[rail] += fl;
            table.add(rail, fl);
            if (batched) {
                stageData(p, seq, rail);
            } else {
                transmitData(p, seq, rail);
            }
        }
        if (batched) {
            boolean left = true;
            for (int r = 0; r < p.railCount; r++) {
                left &= flush(p, r);
            }
            if (left) {
                acknowledged(p);
            }
        }
        return view != null ? p.nextSeq : 0;
    }

    /** Whether every rail a record goes on ({@code use[0..n)}, or {@code single}) sends batches of full frames. */
    private boolean batchable(int[] use, int n, int single) {
        for (int i = 0; i < n; i++) {
            int r = n > 1 ? use[i] : single;
            if (wire.batchSegment(r) != HEADER + maxPayload) {
                return false;
            }
        }
        return true;
    }

    /**
     * The rail for a record that goes whole: from the next in round-robin order, the first that is
     * FREE on the node (its load at most {@link NetConfig#busyBytes()}); when every one is BUSY, the
     * next in round-robin order, as MNC does. The rails to pick from are in {@link #railScratch}.
     */
    private int pickFree(Peer p, int n) {
        int start = Math.floorMod(p.roundRobin++, n);
        for (int i = 0; i < n; i++) {
            int r = railScratch[(start + i) % n];
            if (n == 1 || table.load(r) <= config.busyBytes()) {
                return r;
            }
        }
        return railScratch[start];
    }

    /** Records {@code p}'s failure; what it never acknowledged no longer weighs on the node's rails. */
    private void failed(Peer p, String why) {
        p.failure = why;
        for (int r = 0; r < p.railCount; r++) {
            table.add(r, -p.railOutstanding[r]);
            p.railOutstanding[r] = 0;
        }
    }

    /** The rails to {@code p} that carry data now; if none is up, the confirmed ones; if none, rail 0. */
    private int usableRails(Peer p, int[] into) {
        int n = 0;
        for (int r = 0; r < p.railCount; r++) {
            if (p.usable(r)) {
                into[n++] = r;
            }
        }
        if (n == 0) {
            for (int r = 0; r < p.railCount; r++) {
                if (p.confirmed(r)) {
                    into[n++] = r;
                }
            }
        }
        if (n == 0) {
            into[n++] = 0;
        }
        return n;
    }

    /** Writes a frame header into {@code b}: {@link #tx}, or a DATA slot's frame. */
    private void header(ByteBuffer b, byte type, Peer p, int rail, int payload) {
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

    private void transmitData(Peer p, long seq, int rail) {
        int slot = (int) seq & mask;
        ByteBuffer tail = p.tailView[slot];
        if (tail != null && (p.failure != null || p.peerClosed)) {
            // the sender's memory is its own again once the peer is gone: never read it after that
            return;
        }
        int length = frameData(p, seq, rail);
        railSendCalls[rail]++;
        if (tail != null) {
            tail.limit(p.tailPosition[slot] + p.tailLength[slot]).position(p.tailPosition[slot]);
        }
        // the acknowledgement rides along (header: the current ack and consumed)
        if (emit(p, rail, p.sendBuf[slot], p.sendSeg[slot], length, tail, p.tailAddress[slot])) {
            acknowledged(p);
        }
    }

    /**
     * Adds DATA {@code seq} to {@code rail}'s batch (sent by {@link #flush}); a full batch leaves
     * first. An injected drop leaves it out.
     */
    private void stageData(Peer p, long seq, int rail) {
        int length = frameData(p, seq, rail);
        ByteBuffer frame = sealAndInject(p, rail, p.sendBuf[(int) seq & mask], length, null);
        if (frame == null) {
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
        b.put(batchLength[rail], frame, 0, length);
        batchLength[rail] += length;
        batchCount[rail]++;
    }

    /** Sends {@code rail}'s batch; whether it left (true when it was empty). */
    private boolean flush(Peer p, int rail) {
        int length = batchLength[rail];
        int frames = batchCount[rail];
        if (frames == 0) {
            return true;
        }
        batchLength[rail] = 0;
        batchCount[rail] = 0;
        railSendCalls[rail]++;
        boolean left = frames == 1 ? wire.send(p.rank, rail, batch[rail], length)
                : wire.sendBatch(p.rank, rail, batch[rail], length);
        if (!left) {
            sendFailures += frames;
            railSendFailures[rail] += frames;
        }
        return left;
    }

    /**
     * Frames DATA {@code seq} for {@code rail} in its slot, in front of its payload, and notes when
     * and where it went; returns its length.
     */
    private int frameData(Peer p, long seq, int rail) {
        int slot = (int) seq & mask;
        int len = p.sendLen[slot];
        ByteBuffer b = p.sendBuf[slot];
        header(b, DATA, p, rail, len);
        b.putShort(FRAG_INDEX_OFFSET, (short) p.fragIndex[slot]);
        b.putShort(FRAG_COUNT_OFFSET, (short) p.fragCount[slot]);
        b.putLong(SEQ_OFFSET, seq);
        b.putInt(RECORD_LENGTH_OFFSET, p.recordLength[slot]);
        b.putInt(FRAG_OFFSET_OFFSET, p.fragOffset[slot]);
        p.sentAt[slot] = now;
        p.sendRail[slot] = rail;
        railDataSent[rail]++;
        railBytesSent[rail] += len;
        return HEADER + len;
    }

    /** An acknowledgement of everything received and consumed so far has left: nothing is pending. */
    private static void acknowledged(Peer p) {
        p.ackNeeded = false;
        p.ackNow = false;
        p.ackSent = p.contig;
        p.consumedSent = p.expected;
    }

    /** Something to acknowledge: the delay counts from the oldest news not yet acknowledged. */
    private void ackPending(Peer p) {
        if (!p.ackNeeded) {
            p.ackNeeded = true;
            p.ackPendingSince = now;
        }
    }

    /**
     * Seals the frame in {@code b} ({@link #tx}, or a DATA slot's frame), applies the injected
     * faults and sends it.
     *
     * @return whether it left (an injected drop counts as left: it is lost on the way); false when
     *         the wire refused it, so what it would have acknowledged is still to acknowledge
     */
    private boolean emit(Peer p, int rail, ByteBuffer b, int length) {
        return emit(p, rail, b, null, length, null, 0);
    }

    /**
     * As {@link #emit(Peer, int, ByteBuffer, int)}, for a frame whose last {@code tail.remaining()}
     * bytes are not in {@code b} (also {@code head}) but at {@code tailAddress} (none when null).
     */
    private boolean emit(Peer p, int rail, ByteBuffer b, MemorySegment head, int length, ByteBuffer tail,
                         long tailAddress) {
        ByteBuffer frame = sealAndInject(p, rail, b, length, tail);
        if (frame == null) {
            return true;
        }
        if (tail != null && frame == b ? wire.send(p.rank, rail, head, length - tail.remaining(), tailAddress,
                tail.remaining()) : wire.send(p.rank, rail, frame, length)) {
            return true;
        }
        if (frame.get(TYPE_OFFSET) == DATA) {
            // as good as lost: retransmission (UDP) or the rail's failure (TCP) takes it from here
            sendFailures++;
            railSendFailures[rail]++;
        }
        return false;
    }

    /**
     * Seals the frame in {@code b} (and {@code tail}, its last bytes, when not null) and applies the
     * injected faults: returns the frame to send, null when an injected drop takes it. A corrupted
     * frame is a whole copy in {@link #tx}: a DATA slot, and the sender's memory, keep their intact
     * bytes for a retransmission.
     */
    private ByteBuffer sealAndInject(Peer p, int rail, ByteBuffer b, int length, ByteBuffer tail) {
        b.putInt(CRC_OFFSET, crc(crc, b, length, tail));
        p.lastSent[rail] = now;
        if (txDrop[rail] > 0 && random.nextDouble() < txDrop[rail]) {
            injected++;
            return null;
        }
        if (txCorrupt[rail] > 0 && random.nextDouble() < txCorrupt[rail]) {
            injected++;
            if (b != tx) {
                int head = tail == null ? length : length - tail.remaining();
                tx.clear();
                tx.put(0, b, 0, head);
                if (tail != null) {
                    tx.put(head, tail, tail.position(), tail.remaining());
                }
            }
            int i = random.nextInt(length);
            tx.put(i, (byte) (tx.get(i) ^ (1 << random.nextInt(8))));
            return tx;
        }
        return b;
    }

    private void retransmit(Peer p, long seq, boolean rotate) {
        int slot = (int) seq & mask;
        int old = p.sendRail[slot];
        int rail = old;
        if (rotate || !p.usable(old)) {
            for (int i = 1; i <= p.railCount; i++) {
                int r = (old + i) % p.railCount;
                if (p.usable(r)) {
                    rail = r;
                    break;
                }
            }
        }
        if (p.failure == null && rail != old) {
            p.railOutstanding[old] -= p.sendLen[slot];
            p.railOutstanding[rail] += p.sendLen[slot];
            table.add(old, -p.sendLen[slot]);
            table.add(rail, p.sendLen[slot]);
        }
        p.resent[slot] = true;
        retransmits++;
        railRetransmits[rail]++;
        transmitData(p, seq, rail);
    }

    /** Sends an ACK (with a NAK of {@code p.nakFrom..nakTo} if {@code nak}); whether it left. */
    private boolean sendAck(Peer p, int rail, boolean nak) {
        header(tx, ACK, p, rail, nak ? NAK_PAYLOAD : 0);
        if (nak) {
            tx.putLong(HEADER, p.nakFrom);
            tx.putLong(HEADER + 8, p.nakTo);
            naksSent++;
        }
        if (emit(p, rail, tx, HEADER + (nak ? NAK_PAYLOAD : 0))) {
            acknowledged(p);
            return true;
        }
        return false;
    }

    private void sendHello(Peer p, int rail) {
        header(tx, HELLO, p, rail, HELLO_PAYLOAD);
        tx.putLong(HEADER, p.myNonce);
        tx.putLong(HEADER + 8, p.peerNonce[rail]);
        tx.put(HEADER + 16, (byte) ((p.authOk[rail] ? 1 : 0) | (p.confirmed[rail] ? 2 : 0)));
        helloMac(rank, p.rank, rail, p.peerNonce[rail], p.myNonce);
        tx.put(HEADER + 17, macOut);
        p.lastHello[rail] = now;
        emit(p, rail, tx, HEADER + HELLO_PAYLOAD);
    }

    /** HMAC over who answers whom on which rail: the challenge nonce and the answerer's own nonce. */
    private void helloMac(int from, int to, int rail, long challenge, long answererNonce) {
        macInput.clear();
        macInput.putInt(jobId).putInt(from).putInt(to).putInt(rail).putLong(challenge).putLong(answererNonce);
        mac.update(macInput.array(), 0, macInput.position());
        try {
            mac.doFinal(macOut, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private void sendBye(Peer p, int rail) {
        header(tx, BYE, p, rail, 0);
        emit(p, rail, tx, HEADER);
    }

    @Override
    public int poll(Sink sink) {
        enter();
        try {
            int work = poll0(sink);
            // opaque: the agent needs it fresh, not ordered with anything (the flag orders the state)
            OWNER_POLLED_AT.setOpaque(this, now);
            return work;
        } finally {
            exit();
        }
    }

    /** Reads, delivers to {@code sink} (none: the keep-alive agent's poll) and keeps every peer. Under the flag. */
    private int poll0(Sink sink) {
        if (closed || !connected) {
            return 0;
        }
        now = System.nanoTime();
        if (now - lastPollAt > listenGap) {
            // nobody listened meanwhile: what the peers sent may be gone, their silence is not known
            listeningSince = now;
        }
        lastPollAt = now;
        int work = 0;
        // the agent comes rarely: it reads all that waits
        this.sink = sink;
        try {
            work += wire.receive(receiver, sink == null);
        } finally {
            this.sink = null;
        }
        for (Peer p : peers) {
            if (p != null) {
                if (sink != null) {
                    work += deliver(p, sink);
                }
                work += housekeeping(p, sink == null);
            }
        }
        return work;
    }

    /** How long {@code p} has been silent while this rank listened, since {@code heardAt}. */
    private long silence(long heardAt) {
        return now - Math.max(heardAt, listeningSince);
    }

    /**
     * Whether the payload of the frame whose head the wire has looked at can be received straight
     * into its destination: an in-order DATA record, whole in the frame, from an authenticated
     * source, whose payload the sink has a place for. The frame is checked in full once received.
     */
    private boolean placeable(int r, Object from, ByteBuffer head, MemorySegment segment, int available, int length,
                              Placement into) {
        if (sink == null || available < HEADER || head.getShort(MAGIC_OFFSET) != MAGIC
                || head.get(VERSION_OFFSET) != VERSION || head.get(TYPE_OFFSET) != DATA
                || head.getInt(JOB_OFFSET) != jobId || head.getInt(DEST_OFFSET) != rank
                || head.getShort(FRAG_COUNT_OFFSET) != 1
                || HEADER + Short.toUnsignedInt(head.getShort(PAYLOAD_LENGTH_OFFSET)) != length
                || length - HEADER > maxPayload) {
            return false;
        }
        int source = head.getInt(SOURCE_OFFSET);
        Peer p = source >= 0 && source < size && source != rank ? peers[source] : null;
        if (p == null || r >= p.railCount || !p.authOk[r] || !from.equals(p.authAddr[r])
                || head.getLong(SEQ_OFFSET) != p.expected || p.contig != p.expected) {
            return false;
        }
        try {
            if (!sink.place(source, segment, HEADER, available - HEADER, length - HEADER, into)) {
                return false;
            }
        } catch (RuntimeException e) {
            // fields the sink could not use: the datagram goes the ordinary way, where the checks drop it
            return false;
        }
        into.header += HEADER;
        return true;
    }

    /**
     * One frame from the wire: the injected receive faults, then the checks, then the protocol.
     * {@code tail}: the part of the payload received in place (null: the whole frame is in {@code rx}).
     */
    private void received(int r, Object from, ByteBuffer rx, MemorySegment rxSegment, int length, ByteBuffer tail) {
        if (rxDrop[r] > 0 && random.nextDouble() < rxDrop[r]) {
            drops[DropReason.INJECTED.ordinal()]++;
            return;
        }
        if (rxCorrupt[r] > 0 && length > 0 && random.nextDouble() < rxCorrupt[r]) {
            injected++;
            int i = random.nextInt(length);
            int head = tail == null ? length : length - tail.remaining();
            ByteBuffer b = i < head ? rx : tail;
            int at = i < head ? i : tail.position() + i - head;
            b.put(at, (byte) (b.get(at) ^ (1 << random.nextInt(8))));
        }
        try {
            handle(r, from, rx, rxSegment, length, tail);
        } catch (RuntimeException e) {
            // a frame that passed the checks and still upset the state: drop it, never throw
            drops[DropReason.FIELD.ordinal()]++;
        }
    }

    /** The authenticated connection of {@code peer} on {@code rail} ended: without a BYE, the peer has failed. */
    private void connectionLost(int peer, int rail, String why) {
        Peer p = peers[peer];
        if (p == null || p.peerClosed || p.failure != null || closed) {
            return;
        }
        failed(p, "rank " + peer + " dropped its connection on rail " + rail + " (" + railNames.get(rail)
                + ") without closing its end: " + why + "; the process has died or was cut off");
    }

    private void drop(DropReason why) {
        drops[why.ordinal()]++;
    }

    private void handle(int r, Object from, ByteBuffer rx, MemorySegment rxSegment, int length, ByteBuffer tail) {
        DropReason why = check(rx, length, tail, crc, jobId, rank, size, maxRecord);
        if (why != null) {
            drop(why);
            return;
        }
        Peer p = peers[rx.getInt(SOURCE_OFFSET)];
        if (p == null) {
            drop(DropReason.SOURCE);
            return;
        }
        if (r >= p.railCount) {
            drop(DropReason.UNAUTHENTICATED);
            return;
        }
        byte type = rx.get(TYPE_OFFSET);
        if (type == HELLO) {
            wire.claimed(p.rank, r, from);
            onHello(p, r, from, rx);
            return;
        }
        if (!p.authOk[r] || !from.equals(p.authAddr[r])) {
            drop(DropReason.UNAUTHENTICATED);
            return;
        }
        long ack = rx.getLong(ACK_OFFSET);
        if (ack > p.nextSeq) {
            drop(DropReason.FIELD);
            return;
        }
        heard(p, r);
        onAck(p, ack, rx.getLong(CONSUMED_OFFSET), (rx.get(FLAGS_OFFSET) & FLAG_ACK_HELD) != 0);
        switch (type) {
            case DATA -> {
                railDataReceived[r]++;
                onData(p, r, rx, rxSegment, length - HEADER, tail);
            }
            case ACK -> {
                if (length - HEADER == NAK_PAYLOAD) {
                    onNak(p, rx.getLong(HEADER), rx.getLong(HEADER + 8));
                }
            }
            case BYE -> p.peerClosed = true;
            default -> drop(DropReason.TYPE);
        }
    }

    private void heard(Peer p, int r) {
        p.lastHeard[r] = now;
        p.lastHeardAny = now;
        // a rail that answers again rejoins
        p.down[r] = false;
    }

    private void onHello(Peer p, int r, Object from, ByteBuffer rx) {
        long theirs = rx.getLong(HEADER);
        long yours = rx.getLong(HEADER + 8);
        int flags = rx.get(HEADER + 16);
        rx.get(HEADER + 17, macIn);
        boolean answered = yours == p.myNonce;
        boolean valid = false;
        if (answered) {
            helloMac(p.rank, rank, r, p.myNonce, theirs);
            valid = MessageDigest.isEqual(macOut, macIn);
            if (!valid) {
                drop(DropReason.BAD_MAC);
                return;
            }
        } else if (p.authOk[r]) {
            // someone who cannot answer our challenge may not replace the authenticated peer's nonce
            drop(DropReason.UNAUTHENTICATED);
            return;
        }
        p.peerNonce[r] = theirs;
        if (valid) {
            p.authOk[r] = true;
            p.authAddr[r] = from;
            wire.authenticated(p.rank, r, from);
            heard(p, r);
            if ((flags & 1) != 0) {
                p.confirmed[r] = true;
            }
        }
        if ((flags & 3) != 3 || !valid) {
            sendHello(p, r);
        }
    }

    /**
     * The peer's acknowledgement: frees what it received and takes a round-trip sample from the
     * newest datagram it acknowledges. The receiver holds an acknowledgement up to the ack delay
     * (or until its reply), so a sample is the round trip plus that hold: at most
     * {@link #heldLimit}, which keeps the timeout above it (the hold is no loss); an
     * acknowledgement held longer ({@code held}: the receiver was away, computing) times nothing.
     */
    private void onAck(Peer p, long ack, long consumed, boolean held) {
        if (ack > p.acked) {
            boolean repaired = false;
            for (long s = p.acked; s < ack; s++) {
                int slot = (int) s & mask;
                p.outstandingBytes -= p.sendLen[slot];
                if (p.failure == null) {
                    // after a failure the peer's load was taken off the rails at once
                    p.railOutstanding[p.sendRail[slot]] -= p.sendLen[slot];
                    table.add(p.sendRail[slot], -p.sendLen[slot]);
                }
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
        maxRtoSeen = Math.max(maxRtoSeen, r);
        return p.srtt == 0 ? INITIAL_RTO : Math.clamp(p.srtt + 4 * p.rttvar, rtoFloor, maxRto);
    }

    private void onData(Peer p, int rail, ByteBuffer rx, MemorySegment rxSegment, int payload, ByteBuffer tail) {
        long seq = rx.getLong(SEQ_OFFSET);
        if (seq > p.railHighest[rail]) {
            p.railHighest[rail] = seq;
        }
        if (seq < p.contig) {
            duplicates++;
            ackPending(p);
            p.ackNow = true;
            return;
        }
        if (seq >= p.expected + slots) {
            drop(DropReason.WINDOW);
            return;
        }
        int slot = (int) seq & mask;
        if (p.recvSeq[slot] == seq) {
            duplicates++;
            ackPending(p);
            p.ackNow = true;
            return;
        }
        if (payload > maxPayload) {
            drop(DropReason.LENGTH);
            return;
        }
        long contig = p.contig;
        boolean next = seq == p.expected && contig == seq && sink != null && rx.getShort(FRAG_COUNT_OFFSET) == 1;
        if (tail != null && !next) {
            // placed as the next record in order, and now not: cannot be, as nothing ran between the
            // look and the receive; its payload is where it may be written again, and it is resent
            drop(DropReason.FIELD);
            return;
        }
        if (tail != null || (next && sink.accept(p.rank, rxSegment, HEADER, payload))) {
            // the next record in order, whole in this datagram, and taken: delivered from the wire's
            // buffer, as deliver() would have done from the slot one copy later, or with its payload
            // already in place
            if (tail != null) {
                sink.placed(p.rank, rxSegment, HEADER, payload - tail.remaining());
                deliveredPlaced++;
            } else {
                deliveredInPlace++;
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
        gapCheck(p);
        ackPending(p);
    }

    /**
     * Asks for the first gap below the highest datagram received once it is a loss: at once when
     * every rail in use has delivered a later datagram (each rail keeps order, so whichever rail
     * carried the missing one has lost it), else when the gap has lasted {@link #reorderTime}
     * (datagrams on different rails overtake each other by the difference of their queues; a rail
     * that carries nothing now never delivers a later one). Again after a round trip for the same
     * gap (the NAK or the retransmission may be lost too).
     */
    private void gapCheck(Peer p) {
        if (p.highest < p.contig || wire.repairsLoss()) {
            return;
        }
        long from = p.contig;
        if (from != p.gapFrom) {
            p.gapFrom = from;
            p.gapSince = now;
        }
        if (now - p.gapSince < reorderTime) {
            for (int r = 0; r < p.railCount; r++) {
                if (p.usable(r) && p.railHighest[r] < from) {
                    return;
                }
            }
        }
        if (from != p.lastNakFrom || now - p.nakAt > Math.max(p.srtt, rtoFloor / 4)) {
            long to = from + 1;
            while (to < p.highest && p.recvSeq[(int) to & mask] != to) {
                to++;
            }
            p.nakWanted = true;
            p.nakFrom = from;
            p.nakTo = to;
        }
    }

    private void onNak(Peer p, long from, long to) {
        long end = Math.min(to, p.nextSeq);
        long min = Math.max(p.srtt / 2, rtoFloor / 8);
        for (long s = Math.max(from, p.acked); s < end && s < p.acked + slots; s++) {
            int slot = (int) s & mask;
            if (now - p.sentAt[slot] > min) {
                retransmit(p, s, true);
            }
        }
    }

    /** Hands the records that are complete and next in order to the sink. */
    private int deliver(Peer p, Sink sink) {
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
                        drop(DropReason.FIELD);
                    } else if (!sink.accept(p.rank, p.reasmSeg, 0, p.reasmLength)) {
                        break;
                    }
                }
            }
            p.recvSeq[slot] = -1;
            p.expected++;
            ackPending(p);
            work++;
        }
        return work;
    }

    /** Hellos, silence, timeouts, NAKs, acknowledgements and heartbeats of {@code p}; {@code agent}: the agent polls. */
    private int housekeeping(Peer p, boolean agent) {
        int work = 0;
        for (int r = 0; r < p.railCount; r++) {
            if (!p.confirmed(r) && now - p.lastHello[r] >= HELLO_INTERVAL) {
                sendHello(p, r);
            }
        }
        if (p.failure == null && silence(p.lastHeardAny) > config.timeoutMillis() * MS) {
            failed(p, "rank " + p.rank + " has not been heard on any of its " + p.railCount + " rails for "
                    + silence(p.lastHeardAny) / MS + " ms (" + NetConfig.envName(NetConfig.TIMEOUT_MS) + "="
                    + config.timeoutMillis() + ")" + (p.peerClosed ? "; it closed its end" : ""));
        }
        if (p.railCount > 1) {
            long railTimeout = config.railTimeoutMillis() * MS;
            for (int r = 0; r < p.railCount; r++) {
                if (p.down[r] || !p.confirmed(r) || silence(p.lastHeard[r]) <= railTimeout) {
                    continue;
                }
                boolean otherHeard = false;
                for (int q = 0; q < p.railCount; q++) {
                    otherHeard |= q != r && now - p.lastHeard[q] <= railTimeout;
                }
                if (otherHeard) {
                    p.down[r] = true;
                    railsDowned++;
                    // what the silent rail carried goes again on the others
                    for (long s = p.acked; s < p.nextSeq; s++) {
                        if (p.sendRail[(int) s & mask] == r) {
                            retransmit(p, s, true);
                        }
                    }
                    work++;
                }
            }
        }
        if (!wire.repairsLoss() && p.acked < p.nextSeq && !p.peerClosed
                && now - p.sentAt[(int) p.acked & mask] > p.rto) {
            // the oldest only: the receiver's NAKs name the gaps after it once it arrives
            timeouts++;
            retransmit(p, p.acked, true);
            long last = p.nextSeq - 1;
            if (last > p.acked && now - p.sentAt[(int) last & mask] > p.rto) {
                // a tail probe: if the newest was lost too, its arrival shows the receiver every gap
                retransmit(p, last, true);
            }
            p.rto = Math.min(2 * p.rto, maxRto);
            work++;
        }
        gapCheck(p);
        int ackRail = -1;
        for (int r = 0; r < p.railCount && ackRail < 0; r++) {
            if (p.usable(r)) {
                ackRail = r;
            }
        }
        if (ackRail >= 0) {
            if (p.nakWanted) {
                p.nakWanted = false;
                p.lastNakFrom = p.nakFrom;
                p.nakAt = now;
                sendAck(p, ackRail, true);
                work++;
            } else if (p.ackNeeded && (p.ackNow || agent || p.contig - p.ackSent >= ACK_EVERY
                    || p.expected - p.consumedSent >= ACK_EVERY || now - p.ackPendingSince >= ackDelay)) {
                // else it waits for a DATA to this peer to carry it, or for a later poll; one the
                // wire refused (a full socket buffer, a TCP connection over its queue limit) stays due
                if (sendAck(p, ackRail, false)) {
                    acksSent++;
                    work++;
                }
            }
        }
        long heartbeat = config.heartbeatMillis() * MS;
        for (int r = 0; r < p.railCount; r++) {
            // down rails too: that is how they are found to answer again
            if (p.confirmed(r) && now - p.lastSent[r] >= heartbeat) {
                sendAck(p, r, false);
            }
        }
        return work;
    }

    /**
     * {@inheritDoc} A peer that has closed its end counts as done: its BYE carried its last
     * acknowledgement, and nothing sent after that can be delivered; so does a failed one.
     */
    @Override
    public boolean quiescent() {
        enter();
        try {
            return quiescent0();
        } finally {
            exit();
        }
    }

    private boolean quiescent0() {
        for (Peer p : peers) {
            if (p != null && p.acked < p.nextSeq && !p.peerClosed && p.failure == null) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String failure(int peer) {
        enter();
        try {
            return failure0(peer);
        } finally {
            exit();
        }
    }

    private String failure0(int peer) {
        Peer p = peer >= 0 && peer < size ? peers[peer] : null;
        // records that arrived before it went silent are delivered first
        if (p == null || p.expected < p.contig) {
            return null;
        }
        if (p.failure != null) {
            return p.failure;
        }
        return p.peerClosed && p.acked == p.nextSeq ? "rank " + p.rank + " has closed its end" : null;
    }

    /** Stops the keep-alive agent, says BYE on every confirmed rail and releases the sockets. */
    @Override
    public void close() {
        stopKeepAlive();
        enter();
        try {
            close0();
        } finally {
            exit();
        }
    }

    private void close0() {
        if (closed) {
            return;
        }
        if (config.stats()) {
            System.err.println("tutti-net rank " + rank + ": " + statistics0());
        }
        if (connected) {
            now = System.nanoTime();
            for (Peer p : peers) {
                for (int r = 0; p != null && r < p.railCount; r++) {
                    if (p.confirmed(r)) {
                        // twice: a lost BYE costs the peer a wait for its failure timeout
                        sendBye(p, r);
                        sendBye(p, r);
                    }
                }
            }
        }
        closed = true;
        wire.close();
        table.close();
    }

    /**
     * Releases the sockets without a BYE, as the kernel does when the process dies (tests: a peer
     * killed on TCP rails, whose connections end without a goodbye).
     */
    void abort() {
        stopKeepAlive();
        enter();
        try {
            if (!closed) {
                closed = true;
                wire.close();
                table.close();
            }
        } finally {
            exit();
        }
    }

    /**
     * Ends the keep-alive agent; the transport then listens only when polled (tests: a rank whose
     * process is stopped, as by SIGSTOP, and so silent though its sockets are open).
     */
    void stopKeepAlive() {
        KeepAliveAgent k = agent;
        if (k != null) {
            k.stop();
        }
    }

    /** The keep-alive agent's thread, or null before {@link #connect()} (tests). */
    Thread keepAliveThread() {
        KeepAliveAgent k = agent;
        return k == null ? null : k.thread();
    }

    /**
     * Sets the injected fault probabilities of one rail at run time (tests: a rail that goes
     * silent). Any thread.
     */
    public void injectFaults(int rail, double sendDrop, double sendCorrupt, double receiveDrop,
                             double receiveCorrupt) {
        enter();
        try {
            txDrop[rail] = sendDrop;
            txCorrupt[rail] = sendCorrupt;
            rxDrop[rail] = receiveDrop;
            rxCorrupt[rail] = receiveCorrupt;
        } finally {
            exit();
        }
    }

    /** A diagnostic counter, read under the transport's lock (not a hot path: the reader allocates). */
    private long counter(java.util.function.LongSupplier read) {
        enter();
        try {
            return read.getAsLong();
        } finally {
            exit();
        }
    }

    /** Received datagrams dropped for {@code why}. */
    public long dropped(DropReason why) {
        return counter(() -> drops[why.ordinal()]);
    }

    /** NAKs sent: gaps asked for again. */
    long naksSent() {
        return counter(() -> naksSent);
    }

    /** DATA datagrams sent on {@code rail}, retransmissions included. */
    long dataSent(int rail) {
        return counter(() -> railDataSent[rail]);
    }

    /** System calls that sent DATA on {@code rail}: one per datagram, or one per batch. */
    long dataSendCalls(int rail) {
        return counter(() -> railSendCalls[rail]);
    }

    /** Whether the frames of a record leave {@code rail} in batches, one system call each. */
    boolean batching(int rail) {
        return wire.batchSegment(rail) > 0;
    }

    /**
     * Standalone acknowledgements sent because one was due (neither NAKs nor heartbeats): what did
     * not ride on a DATA.
     */
    public long acksSent() {
        return counter(() -> acksSent);
    }

    /** Records whose payload the wire received straight into the place the sink gave. */
    public long placed() {
        return counter(() -> deliveredPlaced);
    }

    /** Datagrams sent again (NAK, timeout, or a rail that went down). */
    public long retransmits() {
        return counter(() -> retransmits);
    }

    /** Times a rail to some peer was found silent and taken out of use. */
    public long railsDowned() {
        return counter(() -> railsDowned);
    }

    /** Whether rail {@code rail} to {@code peer} carries data now (authenticated, confirmed, not down). */
    public boolean railUp(int peer, int rail) {
        enter();
        try {
            Peer p = peers[peer];
            return p != null && rail < p.railCount && p.usable(rail);
        } finally {
            exit();
        }
    }

    /** Local address of each rail (tests aim frames at them). */
    public List<InetSocketAddress> railAddresses() {
        return wire.localAddresses();
    }

    /** Bytes in flight on {@code rail} from every rank of this host, as the node's rail table says. */
    public long nodeRailLoad(int rail) {
        return table.load(rail);
    }

    /** This rank's bytes in flight to {@code peer} on {@code rail}. */
    public long railOutstanding(int peer, int rail) {
        enter();
        try {
            Peer p = peers[peer];
            return p == null || rail >= p.railCount ? 0 : p.railOutstanding[rail];
        } finally {
            exit();
        }
    }

    /** The wire in use: {@code udp} or {@code tcp}. */
    public String wire() {
        return wire.name();
    }

    /** The datagram size in use, header included. */
    public int mtu() {
        return mtu;
    }

    /** Counters, for diagnostics. */
    public String statistics() {
        enter();
        try {
            return statistics0();
        } finally {
            exit();
        }
    }

    private String statistics0() {
        StringBuilder b = new StringBuilder("rails=").append(railNames.size()).append(' ').append(wire.name()).append(" mtu=").append(mtu)
                .append(" retransmits=").append(retransmits).append(" timeouts=").append(timeouts)
                .append(" maxRto=").append(maxRtoSeen / 1000).append("us").append(" duplicates=").append(duplicates).append(" inPlace=").append(deliveredInPlace).append(" placed=").append(deliveredPlaced)
                .append(" acks=").append(acksSent).append(" naks=").append(naksSent).append(" injected=").append(injected)
                .append(" sendFailures=").append(sendFailures).append(" railsDowned=").append(railsDowned);
        for (DropReason d : DropReason.values()) {
            if (drops[d.ordinal()] > 0) {
                b.append(' ').append(d.name().toLowerCase(java.util.Locale.ROOT)).append('=')
                        .append(drops[d.ordinal()]);
            }
        }
        for (int r = 0; r < railNames.size(); r++) {
            b.append("; rail ").append(r).append(" (").append(railNames.get(r)).append("): sent=")
                    .append(railDataSent[r]).append(" calls=").append(railSendCalls[r]).append(" bytes=").append(railBytesSent[r]).append(" resent=")
                    .append(railRetransmits[r]).append(" refused=").append(railSendFailures[r])
                    .append(" received=").append(railDataReceived[r]);
        }
        return b.toString();
    }

    private static int ceilDiv(int a, int b) {
        return Math.max(0, (a + b - 1) / b);
    }
}
