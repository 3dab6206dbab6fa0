package io.tutti.bootstrap;

import io.tutti.Config;
import io.tutti.Tutti;
import java.time.Duration;

/**
 * The training run behind {@code tutti run}'s start-up cache (a JDK AOT cache, JEP 483/515): a job
 * of two ranks as threads of this JVM that meet over the network rails, as ranks on different hosts
 * do, and complete a barrier and an allreduce, so that the classes and method profiles of a rank's
 * start-up are the ones recorded. Exits 0 when the job succeeded, 1 otherwise. Started as a rank
 * of a job ({@code TUTTI_JOB_ID} set), it makes the same calls as that rank: the launcher's own
 * training runs it so.
 */
public final class StartupTraining {
    private StartupTraining() {
    }

    public static void main(String[] args) {
        if (LaunchEnvironment.current().get(LaunchEnvironment.JOB_ID) != null) {
            // a rank of a job (the launcher's own training, StartupCache#prepareLauncher): the same calls
            try (Tutti tutti = Tutti.init(args)) {
                work(tutti, tutti.world().rank());
            }
            return;
        }
        ThreadLauncher.Outcome outcome = ThreadLauncher.run(2, Duration.ofSeconds(60), rank -> {
            try (Tutti tutti = Tutti.init(Config.defaults().with("tutti.transport", "net"))) {
                work(tutti, rank);
            }
        });
        if (!outcome.succeeded()) {
            System.err.println("tutti: the start-up training failed: " + outcome.firstFailure());
        }
        System.exit(outcome.succeeded() ? 0 : 1);
    }

    private static void work(Tutti tutti, int rank) {
        tutti.world().barrier();
        int[] sum = {rank};
        tutti.world().allreduce(sum, io.tutti.ReduceOp.SUM);
        tutti.world().barrier();
    }
}
