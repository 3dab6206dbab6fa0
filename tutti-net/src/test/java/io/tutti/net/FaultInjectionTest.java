package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reordering of {@link FaultInjection}: a frame held back leaves after the next one, intact;
 * bad settings are refused.
 */
class FaultInjectionTest {
    private static final int FRAME = DatagramDescriptor.HEADER + 16;

    /**
     * A wire that records the first byte of every frame sent, with its peer and rail, and the
     * counters ({@link DatagramDescriptor#COUNTER_OFFSET}) of the whole frames it sent, in order.
     */
    private static final class Recording implements RailWire {
        final List<String> sent = new ArrayList<>();
        final List<Long> counters = new ArrayList<>();

        @Override
        public boolean send(int peer, int rail, ByteBuffer frame, int length) {
            sent.add(peer + "/" + rail + ":" + frame.get(0) + "x" + length);
            if (length >= DatagramDescriptor.HEADER) {
                counters.add(frame.getLong(DatagramDescriptor.COUNTER_OFFSET));
            }
            return true;
        }

        /** The frames of a batch are all {@link #FRAME} bytes long here. */
        @Override
        public boolean sendBatch(int peer, int rail, ByteBuffer frames, int length) {
            for (int at = 0; at < length; at += FRAME) {
                counters.add(frames.getLong(at + DatagramDescriptor.COUNTER_OFFSET));
            }
            return true;
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public boolean repairsLoss() {
            return true;
        }

        @Override
        public List<InetSocketAddress> localAddresses() {
            return List.of();
        }

        @Override
        public void connect(int peer, InetSocketAddress[] addr) {
        }

        @Override
        public int receive(Receiver into, boolean drain) {
            return 0;
        }

        @Override
        public void claimed(int peer, int rail, Object from) {
        }

        @Override
        public void authenticated(int peer, int rail, Object from) {
        }

        @Override
        public void close() {
        }
    }

    private static ByteBuffer frame(int first, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.put(0, (byte) first);
        return b;
    }

    @Test
    void aHeldFrameLeavesAfterTheNextOneOnItsRailAndOnlyOneIsHeldAtATime() {
        RailStats stats = new RailStats(List.of("a", "b"));
        FaultInjection f = new FaultInjection(NetConfig.from(Map.of("TUTTI_NET_REORDER_R1", "1")), 2, stats);
        Recording wire = new Recording();
        // rail 0 has no reordering: nothing is held there
        assertFalse(f.holdSent(3, 0, frame(9, 40), 40, null));
        // frame 1 (head 30 bytes + a tail of 10) is held; frame 2 is not, as one is held already
        ByteBuffer tail = ByteBuffer.allocate(16).position(6);
        tail.put(6, (byte) 77);
        assertTrue(f.holdSent(4, 1, frame(1, 30), 40, tail));
        assertFalse(f.holdSent(4, 1, frame(2, 50), 50, null));
        wire.send(4, 1, frame(2, 50), 50);
        f.sendHeld(1, wire);
        f.sendHeld(1, wire);
        f.sendHeld(0, wire);
        assertEquals(List.of("4/1:2x50", "4/1:1x40"), wire.sent);
        assertEquals(1, stats.injectedReorders);
        assertEquals(0, stats.injectedDrops + stats.injectedFlips);
    }

    @Test
    void aCopiedFrameKeepsItsHeadAndItsTail() {
        ByteBuffer head = ByteBuffer.allocate(8);
        for (int i = 0; i < 8; i++) {
            head.put(i, (byte) i);
        }
        ByteBuffer tail = ByteBuffer.allocate(10).position(7);
        tail.put(7, (byte) 100).put(8, (byte) 101).put(9, (byte) 102);
        ByteBuffer into = ByteBuffer.allocate(16);
        FaultInjection.copy(head, 8, tail, into);
        for (int i = 0; i < 5; i++) {
            assertEquals(i, into.get(i));
        }
        assertEquals(100, into.get(5));
        assertEquals(102, into.get(7));
        assertEquals(7, tail.position(), "the tail's position is left alone");
    }

    @Test
    void reorderingOnReceiveAndOnTcpIsRefusedSayingWhatToSet() {
        RailStats stats = new RailStats(List.of("a"));
        IllegalArgumentException rx = assertThrows(IllegalArgumentException.class,
                () -> new FaultInjection(NetConfig.from(Map.of("TUTTI_NET_REORDER_RX", "0.1")), 1, stats));
        assertTrue(rx.getMessage().contains("TUTTI_NET_REORDER_RX is not a setting")
                && rx.getMessage().contains("set TUTTI_NET_REORDER"), rx.getMessage());
        IllegalArgumentException tcp = assertThrows(IllegalArgumentException.class,
                () -> new FaultInjection(NetConfig.from(Map.of("TUTTI_NET_REORDER", "0.1", "TUTTI_NET", "tcp")), 1,
                        stats));
        assertTrue(tcp.getMessage().contains("TUTTI_NET_REORDER") && tcp.getMessage().contains("TUTTI_NET=udp"),
                tcp.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> new FaultInjection(NetConfig.from(Map.of("TUTTI_NET_REORDER", "2")), 1, stats));
        assertTrue(range.getMessage().startsWith("TUTTI_NET_REORDER must be a probability 0..1"), range.getMessage());
    }

    /**
     * Through the sender: with every frame of rail 1 held back when none is, each one sent alone
     * leaves after the next, and one staged into a batch leaves after the batch; rail 0 keeps order.
     */
    @Test
    void theSenderLetsTheNextFrameOvertakeTheHeldOne() {
        RailStats stats = new RailStats(List.of("a", "b"));
        FaultInjection f = new FaultInjection(NetConfig.from(Map.of("TUTTI_NET_REORDER_R1", "1")), 2, stats);
        Recording wire = new Recording();
        FrameSender sender = new FrameSender(wire, f, stats, 7, 0, Long.MAX_VALUE, 2,
                RecordMac.key(new byte[32]), false);
        Peer p = new Peer(1, 4, 1024, 0);
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", 9);
        p.reach(new InetSocketAddress[] {a, a});
        ByteBuffer b = ByteBuffer.allocateDirect(FRAME);
        for (int i = 0; i < 4; i++) {
            sender.header(b, DatagramDescriptor.HELLO, p, 1, 16, 0);
            assertTrue(sender.emit(p, 1, b, FRAME, 0));
        }
        assertEquals(List.of(2L, 1L, 4L, 3L), wire.counters);
        wire.counters.clear();
        for (int i = 0; i < 3; i++) {
            sender.header(b, DatagramDescriptor.HELLO, p, 1, 16, 0);
            sender.stage(p, 1, b, FRAME, 0);
        }
        assertTrue(sender.flush(p, 1));
        assertEquals(List.of(6L, 7L, 5L), wire.counters);
        wire.counters.clear();
        for (int i = 0; i < 2; i++) {
            sender.header(b, DatagramDescriptor.HELLO, p, 0, 16, 0);
            assertTrue(sender.emit(p, 0, b, FRAME, 0));
        }
        assertEquals(List.of(8L, 9L), wire.counters);
        assertEquals(3, stats.injectedReorders);
    }
}
