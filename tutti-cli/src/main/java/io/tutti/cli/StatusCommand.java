package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.monitor.JobCounters;
import io.tutti.os.Platform;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tutti status}: the jobs of this user running on this host, or the live counters of one
 * job's ranks here, read from their counters files without disturbing them.
 */
@Command(name = "status", usageHelpAutoWidth = true, sortOptions = false, mixinStandardHelpOptions = true,
        description = {
            "Without JOB: lists the jobs of this user on this host (their directories in /dev/shm), marking"
                + " stale ones, whose ranks and launcher are all gone.",
            "With JOB: the counters of its ranks on this host, per rank and per rail, refreshed every"
                + " --interval on a terminal (Ctrl-C ends it); read from the ranks' counters files while they run."
                + " On the host of the job's tutti run, the ranks of the other hosts too (copies of their"
                + " counters, at most a second old)."},
        footer = {"", "Examples:",
            "  tutti status",
            "  tutti status 1f2e3d4c --once",
            "  tutti status 1f2e3d4c --stuck",
            "  tutti status 1f2e3d4c --json | jq '.ranks[].net'"})
public final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "JOB",
            description = "The job's id (as 'tutti status' lists it), or its directory.")
    String job;

    @Option(names = "--once", description = "Print one snapshot and exit (the default when not on a terminal).")
    boolean once;

    @Option(names = "--json", description = "Print one snapshot as JSON and exit.")
    boolean json;

    @Option(names = "--stuck", description = "Print which call each rank is blocked in and whom it waits for, and exit.")
    boolean stuck;

    @Option(names = "--interval", paramLabel = "DURATION", converter = Durations.class, defaultValue = "1s",
            description = "Refresh period of the live table (default: ${DEFAULT-VALUE}).")
    Duration interval;

    /** Where job directories are; tests point it elsewhere. */
    Path root = ShmFiles.defaultRoot();

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (job == null) {
            listJobs(out);
            return 0;
        }
        Path dir = JobStatus.directory(root, job);
        if (!Files.isDirectory(dir)) {
            err.println("tutti status: no job " + job + " on this host (no directory " + dir
                    + "); 'tutti status' lists the jobs here");
            return Launcher.EXIT_USAGE;
        }
        JobStatus status = JobStatus.read(dir);
        if (status.ranks().isEmpty()) {
            err.println("tutti status: job " + status.job() + " has no rank with counters on this host (not started"
                    + " yet, ended, or run with tutti.counters=false)");
            return 1;
        }
        if (json) {
            out.println(status.json());
        } else if (stuck) {
            out.print(status.stuck(System.currentTimeMillis()));
        } else if (once || System.console() == null) {
            out.print(status.table(System.currentTimeMillis()));
        } else {
            // top-like: home the cursor, clear, redraw, until the job's directory goes or Ctrl-C
            while (!status.ranks().isEmpty()) {
                out.print("\033[H\033[2J" + status.table(System.currentTimeMillis()));
                out.flush();
                Thread.sleep(Math.max(100, interval.toMillis()));
                status = JobStatus.read(dir);
            }
            out.println("job " + status.job() + " has ended on this host");
        }
        out.flush();
        return 0;
    }

    /** One line per job directory of this user: id, ranks with counters here, running or stale. */
    private void listJobs(PrintWriter out) {
        List<String> lines = new ArrayList<>();
        for (Path d : ownJobDirectories(root)) {
            try {
                boolean stale = StaleJobs.isStale(d, JobCounters::alive, Instant.now());
                JobStatus s = JobStatus.read(d);
                lines.add(String.format(Locale.ROOT, "%-24s %6d  %-8s %s", s.job(), s.ranks().size(),
                        stale ? "stale" : "running", d));
            } catch (IOException | RuntimeException e) {
                // vanished while we looked
            }
        }
        if (lines.isEmpty()) {
            out.println("no Tutti jobs of " + Platform.USER + " on this host (" + root + ")");
            return;
        }
        out.println(String.format(Locale.ROOT, "%-24s %6s  %-8s %s", "JOB", "RANKS", "STATE", "DIRECTORY"));
        lines.sort(null);
        lines.forEach(out::println);
    }

    /** The job directories of this user under {@code root} (stale ones too), as {@code tutti status} and {@code tutti monitor} find them. */
    static List<Path> ownJobDirectories(Path root) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "tutti-*")) {
            for (Path d : dirs) {
                try {
                    if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                            && Files.getOwner(d, LinkOption.NOFOLLOW_LINKS).getName().equals(Platform.USER)) {
                        out.add(d);
                    }
                } catch (IOException | RuntimeException e) {
                    // vanished while we looked
                }
            }
        } catch (IOException e) {
            // no root: no jobs
        }
        out.sort(null);
        return out;
    }
}
