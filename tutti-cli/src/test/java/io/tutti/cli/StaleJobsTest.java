package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaleJobsTest {
    @TempDir
    Path root;

    private static final LongPredicate ALIVE_100_ONLY = pid -> pid == 100;

    private Path job(String name, String launcherPid, String rankPids, String kvsRank) throws Exception {
        Path dir = Files.createDirectory(root.resolve(name));
        if (launcherPid != null) {
            Files.writeString(dir.resolve(StaleJobs.LAUNCHER_PID), launcherPid);
        }
        if (rankPids != null) {
            Files.writeString(dir.resolve(StaleJobs.RANK_PIDS), rankPids);
        }
        if (kvsRank != null) {
            Files.createDirectories(dir.resolve("kvs"));
            Files.writeString(dir.resolve("kvs/rank-0"), kvsRank);
        }
        return dir;
    }

    @Test
    void onlyJobsWithNothingAliveAreRemoved() throws Exception {
        Path deadLauncher = job("tutti-a", "7", null, null);
        Path liveLauncher = job("tutti-b", "100", null, null);
        Path liveRank = job("tutti-c", "7", "8 100 9", null);
        Path liveKvs = job("tutti-d", "7", null, "100 host");
        Path deadAll = job("tutti-e", "7", "8 9", "10 host");
        Path notOurs = job("other-f", "7", null, null);
        Path youngNoPid = job("tutti-g", null, null, null);
        Path liveSingleton = job("tutti-single-100", null, null, null);

        List<Path> removed = StaleJobs.clean(root, ALIVE_100_ONLY, Instant.now());

        assertEquals(Set.of(deadLauncher, deadAll), Set.copyOf(removed));
        for (Path kept : List.of(liveLauncher, liveRank, liveKvs, notOurs, youngNoPid, liveSingleton)) {
            assertTrue(Files.exists(kept), kept + " was removed");
        }
        // Once old, a directory without launcher.pid and without live pids goes; a live singleton stays.
        StaleJobs.clean(root, ALIVE_100_ONLY, Instant.now().plus(Duration.ofHours(2)));
        assertFalse(Files.exists(youngNoPid));
        assertTrue(Files.exists(liveSingleton));
    }

    /** Two launchers at once (IncIT): one's pid may appear while the other is reading the directory. */
    @Test
    void aLauncherPidWrittenWhileTheDirectoryIsReadKeepsIt() throws Exception {
        Path settingUp = job("tutti-h", null, "8", null);
        LongPredicate writesTheLauncherPidMeanwhile = pid -> {
            try {
                Files.writeString(settingUp.resolve(StaleJobs.LAUNCHER_PID), "100\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return pid == 100;
        };

        assertEquals(List.of(), StaleJobs.clean(root, writesTheLauncherPidMeanwhile, Instant.now()));
        assertTrue(Files.exists(settingUp));
    }
}
