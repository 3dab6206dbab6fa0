package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the rails' settings ({@link NetConfig#from}): any values of any of
 * them give a config or an IllegalArgumentException that names the setting, never another
 * exception. The corpus runs as a regression test in every build; {@code bench/fuzz.sh} fuzzes it.
 */
class NetConfigFuzzTest {
    private static final List<String> SETTINGS = Arrays.stream(NetConfig.class.getFields())
            .filter(f -> f.getType() == String.class).map(NetConfigFuzzTest::value)
            .filter(v -> v.startsWith("tutti.")).toList();

    private static String value(Field f) {
        try {
            return String.valueOf(f.get(null));
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void settings(FuzzedDataProvider data) {
        Map<String, String> settings = new HashMap<>();
        for (int n = data.consumeInt(1, 4); n > 0; n--) {
            settings.put(NetConfig.envName(data.pickValue(SETTINGS)), data.consumeString(24));
        }
        try {
            NetConfig.from(settings, data.consumeBoolean());
        } catch (IllegalArgumentException e) {
            assertTrue(settings.keySet().stream().anyMatch(k -> e.getMessage().contains(k)),
                    "the error names none of the settings given: " + e.getMessage() + " " + settings);
        }
    }
}
