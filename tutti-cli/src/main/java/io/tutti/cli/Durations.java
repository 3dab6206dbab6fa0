package io.tutti.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses and prints the durations of the command line ({@code 30s}, {@code 2m}, {@code 500ms},
 * {@code 1h}; a plain number is seconds, as in {@code timeout(1)}).
 */
public final class Durations implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    /** Parses a duration; throws {@link IllegalArgumentException} with a message that shows the format. */
    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: write it like 30s, 2m, 500ms, 1h,"
                    + " or a plain number of seconds");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> value;
            case "s" -> value * 1_000;
            case "m" -> value * 60_000;
            default -> value * 3_600_000;
        };
        if (millis < 1 || millis > Duration.ofDays(3650).toMillis()) {
            throw new IllegalArgumentException("duration '" + text + "' is out of range: give at least 1ms"
                    + " and at most 10 years");
        }
        return Duration.ofMillis(Math.round(millis));
    }

    /** Prints a duration the way the launcher's messages do: whole seconds as {@code 30 s}, else {@code 1500 ms}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    @Override
    public Duration convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
