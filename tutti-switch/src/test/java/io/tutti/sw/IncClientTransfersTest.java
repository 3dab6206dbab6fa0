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
        try (IncClient c = new IncClient(7, 0, server.port(0), 200, 5_000, 30_000, null, () -> { })) {
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
            c.release(GROUP);
        }
    }
}
