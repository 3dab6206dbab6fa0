package io.tutti;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The settings of a job, by name: each component (point-to-point, collectives, offload, the network
 * rails, in-network aggregation) reads its own typed record from them once, at {@link Tutti#init}.
 * A setting has a property name ({@code tutti.eager.limit}) and an environment name
 * ({@code TUTTI_EAGER_LIMIT}); in rising priority a value comes from the component's default, the
 * environment, a system property, and {@link #with} in the program. The knobs and their defaults
 * are listed in docs/guide/configuration.md.
 *
 * <pre>{@code
 * Tutti.init(Config.defaults().with("tutti.progress.thread", true))
 * }</pre>
 */
public final class Config {
    private static final Config EMPTY = new Config(Map.of());

    /** Values by environment name ({@code TUTTI_EAGER_LIMIT}). */
    private final Map<String, String> values;

    private Config(Map<String, String> values) {
        this.values = values;
    }

    /** No settings: every component takes its defaults (the environment is not read). */
    public static Config defaults() {
        return EMPTY;
    }

    /** The {@code TUTTI_*} variables of {@code env}, then the {@code tutti.*} properties of {@code props} over them. */
    public static Config from(Map<String, String> env, Properties props) {
        Map<String, String> v = new TreeMap<>();
        env.forEach((k, value) -> {
            if (k.startsWith("TUTTI_")) {
                v.put(k, value);
            }
        });
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("tutti.")) {
                v.put(envName(name), props.getProperty(name));
            }
        }
        return new Config(Map.copyOf(v));
    }

    /** A copy with {@code property} (or its environment name) set to {@code value}'s text; null removes it. */
    public Config with(String property, Object value) {
        Map<String, String> v = new HashMap<>(values);
        if (value == null) {
            v.remove(envName(property));
        } else {
            v.put(envName(property), String.valueOf(value));
        }
        return new Config(Map.copyOf(v));
    }

    /** A copy with every setting of {@code overrides} set over this one's. */
    public Config with(Config overrides) {
        if (overrides.values.isEmpty()) {
            return this;
        }
        Map<String, String> v = new HashMap<>(values);
        v.putAll(overrides.values);
        return new Config(Map.copyOf(v));
    }

    /** The environment name of a property: {@code tutti.eager.limit} is {@code TUTTI_EAGER_LIMIT}. */
    public static String envName(String property) {
        return property.startsWith("TUTTI_") ? property : property.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The raw value of a setting (property or environment name), or null when it is not set or blank. */
    public String get(String name) {
        String v = values.get(envName(name));
        return v == null || v.isBlank() ? null : v.trim();
    }

    /**
     * Every setting, by environment name: what a plug-in (the network rails, the switch client)
     * reads its record from.
     */
    public Map<String, String> asMap() {
        return values;
    }

    /** A text setting, or {@code fallback}. */
    public String text(String name, String fallback) {
        String v = get(name);
        return v == null ? fallback : v;
    }

    /** One of {@code allowed} (case-insensitive), or {@code fallback}; anything else is an error that lists them. */
    public String choice(String name, String fallback, String... allowed) {
        String v = get(name);
        if (v == null) {
            return fallback;
        }
        for (String a : allowed) {
            if (a.equalsIgnoreCase(v)) {
                return a;
            }
        }
        throw invalid(name, v, "one of " + String.join(", ", allowed));
    }

    /** A whole number, with the suffixes k and m (x1024), or {@code fallback}. */
    public long size(String name, long fallback) {
        String v = get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return parseSize(v);
        } catch (NumberFormatException | ArithmeticException e) {
            throw invalid(name, v, "a whole number (suffixes k, m allowed)");
        }
    }

    /** As {@link #size} for settings that fit an int. */
    public int integer(String name, int fallback) {
        long x = size(name, fallback);
        if (x != (int) x) {
            throw invalid(name, get(name), "a whole number (suffixes k, m allowed) below 2^31");
        }
        return (int) x;
    }

    /** true/false, 1/0, yes/no, on/off, or {@code fallback}. */
    public boolean bool(String name, boolean fallback) {
        String v = get(name);
        if (v == null) {
            return fallback;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw invalid(name, v, "true or false");
        };
    }

    /** The error for a bad value, naming both spellings of the setting. */
    public static TuttiException.InvalidArgument invalid(String name, String value, String must) {
        String property = name.startsWith("TUTTI_") ? name.toLowerCase(Locale.ROOT).replace('_', '.') : name;
        return new TuttiException.InvalidArgument(property + " (or " + envName(name) + ") must be " + must + ", got '"
                + value + "'");
    }

    /**
     * The one parser of sizes, for settings and command lines alike: a whole number, with a suffix
     * {@code k}, {@code m} or {@code g} (powers of 1024), or {@code 2^N}. Throws
     * NumberFormatException (or ArithmeticException past 2^63) otherwise.
     */
    public static long parseSize(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("2^")) {
            int e = Integer.parseInt(t.substring(2).trim());
            if (e < 0 || e > 62) {
                throw new NumberFormatException("2^" + e + " is out of range");
            }
            return 1L << e;
        }
        long mult = switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
        return Math.multiplyExact(Long.parseLong(digits.trim()), mult);
    }

    @Override
    public String toString() {
        return "Config" + values;
    }
}
