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
}
