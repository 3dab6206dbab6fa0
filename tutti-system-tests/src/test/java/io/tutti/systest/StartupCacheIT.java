package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * tutti run's start-up caches (JDK AOT caches of the rank JVMs and of the launcher): made by the
 * first job, reused by the next without being made again, found by the {@code tutti} script, and a
 * corrupt cache leaves jobs running as without one.
 */
@Timeout(600)
class StartupCacheIT {
    @TempDir
    Path work;

    private Launch.Result job(Path cache) throws Exception {
        return Launch.run(work, Map.of("TUTTI_AOT_CACHE_DIR", cache.toString()), Duration.ofSeconds(280), "run",
                "-n", "2", "--timeout", "240s", "--cp", Launch.testClasses(), "io.tutti.systest.Hello");
    }

    private static List<Path> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    /**
     * {@code tutti ARGS} as the distribution's script starts it: the script in a copy of the
     * archive's layout whose {@code lib} links to the assembly's jars, the class loading logged.
     */
    private Launch.Result script(Path cache, String... args) throws Exception {
        Path dist = work.resolve("dist");
        if (!Files.isDirectory(dist)) {
            Files.createDirectories(dist.resolve("bin"));
            Path bin = Files.copy(Path.of("..", "tutti-dist", "src", "bin", "tutti"), dist.resolve("bin/tutti"));
            Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.createSymbolicLink(dist.resolve("lib"), Launch.lib().toRealPath());
        }
        List<String> cmd = new ArrayList<>(List.of(dist.resolve("bin/tutti").toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "script", ".out");
        Path err = Files.createTempFile(work, "script", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("TUTTI_AOT_CACHE_DIR", cache.toString());
        pb.environment().put("JDK_JAVA_OPTIONS", "-Xlog:class+load=info:stdout");
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not end within 120 s");
        }
        return new Launch.Result(p.exitValue(), Files.readString(out), Files.readString(err), Duration.ZERO);
    }

    /** The link to the assembly goes before the temporary directory does (JUnit warns of links leading out). */
    @AfterEach
    void unlink() throws Exception {
        Files.deleteIfExists(work.resolve("dist").resolve("lib"));
    }

    private static FileTime modified(Path file) throws Exception {
        return Files.getLastModifiedTime(file);
    }

    @Test
    void theCachesAreMadeOnceAndReusedAndACorruptOneIsIgnored() throws Exception {
        Path cache = work.resolve("cache");
        Launch.Result first = job(cache);
        assertExit(0, first);
        List<Path> made = files(cache);
        List<String> names = made.stream().map(f -> f.getFileName().toString().replaceAll("[0-9a-f]{16}", "H")).toList();
        assertEquals(List.of("aot-H.aot", "launcher-H.aot", "launcher-H.key"), names,
                "the ranks' cache, the launcher's and its build, no leftovers: " + made);
        for (Path f : made) {
            assertTrue(Files.size(f) > 0, f::toString);
        }
        List<FileTime> madeAt = new ArrayList<>();
        for (Path f : made) {
            madeAt.add(modified(f));
        }

        Launch.Result second = job(cache);
        assertExit(0, second);
        assertEquals(made, files(cache));
        for (int i = 0; i < made.size(); i++) {
            assertEquals(madeAt.get(i), modified(made.get(i)), "the second job made " + made.get(i) + " again");
        }

        // the script finds the launcher's cache by its name alone, and the JVM takes the launcher's classes from it
        String fromCache = "io.tutti.cli.Main source: shared objects file";
        Launch.Result cached = script(cache, "--version");
        assertExit(0, cached);
        assertTrue(cached.stdout().contains(fromCache), cached::toString);
        Launch.Result without = script(work.resolve("no-cache"), "--version");
        assertExit(0, without);
        assertFalse(without.stdout().contains(fromCache), without::toString);

        for (Path f : made) {
            if (f.toString().endsWith(".aot")) {
                Files.writeString(f, "not an AOT cache");
            }
        }
        Launch.Result third = job(cache);
        assertExit(0, third);
        assertTrue(third.stdout().contains("hello from rank 1 of 2"), third::toString);
        assertFalse(third.stderr().toLowerCase(java.util.Locale.ROOT).contains("aot"), third::toString);
        Launch.Result corrupt = script(cache, "--version");
        assertExit(0, corrupt);
        assertTrue(corrupt.stdout().contains("tutti "), corrupt::toString);
        assertFalse(corrupt.stdout().contains(fromCache), corrupt::toString);
        assertFalse(corrupt.stderr().toLowerCase(java.util.Locale.ROOT).contains("aot"), corrupt::toString);
    }
}
