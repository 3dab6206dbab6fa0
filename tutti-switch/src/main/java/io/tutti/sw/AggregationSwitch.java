package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.reduce.Reduction;
import io.tutti.wire.MessageType;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The packet processing of one programmable switch, without sockets: what the seed's FPGA does
 * behind the arbiter. Ordinary packets are forwarded; INC packets go to the control plane (query,
 * notify, release) or the data plane. Single-threaded: the switch's loop (or a test) calls it.
 *
 * <p><b>Data plane.</b> Request id {@code r} uses slot {@code r mod slots} of its group, which
 * aggregates its children's contributions (a bitmap says who contributed), then sends the aggregate
 * up (ToR under a spine) or, at the root, the result down to every child. Loss recovery after
 * SwitchML: a slot keeps its last result and a shadow copy of the one before, so a contribution
 * sent again is ignored while the slot aggregates, else answered with the result or sent up again.
 * A leader sends request {@code r + slots} only after it has the result of {@code r}, so two suffice.
 *
 * <p><b>Trust.</b> Without a key ({@link SwitchConfig#key()}) anyone who reaches the switch may set
 * up, join and release groups. With one, a notify, a release and a reply a ToR relays count only
 * with a valid, fresh tag ({@link ControlAuth}); others are counted and refused (a query, which
 * changes nothing, is answered for anyone). A member's notify installs its random 64-bit token,
 * which its contributions must carry and its results carry, so, key or no key, no host off the path
 * can add to or overwrite a result (wrong tokens are counted and dropped). Not covered: a host that
 * sees the traffic (it learns the tokens and reads the data: nothing is encrypted), a leader that
 * has the key (the job's ranks are trusted), and flooding.
 */
public final class AggregationSwitch {
    /** Where the switch's packets go. */
    public interface Output {
        /** Sends {@code packet} (position 0 to limit) to {@code to}; the buffer is reused after the call. */
        void send(ByteBuffer packet, InetSocketAddress to);
    }

    /** 'TFWD': an ordinary packet in a forwarding envelope (mark, IPv4, port, reserved, payload). */
    public static final int FORWARD_MARK = 0x44574654;
    public static final int FORWARD_HEADER = 12;

    private static final byte FREE = 0;
    private static final byte AGGREGATING = 1;
    private static final byte WAITING = 2;
    private static final byte DONE = 3;

    private final SwitchConfig config;
    private final Output out;
    private final Map<Long, Group> groups = new HashMap<>();
    private final Map<Integer, InetSocketAddress> spines = new HashMap<>();
    private final Set<InetSocketAddress> below = new HashSet<>();
    private final ByteBuffer tx = ByteBuffer.allocateDirect(2048).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx.duplicate().clear());
    /** A view of the last received buffer (the server reuses one), made again only for another buffer. */
    private ByteBuffer rxBuffer;
    private MemorySegment rxSegment;
    /** The group of the last data packet: spares the map lookup (and a Long) per packet. */
    private Group lastGroup;
    private long lastKey;
    private final Counters counters = new Counters();
    /** Checks and tags control packets; null without a key. */
    private final ControlAuth auth;

    /** What the switch counted since it started. */
    public static final class Counters {
        public long controlPackets;
        public long dataPackets;
        /** Contributions received from children (hosts below a ToR, ToRs below a spine), repeats included. */
        public long fromChildren;
        /** Result packets sent down to children, repeats included. */
        public long toChildren;
        public long aggregated;
        public long duplicates;
        public long resent;
        public long forwarded;
        public long dropped;
        public long leasesExpired;
        /** Control packets refused by the key check: no valid tag, stale or replayed. */
        public long refused;
        /** Data packets whose group token is not the group's: sent by a non-member, or corrupted. */
        public long wrongToken;
    }

    private static final class Slot {
        int req;
        byte state = FREE;
        long bitmap;
        int op;
        int type;
        int count;
        int bytes;
        MemorySegment acc = MemorySegment.ofArray(new byte[MAX_PAYLOAD]);
        int shadowReq;
        boolean shadowValid;
        int shadowBytes;
        MemorySegment shadow = MemorySegment.ofArray(new byte[MAX_PAYLOAD]);
    }

    private static final class Group {
        final int job;
        final int id;
        final int children;
        final InetSocketAddress[] child;
        /** Each child's token, which its contributions carry and its results get. */
        final long[] token;
        final InetSocketAddress parent;
        /** This switch's token toward its parent (0 at the root). */
        final long upToken;
        final int spineId;
        final int indexAtParent;
        final Slot[] slots;
        long released;
        long lastActive;

        Group(int job, int id, int children, InetSocketAddress parent, int spineId, int indexAtParent, int slots) {
            this.job = job;
            this.id = id;
            this.children = children;
            this.child = new InetSocketAddress[children];
            this.token = new long[children];
            this.parent = parent;
            this.upToken = parent == null ? 0 : ControlAuth.random();
            this.spineId = spineId;
            this.indexAtParent = indexAtParent;
            this.slots = new Slot[slots];
            for (int i = 0; i < slots; i++) {
                this.slots[i] = new Slot();
            }
        }

        long all() {
            return children == 64 ? -1L : (1L << children) - 1;
        }
    }

    /** @param spineIds a ToR's spines by id, in the order of {@link SwitchConfig#uplinks()} */
    public AggregationSwitch(SwitchConfig config, Map<Integer, InetSocketAddress> spineIds, Output out) {
        this(config, spineIds, out, System::currentTimeMillis);
    }

    /**
     * @param spineIds    a ToR's spines by id, in the order of {@link SwitchConfig#uplinks()}
     * @param clockMillis the wall clock that the time of a tagged control packet is held against
     */
    public AggregationSwitch(SwitchConfig config, Map<Integer, InetSocketAddress> spineIds, Output out,
                             LongSupplier clockMillis) {
        this.config = config;
        this.out = out;
        this.spines.putAll(spineIds);
        this.auth = config.key() == null ? null : new ControlAuth(config.key(), clockMillis);
    }

    public SwitchConfig config() {
        return config;
    }

    public Counters counters() {
        return counters;
    }

    /** Groups hosted now. */
    public int groups() {
        return groups.size();
    }

    /** Groups it can still host: the load figure a query reports. */
    public int free() {
        return Math.max(0, config.capacity() - groups.size());
    }

    /** Processes one received datagram ({@code packet} from position 0 to its limit). */
    public void receive(ByteBuffer packet, InetSocketAddress from, long nowNanos) {
        packet.order(ByteOrder.LITTLE_ENDIAN);
        if (!marked(packet)) {
            forward(packet, from);
            return;
        }
        if (!valid(packet)) {
            counters.dropped++;
            return;
        }
        if (type(packet) == MessageType.INC_CTRL) {
            counters.controlPackets++;
            control(packet, from, nowNanos);
        } else {
            counters.dataPackets++;
            data(packet, from, nowNanos);
        }
    }

    /** Reclaims groups idle for longer than the lease, and forgets the nonces too old to matter. */
    public void sweep(long nowNanos) {
        if (auth != null) {
            auth.purge();
        }
        for (Iterator<Group> it = groups.values().iterator(); it.hasNext(); ) {
            Group g = it.next();
            if (nowNanos - g.lastActive > config.leaseNanos()) {
                it.remove();
                lastGroup = null;
                counters.leasesExpired++;
            }
        }
    }

    // ---------------------------------------------------------------- ordinary packets

    /**
     * An ordinary packet travels in a forwarding envelope naming its destination. Hosts seen below
     * are learnt from their packets: a destination learnt below gets the bare payload, any other
     * goes up to the first spine, and a spine (no uplink) delivers it directly.
     */
    private void forward(ByteBuffer p, InetSocketAddress from) {
        if (p.limit() < FORWARD_HEADER || p.getInt(0) != FORWARD_MARK) {
            counters.dropped++;
            return;
        }
        if (!isSpine(from)) {
            below.add(from);
        }
        InetSocketAddress dst = address(p.getInt(4), Short.toUnsignedInt(p.getShort(8)));
        if (dst == null) {
            counters.dropped++;
            return;
        }
        counters.forwarded++;
        if (below.contains(dst) || config.uplinks().isEmpty()) {
            ByteBuffer payload = p.duplicate().position(FORWARD_HEADER);
            tx.clear();
            tx.put(payload).flip();
            out.send(tx, dst);
        } else {
            out.send(p.position(0), config.uplinks().getFirst());
        }
    }

    /** Sends a control packet, tagged where the switch has a key. */
    private void sendControl(ByteBuffer q, InetSocketAddress to) {
        if (auth != null) {
            auth.seal(q);
        }
        out.send(q.position(0), to);
    }

    private boolean isSpine(InetSocketAddress a) {
        return spines.containsValue(a);
    }

    // ---------------------------------------------------------------- control plane

    private void control(ByteBuffer p, InetSocketAddress from, long now) {
        if (auth != null && kind(p) != QUERY && !authentic(p, from)) {
            return;
        }
        switch (kind(p)) {
            case QUERY -> query(p, from);
            case QUERY_REPLY, NOTIFY_REPLY, RELEASE_REPLY -> relay(p, from);
            case NOTIFY -> notify(p, from, now);
            case RELEASE -> release(p, from);
            default -> counters.dropped++;
        }
    }

    /**
     * Checks the tag of {@code p}; a refused packet is counted, and a refused notify or release is
     * answered with the cause (not a replay: its first copy was answered).
     */
    private boolean authentic(ByteBuffer p, InetSocketAddress from) {
        ControlAuth.Verdict v = auth.check(p);
        if (v == ControlAuth.Verdict.OK) {
            return true;
        }
        counters.refused++;
        byte kind = kind(p);
        if (v != ControlAuth.Verdict.REPLAYED && (kind == NOTIFY || kind == RELEASE)) {
            ByteBuffer q = copy(p);
            q.put(ctrl(C_KIND), kind == NOTIFY ? NOTIFY_REPLY : RELEASE_REPLY);
            ctrlShort(q, C_FAIL, v == ControlAuth.Verdict.STALE ? FAIL_STALE : FAIL_AUTH);
            sendControl(q, from);
        }
        return false;
    }

    /** Fills in this switch's capabilities: AND of the masks, least of the sizes. */
    private void fillCapabilities(ByteBuffer q) {
        q.put(ctrl(C_COMM_TYPE), (byte) (q.get(ctrl(C_COMM_TYPE)) & COMM_ALLREDUCE));
        ctrlShort(q, C_OPS, ctrlShort(q, C_OPS) & config.ops());
        ctrlShort(q, C_TYPES, ctrlShort(q, C_TYPES) & config.types());
        ctrlShort(q, C_MAX_SIZE, Math.min(ctrlShort(q, C_MAX_SIZE), config.maxPayload()));
        ctrlShort(q, C_SLOTS, Math.min(ctrlShort(q, C_SLOTS), config.slots()));
        q.put(ctrl(C_HOP), (byte) (q.get(ctrl(C_HOP)) + 1));
    }

    private void query(ByteBuffer p, InetSocketAddress from) {
        ByteBuffer q = copy(p);
        fillCapabilities(q);
        if (config.role() == SwitchConfig.Role.TOR) {
            ctrlInt(q, C_TOR_ID, config.id());
            ctrlShort(q, C_TOR_FREE, Math.min(0xFFFF, free()));
            ctrlShort(q, C_UPLINKS, config.uplinks().size());
            setOrigin(q, from);
            if (config.uplinks().isEmpty()) {
                q.put(ctrl(C_KIND), QUERY_REPLY);
                ctrlInt(q, C_SPINE_ID, 0);
                sendControl(q, from);
            } else {
                for (InetSocketAddress up : config.uplinks()) {
                    sendControl(q, up);
                }
            }
        } else {
            q.put(ctrl(C_KIND), QUERY_REPLY);
            ctrlInt(q, C_SPINE_ID, config.id());
            ctrlInt(q, C_AVA_GROUPS, free());
            sendControl(q, from);
        }
    }

    /**
     * A reply from a spine passes through the ToR to the leader that asked. A query reply also
     * tells the ToR the spine's id, which a notify later names.
     */
    private void relay(ByteBuffer p, InetSocketAddress from) {
        InetSocketAddress origin = address(ctrlInt(p, C_ORIGIN_IP), ctrlShort(p, C_ORIGIN_PORT));
        if (origin == null || config.role() == SwitchConfig.Role.SPINE) {
            counters.dropped++;
            return;
        }
        if (kind(p) == QUERY_REPLY && ctrlInt(p, C_SPINE_ID) != 0) {
            spines.put(ctrlInt(p, C_SPINE_ID), from);
        }
        sendControl(copy(p), origin);
    }

    private void notify(ByteBuffer p, InetSocketAddress from, long now) {
        int job = job(p);
        int id = group(p);
        boolean tor = config.role() == SwitchConfig.Role.TOR;
        int child = tor ? child(p) : ctrlShort(p, C_TOR_INDEX);
        int children = tor ? ctrlShort(p, C_LOCAL_SIZE) : ctrlShort(p, C_TOR_COUNT);
        int spineId = tor ? ctrlInt(p, C_SPINE_ID) : 0;
        InetSocketAddress origin = tor ? from : address(ctrlInt(p, C_ORIGIN_IP), ctrlShort(p, C_ORIGIN_PORT));
        long token = token(p);
        Group g = groups.get(key(job, id));
        short fail = OK;
        if (children < 1 || children > SwitchConfig.MAX_CHILDREN || child >= children) {
            fail = FAIL_UNSUPPORTED;
        } else if (g != null) {
            // a member that has not released keeps its place: a notify sent again carries its token
            if (g.children != children || g.spineId != spineId
                    || (g.child[child] != null && (g.released & (1L << child)) == 0 && g.token[child] != token)) {
                fail = FAIL_MISMATCH;
            }
        } else if (groups.size() >= config.capacity()) {
            fail = FAIL_CAPACITY;
        } else if (spineId != 0 && !spines.containsKey(spineId)) {
            fail = FAIL_NO_SPINE;
        } else {
            InetSocketAddress parent = spineId == 0 ? null : spines.get(spineId);
            g = new Group(job, id, children, parent, spineId, ctrlShort(p, C_TOR_INDEX), config.slots());
            groups.put(key(job, id), g);
        }
        if (fail == OK) {
            g.child[child] = from;
            g.token[child] = token;
            g.released &= ~(1L << child);
            g.lastActive = now;
        }
        ByteBuffer q = copy(p);
        if (fail == OK && tor && g.parent != null) {
            // the spine installs its part and answers through this ToR
            setOrigin(q, from);
            q.putInt(SRC_RANK_OFFSET, config.id());
            token(q, g.upToken);
            sendControl(q, g.parent);
            return;
        }
        q.put(ctrl(C_KIND), NOTIFY_REPLY);
        ctrlShort(q, C_FAIL, fail);
        // a spine answers the ToR, which relays it to the leader named as origin
        sendControl(q, tor ? origin : from);
    }

    /**
     * A child gives up the group; once every child has, the entry is freed and a ToR passes the
     * release up. A release the switch no longer knows (sent again after a lost reply) is passed
     * to every spine, since the entry that named its spine is gone; releases are idempotent.
     */
    private void release(ByteBuffer p, InetSocketAddress from) {
        boolean tor = config.role() == SwitchConfig.Role.TOR;
        long key = key(job(p), group(p));
        Group g = groups.get(key);
        int child = tor ? child(p) : ctrlShort(p, C_TOR_INDEX);
        InetSocketAddress origin = tor ? from : address(ctrlInt(p, C_ORIGIN_IP), ctrlShort(p, C_ORIGIN_PORT));
        ByteBuffer q = copy(p);
        if (tor) {
            setOrigin(q, from);
        }
        if (g != null && child < g.children) {
            g.released |= 1L << child;
            if (g.released == g.all()) {
                groups.remove(key);
                lastGroup = null;
                if (g.parent != null) {
                    ctrlShort(q, C_TOR_INDEX, g.indexAtParent);
                    token(q, g.upToken);
                    sendControl(q, g.parent);
                    return;
                }
            }
        } else if (g == null && tor && !config.uplinks().isEmpty()) {
            for (InetSocketAddress up : config.uplinks()) {
                sendControl(q, up);
            }
            return;
        }
        q.put(ctrl(C_KIND), RELEASE_REPLY);
        sendControl(q, tor ? origin : from);
    }

    // ---------------------------------------------------------------- data plane

    private void data(ByteBuffer p, InetSocketAddress from, long now) {
        long key = key(job(p), group(p));
        Group g = lastGroup != null && lastKey == key ? lastGroup : groups.get(key);
        if (g == null) {
            counters.dropped++;
            return;
        }
        lastGroup = g;
        lastKey = key;
        boolean result = (flags(p) & FLAG_RESULT) != 0;
        int child = child(p);
        if (!result && child >= g.children) {
            counters.dropped++;
            return;
        }
        // a result comes from the parent with this switch's token, a contribution with its child's
        long token = token(p);
        if (token == 0 || token != (result ? g.upToken : g.token[child])) {
            counters.wrongToken++;
            return;
        }
        g.lastActive = now;
        MemorySegment in = view(p);
        if (result) {
            result(g, p);
            return;
        }
        int op = op(p);
        int type = datatype(p);
        int count = count(p);
        int bytes = payloadLength(p);
        if (op >= ReduceOp.values().length || type >= Datatype.values().length
                || (config.ops() & (1 << op)) == 0 || (config.types() & (1 << type)) == 0
                || bytes > config.maxPayload() || (long) count * Datatype.values()[type].extent() != bytes) {
            counters.dropped++;
            return;
        }
        counters.fromChildren++;
        int req = req(p);
        Slot s = g.slots[Integer.remainderUnsigned(req, g.slots.length)];
        long bit = 1L << child;
        if (s.state != FREE && s.req == req) {
            if (s.op != op || s.type != type || s.bytes != bytes) {
                counters.dropped++;
                return;
            }
            switch (s.state) {
                case AGGREGATING -> {
                    if ((s.bitmap & bit) != 0) {
                        counters.duplicates++;
                        return;
                    }
                    Reduction.apply(ReduceOp.values()[op], Datatype.values()[type], s.acc, 0,
                            in, HEADER_LENGTH, count);
                    s.bitmap |= bit;
                    counters.aggregated++;
                    if (s.bitmap == g.all()) {
                        complete(g, s);
                    }
                }
                case WAITING -> {
                    // the child lost its result, or our aggregate was lost on the way up: send it again
                    counters.duplicates++;
                    counters.resent++;
                    sendData(g, s.req, s.op, s.type, s.count, s.acc, s.bytes, (short) FLAG_RETRANSMIT, g.indexAtParent,
                            g.parent);
                }
                default -> {
                    counters.duplicates++;
                    counters.resent++;
                    sendData(g, s.req, s.op, s.type, s.count, s.acc, s.bytes, FLAG_RESULT, child, g.child[child]);
                }
            }
            return;
        }
        if (s.shadowValid && s.shadowReq == req) {
            counters.duplicates++;
            counters.resent++;
            sendData(g, req, op, type, count, s.shadow, s.shadowBytes, FLAG_RESULT, child, g.child[child]);
            return;
        }
        if (s.state == FREE || (s.state == DONE && req - s.req > 0)) {
            if (s.state == DONE) {
                MemorySegment t = s.shadow;
                s.shadow = s.acc;
                s.acc = t;
                s.shadowReq = s.req;
                s.shadowBytes = s.bytes;
                s.shadowValid = true;
            }
            s.req = req;
            s.state = AGGREGATING;
            s.bitmap = bit;
            s.op = op;
            s.type = type;
            s.count = count;
            s.bytes = bytes;
            MemorySegment.copy(in, HEADER_LENGTH, s.acc, 0, bytes);
            counters.aggregated++;
            if (s.bitmap == g.all()) {
                complete(g, s);
            }
            return;
        }
        // a request from outside the window: the sender ran ahead of a slot still in use
        counters.dropped++;
    }

    /** Every child contributed: up to the spine, or (at the root) the result down to every child. */
    private void complete(Group g, Slot s) {
        if (g.parent != null) {
            s.state = WAITING;
            sendData(g, s.req, s.op, s.type, s.count, s.acc, s.bytes, (short) 0, g.indexAtParent, g.parent);
        } else {
            s.state = DONE;
            down(g, s);
        }
    }

    private void result(Group g, ByteBuffer p) {
        int req = req(p);
        Slot s = g.slots[Integer.remainderUnsigned(req, g.slots.length)];
        if (s.state != WAITING || s.req != req || payloadLength(p) != s.bytes) {
            counters.duplicates++;
            return;
        }
        MemorySegment.copy(view(p), HEADER_LENGTH, s.acc, 0, s.bytes);
        s.state = DONE;
        down(g, s);
    }

    private void down(Group g, Slot s) {
        for (int c = 0; c < g.children; c++) {
            if (g.child[c] != null) {
                sendData(g, s.req, s.op, s.type, s.count, s.acc, s.bytes, FLAG_RESULT, c, g.child[c]);
            }
        }
    }

    private void sendData(Group g, int req, int op, int type, int count, MemorySegment payload, int bytes, short flags,
                          int child, InetSocketAddress to) {
        if (to == null) {
            return;
        }
        boolean down = (flags & FLAG_RESULT) != 0;
        if (down) {
            counters.toChildren++;
        }
        writeHeader(tx, MessageType.INC_DATA, flags, g.job, config.id(), g.id, down ? g.token[child] : g.upToken, op,
                type, count, req, child, bytes);
        MemorySegment.copy(payload, 0, txSegment, HEADER_LENGTH, bytes);
        tx.position(0);
        out.send(tx, to);
    }

    // ---------------------------------------------------------------- helpers

    private MemorySegment view(ByteBuffer p) {
        if (p != rxBuffer) {
            rxBuffer = p;
            rxSegment = MemorySegment.ofBuffer(p.duplicate().clear());
        }
        return rxSegment;
    }

    private ByteBuffer copy(ByteBuffer p) {
        tx.clear();
        tx.put(p.duplicate().position(0)).flip();
        return tx;
    }

    private static long key(int job, int group) {
        return ((long) job << 32) | (group & 0xFFFFFFFFL);
    }

    private static void setOrigin(ByteBuffer q, InetSocketAddress from) {
        byte[] a = from.getAddress().getAddress();
        int ip = a.length == 4 ? ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN).getInt() : 0;
        ctrlInt(q, C_ORIGIN_IP, ip);
        ctrlShort(q, C_ORIGIN_PORT, from.getPort());
    }

    private static InetSocketAddress address(int ip, int port) {
        if (port == 0) {
            return null;
        }
        byte[] a = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(ip).array();
        try {
            return new InetSocketAddress((Inet4Address) InetAddress.getByAddress(a), port);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
