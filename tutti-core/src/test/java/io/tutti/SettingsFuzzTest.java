package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tutti.coll.CollConfig;
import io.tutti.metrics.CountersConfig;
import io.tutti.offload.OffloadConfig;
import io.tutti.p2p.P2pConfig;
import io.tutti.rma.RmaConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Coverage-guided fuzzing of the settings parsers: any values of any settings, as environment
 * variables or properties, give each component's config record or a
 * {@link TuttiException.InvalidArgument} that names the setting, never another exception; and
 * {@link Config#parseSize} gives a number or a NumberFormatException/ArithmeticException. The
 * corpus runs as a regression test in every build; {@code bench/fuzz.sh} fuzzes it.
 */
class SettingsFuzzTest {
    /** Every setting of the core's components: their public String constants that name a property. */
    static final List<String> SETTINGS = settings(P2pConfig.class, CollConfig.class, OffloadConfig.class,
            CountersConfig.class, RmaConfig.class);

    /** The property names among {@code records}' public static String constants. */
    public static List<String> settings(Class<?>... records) {
        List<String> names = new ArrayList<>();
        for (Class<?> c : records) {
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                    try {
                        String v = (String) f.get(null);
                        if (v != null && v.startsWith("tutti.")) {
                            names.add(v);
                        }
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
        return List.copyOf(names);
    }

    @FuzzTest(maxDuration = "30s")
    void settings(FuzzedDataProvider data) {
        Map<String, String> env = new HashMap<>();
        Properties props = new Properties();
        for (int n = data.consumeInt(1, 4); n > 0; n--) {
            String name = data.pickValue(SETTINGS);
            String value = data.consumeString(24);
            if (data.consumeBoolean()) {
                env.put(Config.envName(name), value);
            } else {
                props.setProperty(name, value);
            }
        }
        Config c = Config.from(env, props);
        parsed(c, "the engine's", () -> P2pConfig.from(c));
        parsed(c, "the collectives'", () -> CollConfig.from(c));
        parsed(c, "the offload's", () -> OffloadConfig.from(c));
        parsed(c, "the counters'", () -> CountersConfig.from(c));
        parsed(c, "the one-sided", () -> RmaConfig.from(c));
        String size = data.consumeRemainingAsString();
        try {
            Config.parseSize(size);
        } catch (NumberFormatException | ArithmeticException e) {
            // the documented answers
        }
    }

    /** Runs {@code from}: a record, or an InvalidArgument naming one of the settings given. */
    private static void parsed(Config c, String whose, Runnable from) {
        try {
            from.run();
        } catch (TuttiException.InvalidArgument e) {
            String m = e.getMessage();
            assertTrue(c.asMap().keySet().stream().anyMatch(k -> m.contains(k)
                            || m.contains(k.toLowerCase(java.util.Locale.ROOT).replace('_', '.'))),
                    whose + " error names none of the settings given: " + m + " " + c);
        }
    }
}
