package io.tutti.bench;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Reads the arguments of a rank-side benchmark main with picocli into its annotated options object;
 * a mistake is an {@link IllegalArgumentException} whose message says what is wrong, as the ranks
 * report it (the user's command line was checked by {@code tutti bench} before the ranks started).
 */
final class BenchArgs {
    private BenchArgs() {
    }

    /** The options every rank-side benchmark main takes (a picocli mixin); each main checks them. */
    static final class Common {
        @Option(names = "--sizes", split = ",", converter = Sizes.class)
        long[] sizes;
        @Option(names = "--iters")
        Integer iters;
        @Option(names = "--warmup")
        Integer warmup;
        @Option(names = "--json")
        boolean json;
        @Option(names = "--format")
        String format;
        @Option(names = "--full")
        boolean full;
        @Option(names = "--buffer")
        String buffer = "segment";
    }

    /** Fills {@code options} (a picocli {@code @Command} object) from {@code args} and returns it. */
    static <T> T parse(T options, String[] args) {
        CommandLine cl = new CommandLine(options);
        cl.setExpandAtFiles(false);
        cl.setOverwrittenOptionsAllowed(true);
        try {
            cl.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return options;
    }

    /** {@code --buffer}: true for off-heap segments, false for arrays. */
    static boolean segment(String buffer) {
        if (!buffer.equals("array") && !buffer.equals("segment")) {
            throw new IllegalArgumentException("--buffer takes array or segment, not '" + buffer + "'");
        }
        return buffer.equals("segment");
    }

    /**
     * {@code --format} and {@code --json} as one choice: {@code table} (the default), {@code json}
     * or {@code osu} (OSU Micro-Benchmarks' own output, {@link OsuFormat}).
     */
    static String format(String format, boolean json) {
        if (format == null) {
            return json ? "json" : "table";
        }
        if (!List.of("table", "json", "osu").contains(format)) {
            throw new IllegalArgumentException("--format takes table, json or osu, not '" + format + "'");
        }
        if (json && !format.equals("json")) {
            throw new IllegalArgumentException("--json is --format json: give one format, not --json and --format "
                    + format);
        }
        return format;
    }

    /** {@code --sizes}: every size must fit a Java array (0 to 2^31 - 1 bytes). */
    static long[] checkSizes(long[] sizes) {
        for (long s : sizes) {
            if (s < 0 || s > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("size out of range: " + s + " (give 0 to 2g - 1 bytes)");
            }
        }
        return sizes;
    }
}
