package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Config;
import io.tutti.TuttiException;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** A setting out of range is refused with its own name, not a general "must be positive". */
class P2pConfigTest {

    private static String refusal(String name, String value) {
        return assertThrows(TuttiException.InvalidArgument.class,
                () -> P2pConfig.from(Config.from(Map.of(name, value), new Properties()))).getMessage();
    }

    @Test
    void eachIdleLivenessAndRendezvousSettingIsNamedWhenOutOfRange() {
        assertTrue(refusal("TUTTI_LIVENESS_MS", "0").startsWith("TUTTI_LIVENESS_MS (tutti.liveness.ms) must be at"
                + " least 1, got 0"), refusal("TUTTI_LIVENESS_MS", "0"));
        assertTrue(refusal("TUTTI_RENDEZVOUS_TIMEOUT_S", "0").contains("TUTTI_RENDEZVOUS_TIMEOUT_S"));
        assertTrue(refusal("TUTTI_IDLE_PARK_MAX_US", "0").contains("TUTTI_IDLE_PARK_MAX_US"));
        assertTrue(refusal("TUTTI_IDLE_SPIN_US", "-1").contains("TUTTI_IDLE_SPIN_US"));
        assertTrue(refusal("TUTTI_IDLE_SPIN", "-2").contains("TUTTI_IDLE_SPIN"));
        assertTrue(refusal("TUTTI_IDLE_YIELD", "-2").contains("TUTTI_IDLE_YIELD"));
        assertEquals(1, P2pConfig.from(Config.from(Map.of("TUTTI_LIVENESS_MS", "1"), new Properties()))
                .livenessMillis());
    }

    @Test
    void eachEagerLimitIsCheckedAgainstTheRingUnderItsOwnName() {
        assertTrue(refusal("TUTTI_NET_EAGER_LIMIT", "300000").startsWith("TUTTI_NET_EAGER_LIMIT"
                + " (tutti.net.eager.limit) must be between 0 and a quarter"), refusal("TUTTI_NET_EAGER_LIMIT", "300000"));
        assertTrue(refusal("TUTTI_EAGER_LIMIT", "-1").startsWith("TUTTI_EAGER_LIMIT (tutti.eager.limit)"));
        P2pConfig c = P2pConfig.from(Config.from(Map.of("TUTTI_NET_EAGER_LIMIT", "4096"), new Properties()));
        assertEquals(4096, c.eagerLimit(true));
        assertEquals(P2pConfig.EAGER_LIMIT_DEFAULT, c.eagerLimit(false));
        // a small ring lowers the limits left at their defaults, and still refuses one set too large
        P2pConfig small = P2pConfig.from(Config.from(Map.of("TUTTI_SHM_RING_CAPACITY", "4096"), new Properties()));
        assertEquals(768, small.eagerLimit(false));
        assertEquals(768, small.eagerLimit(true));
        assertTrue(refusal2("TUTTI_SHM_RING_CAPACITY", "4096", "TUTTI_NET_EAGER_LIMIT", "1024")
                .startsWith("TUTTI_NET_EAGER_LIMIT"));
    }

    private static String refusal2(String name, String value, String name2, String value2) {
        return assertThrows(TuttiException.InvalidArgument.class,
                () -> P2pConfig.from(Config.from(Map.of(name, value, name2, value2), new Properties()))).getMessage();
    }
}
