package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.coll.inc.InNetworkAggregation;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader's client against a switch process on loopback, with and without keys: the right key
 * sets up a group whose data goes through; no key or another is refused at once, with the setting
 * to fix in the reason.
 */
@Timeout(60)
class IncClientAuthTest {
    static final IncKey KEY = IncKey.of(SwitchAuthTest.bytes(0x5A));
    static final IncKey OTHER = IncKey.of(SwitchAuthTest.bytes(0x3C));
    /** Far longer than a refusal takes: an answer before it is not a timeout. */
    static final long SETUP_MILLIS = 30_000;
    static final int GROUP = 5;

    SwitchServer server;
    Thread loop;

    InetSocketAddress start(IncKey key) throws Exception {
        server = new SwitchServer(SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(new InetSocketAddress("127.0.0.1", 0)),
                List.of()).withKey(key));
        loop = Thread.ofPlatform().daemon().name("switch").start(() -> {
            try {
                server.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        return server.port(0);
    }

    /** Stops the loop, after which its counters may be read here. */
    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.stop();
            loop.join(5000);
            server.close();
            server = null;
        }
    }

    static IncClient client(InetSocketAddress tor, IncKey key) throws Exception {
        // a retry time of 1 s: nothing is sent twice unless the machine is very slow
        return new IncClient(7, 0, tor, 1000, 10_000, SETUP_MILLIS, key, () -> { }, n -> { });
    }

    static InNetworkAggregation.Membership alone() {
        return new InNetworkAggregation.Membership(GROUP, 0, 1, 1, 0, 0, 1, false, 256, 8);
    }

    @Test
    void aLeaderWithTheSwitchsKeySetsUpAGroupAndItsDataGoesThrough() throws Exception {
        InetSocketAddress tor = start(KEY);
        try (IncClient c = client(tor, KEY)) {
            assertNotNull(c.query(GROUP, 1, false));
            assertNull(c.join(alone()));
            int[] values = {3, 1, 4, 1, 5};
            MemorySegment buffer = MemorySegment.ofArray(values.clone());
            InNetworkAggregation.Transfer t = c.transfer(GROUP);
            t.start(buffer, 0, 4L * values.length, ReduceOp.SUM.ordinal(), Datatype.INT.ordinal(), 4);
            while (!t.poll()) {
                Thread.onSpinWait();
            }
            assertArrayEquals(values, buffer.toArray(java.lang.foreign.ValueLayout.JAVA_INT), "the sum of one leader");
            assertEquals(0, c.wrongToken());
            c.release(GROUP);
        }
        AggregationSwitch.Counters counters = server.logic().counters();
        stop();
        assertEquals(1, counters.aggregated);
        assertEquals(0, counters.refused);
    }

    @Test
    void aLeaderWithoutTheKeyOrWithAnotherIsRefusedAtOnceAndToldWhatToSet() throws Exception {
        InetSocketAddress tor = start(KEY);
        for (IncKey key : Arrays.asList(null, OTHER)) {
            try (IncClient c = client(tor, key)) {
                assertNotNull(c.query(GROUP, 1, false), "a query is answered for anyone");
                long t0 = System.nanoTime();
                String why = c.join(alone());
                long millis = (System.nanoTime() - t0) / 1_000_000;
                assertNotNull(why, "refused");
                assertTrue(why.contains("not authenticated") && why.contains("TUTTI_INC_KEY_FILE"), why);
                assertTrue(millis < SETUP_MILLIS / 2, "answered, not timed out: " + millis + " ms");
                c.release(GROUP);
            }
        }
        AggregationSwitch logic = server.logic();
        stop();
        assertEquals(0, logic.groups());
        assertTrue(logic.counters().refused >= 4, "two notifies and two releases: " + logic.counters().refused);
    }

    @Test
    void aSwitchWithoutAKeyTakesLeadersWithOrWithoutOne() throws Exception {
        InetSocketAddress tor = start(null);
        for (IncKey key : Arrays.asList(null, KEY)) {
            try (IncClient c = client(tor, key)) {
                assertNotNull(c.query(GROUP, 1, false));
                assertNull(c.join(alone()));
                c.release(GROUP);
            }
        }
        AggregationSwitch logic = server.logic();
        stop();
        assertEquals(0, logic.groups());
        assertEquals(0, logic.counters().refused);
    }
}
