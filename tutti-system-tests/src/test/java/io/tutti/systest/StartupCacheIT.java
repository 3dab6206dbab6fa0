package io.tutti.systest;

import static io.tutti.systest.Launch.assertExit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * tutti run's start-up cache (a JDK AOT cache of the rank JVMs): made by the first job, reused by the
 * next without being made again, and a corrupt cache leaves jobs running as without one.
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

    @Test
    void theCacheIsMadeOnceAndReusedAndACorruptOneIsIgnored() throws Exception {
        Path cache = work.resolve("cache");
        Launch.Result first = job(cache);
        assertExit(0, first);
        List<Path> made = files(cache);
        assertEquals(1, made.size(), "one cache file and no leftovers: " + made);
        Path file = made.getFirst();
        assertTrue(file.getFileName().toString().endsWith(".aot") && Files.size(file) > 0, file::toString);
        FileTime madeAt = Files.getLastModifiedTime(file);

        Launch.Result second = job(cache);
        assertExit(0, second);
        assertEquals(List.of(file), files(cache));
        assertEquals(madeAt, Files.getLastModifiedTime(file), "the second job made the cache again");

        Files.writeString(file, "not an AOT cache");
        Launch.Result third = job(cache);
        assertExit(0, third);
        assertTrue(third.stdout().contains("hello from rank 1 of 2"), third::toString);
        assertFalse(third.stderr().toLowerCase(java.util.Locale.ROOT).contains("aot"), third::toString);
    }
}
