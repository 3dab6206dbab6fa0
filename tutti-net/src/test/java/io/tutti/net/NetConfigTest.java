package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Timers out of range are refused, naming the variable, before any rail opens. */
class NetConfigTest {

    @Test
    void nonPositiveTimersAreRefusedByName() {
        for (String name : new String[] {"TUTTI_NET_TIMEOUT_MS", "TUTTI_NET_START_TIMEOUT_MS",
            "TUTTI_NET_RAIL_TIMEOUT_MS", "TUTTI_NET_HEARTBEAT_MS", "TUTTI_NET_RTO_FLOOR_US"}) {
            for (String value : new String[] {"-1", "0"}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> NetConfig.from(Map.of(name, value)), name + "=" + value);
                assertTrue(e.getMessage().startsWith(name + " must be a positive number"), e.getMessage());
            }
        }
        assertEquals(1, NetConfig.from(Map.of("TUTTI_NET_TIMEOUT_MS", "1")).timeoutMillis());
        assertEquals(NetConfig.TIMEOUT_MS_DEFAULT, NetConfig.from(Map.of()).timeoutMillis());
        // a launcher that reports deaths leaves the rails' silence bound to hosts cut off; a setting still wins
        assertEquals(NetConfig.REPORTED_TIMEOUT_MS_DEFAULT, NetConfig.from(Map.of(), true).timeoutMillis());
        assertEquals(2000, NetConfig.from(Map.of("TUTTI_NET_TIMEOUT_MS", "2000"), true).timeoutMillis());
    }

    @Test
    void macDataIsOffByDefaultAndASetting() {
        assertFalse(NetConfig.from(Map.of()).macData());
        assertTrue(NetConfig.from(Map.of("TUTTI_NET_MAC_DATA", "on")).macData());
        assertTrue(NetConfig.from(Map.of("tutti.net.mac.data", "true")).macData());
    }
}
