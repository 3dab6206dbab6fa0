package io.tutti.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts the real launcher, {@code java -cp tutti-cli/target/tutti/lib/* io.tutti.cli.Main}, as a
 * separate process, the way {@code ./tutti} does, and collects what it printed.
 */
final class Launch {
    private static final Pattern JOB = Pattern.compile("job ([0-9a-f]+): ");
    private static final Pattern RANK_PID = Pattern.compile("rank (\\d+) is pid (\\d+)");

    /** How a launcher run ended. */
    record Result(int exitCode, String stdout, String stderr, Duration elapsed) {
        /** The job id the launcher printed with {@code --verbose}. */
        String jobId() {
            Matcher m = JOB.matcher(stderr);
            assertTrue(m.find(), () -> "no job id in the launcher's stderr (was --verbose given?):\n" + stderr);
            return m.group(1);
        }

        /** The rank pids the launcher printed with {@code --verbose}, in rank order. */
        List<Long> rankPids(int ranks) {
            Long[] pids = new Long[ranks];
            Matcher m = RANK_PID.matcher(stderr);
            while (m.find()) {
                pids[Integer.parseInt(m.group(1))] = Long.parseLong(m.group(2));
            }
            for (int r = 0; r < ranks; r++) {
                assertTrue(pids[r] != null, "the launcher did not report the pid of rank " + r + ":\n" + stderr);
            }
            return List.of(pids);
        }

        /** The launcher's --verbose line for a job the ranks spawned, or joined at a port. */
        private static final Pattern SPAWNED_JOB = Pattern.compile(
                "(?:spawned job ([0-9a-f]+): |joined job ([0-9a-f]+) of )");

        /** Asserts the job's shared-memory directory is gone. */
        void assertNoJobDirectory() {
            Path dir = ShmFiles.defaultRoot().resolve("tutti-" + jobId());
            assertFalse(Files.exists(dir), "the launcher left its job directory " + dir + " behind");
            Matcher spawned = SPAWNED_JOB.matcher(stderr);
            while (spawned.find()) {
                String id = spawned.group(1) != null ? spawned.group(1) : spawned.group(2);
                Path more = ShmFiles.defaultRoot().resolve("tutti-" + id);
                assertFalse(Files.exists(more), "the launcher left the directory " + more + " of a spawned or joined"
                        + " job behind");
            }
        }

        @Override
        public String toString() {
            return "exit code " + exitCode + " after " + elapsed.toMillis() + " ms\n--- stdout:\n" + stdout
                    + "--- stderr:\n" + stderr;
        }
    }

    /** A launcher running in the background. */
    record Running(Process process, Path stdout, Path stderr, long startNanos) {
        Result await(Duration limit) throws IOException, InterruptedException {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                fail("the launcher did not end within " + limit.toSeconds() + " s\n--- stdout:\n"
                        + Files.readString(stdout) + "--- stderr:\n" + Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr),
                    Duration.ofNanos(System.nanoTime() - startNanos));
        }
    }

    private Launch() {
    }

    /** The assembly's lib directory, filled by tutti-cli's package phase. */
    static Path lib() {
        Path lib = Path.of(System.getProperty("tutti.lib", "../tutti-cli/target/tutti/lib"));
        if (!Files.isDirectory(lib)) {
            fail("the assembly " + lib.toAbsolutePath() + " is missing: run ./mvnw -pl tutti-system-tests -am verify"
                    + " so that tutti-cli is packaged first");
        }
        return lib;
    }

    /** The compiled test classes, which hold the rank programs. */
    static String testClasses() {
        try {
            return Path.of(Launch.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts {@code tutti ARGS} in the background; its output goes to files in {@code work}. */
    static Running start(Path work, String... args) throws IOException {
        return start(work, java.util.Map.of(), args);
    }

    /** The command line of {@code tutti ARGS}: this JDK's java with the assembly's jars, at absolute paths. */
    static List<String> tutti(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-cp", lib().toAbsolutePath() + "/*",
                "io.tutti.cli.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts {@code tutti ARGS} in the background with {@code env} added to the launcher's environment. */
    static Running start(Path work, java.util.Map<String, String> env, String... args) throws IOException {
        return start(work, env, Path.of("/dev/null"), args);
    }

    /** As {@link #start(Path, java.util.Map, String...)}, with {@code input} as the launcher's standard input. */
    static Running start(Path work, java.util.Map<String, String> env, Path input, String... args) throws IOException {
        List<String> cmd = tutti(args);
        Path out = Files.createTempFile(work, "stdout", ".txt");
        Path err = Files.createTempFile(work, "stderr", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(input.toFile()));
        // Keep the ranks small: up to 8 JVMs share 2 cores in CI.
        pb.environment().put("TUTTI_JVM_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
        pb.environment().putAll(env);
        return new Running(pb.start(), out, err, System.nanoTime());
    }

    /** Runs {@code tutti ARGS} to its end, at most {@code limit}. */
    static Result run(Path work, Duration limit, String... args) throws IOException, InterruptedException {
        return start(work, args).await(limit);
    }

    /** Runs {@code tutti ARGS} to its end, at most {@code limit}, with {@code env} added to the environment. */
    static Result run(Path work, java.util.Map<String, String> env, Duration limit, String... args)
            throws IOException, InterruptedException {
        return start(work, env, args).await(limit);
    }

    /** Waits until {@code file} exists; fails after {@code limit}, or at once if the launcher ended. */
    static void awaitFile(Running launcher, Path file, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!Files.exists(file)) {
            if (!launcher.process().isAlive()) {
                fail("the launcher ended (exit code " + launcher.process().exitValue() + ") before " + file
                        + " appeared\n--- stderr:\n" + Files.readString(launcher.stderr()));
            }
            if (System.nanoTime() > deadline) {
                fail(file + " did not appear within " + limit.toSeconds() + " s");
            }
            Thread.sleep(20);
        }
    }

    /** The pids the ranks wrote as {@code rank-R.pid} in {@code dir}. */
    static List<Long> pids(Path dir, int ranks) {
        List<Long> pids = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            pids.add(pid(dir, r));
        }
        return pids;
    }

    static long pid(Path dir, int rank) {
        try {
            return Long.parseLong(Files.readString(dir.resolve("rank-" + rank + ".pid")).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + rank + " did not record its pid", e);
        }
    }

    /** Asserts every rank process has ended (allowing a moment for the last ones to be reaped). */
    static void assertAllDead(List<Long> pids) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (long pid : pids) {
            while (alive(pid) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertFalse(alive(pid), "rank process " + pid + " is still running after the launcher ended");
        }
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    static void assertExit(int expected, Result r) {
        assertEquals(expected, r.exitCode(), () -> "unexpected exit code:\n" + r);
    }
}
