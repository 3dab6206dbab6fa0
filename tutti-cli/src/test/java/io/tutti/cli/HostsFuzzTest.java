package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Duration;
import java.util.List;

/**
 * Coverage-guided fuzzing of the launcher's own parsers: a hostfile's lines and {@code --host}
 * entries ({@link Hosts}) give hosts whose names and slots are usable, or an
 * IllegalArgumentException that says what to write; durations ({@link Durations}) give a duration
 * in range or an IllegalArgumentException, and what {@link Durations#format} prints parses back to
 * the same duration. The corpus runs as a regression test in every build; {@code bench/fuzz.sh}
 * fuzzes it.
 */
class HostsFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void hosts(FuzzedDataProvider data) {
        try {
            usable(Hosts.parseHostList(List.of(data.consumeString(40).split(",", -1))));
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().startsWith("--host"), e.getMessage());
        }
        String duration = data.consumeString(24);
        try {
            Duration d = Durations.parse(duration);
            assertTrue(d.toMillis() >= 1, duration);
            assertEquals(d, Durations.parse(Durations.format(d)), "format then parse " + d);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("duration"), e.getMessage());
        }
        try {
            usable(Hosts.parseHostfile("hosts", data.consumeRemainingAsString().lines().toList()));
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().startsWith("hosts"), e.getMessage());
        }
    }

    private static void usable(List<Hosts.Host> hosts) {
        for (Hosts.Host h : hosts) {
            assertFalse(h.name().isEmpty() || h.name().chars().anyMatch(c -> Character.isWhitespace(c) || c == '='),
                    "host name '" + h.name() + "'");
            assertTrue(h.slots() >= 1 && (h.maxSlots() == 0 || h.maxSlots() >= h.slots()), h.toString());
        }
        assertEquals(hosts.size(), hosts.stream().map(Hosts.Host::name).distinct().count(), "a host listed twice");
    }
}
