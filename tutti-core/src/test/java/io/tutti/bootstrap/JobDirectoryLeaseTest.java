package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The job directory of a foreign launcher's job: removed by its last rank, or swept once all its ranks died. */
@Timeout(60)
class JobDirectoryLeaseTest {
    @TempDir
    Path root;

    private JobInfo job(String id, int rank) {
        Path dir = root.resolve("tutti-" + id);
        return new JobInfo(JobInfo.Launcher.SLURM, id, rank, 2, rank, 2, 0, dir, dir.resolve("kvs"), null, -1, false);
    }

    @Test
    void theLastRankToLetGoRemovesTheDirectory() throws Exception {
        JobDirectoryLease a = JobDirectoryLease.take(job("j1", 0));
        JobDirectoryLease b = JobDirectoryLease.take(job("j1", 1));
        Files.writeString(root.resolve("tutti-j1").resolve("ring-0"), "x");
        a.release();
        assertTrue(Files.isDirectory(root.resolve("tutti-j1")), "rank 1 still holds it");
        a.release(); // idempotent
        assertTrue(Files.isDirectory(root.resolve("tutti-j1")));
        b.release();
        assertFalse(Files.exists(root.resolve("tutti-j1")), "the last rank removed it");
    }

    @Test
    void aCrashedJobsDirectoryIsSweptByTheNextJobButALiveOneIsNot() throws Exception {
        Path crashed = root.resolve("tutti-old");
        Files.createDirectories(crashed.resolve("ranks"));
        Files.writeString(crashed.resolve("ranks").resolve("0"), Long.MAX_VALUE / 2 + " 0"); // no such pid
        Files.writeString(crashed.resolve("ring-0"), "x");
        Path live = root.resolve("tutti-live");
        Files.createDirectories(live.resolve("ranks"));
        ProcessHandle me = ProcessHandle.current();
        Files.writeString(live.resolve("ranks").resolve("0"),
                me.pid() + " " + me.info().startInstant().orElseThrow().toEpochMilli());
        Path starting = root.resolve("tutti-starting");
        Files.createDirectories(starting.resolve("ranks")); // no rank registered yet
        Path other = root.resolve("tutti-byrun");
        Files.createDirectories(other); // tutti run's: no ranks directory

        JobDirectoryLease lease = JobDirectoryLease.take(job("new", 0));
        assertFalse(Files.exists(crashed), "all its ranks are dead");
        assertTrue(Files.isDirectory(live), "a live rank holds it");
        assertTrue(Files.isDirectory(starting), "a job that is starting is left alone");
        assertTrue(Files.isDirectory(other), "a directory without ranks is not ours to sweep");
        lease.release();
        assertFalse(Files.exists(root.resolve("tutti-new")));
    }

    @Test
    void aReusedPidDoesNotKeepADirectory() {
        ProcessHandle me = ProcessHandle.current();
        long started = me.info().startInstant().orElseThrow().toEpochMilli();
        assertTrue(JobDirectoryLease.alive(me.pid() + " " + started));
        assertFalse(JobDirectoryLease.alive(me.pid() + " " + (started - 60_000)), "same pid, another process");
        assertFalse(JobDirectoryLease.alive("garbage"));
    }
}
