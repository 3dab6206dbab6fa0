package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import io.tutti.metrics.RailControl;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tutti rail JOB down|up RAIL}: takes a network rail out of service at the running ranks
 * of a job on this host, or brings it back, through their counters files ({@link RailControl}); on
 * the launcher's host also at its ranks on other hosts, through the launcher's copies of theirs.
 */
@Command(name = "rail", usageHelpAutoWidth = true, sortOptions = false, mixinStandardHelpOptions = true,
        description = {
            "Takes a network rail out of service at the ranks of a running job on this host (down), or brings it"
                + " back (up). A rank stops sending data on it, sends what it carried and is not yet acknowledged"
                + " again on its other rails at once, and tells its peers, which stop too; nothing is lost."
                + " 'tutti status JOB' shows the rail as 'down (admin)'.",
            "RAIL is the rail's index or its interface or address, as 'tutti status JOB' shows it. Taking down a"
                + " rank's last rail in service is refused. Commands travel through the ranks' counters files, so"
                + " they need tutti.counters on (the default) and the job's owner. On the launcher's host it reaches"
                + " the job's ranks on other hosts too: the launcher forwards the command to them."},
        footer = {"", "Examples:",
            "  tutti rail 1f2e3d4c down 1",
            "  tutti rail 1f2e3d4c down eth1 --rank 0",
            "  tutti rail 1f2e3d4c up 1"})
public final class RailCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "JOB", description = "The job's id (as 'tutti status' lists it), or its directory.")
    String job;

    @Parameters(index = "1", paramLabel = "down|up", description = "Out of service, or back in.")
    String action;

    @Parameters(index = "2", paramLabel = "RAIL", description = "The rail: its index, or its name as 'tutti status JOB' shows it.")
    String rail;

    @Option(names = "--rank", paramLabel = "R", description = "Only rank R (default: every rank of the job on this host).")
    Integer rank;

    @Option(names = "--wait", paramLabel = "DURATION", converter = Durations.class, defaultValue = "10s",
            description = "How long to wait for each rank's answer (default: ${DEFAULT-VALUE}).")
    Duration wait;

    /** Where job directories are; tests point it elsewhere. */
    Path root = ShmFiles.defaultRoot();

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!action.equals("down") && !action.equals("up")) {
            err.println("tutti rail: '" + action + "' is neither down nor up; e.g. tutti rail " + job + " down 1");
            return Launcher.EXIT_USAGE;
        }
        if (rank != null && rank < 0) {
            err.println("tutti rail: --rank must be 0 or more, got " + rank);
            return Launcher.EXIT_USAGE;
        }
        List<RailControl.Outcome> outcomes;
        try {
            outcomes = RailControl.apply(JobStatus.directory(root, job), rail, action.equals("down"),
                    rank == null ? -1 : rank, wait);
        } catch (IllegalArgumentException e) {
            err.println("tutti rail: " + e.getMessage());
            return 1;
        }
        boolean all = true;
        for (RailControl.Outcome o : outcomes) {
            (o.done() ? out : err).println("rank " + o.rank() + ": " + o.message());
            all &= o.done();
        }
        out.flush();
        err.flush();
        return all ? 0 : 1;
    }
}
