package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.coll.inc.InNetworkAggregation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two transfers of one group in flight at once (two nonblocking allreduces): they share the
 * switch's slots, so the window counts over the group's requests. With a window per transfer the
 * second took the slots of the first's later requests, which the switch then dropped for good
 * (found by verification/findings/inc-two-transfers.pml).
 */
@Timeout(60)
class IncClientTransfersTest {
    static final int GROUP = 6;

    SwitchServer server;
    Thread loop;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stop();
            loop.join(5000);
            server.close();
            server = null;
        }
    }

    @Test
    void twoTransfersOfOneGroupInFlightBothComplete() throws Exception {
        SwitchConfig d = SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(new InetSocketAddress("127.0.0.1", 0)),
                List.of());
        // two slots per group: each transfer of 4 packets reuses both
        server = new SwitchServer(new SwitchConfig(d.role(), d.id(), d.ports(), d.uplinks(), d.capacity(), 2,
                d.maxPayload(), d.ops(), d.types(), 0, 1, d.leaseNanos(), null));
        loop = Thread.ofPlatform().daemon().name("switch").start(() -> {
            try {
                server.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // a stall ends in the client's timeout (5 s), long before the test's
        long[] counted = new long[16];
        try (IncClient c = new IncClient(7, 0, server.port(0), 200, 5_000, 30_000, null, () -> { }, n -> counted[n]++)) {
            assertNotNull(c.query(GROUP, 1, false));
            // one int per packet, a window of the switch's two slots
            assertNull(c.join(new InNetworkAggregation.Membership(GROUP, 0, 1, 1, 0, 0, 1, false, 4, 2)));
            int[] first = {1, 2, 3, 4};
            int[] second = {10, 20, 30, 40};
            MemorySegment a = MemorySegment.ofArray(first.clone());
            MemorySegment b = MemorySegment.ofArray(second.clone());
            InNetworkAggregation.Transfer ta = c.transfer(GROUP);
            InNetworkAggregation.Transfer tb = c.transfer(GROUP);
            ta.start(a, 0, 16, ReduceOp.SUM.ordinal(), Datatype.INT.ordinal(), 4);
            tb.start(b, 0, 16, ReduceOp.SUM.ordinal(), Datatype.INT.ordinal(), 4);
            boolean doneA = false;
            boolean doneB = false;
            while (!doneA || !doneB) {
                doneA = doneA || ta.poll();
                doneB = doneB || tb.poll();
                Thread.onSpinWait();
            }
            assertArrayEquals(first, a.toArray(ValueLayout.JAVA_INT), "the first transfer's results, a leader alone");
            assertArrayEquals(second, b.toArray(ValueLayout.JAVA_INT), "the second transfer's results");
            // what the rank's counters get: every packet sent, of them 8 for the first time, each result taken in
            assertEquals(c.sentData(), counted[InNetworkAggregation.PACKETS_SENT]);
            assertEquals(8, counted[InNetworkAggregation.PACKETS_SENT] - counted[InNetworkAggregation.RETRANSMITS]);
            assertEquals(c.receivedData(), counted[InNetworkAggregation.RESULTS_RECEIVED]);
            assertTrue(counted[InNetworkAggregation.RESULTS_RECEIVED] >= 8, "a result per packet at least");
            assertEquals(0, counted[InNetworkAggregation.TIMEOUTS] + counted[InNetworkAggregation.WRONG_TOKEN]);
            c.release(GROUP);
        }
    }

    /**
     * Two leaders, two calls each (two nonblocking allreduces): leader 0 reaches its INC steps in
     * call order, leader 1 the other way round. The ids are taken by call order at the calls' start,
     * so the switch still sums each call's packets with the same call's of the other leader.
     */
    @Test
    void leadersThatStartTheirCallsInAnotherOrderStillCombineTheSameCalls() throws Exception {
        SwitchConfig d = SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(new InetSocketAddress("127.0.0.1", 0)),
                List.of());
        server = new SwitchServer(d);
        loop = Thread.ofPlatform().daemon().name("switch").start(() -> {
            try {
                server.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try (IncClient c0 = new IncClient(7, 0, server.port(0), 200, 10_000, 30_000, null, () -> { }, n -> { });
             IncClient c1 = new IncClient(7, 1, server.port(0), 200, 10_000, 30_000, null, () -> { }, n -> { });
             var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            IncClient[] leaders = {c0, c1};
            List<java.util.concurrent.Future<String>> joins = new java.util.ArrayList<>();
            for (int l = 0; l < 2; l++) {
                IncClient c = leaders[l];
                int child = l;
                joins.add(pool.submit(() -> {
                    assertNotNull(c.query(GROUP, 2, false));
                    return c.join(new InNetworkAggregation.Membership(GROUP, child, 2, 2, 0, 0, 1, false, 8, 8));
                }));
            }
            for (var j : joins) {
                assertNull(j.get(30, java.util.concurrent.TimeUnit.SECONDS));
            }
            // call 1: 2 ints a leader (1 packet), call 2: 6 ints (3 packets); leader l adds 100 * l
            int[][] call1 = {{1, 2}, {101, 102}};
            int[][] call2 = {{10, 20, 30, 40, 50, 60}, {110, 120, 130, 140, 150, 160}};
            MemorySegment[][] buf = new MemorySegment[2][2];
            InNetworkAggregation.Transfer[][] t = new InNetworkAggregation.Transfer[2][2];
            for (int l = 0; l < 2; l++) {
                buf[l][0] = MemorySegment.ofArray(call1[l].clone());
                buf[l][1] = MemorySegment.ofArray(call2[l].clone());
                t[l][0] = leaders[l].transfer(GROUP);
                t[l][1] = leaders[l].transfer(GROUP);
                // the calls, in the same order at both leaders
                t[l][0].reserve(8, 4);
                t[l][1].reserve(24, 4);
            }
            // their INC steps: leader 0 in call order, leader 1 the second call first
            int[][] order = {{0, 1}, {1, 0}};
            for (int l = 0; l < 2; l++) {
                for (int k : order[l]) {
                    t[l][k].start(buf[l][k], 0, buf[l][k].byteSize(), ReduceOp.SUM.ordinal(), Datatype.INT.ordinal(), 4);
                }
            }
            boolean[][] done = new boolean[2][2];
            boolean all = false;
            while (!all) {
                all = true;
                for (int l = 0; l < 2; l++) {
                    for (int k = 0; k < 2; k++) {
                        done[l][k] = done[l][k] || t[l][k].poll();
                        all &= done[l][k];
                    }
                }
                Thread.onSpinWait();
            }
            for (int l = 0; l < 2; l++) {
                assertArrayEquals(new int[] {102, 104}, buf[l][0].toArray(ValueLayout.JAVA_INT), "call 1 at leader " + l);
                assertArrayEquals(new int[] {120, 140, 160, 180, 200, 220}, buf[l][1].toArray(ValueLayout.JAVA_INT),
                        "call 2 at leader " + l);
            }
        }
    }
}
