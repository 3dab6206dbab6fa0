package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import io.tutti.idle.Idle;
import io.tutti.transport.Placement;
import io.tutti.transport.RailCounters;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import javax.crypto.Mac;

/**
 * The network rails: records to ranks on other hosts go as frames over one or more rails (one per
 * interface), on UDP ({@link UdpWire}, the default) or TCP ({@link TcpWire}), chosen by
 * {@link NetConfig#NET}; polled from {@link #poll} by the application's thread (or the engine's
 * progress agent), and by a {@link KeepAliveAgent} while the application computes, which keeps
 * the protocol going but delivers nothing (the sink is the owner's). This class is the façade: it
 * opens the rails, checks each frame that arrives (bounds and CRC, then the source, the session's
 * tag, the MAC and the replay window) and hands it on, to {@link Handshake} (HELLO,
 * HMAC), {@link Reliability} (sequence, ACK/NAK, RTO, reassembly), {@link Striping} (rail choice,
 * the node's rail table), {@link Liveness} (heartbeats, silence), {@link RailService} (rails an
 * operator took out of service, read from the counters file); {@link FrameSender} frames what
 * goes out; each remote rank's state is a {@link Peer}.
 *
 * <p>Thread-safe by exclusion: every method that touches the state takes the {@code inPoll} flag
 * (a compare-and-set from 0 to 1, acquire; released by a store of 0, release), so the owner's
 * thread and the keep-alive agent see each other's writes and never run the protocol at once. The
 * owner waits for the flag (the agent holds it for one bounded poll); the agent only tries it. The
 * engine still drives the transport from one thread at a time, as {@link RemoteTransport} says.
 */
public final class RailsTransport implements RemoteTransport {
    private static final long MS = 1_000_000L;
    /** Spins on the flag before the owner yields its core: the agent holds it for one bounded poll. */
    private static final int FLAG_SPINS = 1000;

    private final int rank;
    private final int size;
    private final int jobId;
    private final NetConfig config;
    private final RemoteTransportProvider.Context context;
    private final RailWire wire;
    /** Whether the wire sends frames gathered from a slot's header and the sender's memory. */
    private final boolean gathers;
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
            Peer p = peers[peer];
            if (p != null && !closed) {
                liveness.connectionLost(p, rail, why);
            }
        }

        @Override
        public void opened(int peer, int rail) {
            Peer p = peers[peer];
            if (p != null && p.contacted && rail < p.railCount) {
                handshake.hello(p, rail, now);
            }
        }

        @Override
        public void garbled(DropReason why) {
            stats.drop(why);
        }
    };
    private final Peer[] peers;
    private final int mtu;
    private final int maxPayload;
    private final int maxRecord;
    private final RailStats stats;
    private final FaultInjection faults;
    private final Striping striping;
    private final FrameSender sender;
    private final Handshake handshake;
    private final Reliability reliability;
    private final Liveness liveness;
    private final RailService service;
    /** The sequence number of the latest rail command taken from the counters file. */
    private int railCommand;
    /** Checks received frames (the sender seals with its own). */
    private final CRC32C crc = new CRC32C();
    private final RecordMac mac = new RecordMac();
    /** The job's key, which MACs HELLOs. */
    private final RecordMac.Key jobKey;
    /** Whether a DATA's MAC covers its payload ({@link NetConfig#macData()}). */
    private final boolean macData;
    /** The sink of the owner's poll in progress, for in-order records as they arrive; null otherwise. */
    private Sink sink;
    /** Frames of this poll that brought data, progress of the handshake or the window, or an end; not heartbeats. */
    private int news;
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
    /** How a thread waits for the flag: {@value #FLAG_SPINS} spins, then yields (the holder has one poll to do). */
    private final Idle flagWait = new Idle(new Idle.Policy(FLAG_SPINS, Integer.MAX_VALUE, 1, 1));
    /** nanoTime of the owner's latest poll: written opaque by the owner, read opaque by the agent. */
    private long ownerPolledAt;
    /** The owner is away after this long without a poll: the agent takes over. */
    private final long takeover;
    /** Where {@link #publishCounters()} copies the counters to (the rank's counters file), or null. */
    private RailCounters counters;
    /** When the counters were last copied (nanoTime). */
    private long countersAt;
    /** How often at most the counters are copied into the counters file. */
    private static final long COUNTERS_NANOS = 10 * MS;
    /** The latest exception a frame raised past the checks (a bug the checks missed), or null; under the flag. */
    private RuntimeException upset;
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

    /** Opens the rails and publishes their addresses under {@code rails}. */
    RailsTransport(RemoteTransportProvider.Context c) {
        this.context = c;
        this.rank = c.rank();
        this.size = c.size();
        this.jobId = c.wireJobId();
        this.config = NetConfig.from(c.settings(), c.deathsReported());
        // No rails named: the address the start-up found toward the other hosts, else loopback.
        List<String> names = !config.rails().isEmpty() ? config.rails()
                : c.facing() != null ? List.of(c.facing()) : List.of("127.0.0.1");
        if (names.size() > MAX_RAILS) {
            throw new IllegalArgumentException("at most " + MAX_RAILS + " rails, not " + names.size());
        }
        List<InetAddress> addresses = new ArrayList<>();
        boolean loopback = true;
        for (String name : names) {
            InetAddress a = RailAddresses.resolve(name);
            addresses.add(a);
            loopback &= a.isLoopbackAddress();
        }
        int n = names.size();
        StreamLimits limits = StreamLimits.of(config, n, loopback);
        this.mtu = limits.mtu();
        this.maxPayload = limits.maxPayload();
        this.maxRecord = limits.maxRecord();
        this.takeover = Math.max(MS, Math.max(1, config.heartbeatMillis()) * MS / 2);
        this.stats = new RailStats(names);
        this.faults = new FaultInjection(config, n, stats);
        Mac mac = Handshake.mac(c.secret(), jobId);
        this.railNames = List.copyOf(names);
        this.wire = config.tcp() ? new TcpWire(rank, addresses, size, limits.windowBytes())
                : new UdpWire(addresses, size, config.gso() ? mtu : 0, config.place());
        this.gathers = wire.gathers();
        RailTable table;
        try {
            table = RailTable.open(c.jobDir(), c.host(), rank, size, n);
        } catch (RuntimeException e) {
            wire.close();
            throw e;
        }
        this.striping = new Striping(table, wire, config, n, maxPayload);
        this.jobKey = RecordMac.key(Handshake.jobKey(c.secret(), jobId));
        this.macData = config.macData();
        this.sender = new FrameSender(wire, faults, stats, jobId, rank, limits.heldLimit(), n, jobKey, macData);
        this.handshake = new Handshake(mac, jobId, rank, sender, wire, stats);
        this.reliability = new Reliability(sender, striping, stats, wire.repairsLoss(), limits);
        this.liveness = new Liveness(config, sender, reliability, striping, stats, railNames,
                c.deathsReported() ? c.kvs()::jobStarted : null);
        String dir = c.jobDir() == null ? "" : c.jobDir().getFileName().toString();
        this.service = new RailService(railNames, sender, reliability);
        String job = dir.startsWith("tutti-") ? dir.substring("tutti-".length()) : dir;
        liveness.identify(job, rank);
        service.identify(job, rank);
        this.peers = new Peer[size];
        for (int r = 0; r < size; r++) {
            if (r != rank && c.remote()[r]) {
                peers[r] = new Peer(r, limits.slots(), maxRecord, handshake.nonce());
            }
        }
        c.put("rails", RailAddresses.publish(wire.localAddresses()));
    }

    @Override
    public void connect() throws TimeoutException {
        for (Peer p : peers) {
            if (p == null) {
                continue;
            }
            InetSocketAddress[] addr = RailAddresses.parse(context.get("rails", p.rank), railNames.size(), p.rank);
            p.reach(addr);
            wire.connect(p.rank, addr);
        }
        now = System.nanoTime();
        for (Peer p : peers) {
            if (p != null) {
                p.railCount = p.addr.length;
            }
        }
        liveness.start(now);
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

    /** Spins, then yields, until the flag is free ({@link #flagWait}); each waiting thread counts its own rounds. */
    private void awaitFlag() {
        for (int round = 0; !IN_POLL.compareAndSet(this, 0, 1); ) {
            round = flagWait.idle(round);
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
        contact(p, System.nanoTime());
        boolean any = false;
        for (int r = 0; r < p.railCount && !any; r++) {
            any = p.confirmed(r);
        }
        return any && reliability.canSend(p);
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

    /**
     * Every send's way in: under the flag, checks the destination and the length, then
     * {@link Reliability#send}.
     */
    private long sendTwo(int dest, MemorySegment head, long headOffset, int headLength, MemorySegment tail,
                         long tailOffset, int tailLength, boolean inPlace) {
        enter();
        try {
            Peer p = dest >= 0 && dest < size ? peers[dest] : null;
            if (p == null || !connected) {
                throw new IllegalArgumentException("rank " + dest + " is not reached through the network rails");
            }
            int length = headLength + (tail == null ? 0 : tailLength);
            if (headLength < 0 || tailLength < 0 || length < 0 || length > maxRecord) {
                throw new IllegalArgumentException("record of " + length + " bytes exceeds " + maxRecord);
            }
            now = System.nanoTime();
            contact(p, now);
            return reliability.send(p, head, headOffset, headLength, tail, tailOffset, tailLength, inPlace, now);
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

    /** {@inheritDoc} A heartbeat that changes nothing is no work: a blocked rank keeps backing off. */
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
        liveness.listen(now);
        reliability.looked(now);
        int work = 0;
        // the agent comes rarely: it reads all that waits
        this.sink = sink;
        try {
            wire.receive(receiver, sink == null);
            // the frames that changed something count, not heartbeats: a wait that counted those
            // never left its spin phase (docs/perf/launch.md, "Start-up, round two")
            work += news;
            news = 0;
        } finally {
            this.sink = null;
        }
        for (Peer p : peers) {
            if (p != null) {
                if (sink != null) {
                    work += reliability.deliver(p, sink, now);
                }
                work += housekeeping(p, sink == null);
            }
        }
        if (counters != null && now - countersAt >= COUNTERS_NANOS) {
            long command = counters.railCommand();
            if (RailCounters.sequence(command) != railCommand) {
                railCommand = RailCounters.sequence(command);
                int result = service.command(RailCounters.operation(command), RailCounters.rail(command), peers, now);
                publishCounters();
                // after the state it changed, so that an operator who has the answer sees it
                counters.railAnswer(command, result);
                work++;
            } else {
                publishCounters();
            }
        }
        return work;
    }

    @Override
    public void attach(RailCounters counters) {
        enter();
        try {
            for (int r = 0; r < railNames.size(); r++) {
                counters.railName(r, railNames.get(r));
            }
            this.counters = counters;
        } finally {
            exit();
        }
    }

    /**
     * Copies the rails' counters into the rank's counters file, at most every {@link #COUNTERS_NANOS}:
     * readers see them a few milliseconds late, and a poll pays one comparison. Under the flag.
     */
    private void publishCounters() {
        countersAt = now;
        RailCounters c = counters;
        for (int r = 0; r < railNames.size(); r++) {
            boolean up = false;
            for (Peer p : peers) {
                up |= p != null && r < p.railCount && p.usable(r);
            }
            long load = striping.load(r);
            c.rail(r, RailCounters.Rail.STATE, service.adminDown(r, peers) ? RailCounters.ADMIN_DOWN
                    : !up ? RailCounters.DOWN : load > config.busyBytes() ? RailCounters.BUSY : RailCounters.FREE);
            c.rail(r, RailCounters.Rail.DATAGRAMS_SENT, stats.railDataSent[r]);
            c.rail(r, RailCounters.Rail.BYTES_SENT, stats.railBytesSent[r]);
            c.rail(r, RailCounters.Rail.DATAGRAMS_RECEIVED, stats.railDataReceived[r]);
            c.rail(r, RailCounters.Rail.RETRANSMITS, stats.railRetransmits[r]);
            c.rail(r, RailCounters.Rail.OUTSTANDING_BYTES, load);
        }
        long foreign = stats.drops[DropReason.JOB.ordinal()] + stats.drops[DropReason.UNAUTHENTICATED.ordinal()]
                + stats.drops[DropReason.BAD_MAC.ordinal()];
        long all = 0;
        for (long d : stats.drops) {
            all += d;
        }
        long crc = stats.drops[DropReason.CRC.ordinal()];
        long srtt = 0;
        int timed = 0;
        for (Peer p : peers) {
            if (p != null && p.srtt > 0) {
                srtt += p.srtt;
                timed++;
            }
        }
        c.total(RailCounters.Total.NAKS_SENT, stats.naksSent);
        c.total(RailCounters.Total.CRC_DROPS, crc);
        c.total(RailCounters.Total.FOREIGN_DROPS, foreign);
        c.total(RailCounters.Total.OTHER_DROPS, all - crc - foreign);
        c.total(RailCounters.Total.TIMEOUTS, stats.timeouts);
        c.total(RailCounters.Total.SRTT_NANOS, timed == 0 ? 0 : srtt / timed);
    }

    /** Hellos, silence, timeouts, NAKs, acknowledgements, heartbeats of {@code p}; {@code agent}: the agent's poll. */
    private int housekeeping(Peer p, boolean agent) {
        if (!p.contacted || p.failure != null) {
            // a failed peer is neither repaired, acknowledged nor kept alive: that would be work forever
            return 0;
        }
        handshake.repeat(p, now);
        int work = liveness.check(p, now);
        work += reliability.timeout(p, now);
        reliability.gapCheck(p, now);
        work += reliability.acknowledge(p, agent, now);
        work += service.repeat(p, now);
        liveness.heartbeats(p, now);
        return work;
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
        if (p == null || r >= p.railCount || !p.authenticated(r, from)
                || !Reliability.nextInOrder(p, head.getLong(SEQ_OFFSET))) {
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
        if (faults.dropReceived(r)) {
            return;
        }
        faults.corruptReceived(r, rx, length, tail);
        try {
            handle(r, from, rx, rxSegment, length, tail);
        } catch (RuntimeException e) {
            // a frame that passed the checks and still upset the state: drop it, never throw; kept
            // for the fuzz tests, to which it is a finding (the checks should have dropped it)
            stats.drop(DropReason.FIELD);
            upset = e;
        }
    }

    /** A frame from the wire, checked and then handed to the part of the protocol whose it is. */
    private void handle(int r, Object from, ByteBuffer rx, MemorySegment rxSegment, int length, ByteBuffer tail) {
        DropReason why = check(rx, length, tail, crc, jobId, rank, size, maxRecord);
        if (why != null) {
            stats.drop(why);
            return;
        }
        Peer p = peers[rx.getInt(SOURCE_OFFSET)];
        if (p == null) {
            stats.drop(DropReason.SOURCE);
            return;
        }
        if (r >= p.railCount) {
            stats.drop(DropReason.UNAUTHENTICATED);
            return;
        }
        byte type = rx.get(TYPE_OFFSET);
        if (type == HELLO) {
            if (!mac.verify(jobKey, rx, length, tail, true)) {
                stats.drop(DropReason.BAD_MAC);
                return;
            }
            if (!p.replay.accept(rx.getLong(COUNTER_OFFSET))) {
                stats.drop(DropReason.REPLAY);
                return;
            }
            news++;
            wire.claimed(p.rank, r, from);
            contact(p, now);
            handshake.onHello(p, r, from, rx, now);
            return;
        }
        if (!p.authenticated(r, from)) {
            stats.drop(DropReason.UNAUTHENTICATED);
            return;
        }
        DropReason forged = authenticate(p, rx, length, tail, type);
        if (forged != null) {
            stats.drop(forged);
            return;
        }
        long ack = rx.getLong(ACK_OFFSET);
        if (ack > p.nextSeq) {
            stats.drop(DropReason.FIELD);
            return;
        }
        p.heard(r, now);
        long consumed = rx.getLong(CONSUMED_OFFSET);
        if (type != ACK || ack > p.acked || consumed > p.peerConsumed || length - HEADER == NAK_PAYLOAD) {
            news++;
        }
        reliability.onAck(p, ack, consumed, (rx.get(FLAGS_OFFSET) & FLAG_ACK_HELD) != 0, now);
        switch (type) {
            case DATA -> {
                stats.railDataReceived[r]++;
                reliability.onData(p, r, rx, rxSegment, length - HEADER, tail, sink, now);
            }
            case ACK -> {
                if (length - HEADER == NAK_PAYLOAD) {
                    reliability.onNak(p, rx.getLong(HEADER), rx.getLong(HEADER + 8), now);
                }
            }
            case BYE -> p.peerClosed = true;
            case RAIL -> {
                news++;
                service.onRail(p, rx, now);
            }
            default -> stats.drop(DropReason.TYPE);
        }
    }

    /**
     * Checks that a frame other than a HELLO, from a source that passed the challenge, comes from
     * the peer's session: its tag (else {@link DropReason#SESSION}), its MAC (else
     * {@link DropReason#BAD_MAC}), a counter not seen before (else {@link DropReason#REPLAY}), in
     * that order, so that a stranger's datagram costs no MAC. Null when it does.
     */
    private DropReason authenticate(Peer p, ByteBuffer rx, int length, ByteBuffer tail, byte type) {
        SessionKeys session = p.session;
        if (session == null || rx.getLong(TAG_OFFSET) != session.tag()) {
            return DropReason.SESSION;
        }
        if (!mac.verify(session.key(), rx, length, tail, type != DATA || macData)) {
            return DropReason.BAD_MAC;
        }
        return p.replay.accept(rx.getLong(COUNTER_OFFSET)) ? null : DropReason.REPLAY;
    }

    /**
     * {@inheritDoc} A peer that has closed its end counts as done: its BYE carried its last
     * acknowledgement, and nothing sent after that can be delivered; so does a failed one.
     */
    @Override
    public boolean quiescent() {
        enter();
        try {
            for (Peer p : peers) {
                if (p != null && !Reliability.quiescent(p)) {
                    return false;
                }
            }
            return true;
        } finally {
            exit();
        }
    }

    /**
     * Begins the handshake with {@code p} unless begun: peers are contacted when first needed (a
     * send, their HELLO, a wait on them), as Open MPI's TCP transport connects, so that a rank keeps
     * HELLOs, heartbeats and silence checks for the peers it talks to, not for every rank of the job
     * (docs/perf/launch.md, "Peers contacted when needed"). Under the flag.
     */
    private void contact(Peer p, long at) {
        if (p.contacted) {
            return;
        }
        p.contacted = true;
        p.lastHeardAny = at;
        Arrays.fill(p.lastHeard, at);
        for (int r = 0; r < p.railCount; r++) {
            handshake.hello(p, r, at);
        }
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
        if (connected && !closed) {
            // someone waits on the peer: its silence counts from now on
            contact(p, System.nanoTime());
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
            System.err.println("tutti-net rank " + rank + ": " + stats.format(wire.name(), mtu));
        }
        if (connected) {
            now = System.nanoTime();
            for (Peer p : peers) {
                for (int r = 0; p != null && r < p.railCount; r++) {
                    if (p.confirmed(r)) {
                        // twice: a lost BYE costs the peer a wait for its failure timeout
                        sender.bye(p, r, now);
                        sender.bye(p, r, now);
                    }
                }
            }
        }
        closed = true;
        wire.close();
        striping.close();
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
                striping.close();
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
     * Hands this rank a frame on {@code rail} as if the wire had received it from {@code from}
     * (tests: a forged or replayed datagram from a spoofed source address). Any thread.
     */
    void inject(int rail, Object from, ByteBuffer frame, int length) {
        enter();
        try {
            if (!closed && connected) {
                now = System.nanoTime();
                received(rail, from, frame, MemorySegment.ofBuffer(frame), length, null);
            }
        } finally {
            exit();
        }
    }

    /** The latest exception a frame raised past the checks, or null (tests: the fuzz target asserts none). */
    RuntimeException upset() {
        enter();
        try {
            return upset;
        } finally {
            exit();
        }
    }

    /** The next sequence number to {@code peer}: what a forger acknowledges to stall the stream (tests). */
    long nextSequence(int peer) {
        return counter(() -> peers[peer].nextSeq);
    }

    /** The session with {@code peer}, null before the handshake (tests: an attacker on the path sees its tag). */
    SessionKeys session(int peer) {
        enter();
        try {
            return peers[peer].session;
        } finally {
            exit();
        }
    }

    /**
     * Sets the injected fault probabilities of one rail at run time (tests: a rail that goes
     * silent). Any thread.
     */
    public void injectFaults(int rail, double sendDrop, double sendCorrupt, double receiveDrop,
                             double receiveCorrupt) {
        enter();
        try {
            faults.set(rail, sendDrop, sendCorrupt, receiveDrop, receiveCorrupt);
        } finally {
            exit();
        }
    }

    /** A diagnostic counter, read under the transport's lock (not a hot path: the reader allocates). */
    private long counter(LongSupplier read) {
        enter();
        try {
            return read.getAsLong();
        } finally {
            exit();
        }
    }

    /** Received datagrams dropped for {@code why}. */
    public long dropped(DropReason why) {
        return counter(() -> stats.drops[why.ordinal()]);
    }

    /** NAKs sent: gaps asked for again. */
    long naksSent() {
        return counter(() -> stats.naksSent);
    }

    /** Sent datagrams held back and overtaken by the next one on their rail ({@link NetConfig#REORDER}). */
    long reordersInjected() {
        return counter(() -> stats.injectedReorders);
    }

    /** DATA datagrams sent on {@code rail}, retransmissions included. */
    long dataSent(int rail) {
        return counter(() -> stats.railDataSent[rail]);
    }

    /** System calls that sent DATA on {@code rail}: one per datagram, or one per batch. */
    long dataSendCalls(int rail) {
        return counter(() -> stats.railSendCalls[rail]);
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
        return counter(() -> stats.acksSent);
    }

    /** Whether this rank has begun the handshake with {@code peer} (tests: peers are contacted when needed). */
    boolean contacted(int peer) {
        enter();
        try {
            return peers[peer] != null && peers[peer].contacted;
        } finally {
            exit();
        }
    }

    /** Records whose payload the wire received straight into the place the sink gave. */
    public long placed() {
        return counter(() -> stats.deliveredPlaced);
    }

    /** Datagrams sent again (NAK, timeout, or a rail that went down). */
    public long retransmits() {
        return counter(() -> stats.retransmits);
    }

    /** Times a rail to some peer was found silent and taken out of use. */
    public long railsDowned() {
        return counter(() -> stats.railsDowned);
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

    /**
     * Takes rail {@code rail} out of service ({@code down}) or brings it back, as a
     * {@code tutti rail} command through the counters file does: {@link RailCounters#DONE},
     * {@link RailCounters#NO_SUCH_RAIL} or {@link RailCounters#LAST_RAIL}. Any thread.
     */
    public int railCommand(boolean down, int rail) {
        enter();
        try {
            now = System.nanoTime();
            return service.command(down ? RailCounters.RAIL_DOWN : RailCounters.RAIL_UP, rail, peers, now);
        } finally {
            exit();
        }
    }

    /** Whether rail {@code rail} to {@code peer} is out of service by an operator's word, here or the peer's. */
    public boolean outOfService(int peer, int rail) {
        enter();
        try {
            Peer p = peers[peer];
            return p != null && rail < p.railCount && p.outOfService[rail];
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
        return striping.load(rail);
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
            return stats.format(wire.name(), mtu);
        } finally {
            exit();
        }
    }
}
