package io.tutti.monitor;

import io.tutti.Metrics;
import io.tutti.metrics.CountersDescriptor;
import io.tutti.metrics.CountersReader;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The counters of one job's ranks on this host, read from their files in the job's directory
 * ({@code counters-N}, {@link CountersDescriptor}), and whether each rank's process still runs: a rank
 * records itself in {@code rank-N.pid} and removes it when it leaves, so a dead process whose record
 * is still there was killed or crashed ({@link Liveness#FAILED}), one without it ended ({@link Liveness#DONE}).
 */
public final class JobCounters {
    private JobCounters() {
    }

    /** What became of a rank's process. */
    public enum Liveness {
        /** Its process runs. */
        RUNNING,
        /** It left the job (closed Tutti) and its process has exited. */
        DONE,
        /** Its process is gone without having left the job: killed, or crashed. */
        FAILED;

        /** The name in the JSON and the metrics: {@code running}, {@code done}, {@code failed}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One rank: its counters and its process's state. */
    public record Rank(Metrics metrics, Liveness liveness) {
    }

    /** Reads every rank's counters file in {@code dir}, by rank; files not yet formatted are skipped. */
    public static List<Metrics> read(Path dir) {
        return files(dir).stream().map(Read::metrics).toList();
    }

    /** One file read: its rank's counters and, for a launcher's copy, the state the launcher wrote. */
    private record Read(Metrics metrics, int copyState) {
    }

    private static List<Read> files(Path dir) {
        List<Read> ranks = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "counters-*")) {
            for (Path f : files) {
                try (CountersReader r = CountersReader.open(f)) {
                    if (r != null) {
                        ranks.add(new Read(r.read(), r.copyState()));
                    }
                }
            }
        } catch (IOException e) {
            // no directory (the job has ended): no ranks
        }
        ranks.sort(Comparator.comparingInt(r -> r.metrics().rank()));
        return ranks;
    }

    /**
     * The ranks of {@code dir} with their liveness, {@code alive} telling whether a pid runs; for a
     * rank on another host, whose pid means nothing here, the launcher's copy says.
     */
    public static List<Rank> ranks(Path dir, LongPredicate alive) {
        List<Rank> out = new ArrayList<>();
        for (Read read : files(dir)) {
            Metrics m = read.metrics();
            Liveness l = switch (read.copyState()) {
                case CountersDescriptor.COPY_RUNNING -> Liveness.RUNNING;
                case CountersDescriptor.COPY_DONE -> Liveness.DONE;
                case CountersDescriptor.COPY_FAILED -> Liveness.FAILED;
                default -> alive.test(m.pid()) ? Liveness.RUNNING
                        : Files.exists(dir.resolve("rank-" + m.rank() + ".pid")) ? Liveness.FAILED : Liveness.DONE;
            };
            out.add(new Rank(m, l));
        }
        return out;
    }

    /** Whether a process runs: the liveness test of {@link #ranks}. */
    public static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** The job's id from its directory's name ({@code tutti-ID}). */
    public static String jobId(Path dir) {
        String name = dir.getFileName().toString();
        return name.startsWith("tutti-") ? name.substring("tutti-".length()) : name;
    }
}
