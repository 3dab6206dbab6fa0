package io.tutti.bench;

import io.tutti.Config;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;

/**
 * The one parser of sizes and counts on the command line ({@code tutti bench --sizes}, {@code tutti
 * sim --nodes --sizes}, the rank-side benchmark mains): a plain number, {@code k}/{@code m} as the
 * settings have them ({@link Config#parseSize}), {@code g} (2^30), or {@code 2^N}. As a picocli
 * converter it reads one element; options split their lists on commas.
 */
public final class Sizes implements CommandLine.ITypeConverter<Long> {
    /** Parses one size; throws {@link IllegalArgumentException} with a message that shows the format. */
    public static long parse(String text) {
        String s = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("2^")) {
                int e = Integer.parseInt(s.substring(2));
                if (e >= 0 && e < 63) {
                    return 1L << e;
                }
            } else if (s.endsWith("g")) {
                return Math.multiplyExact(Config.parseSize(s.substring(0, s.length() - 1)), 1L << 30);
            } else if (!s.isEmpty()) {
                return Config.parseSize(s);
            }
        } catch (NumberFormatException | ArithmeticException | IndexOutOfBoundsException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + (text == null ? "" : text.trim()) + "' is not a size: write it"
                + " like 8, 64k, 1m, 1g (powers of 1024) or 2^20");
    }

    /** A comma-separated list of sizes, each as {@link #parse}. */
    public static long[] parseList(String list) {
        return List.of(list.split(",")).stream().mapToLong(Sizes::parse).toArray();
    }

    @Override
    public Long convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
