package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packet network's host interface and rails (costs 2 and 3 of {@link PacketNetwork}): striping
 * by the transport's policy, one half-duplex bus per host, programmed I/O and DMA start-up; and
 * cost 1's crossing between the CPUs of a node.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RailsAndBusTest {
    /** 250 MB/s links, no latencies or overheads, so that only what is tested costs. */
    private static SimParams params(Map<String, String> more) {
        Map<String, String> m = new HashMap<>(Map.of("L", "0", "o_s", "0", "o_r", "0", "g", "0", "link_latency", "0",
                "switch_delay", "0", "link_ns_per_byte", "4", "mtu", "4096"));
        m.putAll(more);
        return SimParams.defaults().with(m);
    }

    private static double mbs(SimParams p, int ppn, List<Traffic.Flow> flows, int flow) {
        long[] done = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, ppn), p, flows);
        return Traffic.mbPerSecond(flows.get(flow), done[flow]);
    }

    @Test
    void twoRailsCarryTwiceWhatOneDoes() {
        List<Traffic.Flow> big = List.of(new Traffic.Flow(0, 1, 8, 1 << 20));
        double one = mbs(params(Map.of()), 1, big, 0);
        double two = mbs(params(Map.of("rails", "2")), 1, big, 0);
        assertEquals(250, one, 1);
        assertEquals(500, two, 5, "a striped message goes on both rails");
        // messages at most stripe_min go whole, in turn on the FREE rails
        List<Traffic.Flow> small = List.of(new Traffic.Flow(0, 1, 64, 8192));
        assertEquals(500, mbs(params(Map.of("rails", "2")), 1, small, 0), 10);
    }

    @Test
    void theHostBusCapsTheRails() {
        List<Traffic.Flow> big = List.of(new Traffic.Flow(0, 1, 8, 1 << 20));
        // a 6 ns/B bus: one rail stays link-bound (fetching overlaps the wire), two share the bus
        assertEquals(1000 / 6.0, mbs(params(Map.of("rails", "2", "dma_read_ns_per_byte", "6")), 1, big, 0), 2);
        assertEquals(1000 / 6.0, mbs(params(Map.of("rails", "2", "dma_write_ns_per_byte", "6")), 1, big, 0), 2);
        assertEquals(250, mbs(params(Map.of("dma_read_ns_per_byte", "3", "dma_write_ns_per_byte", "3")), 1, big, 0),
                3);
    }

    /**
     * [MNC] §1: two flows on one link share it, 50 % each one way; opposite ways each host's bus
     * carries one flow's reads and the other's writes, so each gets 1 / (read + write) per byte.
     */
    @Test
    void flowsShareALinkOneWayAndTheBusBothWays() {
        SimParams p = params(Map.of("dma_read_ns_per_byte", "3.2", "dma_write_ns_per_byte", "2.7"));
        List<Traffic.Flow> one = List.of(new Traffic.Flow(0, 2, 16, 256 << 10));
        double alone = mbs(p, 2, one, 0);
        assertEquals(250, alone, 3);
        List<Traffic.Flow> same = List.of(new Traffic.Flow(0, 2, 16, 256 << 10), new Traffic.Flow(1, 3, 16, 256 << 10));
        assertEquals(0.5, mbs(p, 2, same, 0) / alone, 0.03);
        assertEquals(0.5, mbs(p, 2, same, 1) / alone, 0.03);
        List<Traffic.Flow> opposite = List.of(new Traffic.Flow(0, 2, 16, 256 << 10),
                new Traffic.Flow(3, 1, 16, 256 << 10));
        assertEquals(1000 / 5.9, mbs(p, 2, opposite, 0), 4);
        assertEquals(1000 / 5.9, mbs(p, 2, opposite, 1), 4);
        // without a bus, the full-duplex link gives both directions all of it
        assertEquals(250, mbs(params(Map.of()), 2, opposite, 1), 3);
    }

    @Test
    void programmedIoAndDmaStartUp() {
        SimParams p = params(Map.of("pio_max", "64", "pio_ns_per_word", "240", "dma_read_start", "2210",
                "dma_write_start", "2570", "dma_read_ns_per_byte", "4", "dma_write_ns_per_byte", "2", "L", "1000"));
        long empty = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, 1), p,
                List.of(new Traffic.Flow(0, 1, 1, 0)))[0];
        assertEquals(1000, empty, "an empty message takes L");
        long pio = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, 1), p,
                List.of(new Traffic.Flow(0, 1, 1, 64)))[0];
        // 8 words written by the CPU, then 64 B over two links store and forward
        assertEquals(1000 + 8 * 240 + 2 * 64 * 4, pio);
        long dma = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, 1), p,
                List.of(new Traffic.Flow(0, 1, 1, 128)))[0];
        assertEquals(1000 + 2210 + 128 * 4 + 2 * 128 * 4 + 128 * 2 + 2570, dma);
        assertTrue(dma > pio);
    }

    /** Four ranks on a node of two CPUs (0, 1 on CPU 0; 2, 3 on CPU 1): only a message between CPUs pays shm_cross. */
    @Test
    void aMessageBetweenTheCpusOfANodePaysTheCrossing() {
        SimParams p = params(Map.of("shm_latency", "300", "shm_ns_per_byte", "0", "sockets", "2", "shm_cross", "900"));
        for (int dst = 1; dst < 4; dst++) {
            long t = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 2), p, 4), p,
                    List.of(new Traffic.Flow(0, dst, 1, 8)))[0];
            assertEquals(dst < 2 ? 300 : 300 + 900, t, "rank 0 to rank " + dst);
        }
        assertEquals(0, p.socketOf(1, 4));
        assertEquals(1, p.socketOf(2, 4));
        assertEquals(1, p.socketOf(2, 3), "an uneven node: ranks 0, 1 on CPU 0, rank 2 on CPU 1");
    }

    /** The NIC's DMA engine fetches one message at a time: the first of two to different hosts is not held back. */
    @Test
    void messagesAreFetchedInTheOrderTheyWereHandedOver() {
        SimParams p = params(Map.of("dma_read_ns_per_byte", "3"));
        List<Traffic.Flow> two = List.of(new Traffic.Flow(0, 1, 1, 64 << 10), new Traffic.Flow(0, 2, 1, 64 << 10));
        long[] done = Traffic.run(new PacketNetwork(Fabric.parse("crossbar", 3), p, 1), p, two);
        long one = (64 << 10) * 4;
        // the pipeline's fill (a packet fetched, a packet on the second link) comes on top
        assertTrue(done[0] < 1.2 * one, "the first message goes at the link's rate: " + done[0]);
        assertTrue(done[1] > 1.9 * one && done[1] < 2.2 * one, "the second follows it: " + done[1]);
    }
}
