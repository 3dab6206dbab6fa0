package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Tutti;
import io.tutti.TuttiException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Detection of the launch environment, and the file-based rendezvous store. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapTest {
    @TempDir
    Path tmp;

    // ------------------------------------------------------------------ detection

    @Test
    void tuttiRunEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put(LaunchEnvironment.JOB_ID, "j42");
        env.put(LaunchEnvironment.RANK, "3");
        env.put(LaunchEnvironment.SIZE, "8");
        env.put(LaunchEnvironment.LOCAL_RANK, "1");
        env.put(LaunchEnvironment.LOCAL_SIZE, "4");
        env.put(LaunchEnvironment.NODE_ID, "1");
        env.put(LaunchEnvironment.JOB_DIR, tmp.resolve("job").toString());
        env.put(LaunchEnvironment.SECRET_FILE, tmp.resolve("secret").toString());
        env.put(LaunchEnvironment.LAUNCHER_PID, "4711");
        // Slurm variables present as well: tutti run wins
        env.put("SLURM_PROCID", "0");
        env.put("SLURM_NTASKS", "1");
        JobInfo j = Bootstrap.detect(env);
        assertEquals(JobInfo.Launcher.TUTTI, j.launcher());
        assertEquals("j42", j.jobId());
        assertEquals(3, j.rank());
        assertEquals(8, j.size());
        assertEquals(1, j.localRank());
        assertEquals(4, j.localSize());
        assertEquals(1, j.nodeId());
        assertEquals(tmp.resolve("job"), j.jobDir());
        assertEquals(tmp.resolve("job").resolve("kvs"), j.kvsDir(), "the store defaults to the job directory");
        assertEquals(tmp.resolve("secret"), j.secretFile());
        assertEquals(4711, j.launcherPid());
        assertFalse(j.threads());

        env.put(LaunchEnvironment.KVS_DIR, tmp.resolve("elsewhere").toString());
        env.put(LaunchEnvironment.THREADS, "1");
        env.remove(LaunchEnvironment.LOCAL_RANK);
        env.remove(LaunchEnvironment.LOCAL_SIZE);
        JobInfo k = Bootstrap.detect(env);
        assertEquals(tmp.resolve("elsewhere"), k.kvsDir());
        assertTrue(k.threads());
        assertEquals(3, k.localRank(), "local rank defaults to the rank");
        assertEquals(8, k.localSize(), "local size defaults to the size");
    }

    @Test
    void tuttiRunEnvironmentWithMissingOrBadVariablesIsAClearError() {
        Map<String, String> env = new HashMap<>();
        env.put(LaunchEnvironment.RANK, "0");
        env.put(LaunchEnvironment.SIZE, "2");
        env.put(LaunchEnvironment.JOB_DIR, tmp.toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains(LaunchEnvironment.JOB_ID), e.getMessage());

        env.put(LaunchEnvironment.JOB_ID, "j");
        env.put(LaunchEnvironment.RANK, "two");
        e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains(LaunchEnvironment.RANK) && e.getMessage().contains("two"), e.getMessage());

        env.put(LaunchEnvironment.RANK, "2");
        e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains("rank 2 of size 2"), e.getMessage());
    }

    @Test
    void slurm() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_PROCID", "5");
        env.put("SLURM_NTASKS", "8");
        env.put("SLURM_LOCALID", "1");
        env.put("SLURM_NODEID", "1");
        env.put("SLURM_NTASKS_PER_NODE", "4(x2)");
        env.put("SLURM_JOB_ID", "991");
        env.put("SLURM_STEP_ID", "3");
        env.put(LaunchEnvironment.KVS_DIR, tmp.toString());
        JobInfo j = Bootstrap.detect(env);
        assertEquals(JobInfo.Launcher.SLURM, j.launcher());
        assertEquals(5, j.rank());
        assertEquals(8, j.size());
        assertEquals(1, j.localRank());
        assertEquals(4, j.localSize(), "4(x2): four tasks on each of two nodes");
        assertEquals(1, j.nodeId());
        assertEquals(tmp, j.kvsDir());
        assertEquals("slurm-991.3", j.jobId());
        assertTrue(j.jobDir().getFileName().toString().contains("slurm-991.3"), j.jobDir().toString());
        assertNull(j.secretFile());
        assertEquals(-1, j.launcherPid());

        env.put("SLURM_NTASKS_PER_NODE", "6");
        assertEquals(6, Bootstrap.detect(env).localSize());
        env.remove("SLURM_NTASKS_PER_NODE");
        assertEquals(8, Bootstrap.detect(env).localSize(), "without a per-node count, all tasks are local");
        env.put("SLURM_NTASKS_PER_NODE", "(x2)");
        assertEquals(8, Bootstrap.detect(env).localSize(), "an unreadable per-node count falls back");

        // only one of the two required variables: not Slurm
        Map<String, String> partial = Map.of("SLURM_PROCID", "0");
        assertEquals(JobInfo.Launcher.SINGLETON, Bootstrap.detect(partial).launcher());
    }

    @Test
    void slurmLocalSizeIsThisNodesCount() {
        Map<String, String> env = new HashMap<>();
        env.put("SLURM_PROCID", "9");
        env.put("SLURM_NTASKS", "11");
        env.put("SLURM_LOCALID", "1");
        env.put("SLURM_NODEID", "2");
        env.put("SLURM_NTASKS_PER_NODE", "4(x2),3");
        env.put("SLURM_TASKS_PER_NODE", "4(x2),3");
        env.put(LaunchEnvironment.KVS_DIR, tmp.toString());
        assertEquals(3, Bootstrap.detect(env).localSize());
    }

    @Test
    void slurmsCompressedCountsAreWrittenOutOnePerNode() {
        assertEquals(List.of(2, 2, 2, 1), Bootstrap.slurmPerNode("2(x3),1"));
        assertEquals(List.of(4), Bootstrap.slurmPerNode(" 4 "));
        assertEquals(List.of(1, 3, 3), Bootstrap.slurmPerNode("1,3(x2)"));
        for (String bad : List.of("", "2(x3", "2x3", "a", "2,,1", "(x2)", "2(x1000001)")) {
            assertThrows(IllegalArgumentException.class, () -> Bootstrap.slurmPerNode(bad), bad);
        }
    }

    @Test
    void openMpi() {
        Map<String, String> env = new HashMap<>();
        env.put("OMPI_COMM_WORLD_RANK", "2");
        env.put("OMPI_COMM_WORLD_SIZE", "4");
        env.put("OMPI_COMM_WORLD_LOCAL_RANK", "0");
        env.put("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
        env.put("OMPI_MCA_ess_base_jobid", "12345");
        env.put(LaunchEnvironment.KVS_DIR, tmp.toString());
        JobInfo j = Bootstrap.detect(env);
        assertEquals(JobInfo.Launcher.OPEN_MPI, j.launcher());
        assertEquals(2, j.rank());
        assertEquals(4, j.size());
        assertEquals(0, j.localRank());
        assertEquals(2, j.localSize());
        assertEquals("ompi-12345", j.jobId());
        assertEquals(tmp, j.kvsDir());

        env.remove("OMPI_MCA_ess_base_jobid");
        env.put("PMIX_NAMESPACE", "prterun-host-1234@1");
        JobInfo k = Bootstrap.detect(env);
        assertFalse(k.jobId().contains("@") || k.jobId().contains("/"), "the job id is safe as a file name: "
                + k.jobId());
        assertTrue(k.jobId().startsWith("ompi-prterun-host-1234"), k.jobId());
    }

    @Test
    void mpichHydra() {
        Map<String, String> env = new HashMap<>();
        env.put("PMI_RANK", "1");
        env.put("PMI_SIZE", "3");
        env.put("PMI_KVSNAME", "kvs_777_0");
        env.put("MPI_LOCALRANKID", "1");
        env.put("MPI_LOCALNRANKS", "3");
        env.put(LaunchEnvironment.KVS_DIR, tmp.toString());
        JobInfo j = Bootstrap.detect(env);
        assertEquals(JobInfo.Launcher.MPICH, j.launcher());
        assertEquals(1, j.rank());
        assertEquals(3, j.size());
        assertEquals(1, j.localRank());
        assertEquals(3, j.localSize());
        assertEquals("mpich-kvs_777_0", j.jobId());
    }

    @Test
    void underAPmixLauncherTheRanksMeetThroughItsLibraryOrSayWhatToDo() {
        Map<String, String> env = new HashMap<>(Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_MCA_ess_base_jobid", "4242", "PMIX_NAMESPACE", "4242", "PMIX_RANK", "1"));
        env.put(LaunchEnvironment.PMIX_LIBRARY, tmp.resolve("no-such-libpmix.so").toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains("offers PMIx") && e.getMessage().contains("no-such-libpmix.so")
                && e.getMessage().contains(LaunchEnvironment.PMIX_LIBRARY), e.getMessage());
        // a rendezvous directory still wins over the launcher's PMIx
        env.put(LaunchEnvironment.KVS_DIR, tmp.toString());
        JobInfo j = Bootstrap.detect(env);
        assertEquals(JobInfo.Launcher.OPEN_MPI, j.launcher());
        assertEquals("ompi-4242", j.jobId());
        assertEquals(tmp, j.kvsDir());
    }

    @Test
    void singleton() {
        JobInfo j = Bootstrap.detect(Map.of("PATH", "/usr/bin", "HOME", "/root"));
        assertEquals(JobInfo.Launcher.SINGLETON, j.launcher());
        assertEquals(0, j.rank());
        assertEquals(1, j.size());
        assertEquals(0, j.localRank());
        assertEquals(1, j.localSize());
        assertTrue(j.jobId().contains(Long.toString(ProcessHandle.current().pid())), j.jobId());
        assertEquals(j.jobDir().resolve("kvs"), j.kvsDir());
    }

    @Test
    void aForeignLauncherOfOneRankNeedsNoRendezvousDirectory() {
        JobInfo j = Bootstrap.detect(Map.of("PMI_RANK", "0", "PMI_SIZE", "1"));
        assertEquals(JobInfo.Launcher.MPICH, j.launcher());
        assertEquals(1, j.size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SLURM", "OPEN_MPI", "MPICH"})
    void aForeignLauncherWithSeveralRanksAndNoKvsDirIsAClearError(String launcher) {
        Map<String, String> env = switch (launcher) {
            case "SLURM" -> Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2");
            case "OPEN_MPI" -> Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2");
            default -> Map.of("PMI_RANK", "0", "PMI_SIZE", "2");
        };
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains(LaunchEnvironment.KVS_DIR), e.getMessage());
        assertTrue(e.getMessage().contains(launcher), e.getMessage());
        assertTrue(e.getMessage().contains("2 ranks"), e.getMessage());
        assertTrue(e.getMessage().contains("tutti run"), "says what else to do: " + e.getMessage());

        // and Tutti.init turns it into a start-up error with the same advice
        TuttiException.Startup s = assertThrows(TuttiException.Startup.class, () ->
                ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT, env).call(() -> Tutti.init(new String[0])));
        assertTrue(s.getMessage().contains(LaunchEnvironment.KVS_DIR), s.getMessage());
    }

    @Test
    void inconsistentForeignRanksAreRejected() {
        Map<String, String> env = Map.of("OMPI_COMM_WORLD_RANK", "4", "OMPI_COMM_WORLD_SIZE", "4",
                LaunchEnvironment.KVS_DIR, tmp.toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains("rank 4 of size 4"), e.getMessage());
        Map<String, String> bad = Map.of("PMI_RANK", "x", "PMI_SIZE", "2", LaunchEnvironment.KVS_DIR, tmp.toString());
        e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(bad));
        assertTrue(e.getMessage().contains("PMI_RANK"), e.getMessage());
    }

    @Test
    void launchEnvironmentIsPerRankInsideAScopedBinding() throws Exception {
        Map<String, String> mine = Map.of(LaunchEnvironment.RANK, "7");
        String seen = ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT, mine)
                .call(() -> LaunchEnvironment.current().get(LaunchEnvironment.RANK));
        assertEquals("7", seen);
        assertEquals(System.getenv(), LaunchEnvironment.current(), "outside a binding: the process environment");
    }

    // ------------------------------------------------------------------ key-value store

    @Test
    void putGetAndFenceAcrossThreads() throws Exception {
        int n = 6;
        int fences = 5;
        Path dir = tmp.resolve("kvs");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final int rank = r;
            threads.add(Thread.ofPlatform().name("kvs-" + r).start(() -> {
                try {
                    FileKeyValueStore kvs = new FileKeyValueStore(dir, rank, n, Duration.ofSeconds(30), () -> false);
                    // a store that does not wait: what a fence promises must be there already
                    FileKeyValueStore now = new FileKeyValueStore(dir, rank, n, Duration.ZERO, () -> false);
                    for (int e = 0; e < fences; e++) {
                        kvs.put("k-" + e, "value " + e + " of rank " + rank + " \u00e9\u4e2d");
                        kvs.fence();
                        for (int o = 0; o < n; o++) {
                            assertEquals("value " + e + " of rank " + o + " \u00e9\u4e2d", now.get(o, "k-" + e),
                                    "after fence " + e + ", rank " + o + "'s put is visible to rank " + rank);
                        }
                    }
                    // a get waits for a put that comes later
                    if (rank == 0) {
                        String v = kvs.get(n - 1, "late");
                        assertEquals("here", v);
                    } else if (rank == n - 1) {
                        Thread.sleep(50);
                        kvs.put("late", "here");
                    }
                    kvs.fence();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(45));
            assertFalse(t.isAlive(), t.getName() + " is stuck");
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().contains(".tmp-")),
                    "no temporary files are left behind");
        }
    }

    @Test
    void getTimesOutNamingTheKey() {
        FileKeyValueStore kvs = new FileKeyValueStore(tmp.resolve("kvs"), 0, 2, Duration.ofMillis(150), () -> false);
        TimeoutException e = assertThrows(TimeoutException.class, () -> kvs.get(1, "endpoint"));
        assertTrue(e.getMessage().contains("rank 1 did not publish 'endpoint'"), e.getMessage());
        TimeoutException f = assertThrows(TimeoutException.class, kvs::fence);
        assertTrue(f.getMessage().contains("rank 1 did not publish 'fence-0'"), "names the missing rank's mark: "
                + f.getMessage());
    }

    @Test
    void theTimeoutMessageStatesASubSecondTimeoutCorrectly() {
        FileKeyValueStore kvs = new FileKeyValueStore(tmp.resolve("kvs"), 0, 1, Duration.ofMillis(150), () -> false);
        TimeoutException e = assertThrows(TimeoutException.class, () -> kvs.get(0, "missing"));
        assertFalse(e.getMessage().contains("within 0 s"), e.getMessage());
    }

    @Test
    void getEndsWhenTheJobIsAborted() {
        FileKeyValueStore kvs = new FileKeyValueStore(tmp.resolve("kvs"), 0, 2, Duration.ofSeconds(30), () -> true);
        TimeoutException e = assertThrows(TimeoutException.class, () -> kvs.get(1, "never"));
        assertTrue(e.getMessage().contains("never") && e.getMessage().contains("abandoned"), e.getMessage());
    }

    @Test
    void badKeysAreRejected() {
        FileKeyValueStore kvs = new FileKeyValueStore(tmp.resolve("kvs"), 0, 1, Duration.ofMillis(10), () -> false);
        for (String key : new String[] {"", "a/b", ".hidden", "../up"}) {
            assertThrows(IllegalArgumentException.class, () -> kvs.put(key, "v"), key);
            assertThrows(IllegalArgumentException.class, () -> kvs.get(0, key), key);
        }
        kvs.put("ok", "first");
        kvs.put("ok", "second");
        assertDoesNotThrow(() -> assertEquals("second", kvs.get(0, "ok")));
    }
}
