package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;

import io.tutti.TuttiException;
import io.tutti.coll.inc.InNetworkAggregation;
import io.tutti.idle.Idle;
import io.tutti.wire.MessageType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * A leader's side of the in-network aggregation: one UDP socket toward its ToR switch, the control
 * plane requests (each sent again until answered, within a bounded time) and the data plane
 * transfers (a window of packets in flight, each sent again when its result is late).
 *
 * <p>With a key, every control request is tagged ({@link ControlAuth}); the replies are not checked,
 * since a forged one can make the set-up or the transfers fail, as lost packets can, but not alter a
 * result: each group gets a random token that the notify installs and the data packets carry, and a
 * result without it is dropped.
 *
 * <p>Settings: {@link IncConfig}.
 *
 * <p>Not thread-safe: used by the thread running the communicator's collectives.
 */
public final class IncClient implements InNetworkAggregation {
    /** Longest wait before a packet is sent again, however slow the round trips measured. */
    private static final long RTO_MAX_NANOS = 1_000_000_000L;

    /** A control reply has no doorbell: the wait parks between looks ({@link Idle#DATAGRAM}). */
    private final Idle idle = new Idle(Idle.DATAGRAM);
    private final int job;
    private final int rank;
    private final InetSocketAddress tor;
    private final long retryNanos;
    private final long timeoutNanos;
    private final long setupNanos;
    /** Tags the control requests; null without a key. */
    private final ControlAuth auth;
    private final DatagramChannel channel;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(2048).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(2048).order(ByteOrder.LITTLE_ENDIAN);
    /** Whole-buffer views of {@link #rx} and {@link #tx}, made once: a data packet allocates nothing. */
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx.duplicate().clear());
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx.duplicate().clear());
    private final Map<Integer, GroupState> groups = new HashMap<>();
    /** The group of the last result taken in: spares the map (and an Integer) per packet. */
    private GroupState lastGroup;
    private long sentData;
    private long receivedData;
    private long wrongToken;
    /** Smoothed round trip of data packets and its variation (Jacobson), for the retransmission timeout. */
    private long srttNanos;
    private long rttvarNanos;
    private long rtoNanos;

    /** A joined group: its place in the tree, its packet size and window, its token, its next request id. */
    private static final class GroupState {
        final Membership m;
        final long token = ControlAuth.random();
        int nextReq;
        final List<TransferImpl> active = new ArrayList<>();

        GroupState(Membership m) {
            this.m = m;
        }

        /** Whether a transfer with lower ids than {@code base} has reserved them and not started. */
        boolean waitsForUnstarted(int base) {
            for (int i = 0; i < active.size(); i++) {
                TransferImpl t = active.get(i);
                if (t.reserved && t.window.base() - base < 0) {
                    return true;
                }
            }
            return false;
        }

        /**
         * The lowest request id still without its result over the group's transfers in flight. Request
         * r + slots shares r's slot: the window counts from here, not from one transfer's own first
         * missing packet, or a second transfer in flight takes a slot the first still needs.
         */
        int lowestMissing(int fallback) {
            int low = fallback;
            for (int i = 0; i < active.size(); i++) {
                IncWindow w = active.get(i).window;
                if (!w.complete() && w.base() + w.firstMissing() - low < 0) {
                    low = w.base() + w.firstMissing();
                }
            }
            return low;
        }
    }

    private final Runnable progress;
    /** Counts the data plane's packets and the retries in the rank's counters ({@link Context#count}). */
    private final IntConsumer count;

    /**
     * @param key      what the control requests are tagged with (the switch's key file); null: untagged
     * @param progress run while a control request waits (the rank's other communication)
     * @param count    counts an event ({@link InNetworkAggregation#PACKETS_SENT}, ...) on the caller's thread
     */
    public IncClient(int job, int rank, InetSocketAddress tor, long retryMillis, long timeoutMillis, long setupMillis,
                     IncKey key, Runnable progress, IntConsumer count) throws IOException {
        this.progress = progress;
        this.count = count;
        this.job = job;
        this.rank = rank;
        this.tor = tor;
        this.retryNanos = retryMillis * 1_000_000L;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.setupNanos = setupMillis * 1_000_000L;
        this.rtoNanos = retryNanos;
        this.auth = key == null ? null : new ControlAuth(key, System::currentTimeMillis);
        this.channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress(0));
        channel.configureBlocking(false);
    }

    /** Data packets sent and received so far (the host traffic of the data plane). */
    public long sentData() {
        return sentData;
    }

    public long receivedData() {
        return receivedData;
    }

    /** Results dropped because they did not carry their group's token. */
    public long wrongToken() {
        return wrongToken;
    }

    // ------------------------------------------------------------------------ control plane

    private void control(byte kind, int group, int child, Membership m, boolean socketMode, int leaders) {
        GroupState g = groups.get(group);
        ControlPacket.write(tx, kind, job, rank, group, g == null ? 0 : g.token, child, m, socketMode, leaders);
        if (auth != null) {
            auth.seal(tx);
        }
        send(tx);
    }

    private void send(ByteBuffer b) {
        try {
            channel.send(b.position(0), tor);
        } catch (IOException e) {
            // unreachable switch: the request times out and the caller falls back
        }
    }

    /** The next control packet of {@code kind} for {@code group}, or null at {@code deadline}. */
    private ByteBuffer awaitControl(byte kind, int group, long deadline, Runnable resend) {
        long next = System.nanoTime() + Math.max(retryNanos * 10, 20_000_000L);
        int round = 0;
        while (System.nanoTime() - deadline < 0) {
            ByteBuffer p = receive();
            if (p == null) {
                if (System.nanoTime() - next > 0) {
                    resend.run();
                    count.accept(CONTROL_RETRIES);
                    next = System.nanoTime() + Math.max(retryNanos * 10, 20_000_000L);
                }
                progress.run();
                round = idle.idle(round);
                continue;
            }
            if (type(p) == MessageType.INC_CTRL && kind(p) == kind && group(p) == group) {
                return p;
            }
            if (type(p) == MessageType.INC_DATA) {
                dispatch(p);
            }
        }
        return null;
    }

    @Override
    public Offer query(int group, int leaders, boolean socketMode) {
        Runnable send = () -> control(QUERY, group, 0, null, socketMode, leaders);
        send.run();
        long deadline = System.nanoTime() + setupNanos;
        int torId = 0;
        int ops = -1;
        int types = -1;
        int maxPayload = MAX_PAYLOAD;
        int slots = Integer.MAX_VALUE;
        int torFree = 0;
        int expected = -1;
        List<int[]> spines = new ArrayList<>();
        while (expected < 0 || spines.size() < expected) {
            ByteBuffer p = awaitControl(QUERY_REPLY, group, deadline, send);
            if (p == null) {
                break;
            }
            torId = ctrlInt(p, C_TOR_ID);
            torFree = ctrlShort(p, C_TOR_FREE);
            ops &= ctrlShort(p, C_OPS);
            types &= ctrlShort(p, C_TYPES);
            maxPayload = Math.min(maxPayload, ctrlShort(p, C_MAX_SIZE));
            slots = Math.min(slots, ctrlShort(p, C_SLOTS));
            expected = ctrlShort(p, C_UPLINKS);
            int spine = ctrlInt(p, C_SPINE_ID);
            if (spine != 0 && spines.stream().noneMatch(s -> s[0] == spine)) {
                spines.add(new int[] {spine, ctrlInt(p, C_AVA_GROUPS)});
            }
        }
        if (expected < 0) {
            return null;
        }
        int[] ids = new int[spines.size()];
        int[] free = new int[spines.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = spines.get(i)[0];
            free[i] = spines.get(i)[1];
        }
        return new Offer(torId, ops & 0xFFFF, types & 0xFFFF, maxPayload, slots, torFree, ids, free);
    }

    @Override
    public String join(Membership m) {
        // kept even if refused: a release must name this leader's child index to the switch that
        // installed its part before another switch refused
        groups.put(m.group(), new GroupState(m));
        Runnable send = () -> control(NOTIFY, m.group(), m.child(), m, m.socketMode(), m.globalSize());
        send.run();
        ByteBuffer p = awaitControl(NOTIFY_REPLY, m.group(), System.nanoTime() + setupNanos, send);
        if (p == null) {
            return "no answer from the switch at " + tor;
        }
        int fail = ctrlShort(p, C_FAIL);
        if (fail != OK) {
            return failName(fail);
        }
        return null;
    }

    @Override
    public void release(int group) {
        GroupState g = groups.remove(group);
        lastGroup = null;
        Membership m = g != null ? g.m : null;
        Runnable send = () -> control(RELEASE, group, m != null ? m.child() : 0, m, m != null && m.socketMode(),
                m != null ? m.globalSize() : 0);
        send.run();
        awaitControl(RELEASE_REPLY, group, System.nanoTime() + setupNanos, send);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }

    // ------------------------------------------------------------------------ data plane

    /**
     * A round trip measured on a packet sent once: the timeout becomes srtt + 4 rttvar, at least
     * the configured retry time, so that a loaded machine does not send everything twice.
     */
    private void sample(long rtt) {
        if (srttNanos == 0) {
            srttNanos = rtt;
            rttvarNanos = rtt / 2;
        } else {
            long err = rtt - srttNanos;
            srttNanos += err / 8;
            rttvarNanos += (Math.abs(err) - rttvarNanos) / 4;
        }
        rtoNanos = Math.min(RTO_MAX_NANOS, Math.max(retryNanos, srttNanos + 4 * rttvarNanos));
    }

    private ByteBuffer receive() {
        try {
            rx.clear();
            if (channel.receive(rx) == null) {
                return null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rx.flip();
        if (!valid(rx) || job(rx) != job) {
            return null;
        }
        return rx;
    }

    /** Hands a result to the transfer waiting for it; anything else (a late duplicate) is dropped. */
    private void dispatch(ByteBuffer p) {
        if ((flags(p) & FLAG_RESULT) == 0) {
            return;
        }
        int id = group(p);
        GroupState g = lastGroup != null && lastGroup.m.group() == id ? lastGroup : groups.get(id);
        if (g == null) {
            return;
        }
        lastGroup = g;
        if (token(p) != g.token) {
            wrongToken++;
            count.accept(WRONG_TOKEN);
            return;
        }
        receivedData++;
        count.accept(RESULTS_RECEIVED);
        for (int i = 0; i < g.active.size(); i++) {
            if (g.active.get(i).accept(p)) {
                return;
            }
        }
    }

    private void drain() {
        ByteBuffer p;
        while ((p = receive()) != null) {
            if (type(p) == MessageType.INC_DATA) {
                dispatch(p);
            }
        }
    }

    @Override
    public Transfer transfer(int group) {
        GroupState g = groups.get(group);
        if (g == null) {
            throw new IllegalStateException("group " + group + " was not joined");
        }
        return new TransferImpl(g);
    }

    /** One region cut into packets; results overwrite the region packet by packet; {@link IncWindow} paces them. */
    private final class TransferImpl implements Transfer {
        private final GroupState g;
        private final IncWindow window;
        private MemorySegment buffer;
        private long offset;
        private long length;
        private int op;
        private int datatype;
        private int element;
        private int chunk;
        /** Ids taken by {@link #reserve} and not yet started: the window waits for them, the timeout does not. */
        private boolean reserved;

        TransferImpl(GroupState g) {
            this.g = g;
            this.window = new IncWindow(g.m.slots());
        }

        @Override
        public void reserve(long length, int element) {
            this.length = length;
            this.element = element;
            this.chunk = Math.max(element, g.m.maxPayload() / element * element);
            int packets = (int) ((length + chunk - 1) / chunk);
            window.reset(g.nextReq, packets);
            g.nextReq += packets;
            this.reserved = true;
            // in the group's window from now on: a later call's packets must not take the slots of these
            if (packets > 0 && !g.active.contains(this)) {
                g.active.add(this);
            }
        }

        @Override
        public void start(MemorySegment buffer, long offset, long length, int op, int datatype, int element) {
            if (!reserved || this.length != length || this.element != element) {
                reserve(length, element);
            }
            reserved = false;
            this.buffer = buffer;
            this.offset = offset;
            this.op = op;
            this.datatype = datatype;
            long now = System.nanoTime();
            window.progress(now);
            if (window.packets() > 0) {
                pump(now);
            }
        }

        private int bytes(int k) {
            return (int) Math.min(chunk, length - (long) k * chunk);
        }

        private void sendPacket(int k, boolean again, long now) {
            int n = bytes(k);
            writeHeader(tx, MessageType.INC_DATA, (short) (again ? FLAG_RETRANSMIT : 0), job, rank, g.m.group(), g.token,
                    op, datatype, n / element, window.base() + k, g.m.child(), n);
            MemorySegment.copy(buffer, offset + (long) k * chunk, txSegment, HEADER_LENGTH, n);
            send(tx);
            sentData++;
            count.accept(PACKETS_SENT);
            if (again) {
                count.accept(RETRANSMITS);
            }
            window.sent(k, now, again);
        }

        /** New packets within the group's window, and again those whose result is late. */
        private void pump(long now) {
            int low = g.lowestMissing(window.base() + window.firstMissing());
            for (int k = window.nextNew(low); k >= 0; k = window.nextNew(low)) {
                sendPacket(k, false, now);
            }
            for (int k = window.firstLate(0, now, rtoNanos); k >= 0; k = window.firstLate(k + 1, now, rtoNanos)) {
                sendPacket(k, true, now);
            }
        }

        @Override
        public void abandon() {
            reserved = false;
            g.active.remove(this);
        }

        boolean accept(ByteBuffer p) {
            int k = req(p) - window.base();
            if (k < 0 || k >= window.packets()) {
                return false;
            }
            if (reserved) {
                return true;   // not started: no result can be due yet, whatever this is
            }
            if (window.outstanding(k) && payloadLength(p) == bytes(k)) {
                MemorySegment.copy(rxSegment, HEADER_LENGTH, buffer, offset + (long) k * chunk, bytes(k));
                long now = System.nanoTime();
                window.accept(k, now);
                long rtt = window.roundTrip(k, now);
                if (rtt >= 0) {
                    sample(rtt);
                }
            }
            return true;
        }

        @Override
        public boolean poll() {
            if (!window.complete()) {
                drain();
            }
            if (window.complete()) {
                // completed here or while another transfer of the process took packets in
                g.active.remove(this);
                return true;
            }
            long now = System.nanoTime();
            if (g.waitsForUnstarted(window.base())) {
                window.progress(now);   // held by this leader's own earlier call, not by the switch
            }
            if (window.stalled(now, timeoutNanos)) {
                g.active.remove(this);
                count.accept(TIMEOUTS);
                throw new TuttiException("in-network allreduce: no result from the switch at " + tor + " for "
                        + (timeoutNanos / 1_000_000) + " ms (group " + g.m.group() + "); check that the switch"
                        + " processes run, or unset TUTTI_COLL_ALLREDUCE=inc");
            }
            pump(now);
            return false;
        }
    }
}
