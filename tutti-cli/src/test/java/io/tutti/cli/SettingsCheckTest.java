package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The launcher finds a setting every rank would refuse, and says which, before it starts any. */
class SettingsCheckTest {

    @Test
    void aSettingOutOfRangeIsFoundAndNamed() {
        assertNull(SettingsCheck.problem(Map.of("PATH", "/bin", "TUTTI_NET_TIMEOUT_MS", "2000")));
        assertTrue(SettingsCheck.problem(Map.of("TUTTI_NET_TIMEOUT_MS", "-1")).contains("TUTTI_NET_TIMEOUT_MS"));
        assertTrue(SettingsCheck.problem(Map.of("TUTTI_LIVENESS_MS", "0")).contains("TUTTI_LIVENESS_MS"));
        assertTrue(SettingsCheck.problem(Map.of("TUTTI_NET", "sctp")).contains("TUTTI_NET"));
    }
}
