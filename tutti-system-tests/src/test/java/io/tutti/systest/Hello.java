package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Prints who it is, its arguments (to check they pass through) and whether the job's secret is
 * 32 bytes, handed over by the launcher (or in a file readable by the owner only), on stdout, and one
 * line on stderr; then a token round.
 */
public final class Hello {
    private Hello() {
    }

    public static void main(String[] args) throws Exception {
        try (Tutti tutti = Tutti.init(args)) {
            Communicator w = tutti.world();
            io.tutti.bootstrap.JobInfo job = io.tutti.runtime.Rank.of(tutti).job();
            Path secret = job.secretFile();
            boolean secretOk = job.secret() != null ? job.secret().length == 32 && secret == null
                    : secret != null && Files.size(secret) == 32
                    && Files.getPosixFilePermissions(secret).equals(PosixFilePermissions.fromString("rw-------"));
            System.out.println("hello from rank " + w.rank() + " of " + w.size() + ", args " + List.of(args)
                    + ", secret " + (secretOk ? "ok" : "BAD: " + secret));
            System.err.println("note from rank " + w.rank());
            Ranks.barrier(w);
            System.out.print("partial line of rank " + w.rank());
        }
    }
}
