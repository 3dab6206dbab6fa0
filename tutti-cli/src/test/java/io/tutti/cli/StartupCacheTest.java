package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupCacheTest {
    @TempDir
    Path dir;

    @Test
    void pruningKeepsTheNewestCachesAndNothingElseIsTouched() throws Exception {
        for (int i = 0; i < 6; i++) {
            Path f = Files.writeString(dir.resolve("aot-00" + i + ".aot"), "cache " + i);
            Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Files.writeString(dir.resolve("notes.txt"), "not a cache");
        Files.writeString(dir.resolve("aot-001.aot.tmp-42"), "a training in progress");
        StartupCache.prune(dir, 4);
        Set<String> left;
        try (var files = Files.list(dir)) {
            left = files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
        }
        assertEquals(Set.of("aot-002.aot", "aot-003.aot", "aot-004.aot", "aot-005.aot", "notes.txt",
                "aot-001.aot.tmp-42"), left);
    }

    @Test
    void launcherCachesArePrunedApartWithTheirKeys() throws Exception {
        for (int i = 0; i < 6; i++) {
            Path f = Files.writeString(dir.resolve("launcher-00" + i + ".aot"), "cache " + i);
            Files.writeString(dir.resolve("launcher-00" + i + ".key"), "build " + i);
            Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Path rank = Files.writeString(dir.resolve("aot-009.aot"), "a rank cache, older than all");
        Files.setLastModifiedTime(rank, FileTime.fromMillis(1));
        StartupCache.prune(dir, "launcher-", 4);
        Set<String> left;
        try (var files = Files.list(dir)) {
            left = files.map(f -> f.getFileName().toString()).collect(Collectors.toSet());
        }
        assertEquals(Set.of("launcher-002.aot", "launcher-002.key", "launcher-003.aot", "launcher-003.key",
                "launcher-004.aot", "launcher-004.key", "launcher-005.aot", "launcher-005.key", "aot-009.aot"), left);
    }
}
