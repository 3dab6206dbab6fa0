package io.tutti.bench;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.Window;
import io.tutti.report.JsonLine;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * OSU's one-sided benchmarks between rank 0 (the origin) and rank 1 (the target): {@code put},
 * {@code get} and {@code acc} (osu_put_latency, osu_get_latency, osu_acc_latency: microseconds per
 * operation, OSU's mean, with median, min and p99 of the timed iterations), {@code putbw} and
 * {@code getbw} (osu_put_bw, osu_get_bw: windows of 64 operations to 64 places, then the
 * synchronisation; MB/s with MB = 10^6 bytes). {@code --sync} is OSU's {@code -s} (default flush:
 * one shared lock around the loop, a flush after each operation or window), {@code --win} OSU's
 * {@code -w} (default allocate). Accumulates add bytes (MPI_CHAR, MPI_SUM, as OSU). After each size
 * the ranks check what arrived, so a run is also a test. Rank 0 prints a table, JSON rows or OSU's
 * own output ({@link OsuFormat}).
 */
public final class RmaBenchmark {
    /** OSU's window of operations per synchronisation in the bandwidth tests. */
    static final int WINDOW = 64;
    /** OSU's LARGE_MESSAGE_SIZE: above it, fewer iterations. */
    static final long LARGE = 8192;
    private static final int ADDRESS_TAG = 7;

    private RmaBenchmark() {
    }

    /** OSU's synchronisation choices ({@code -s}), by OSU's names. */
    enum Sync { flush, flush_local, lock, lock_all, fence, pscw }

    /** OSU's window kinds ({@code -w}): allocateWindow, createWindow over the caller's memory, a dynamic window. */
    enum Win { allocate, create, dynamic }

    /** The parsed command line. */
    record Options(String mode, long[] sizes, int iters, int warmup, Sync sync, Win win, boolean segment,
                   String format) {
        static final List<String> MODES = List.of("put", "get", "acc", "putbw", "getbw");

        @Command(name = "RmaBenchmark")
        static final class Args {
            @Parameters(index = "0", arity = "0..1")
            String mode;
            @Mixin
            BenchArgs.Common common = new BenchArgs.Common();
            @Option(names = "--sync")
            String sync = "flush";
            @Option(names = "--win")
            String win = "allocate";
        }

        static Options parse(String[] args) {
            Args a = BenchArgs.parse(new Args(), args);
            if (a.mode == null || !MODES.contains(a.mode)) {
                throw new IllegalArgumentException((a.mode == null ? "no benchmark" : "unknown benchmark '" + a.mode
                        + "'") + ": use put, get, acc, putbw or getbw");
            }
            Sync sync = choice(Sync.class, a.sync, "--sync");
            Win win = choice(Win.class, a.win, "--win");
            String format = BenchArgs.format(a.common.format, a.common.json);
            if (a.common.full) {
                throw new IllegalArgumentException("--full is OSU's -f of the collectives; OSU's one-sided tests"
                        + " have no full format: drop --full");
            }
            long[] sizes = a.common.sizes;
            if (sizes == null) {
                // OSU's one-sided range starts at 1 B; up to 1 MiB, since a bandwidth window is 64 times the size
                sizes = format.equals("osu") ? OsuFormat.defaultSizes(false)
                        : new long[] {8, 64, 512, 4096, 32768, 262144, 1048576};
            }
            for (long s : BenchArgs.checkSizes(sizes)) {
                if (s == 0 || s * WINDOW > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("one-sided sizes run from 1 B to 32 MiB (a bandwidth window"
                            + " holds 64 of them), not " + s);
                }
            }
            return new Options(a.mode, sizes, a.common.iters == null ? -1 : a.common.iters,
                    a.common.warmup == null ? -1 : a.common.warmup, sync, win, BenchArgs.segment(a.common.buffer),
                    format);
        }

        private static <E extends Enum<E>> E choice(Class<E> type, String value, String option) {
            for (E e : type.getEnumConstants()) {
                if (e.name().equals(value)) {
                    return e;
                }
            }
            List<String> names = new ArrayList<>();
            for (E e : type.getEnumConstants()) {
                names.add(e.name());
            }
            throw new IllegalArgumentException(option + " takes " + String.join(", ", names) + ", not '" + value + "'");
        }

        boolean bandwidth() {
            return mode.endsWith("bw");
        }

        /** OSU's counts: 10000 (latency) or 100 (bandwidth windows) up to 8 KiB, 1000 or 20 above. */
        int itersFor(long size) {
            if (iters > 0) {
                return iters;
            }
            return bandwidth() ? (size > LARGE ? 20 : 100) : (size > LARGE ? 1000 : 10000);
        }

        /** OSU's skip: 100 or 10 (latency), 10 or 2 (bandwidth). */
        int warmupFor(long size) {
            if (warmup >= 0) {
                return warmup;
            }
            return bandwidth() ? (size > LARGE ? 2 : 10) : (size > LARGE ? 10 : 100);
        }
    }

    /** One size's result: latency figures in microseconds, or {@code avg} as MB/s for bandwidth. */
    record Row(long size, double avg, double median, double min, double p99, double allocPerOp) {
    }

    /** How many result rows rank 0 prints for {@code args}; for the launcher's progress bar. */
    public static int rows(String... args) {
        return Options.parse(args).sizes().length;
    }

    public static void main(String[] args) {
        Options o = Options.parse(args);
        try (Tutti tutti = Tutti.init(args)) {
            run(tutti.world(), o, System.out);
        }
    }

    /** Runs the benchmark on every rank of {@code world}; rank 0 prints to {@code out}. Returns rank 0's rows. */
    static List<Row> run(Communicator world, Options o, PrintStream out) {
        if (world.size() < 2) {
            throw new IllegalArgumentException("one-sided benchmarks need at least 2 ranks (run with -n 2)");
        }
        List<Row> rows = new ArrayList<>();
        if (world.rank() == 0) {
            header(o, world, out);
        }
        try (Arena arena = Arena.ofShared()) {
            warmUp(world, o, arena);
            for (long size : o.sizes()) {
                Row row = measure(world, o, arena, (int) size, o.itersFor(size), o.warmupFor(size), true);
                if (world.rank() == 0) {
                    rows.add(row);
                    print(o, row, out);
                }
            }
        }
        return rows;
    }

    /**
     * The measured paths at 8 B and 64 KiB before the first size, so the JIT has compiled them: with
     * {@code --warmup N} N operations of each, else rounds until no rank's JIT has worked for a second
     * (at least 2 s, {@link CollectiveBenchmark#untilJitQuiet}). A fixed 20,000 puts left C2 compiling
     * the put path while the first size was timed: 8 B put 0.62 us on average against 0.13 us warm
     * (docs/perf/rma.md).
     */
    private static void warmUp(Communicator world, Options o, Arena arena) {
        int small = o.warmup >= 0 ? o.warmup : o.bandwidth() ? 300 : 20000;
        int large = o.warmup >= 0 ? o.warmup : o.bandwidth() ? 10 : 200;
        Runnable round = () -> {
            measure(world, o, arena, 8, Math.max(1, small), 0, false);
            measure(world, o, arena, 65536, Math.max(1, large), 0, false);
        };
        if (o.warmup >= 0) {
            round.run();
        } else {
            CollectiveBenchmark.untilJitQuiet(world, round);
        }
    }

    /** One size: a fresh window, the timed loop, the check of what arrived, the window freed. */
    private static Row measure(Communicator world, Options o, Arena arena, int size, int iters, int warmup,
                               boolean time) {
        int places = o.bandwidth() ? WINDOW : 1;
        long bytes = (long) size * places;
        int rank = world.rank();
        Target t = open(world, o, arena, bytes);
        try (Window win = t.window) {
            String kind = o.mode().substring(0, Math.min(3, o.mode().length()));
            MemorySegment mine = t.memory;
            // put and acc origins hold a pattern (acc: ones), get targets do; acc targets start at zero
            Object[] origins = new Object[places];
            for (int j = 0; j < places; j++) {
                origins[j] = buffer(o.segment(), size, arena);
                fill(origins[j], kind.equals("get") ? 0 : kind.equals("acc") ? 1 : pattern(j));
            }
            for (int j = 0; j < places; j++) {
                mine.asSlice((long) j * size, size).fill(kind.equals("get") ? pattern(j) : 0);
            }
            world.barrier();
            // OSU's figure times the loop as a whole; the distribution comes from a second loop that
            // times each operation, whose two clock reads cost as much as an 8 B put (docs/perf/rma.md)
            Histogram h = !o.bandwidth() ? new Histogram(3_600_000_000_000L, 3) : null;
            long alloc = ThreadAllocation.bytes();
            long elapsed = loop(win, o, t.peerBase, origins, size, warmup + iters, warmup, null, rank);
            alloc = ThreadAllocation.bytes() - alloc;
            int loops = 1;
            if (h != null) {
                loop(win, o, t.peerBase, origins, size, warmup + iters, warmup, h, rank);
                loops = 2;
            }
            world.barrier();
            check(o, kind, rank, mine, origins, size, loops * (warmup + iters));
            world.barrier();
            if (t.attached != null) {
                win.detach(t.attached);
            }
            if (!time || rank != 0) {
                return null;
            }
            long ops = (long) iters * places;
            double allocPerOp = Math.max(0, alloc) / (double) (warmup + iters) / places;
            if (o.bandwidth()) {
                return new Row(size, (double) size * ops / (elapsed / 1e9) / 1e6, Double.NaN, Double.NaN, Double.NaN,
                        allocPerOp);
            }
            // fence and pscw time a round trip of one operation each way, as OSU, and halve it
            double per = twoWay(o) ? 2000.0 : 1000.0;
            return new Row(size, elapsed / per / iters, h.getValueAtPercentile(50) / per, h.getMinValue() / per,
                    h.getValueAtPercentile(99) / per, allocPerOp);
        }
    }

    private static boolean twoWay(Options o) {
        return !o.bandwidth() && (o.sync() == Sync.fence || o.sync() == Sync.pscw);
    }

    /** The window of one size, this rank's memory in it and the address of the peer's (0 unless dynamic). */
    private record Target(Window window, MemorySegment memory, long peerBase, MemorySegment attached) {
    }

    private static Target open(Communicator world, Options o, Arena arena, long bytes) {
        try {
            return switch (o.win()) {
                case allocate -> {
                    Window w = world.allocateWindow(bytes, 1);
                    yield new Target(w, w.segment(), 0, null);
                }
                case create -> {
                    MemorySegment m = arena.allocate(bytes, 64);
                    yield new Target(world.createWindow(m, 1), m, 0, null);
                }
                case dynamic -> {
                    MemorySegment m = arena.allocate(bytes, 64);
                    Window w = world.createDynamicWindow();
                    w.attach(m);
                    // the peer addresses this memory by its address (MPI_Get_address), sent as a message
                    long[] mineAt = {m.address()};
                    long[] peerAt = new long[1];
                    int peer = world.rank() == 0 ? 1 : world.rank() == 1 ? 0 : -1;
                    if (peer >= 0) {
                        world.sendrecv(mineAt, 0, 1, peer, ADDRESS_TAG, peerAt, 0, 1, peer, ADDRESS_TAG);
                    }
                    yield new Target(w, m, peerAt[0], m);
                }
            };
        } catch (TuttiException e) {
            throw new IllegalStateException("tutti bench " + o.mode() + " needs a window between ranks 0 and 1, and"
                    + " creating it was refused: " + e.getMessage(), e);
        }
    }

    /**
     * The timed loop as OSU runs it for {@code o.sync()}: rank 0 the origin to rank 1; with fence and
     * pscw (latency) rank 1 answers with an operation to rank 0. Every rank takes part in fences.
     * Returns rank 0's nanoseconds over the iterations after {@code skip}. With {@code h} each
     * iteration's time goes into it as well, at two clock reads an operation, so OSU's average is
     * taken from a run without.
     */
    private static long loop(Window w, Options o, long peerBase, Object[] origins, int size, int total, int skip,
                             Histogram h, int rank) {
        Op op = op(o.mode(), size);
        int places = origins.length;
        boolean origin = rank == 0;
        boolean answers = rank == 1 && twoWay(o);
        long start = 0;
        if (o.sync() == Sync.flush || o.sync() == Sync.flush_local) {
            if (origin) {
                w.lock(Window.LockType.SHARED, 1);
            }
        }
        for (int i = 0; i < total; i++) {
            long t0 = h != null || i == skip ? System.nanoTime() : 0;
            if (i == skip) {
                start = t0;
            }
            switch (o.sync()) {
                case flush, flush_local -> {
                    if (origin) {
                        issue(w, op, origins, places, peerBase, size, 1);
                        if (o.sync() == Sync.flush) {
                            w.flush(1);
                        } else {
                            w.flushLocal(1);
                        }
                    }
                }
                case lock -> {
                    if (origin) {
                        w.lock(Window.LockType.SHARED, 1);
                        issue(w, op, origins, places, peerBase, size, 1);
                        w.unlock(1);
                    }
                }
                case lock_all -> {
                    if (origin) {
                        w.lockAll();
                        issue(w, op, origins, places, peerBase, size, 1);
                        w.unlockAll();
                    }
                }
                case fence -> {
                    w.fence();
                    if (origin) {
                        issue(w, op, origins, places, peerBase, size, 1);
                    }
                    w.fence();
                    if (o.bandwidth()) {
                        break;
                    }
                    if (answers) {
                        issue(w, op, origins, places, peerBase, size, 0);
                    }
                    w.fence();
                }
                case pscw -> {
                    if (origin) {
                        w.start(1);
                        issue(w, op, origins, places, peerBase, size, 1);
                        w.complete();
                        if (!o.bandwidth()) {
                            w.post(1);
                            w.waitExposure();
                        }
                    } else if (rank == 1) {
                        w.post(0);
                        w.waitExposure();
                        if (answers) {
                            w.start(0);
                            issue(w, op, origins, places, peerBase, size, 0);
                            w.complete();
                        }
                    }
                }
                default -> throw new AssertionError(o.sync());
            }
            if (h != null && i >= skip) {
                h.recordValue(Math.max(1, System.nanoTime() - t0));
            }
        }
        long end = System.nanoTime();
        if (origin && (o.sync() == Sync.flush || o.sync() == Sync.flush_local)) {
            w.unlock(1);
        }
        if (o.sync() == Sync.fence) {
            w.fence(Window.MODE_NOSUCCEED);
        }
        return total > skip ? end - start : 0;
    }

    /** One operation of the benchmark: origin buffer {@code origin} to or from the target's {@code disp}. */
    private interface Op {
        void run(Window w, Object origin, int target, long disp);
    }

    private static Op op(String mode, int size) {
        return switch (mode) {
            case "put", "putbw" -> (w, origin, target, disp) -> w.put(origin, size, Datatype.BYTE, target, disp);
            case "get", "getbw" -> (w, origin, target, disp) -> w.get(origin, size, Datatype.BYTE, target, disp);
            default -> (w, origin, target, disp) -> w.accumulate(origin, size, Datatype.BYTE, target, disp,
                    AccumulateOp.SUM);
        };
    }

    private static void issue(Window w, Op op, Object[] origins, int places, long peerBase, int size, int target) {
        for (int j = 0; j < places; j++) {
            op.run(w, origins[j], target, peerBase + (long) j * size);
        }
    }

    /**
     * What each rank must hold after {@code total} iterations: a put's target the origin's pattern, a
     * get's origin the target's, an accumulate's target {@code total} added ones (modulo 256).
     */
    private static void check(Options o, String kind, int rank, MemorySegment mine, Object[] origins, int size,
                              int total) {
        boolean target = rank == 1 || (rank == 0 && twoWay(o));
        boolean origin = rank == 0 || (rank == 1 && twoWay(o));
        for (int j = 0; j < origins.length; j++) {
            MemorySegment place = mine.asSlice((long) j * size, size);
            switch (kind) {
                case "put" -> {
                    if (target) {
                        expect(place, pattern(j), o, rank, j, size);
                    }
                }
                case "get" -> {
                    if (origin) {
                        expect(segment(origins[j]), pattern(j), o, rank, j, size);
                    }
                }
                default -> {
                    if (target) {
                        expect(place, (byte) total, o, rank, j, size);
                    }
                }
            }
        }
    }

    private static void expect(MemorySegment s, byte value, Options o, int rank, int place, int size) {
        for (long i = 0; i < s.byteSize(); i++) {
            byte b = s.get(ValueLayout.JAVA_BYTE, i);
            if (b != value) {
                throw new IllegalStateException(o.mode() + " (" + o.sync() + ", " + o.win() + ") at size " + size
                        + ": rank " + rank + " holds " + b + " at byte " + i + " of place " + place + ", expected "
                        + value);
            }
        }
    }

    /** The byte each place holds: distinct per place, so a put to the wrong place shows. */
    static byte pattern(int place) {
        return (byte) ('a' + place % 26);
    }

    private static Object buffer(boolean segment, int size, Arena arena) {
        return segment ? arena.allocate(size, 64) : new byte[size];
    }

    private static void fill(Object buffer, int value) {
        segment(buffer).fill((byte) value);
    }

    private static MemorySegment segment(Object buffer) {
        return buffer instanceof MemorySegment m ? m : MemorySegment.ofArray((byte[]) buffer);
    }

    // ------------------------------------------------------------ output

    private static void header(Options o, Communicator world, PrintStream out) {
        if (o.format().equals("json")) {
            return;
        }
        if (o.format().equals("osu")) {
            OsuFormat.oneSidedHeader(o.mode(), o.win().name(), o.sync().name()).forEach(out::println);
            return;
        }
        out.println("# Tutti " + o.mode() + " (OSU's osu_" + osuName(o.mode()) + " method), window " + o.win()
                + ", synchronisation " + o.sync() + (o.bandwidth() ? ", " + WINDOW + " operations per window" : ""));
        out.println("# ranks " + world.size() + ", origin buffers "
                + (o.segment() ? "off-heap segments" : "Java arrays")
                + (o.mode().startsWith("acc") ? ", BYTE SUM" : "") + ", java " + Runtime.version());
        if (o.bandwidth()) {
            out.printf("# %-10s %12s %14s%n", "Size", "MB/s", "Alloc(B/op)");
        } else {
            out.printf("# %-10s %12s %12s %12s %12s %14s%n", "Size", "Avg(us)", "Median(us)", "Min(us)", "P99(us)",
                    "Alloc(B/op)");
        }
    }

    /** OSU's program behind a mode: put_latency, get_latency, acc_latency, put_bw, get_bw. */
    static String osuName(String mode) {
        return mode.endsWith("bw") ? mode.substring(0, 3) + "_bw" : mode + "_latency";
    }

    /** A {@code --json} row. */
    static String json(Options o, Row r) {
        JsonLine j = JsonLine.object().text("benchmark", o.mode()).text("sync", o.sync().name())
                .text("window", o.win().name()).text("buffer", o.segment() ? "segment" : "array")
                .integer("size", r.size());
        if (o.bandwidth()) {
            j.fixed("mb_per_s", r.avg(), 1);
        } else {
            j.fixed("avg_us", r.avg(), 3).fixed("median_us", r.median(), 3).fixed("min_us", r.min(), 3)
                    .fixed("p99_us", r.p99(), 3);
        }
        return j.fixed("alloc_bytes_per_op", r.allocPerOp(), 2).end();
    }

    private static void print(Options o, Row r, PrintStream out) {
        switch (o.format()) {
            case "json" -> out.println(json(o, r));
            case "osu" -> out.println(OsuFormat.row(r.size(), r.avg()));
            default -> {
                if (o.bandwidth()) {
                    out.printf(Locale.ROOT, "%-12d %12.1f %14.2f%n", r.size(), r.avg(), r.allocPerOp());
                } else {
                    out.printf(Locale.ROOT, "%-12d %12.2f %12.2f %12.2f %12.2f %14.2f%n", r.size(), r.avg(),
                            r.median(), r.min(), r.p99(), r.allocPerOp());
                }
            }
        }
        out.flush();
    }
}
