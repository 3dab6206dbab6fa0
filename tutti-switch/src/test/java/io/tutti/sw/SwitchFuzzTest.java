package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tutti.wire.MessageType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Coverage-guided fuzzing of the aggregation switches' packets ({@link AggregationSwitch},
 * {@link ControlAuth}): a spine and two ToRs ({@link SwitchFabric}, made anew for every input, with
 * or without a control key) take a sequence of packets from the leaders, raw bytes or well-formed
 * control and data packets whose fields the fuzzer chooses (tagged with the key where there is one).
 * The switches never throw, never send packets around for ever, never host more groups than they
 * may, and what they send a leader is a well-formed INC packet or the payload of a forwarding
 * envelope a leader sent (an ordinary packet, which a switch forwards as it came). The corpus runs
 * as a regression test in every build; {@code bench/fuzz.sh} fuzzes it.
 */
class SwitchFuzzTest extends SwitchFabric {
    /** Deliveries of one input's packets and what they cause: far more than a correct fabric needs. */
    private static final int MAX_DELIVERIES = 10_000;

    @FuzzTest(maxDuration = "30s")
    void packets(FuzzedDataProvider data) {
        // a fresh fabric for every input: while fuzzing, JUnit runs @BeforeEach once for all inputs
        leaderKey = null;
        wire.clear();
        inbox.clear();
        fabric();
        if (data.consumeBoolean()) {
            leaderKey = IncKey.of(new byte[32]);
            build(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(SPINE), List.of()).withKey(leaderKey),
                    SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(SPINE)).withKey(leaderKey),
                    SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(TOR2), List.of(SPINE)).withKey(leaderKey));
        }
        // the payloads of the forwarding envelopes among the raw packets: a switch may hand them on as they are
        java.util.Set<ByteBuffer> envelopes = new java.util.HashSet<>();
        for (int n = data.consumeInt(1, 12); n > 0 && data.remainingBytes() > 0; n--) {
            int leader = data.consumeInt(0, 3);
            int kind = data.consumeInt(0, 2);
            ByteBuffer b = switch (kind) {
                case 0 -> ByteBuffer.wrap(data.consumeBytes(MAX_PACKET + 16)).order(ByteOrder.LITTLE_ENDIAN);
                case 1 -> {
                    ByteBuffer c = control(data.consumeByte(), leader, data.consumeBoolean() ? GROUP : data.consumeInt());
                    // a few fields of the control block as the fuzzer likes them
                    for (int k = data.consumeInt(0, 4); k > 0; k--) {
                        c.put(ctrl(data.consumeInt(0, C_TAG - 1)), data.consumeByte());
                    }
                    yield c;
                }
                default -> {
                    int[] values = new int[data.consumeInt(0, MAX_PAYLOAD / 4)];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = data.consumeInt();
                    }
                    ByteBuffer d = data(leader, data.consumeInt(-1, 40), values, data.consumeShort());
                    d.put(OP_OFFSET, data.consumeByte()).put(DATATYPE_OFFSET, data.consumeByte());
                    yield d;
                }
            };
            if (kind == 0) {
                if (b.limit() >= AggregationSwitch.FORWARD_HEADER && b.getInt(0) == AggregationSwitch.FORWARD_MARK) {
                    envelopes.add(ByteBuffer.wrap(java.util.Arrays.copyOfRange(b.array(), AggregationSwitch.FORWARD_HEADER,
                            b.limit())));
                }
                // as it came, untagged
                wire.add(new Packet(LEADER[leader], torOf(leader), b));
            } else {
                send(leader, b);
            }
            deliver();
        }
        for (AggregationSwitch sw : switches.values()) {
            assertTrue(sw.groups() <= sw.config().capacity(), "more groups than the capacity");
        }
        for (List<ByteBuffer> got : inbox.values()) {
            for (ByteBuffer p : got) {
                if (envelopes.contains(p.position(0))) {
                    continue;
                }
                assertTrue(valid(p.position(0)), "a switch sent a leader a malformed INC packet");
                assertTrue(type(p) == MessageType.INC_CTRL || type(p) == MessageType.INC_DATA);
            }
        }
    }

    /** {@link #run()}, bounded: packets sent round in a loop fail the input. */
    private void deliver() {
        int deliveries = 0;
        Packet p;
        while ((p = wire.poll()) != null) {
            assertTrue(++deliveries < MAX_DELIVERIES, "packets go round the switches for ever");
            AggregationSwitch sw = switches.get(p.to());
            if (sw != null) {
                sw.receive(p.data(), p.from(), 0);
            } else {
                inbox.computeIfAbsent(p.to(), k -> new java.util.ArrayList<>()).add(p.data());
            }
        }
    }
}
