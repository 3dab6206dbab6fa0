package io.tutti.bench;

import io.tutti.Config;
import java.util.List;
import picocli.CommandLine;

/**
 * Sizes and counts on the command line ({@code tutti bench --sizes}, {@code tutti sim --nodes
 * --sizes}, the rank-side benchmark mains), read by the settings' one parser ({@link
 * Config#parseSize}: a plain number, {@code k}, {@code m}, {@code g} or {@code 2^N}), with an error
 * that shows the format. As a picocli converter it reads one element; options split their lists
 * on commas.
 */
public final class Sizes implements CommandLine.ITypeConverter<Long> {
    /** Parses one size; throws {@link IllegalArgumentException} with a message that shows the format. */
    public static long parse(String text) {
        try {
            if (text != null && !text.isBlank()) {
                return Config.parseSize(text);
            }
        } catch (NumberFormatException | ArithmeticException e) {
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
