package io.tutti.runtime;

import io.tutti.Config;
import io.tutti.Tutti;
import io.tutti.TuttiException;
import io.tutti.bootstrap.Bootstrap;
import io.tutti.bootstrap.JobInfo;
import io.tutti.bootstrap.LaunchEnvironment;

/**
 * What {@link Tutti#init} finds with {@link java.util.ServiceLoader}: joins the job the process (or
 * thread) was started in, with the program's settings over those of the environment and the system
 * properties, and ends the rank if its launcher dies.
 */
public final class RankProvider implements Tutti.Provider {
    /** The ranks ({@code job id/rank}) that have closed in this process: each joins its job once. */
    private static final java.util.Set<String> CLOSED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Rank {@code job}'s close has run: a later {@link Tutti#init} of it is refused, unless it is a
     * job of one rank (alone, no one else to join), which simply starts again.
     */
    static void closed(JobInfo job) {
        if (job.size() > 1) {
            CLOSED.add(job.jobId() + "/" + job.rank());
        }
    }

    @Override
    public Tutti start(Config program) {
        Config settings = LaunchEnvironment.settings().with(program);
        JobInfo job;
        try {
            job = Bootstrap.detect(LaunchEnvironment.current());
        } catch (IllegalStateException e) {
            throw new TuttiException.Startup(e.getMessage(), e);
        }
        if (CLOSED.contains(job.jobId() + "/" + job.rank())) {
            // as MPI_Init after MPI_Finalize: the others have gone on without this rank, or ended
            throw new TuttiException.NotActive("rank " + job.rank() + " of job " + job.jobId() + " has closed Tutti"
                    + " already; a rank joins its job once, so Tutti.init after close() is refused (keep one"
                    + " instance open for the whole program)");
        }
        Rank rank = new Rank(job, settings);
        watchLauncher(job);
        return rank;
    }

    /**
     * A rank whose launcher has died (killed with SIGKILL, so it could not stop its ranks) ends
     * itself: nobody else would, and its peers are being stopped or are gone already.
     */
    private static void watchLauncher(JobInfo job) {
        if (job.threads() || job.launcherPid() <= 0) {
            return;
        }
        ProcessHandle.of(job.launcherPid()).ifPresentOrElse(
                launcher -> launcher.onExit().thenRun(() -> orphaned(job)),
                () -> orphaned(job));
    }

    private static void orphaned(JobInfo job) {
        System.err.println("tutti: rank " + job.rank() + " stops: its launcher (pid " + job.launcherPid()
                + ") has died");
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }
}
