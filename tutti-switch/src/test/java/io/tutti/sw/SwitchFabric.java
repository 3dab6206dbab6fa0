package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.wire.MessageType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;

/**
 * The switch logic in process, for tests: a spine, two ToRs and four leaders (two per ToR) joined
 * by an in-memory fabric that can lose chosen packets, with a wall clock the tests set. Leaders
 * tag their control packets with {@link #leaderKey} where it is set.
 */
abstract class SwitchFabric {
    static final int JOB = 77;
    static final int GROUP = 4242;
    static final InetSocketAddress SPINE = addr(100);
    static final InetSocketAddress TOR1 = addr(101);
    static final InetSocketAddress TOR2 = addr(102);
    static final InetSocketAddress[] LEADER = {addr(1), addr(2), addr(3), addr(4)};

    record Packet(InetSocketAddress from, InetSocketAddress to, ByteBuffer data) {
    }

    final ArrayDeque<Packet> wire = new ArrayDeque<>();
    final Map<InetSocketAddress, AggregationSwitch> switches = new HashMap<>();
    final Map<InetSocketAddress, List<ByteBuffer>> inbox = new HashMap<>();
    /** Packets matching this are lost on the wire (once each, if {@link #loseOnce}). */
    Predicate<Packet> lose = p -> false;
    boolean loseOnce = true;
    int lost;
    /** The wall clock of switches and leaders, ms. */
    long clock = 1_800_000_000_000L;
    /** What the leaders tag their control packets with; null: untagged. */
    IncKey leaderKey;

    static InetSocketAddress addr(int host) {
        return new InetSocketAddress("10.9.0." + host, 7000);
    }

    AggregationSwitch spine;
    AggregationSwitch tor1;
    AggregationSwitch tor2;

    @BeforeEach
    void fabric() {
        build(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(SPINE), List.of()),
                SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(SPINE)),
                SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(TOR2), List.of(SPINE)));
    }

    void build(SwitchConfig s, SwitchConfig t1, SwitchConfig t2) {
        switches.clear();
        spine = add(SPINE, s);
        tor1 = add(TOR1, t1);
        tor2 = add(TOR2, t2);
    }

    AggregationSwitch add(InetSocketAddress at, SwitchConfig c) {
        AggregationSwitch sw = new AggregationSwitch(c, Map.of(), (packet, to) -> {
            ByteBuffer copy = ByteBuffer.allocate(packet.remaining()).order(ByteOrder.LITTLE_ENDIAN);
            copy.put(packet.duplicate()).flip();
            wire.add(new Packet(at, to, copy));
        }, () -> clock);
        switches.put(at, sw);
        return sw;
    }

    /** Delivers until the wire is empty. */
    void run() {
        Packet p;
        while ((p = wire.poll()) != null) {
            if (lose.test(p)) {
                lost++;
                if (loseOnce) {
                    lose = x -> false;
                }
                continue;
            }
            AggregationSwitch sw = switches.get(p.to());
            if (sw != null) {
                sw.receive(p.data(), p.from(), 0);
            } else {
                inbox.computeIfAbsent(p.to(), k -> new ArrayList<>()).add(p.data());
            }
        }
    }

    static InetSocketAddress torOf(int leader) {
        return leader < 2 ? TOR1 : TOR2;
    }

    /** The group token of {@code leader}: what its notify installs and its data packets carry. */
    static long tokenOf(int leader) {
        return 1000 + leader;
    }

    ByteBuffer control(byte kind, int leader, int group) {
        ByteBuffer b = ByteBuffer.allocate(MAX_PACKET).order(ByteOrder.LITTLE_ENDIAN);
        writeHeader(b, MessageType.INC_CTRL, (short) 0, JOB, leader, group, tokenOf(leader), 0, 0, 0, 0, leader % 2,
                CONTROL_LENGTH);
        b.put(ctrl(C_KIND), kind);
        b.put(ctrl(C_COMM_TYPE), COMM_ALLREDUCE);
        ctrlShort(b, C_OPS, 0xFFFF);
        ctrlShort(b, C_TYPES, 0xFFFF);
        ctrlShort(b, C_MAX_SIZE, MAX_PAYLOAD);
        ctrlShort(b, C_SLOTS, 0xFFFF);
        ctrlShort(b, C_LOCAL_SIZE, 2);
        ctrlShort(b, C_GLOBAL_SIZE, 4);
        ctrlInt(b, C_SPINE_ID, 9);
        ctrlShort(b, C_TOR_INDEX, leader / 2);
        ctrlShort(b, C_TOR_COUNT, 2);
        return b;
    }

    /** Sends {@code b} from {@code leader} to its ToR; a control packet tagged with {@link #leaderKey}, if set. */
    void send(int leader, ByteBuffer b) {
        if (leaderKey != null && type(b) == MessageType.INC_CTRL) {
            seal(b, leaderKey);
        }
        wire.add(new Packet(LEADER[leader], torOf(leader), b.position(0)));
    }

    /** Tags {@code b} with {@code key} at the fabric's time. */
    void seal(ByteBuffer b, IncKey key) {
        new ControlAuth(key, () -> clock).seal(b);
    }

    List<ByteBuffer> replies(int leader, byte type) {
        return inbox.getOrDefault(LEADER[leader], List.of()).stream().filter(b -> type(b) == type).toList();
    }

    /** Query and notify for all four leaders; returns the notify replies' fail causes. */
    int[] setUp(int group) {
        for (int l = 0; l < 4; l++) {
            send(l, control(QUERY, l, group));
        }
        run();
        for (int l = 0; l < 4; l++) {
            send(l, control(NOTIFY, l, group));
        }
        run();
        int[] fail = new int[4];
        for (int l = 0; l < 4; l++) {
            ByteBuffer last = null;
            for (ByteBuffer b : replies(l, MessageType.INC_CTRL)) {
                if (kind(b) == NOTIFY_REPLY && group(b) == group) {
                    last = b;
                }
            }
            assertNotNull(last, "leader " + l + " got a notify reply");
            fail[l] = ctrlShort(last, C_FAIL);
        }
        inbox.clear();
        return fail;
    }

    ByteBuffer data(int leader, int req, int[] values, short flags) {
        ByteBuffer b = ByteBuffer.allocate(MAX_PACKET).order(ByteOrder.LITTLE_ENDIAN);
        writeHeader(b, MessageType.INC_DATA, flags, JOB, leader, GROUP, tokenOf(leader), ReduceOp.SUM.ordinal(),
                Datatype.INT.ordinal(), values.length, req, leader % 2, values.length * 4);
        for (int i = 0; i < values.length; i++) {
            b.putInt(HEADER_LENGTH + 4 * i, values[i]);
        }
        return b;
    }

    static int[] ints(ByteBuffer b) {
        int[] v = new int[payloadLength(b) / 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = b.getInt(HEADER_LENGTH + 4 * i);
        }
        return v;
    }

    List<ByteBuffer> results(int leader) {
        return replies(leader, MessageType.INC_DATA).stream().filter(b -> (flags(b) & FLAG_RESULT) != 0).toList();
    }
}
