package io.tutti.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * OSU Micro-Benchmarks' output, line for line, for {@code tutti bench --format osu}: a blank line,
 * OSU's own title ({@code # OSU MPI Latency Test v7.4}, so that scripts matching it read ours),
 * {@code # Datatype: ...}, the column
 * header, then rows of a 10-wide left-aligned size and 18-wide figures with two decimals; the
 * full collective format ({@code -f}) adds Min, Max and a 12-wide Iterations column. Barrier has
 * no size column (its figures are 17 wide). Learnt from OMB 7.4's {@code c/util/osu_util.h}
 * and {@code configure.ac} (FIELD_WIDTH 18, FLOAT_PRECISION 2), {@code c/util/osu_util_mpi.c} (print_preamble,
 * print_only_header, print_stats and their {@code _nbc} forms) and the benchmarks' mains.
 */
final class OsuFormat {
    /** The OMB release whose output this reproduces. */
    static final String VERSION = "7.4";
    /**
     * OSU's FIELD_WIDTH: the width of every figure column but barrier's first. OMB's configure.ac
     * defines it as 18, which the built benchmarks print; osu_util.h's 20 is only a fallback.
     */
    static final int WIDTH = 18;

    private OsuFormat() {
    }

    /** OSU's name of the benchmark behind a {@code tutti bench} mode, or null when OSU has none. */
    static String name(String mode, boolean nonblocking) {
        String blocking = switch (mode) {
            case "latency" -> "Latency Test";
            case "bw" -> "Bandwidth Test";
            case "bibw" -> "Bi-Directional Bandwidth Test";
            case "barrier" -> "Barrier Latency Test";
            case "bcast" -> "Broadcast Latency Test";
            case "reduce" -> "Reduce Latency Test";
            case "allreduce" -> "Allreduce Latency Test";
            case "scatter" -> "Scatter Latency Test";
            case "gather" -> "Gather Latency Test";
            case "allgather" -> "Allgather Latency Test";
            case "alltoall" -> "All-to-All Personalized Exchange Latency Test";
            case "reducescatter" -> "Reduce_scatter_block Latency Test";
            default -> null;
        };
        if (blocking == null || !nonblocking) {
            return blocking;
        }
        return switch (mode) {
            case "bcast" -> "Non-Blocking Broadcast Latency Test"; // sic: OSU capitalises this one
            case "alltoall" -> "Non-blocking All-to-All Latency Test";
            case "latency", "bw", "bibw" -> null;
            default -> "Non-blocking " + blocking;
        };
    }

    /** The lines before the first row, as OSU prints them. */
    static List<String> header(String mode, boolean nonblocking, boolean full) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("# OSU MPI " + name(mode, nonblocking) + " v" + VERSION);
        boolean sized = !mode.equals("barrier");
        if (nonblocking) {
            lines.add("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait");
            lines.add("");
        }
        if (sized) {
            lines.add("# Datatype: " + (CollectiveOp.reduces(mode) ? "MPI_DOUBLE." : "MPI_CHAR."));
        }
        String first = nonblocking ? "Overall(us)" : switch (mode) {
            case "bw", "bibw" -> "Bandwidth (MB/s)";
            default -> "Avg Latency(us)";
        };
        StringBuilder columns = new StringBuilder(sized ? pad("# Size", 10) + right(first, WIDTH) : "# " + first);
        if (nonblocking) {
            columns.append(right("Compute(us)", WIDTH)).append(right("Pure Comm.(us)", WIDTH))
                    .append(right("Overlap(%)", WIDTH));
        } else if (full) {
            columns.append(right("Min Latency(us)", WIDTH)).append(right("Max Latency(us)", WIDTH))
                    .append(right("Iterations", 12));
        }
        lines.add(columns.toString());
        return lines;
    }

    /**
     * The lines before the first row of OSU's one-sided tests (OMB 7.x's print_header_one_sided: no
     * blank line first, the window kind, the synchronisation and the datatype, then the columns).
     */
    static List<String> oneSidedHeader(String mode, String win, String sync) {
        String title = switch (mode) {
            case "put" -> "MPI_Put Latency Test";
            case "get" -> "MPI_Get latency Test"; // sic: OSU's own capitalisation
            case "acc" -> "MPI_Accumulate latency Test";
            case "putbw" -> "MPI_Put Bandwidth Test";
            case "getbw" -> "MPI_Get Bandwidth Test";
            default -> throw new IllegalArgumentException("no OSU one-sided test for " + mode);
        };
        String window = switch (win) {
            case "create" -> "MPI_Win_create";
            case "dynamic" -> "MPI_Win_create_dynamic";
            default -> "MPI_Win_allocate";
        };
        String synchronization = switch (sync) {
            case "lock" -> "MPI_Win_lock/unlock";
            case "pscw" -> "MPI_Win_post/start/complete/wait";
            case "fence" -> "MPI_Win_fence";
            case "flush_local" -> "MPI_Win_flush_local";
            case "lock_all" -> "MPI_Win_lock_all/unlock_all";
            default -> "MPI_Win_flush";
        };
        return List.of("# OSU " + title + " v" + VERSION,
                "# Window creation: " + window, "# Synchronization: " + synchronization, "# Datatype: MPI_CHAR.",
                pad("# Size", 10) + right(mode.endsWith("bw") ? "Bandwidth (MB/s)" : "Latency (us)", WIDTH));
    }

    /** A row of one figure: latency (us) or bandwidth (MB/s) at a size. */
    static String row(long size, double figure) {
        return String.format(Locale.ROOT, "%-10d%" + WIDTH + ".2f", size, figure);
    }

    /** A blocking collective's row: avg, and with {@code full} min, max and iterations; barrier has no size. */
    static String collectiveRow(String mode, boolean full, long size, double avg, double min, double max, int iters) {
        String row = mode.equals("barrier") ? String.format(Locale.ROOT, "%17.2f", avg) : row(size, avg);
        if (!full) {
            return row;
        }
        return row + String.format(Locale.ROOT, "%" + WIDTH + ".2f%" + WIDTH + ".2f%12d", min, max, iters);
    }

    /** A nonblocking collective's row: overall, compute, pure communication (us) and overlap (%). */
    static String nonblockingRow(String mode, long size, double overall, double compute, double pure,
                                 double overlap) {
        String first = mode.equals("barrier") ? String.format(Locale.ROOT, "%13.2f", overall) : row(size, overall);
        return first + String.format(Locale.ROOT, "%" + WIDTH + ".2f%" + WIDTH + ".2f%" + WIDTH + ".2f", compute,
                pure, overlap);
    }

    /**
     * The sizes OSU runs by default: powers of two from 1 B to 4 MiB for point-to-point (its loop
     * starts at 0, but a message of no MPI_CHAR prints no row) and to 1 MiB for collectives.
     */
    static long[] defaultSizes(boolean pointToPoint) {
        int top = pointToPoint ? 22 : 20;
        long[] sizes = new long[top + 1];
        for (int i = 0; i <= top; i++) {
            sizes[i] = 1L << i;
        }
        return sizes;
    }

    private static String pad(String s, int width) {
        return String.format(Locale.ROOT, "%-" + width + "s", s);
    }

    private static String right(String s, int width) {
        return String.format(Locale.ROOT, "%" + width + "s", s);
    }
}
