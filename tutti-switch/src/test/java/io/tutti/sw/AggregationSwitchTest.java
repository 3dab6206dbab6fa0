package io.tutti.sw;

import static io.tutti.wire.IncPacketDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.ReduceOp;
import io.tutti.wire.MessageType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The switch logic in process ({@link SwitchFabric}): query, aggregation, loss recovery, release, forwarding. */
@Timeout(30)
class AggregationSwitchTest extends SwitchFabric {
    @Test
    void queryReportsTheCapabilitiesOfTorAndSpine() {
        build(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(SPINE), List.of()).withCapacity(5),
                SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(SPINE))
                        .withOps(1 << ReduceOp.SUM.ordinal() | 1 << ReduceOp.MAX.ordinal()),
                SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(TOR2), List.of(SPINE)));
        send(0, control(QUERY, 0, GROUP));
        run();
        List<ByteBuffer> r = replies(0, MessageType.INC_CTRL);
        assertEquals(1, r.size());
        ByteBuffer q = r.getFirst();
        assertEquals(QUERY_REPLY, kind(q));
        assertEquals(1, ctrlInt(q, C_TOR_ID));
        assertEquals(9, ctrlInt(q, C_SPINE_ID));
        assertEquals(5, ctrlInt(q, C_AVA_GROUPS), "the spine's free groups");
        assertEquals(1, ctrlShort(q, C_UPLINKS));
        assertEquals(1 << ReduceOp.SUM.ordinal() | 1 << ReduceOp.MAX.ordinal(), ctrlShort(q, C_OPS),
                "the AND of the switches' operations");
        assertEquals(2, q.get(ctrl(C_HOP)), "two switches filled it in");
    }

    @Test
    void aggregatesOneRequestAndSendsEveryLeaderOneResult() {
        assertArrayEquals(new int[4], setUp(GROUP));
        assertEquals(1, tor1.groups());
        assertEquals(1, spine.groups());
        for (int l = 0; l < 4; l++) {
            send(l, data(l, 0, new int[] {l + 1, 10 * (l + 1), -l}, (short) 0));
        }
        run();
        for (int l = 0; l < 4; l++) {
            List<ByteBuffer> res = results(l);
            assertEquals(1, res.size(), "leader " + l + " gets exactly one result packet");
            assertArrayEquals(new int[] {10, 100, -6}, ints(res.getFirst()));
        }
        // the ToRs sent one packet each up, not the leaders' four; each leader sent one and got one
        assertEquals(2, spine.counters().aggregated);
        assertEquals(2, tor1.counters().fromChildren);
        assertEquals(2, tor1.counters().toChildren);
        assertEquals(2, spine.counters().toChildren);
    }

    @Test
    void aDuplicateContributionIsNotCountedTwice() {
        setUp(GROUP);
        send(0, data(0, 0, new int[] {5}, (short) 0));
        send(0, data(0, 0, new int[] {5}, FLAG_RETRANSMIT));
        for (int l = 1; l < 4; l++) {
            send(l, data(l, 0, new int[] {1}, (short) 0));
        }
        run();
        for (int l = 0; l < 4; l++) {
            assertArrayEquals(new int[] {8}, ints(results(l).getFirst()));
        }
        assertEquals(1, tor1.counters().duplicates);
    }

    @Test
    void aLostResultIsSentAgainToTheLeaderThatAsks() {
        setUp(GROUP);
        lose = p -> p.to().equals(LEADER[3]);
        for (int l = 0; l < 4; l++) {
            send(l, data(l, 0, new int[] {l}, (short) 0));
        }
        run();
        assertTrue(results(3).isEmpty());
        send(3, data(3, 0, new int[] {3}, FLAG_RETRANSMIT));
        run();
        assertArrayEquals(new int[] {6}, ints(results(3).getFirst()));
        assertEquals(1, results(2).size(), "the others get nothing more");
    }

    @Test
    void aLostAggregateOnTheWayUpIsSentAgainWhenALeaderRetransmits() {
        setUp(GROUP);
        lose = p -> p.from().equals(TOR2) && p.to().equals(SPINE);
        for (int l = 0; l < 4; l++) {
            send(l, data(l, 0, new int[] {l}, (short) 0));
        }
        run();
        assertEquals(1, lost);
        send(2, data(2, 0, new int[] {2}, FLAG_RETRANSMIT));
        run();
        for (int l = 0; l < 4; l++) {
            assertArrayEquals(new int[] {6}, ints(results(l).getFirst()), "leader " + l);
        }
    }

    @Test
    void theShadowCopyAnswersARetransmissionAfterTheSlotMovedOn() {
        SwitchConfig oneSlot = new SwitchConfig(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(), 4, 1, MAX_PAYLOAD,
                SwitchConfig.allOps(), SwitchConfig.allTypes(), 0, 1, Long.MAX_VALUE);
        switches.clear();
        tor1 = add(TOR1, oneSlot);
        for (int l = 0; l < 2; l++) {
            ByteBuffer n = control(NOTIFY, l, GROUP);
            ctrlInt(n, C_SPINE_ID, 0);
            send(l, n);
        }
        run();
        inbox.clear();
        lose = p -> p.to().equals(LEADER[1]);
        send(0, data(0, 0, new int[] {1}, (short) 0));
        send(1, data(1, 0, new int[] {2}, (short) 0));
        run();
        // leader 0 has request 0 and goes on with request 1 in the same (only) slot
        send(0, data(0, 1, new int[] {7}, (short) 0));
        run();
        send(1, data(1, 0, new int[] {2}, FLAG_RETRANSMIT));
        run();
        assertArrayEquals(new int[] {3}, ints(results(1).getFirst()), "request 0's result from the shadow copy");
        send(1, data(1, 1, new int[] {8}, (short) 0));
        run();
        assertArrayEquals(new int[] {15}, ints(results(1).getLast()));
    }

    @Test
    void aGroupThatDoesNotFitIsRefused() {
        build(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(SPINE), List.of()).withCapacity(1),
                SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of(SPINE)),
                SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(TOR2), List.of(SPINE)));
        assertArrayEquals(new int[4], setUp(GROUP));
        int[] second = setUp(GROUP + 1);
        for (int f : second) {
            assertEquals(FAIL_CAPACITY, f);
        }
    }

    @Test
    void releaseFreesTheGroupOnceEveryChildReleased() {
        setUp(GROUP);
        send(0, control(RELEASE, 0, GROUP));
        run();
        assertEquals(1, tor1.groups(), "leader 1 still uses it");
        assertEquals(RELEASE_REPLY, kind(replies(0, MessageType.INC_CTRL).getFirst()));
        send(1, control(RELEASE, 1, GROUP));
        send(2, control(RELEASE, 2, GROUP));
        send(3, control(RELEASE, 3, GROUP));
        run();
        assertEquals(0, tor1.groups());
        assertEquals(0, tor2.groups());
        assertEquals(0, spine.groups());
        assertEquals(SwitchConfig.CAPACITY_DEFAULT, spine.free());
        for (int l = 1; l < 4; l++) {
            assertEquals(1, replies(l, MessageType.INC_CTRL).size(), "leader " + l + " got its release reply");
        }
    }

    @Test
    void aLostReleaseReplyIsAnsweredAgain() {
        setUp(GROUP);
        send(0, control(RELEASE, 0, GROUP));
        lose = p -> p.to().equals(LEADER[1]);
        send(1, control(RELEASE, 1, GROUP));
        run();
        assertEquals(0, tor1.groups());
        send(1, control(RELEASE, 1, GROUP));
        run();
        assertEquals(1, replies(1, MessageType.INC_CTRL).size());
    }

    @Test
    void anIdleGroupIsReclaimedWhenItsLeaseRunsOut() {
        SwitchConfig c = SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(TOR1), List.of()).withLease(1_000);
        switches.clear();
        tor1 = add(TOR1, c);
        ByteBuffer n = control(NOTIFY, 0, GROUP);
        ctrlShort(n, C_LOCAL_SIZE, 1);
        ctrlInt(n, C_SPINE_ID, 0);
        send(0, n);
        run();
        assertEquals(1, tor1.groups());
        tor1.sweep(500);
        assertEquals(1, tor1.groups());
        tor1.sweep(5_000);
        assertEquals(0, tor1.groups());
        assertEquals(1, tor1.counters().leasesExpired);
    }

    @Test
    void ordinaryPacketsAreForwarded() {
        // a host below TOR1 announces itself, then a host below TOR2 sends to it through the spine
        ByteBuffer hello = forward(LEADER[3], "hello");
        wire.add(new Packet(LEADER[0], TOR1, hello));
        run();
        ByteBuffer msg = forward(LEADER[0], "ping");
        wire.add(new Packet(LEADER[2], TOR2, msg));
        run();
        List<ByteBuffer> got = inbox.get(LEADER[0]);
        assertNotNull(got);
        assertEquals("ping", new String(got.getFirst().array(), 0, got.getFirst().limit()));
        assertTrue(tor2.counters().forwarded >= 1 && spine.counters().forwarded >= 1);
    }

    static ByteBuffer forward(InetSocketAddress to, String text) {
        byte[] t = text.getBytes();
        ByteBuffer b = ByteBuffer.allocate(AggregationSwitch.FORWARD_HEADER + t.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(AggregationSwitch.FORWARD_MARK);
        b.put(to.getAddress().getAddress()[0]).put(to.getAddress().getAddress()[1]).put(to.getAddress().getAddress()[2])
                .put(to.getAddress().getAddress()[3]);
        b.putShort((short) to.getPort()).putShort((short) 0).put(t).flip();
        return b;
    }

    @Test
    void randomPacketsNeverThrowAndNeverCorruptAGroup() {
        setUp(GROUP);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            // well-formed headers with random fields and payloads, and random bytes after the mark
            ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + rnd.nextInt(0, 300)).order(ByteOrder.LITTLE_ENDIAN);
            for (int k = 0; k < b.limit(); k++) {
                b.put(k, (byte) rnd.nextInt());
            }
            b.putInt(TAG_OFFSET, MARK);
            if (rnd.nextBoolean()) {
                b.put(VERSION_OFFSET, VERSION);
                b.put(TYPE_OFFSET, rnd.nextBoolean() ? MessageType.INC_DATA : MessageType.INC_CTRL);
                b.putShort(PAYLOAD_LENGTH_OFFSET, (short) (b.limit() - HEADER_LENGTH));
                b.putInt(JOB_OFFSET, JOB);
                if (rnd.nextBoolean()) {
                    b.putInt(GROUP_OFFSET, GROUP);
                }
            }
            AggregationSwitch target = rnd.nextBoolean() ? tor1 : spine;
            InetSocketAddress from = rnd.nextBoolean() ? LEADER[rnd.nextInt(4)] : TOR2;
            target.receive(b, from, 0);
            wire.clear();
        }
        // the group still aggregates correctly afterwards (request ids far from the fuzzed ones)
        inbox.clear();
        for (int l = 0; l < 4; l++) {
            send(l, data(l, 1 << 30, new int[] {l}, (short) 0));
        }
        run();
        for (int l = 0; l < 4; l++) {
            assertArrayEquals(new int[] {6}, ints(results(l).getLast()), "leader " + l);
        }
    }

    @Test
    void malformedPacketsAreDroppedAndCounted() {
        ByteBuffer b = control(QUERY, 0, GROUP);
        b.limit(b.limit() - 3);
        wire.add(new Packet(LEADER[0], TOR1, b));
        run();
        assertEquals(1, tor1.counters().dropped);
        assertNull(inbox.get(LEADER[0]));
    }
}
