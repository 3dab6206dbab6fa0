package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShmFilesTest {
    /** A launcher's shutdown hook and its main thread both remove the job directory; neither may leave it. */
    @Test
    void twoCleanersAtOnceRemoveTheWholeTree(@TempDir Path tmp) throws Exception {
        for (int round = 0; round < 50; round++) {
            Path dir = tmp.resolve("job-" + round);
            for (int d = 0; d < 8; d++) {
                Path sub = Files.createDirectories(dir.resolve("sub-" + d));
                for (int f = 0; f < 40; f++) {
                    Files.writeString(sub.resolve("f" + f), "x");
                }
            }
            CyclicBarrier start = new CyclicBarrier(2);
            Runnable clean = () -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                ShmFiles.deleteTree(dir);
            };
            Thread other = Thread.ofPlatform().start(clean);
            clean.run();
            // the check is for each cleaner on its own: the hook's JVM may exit before the other ends
            assertFalse(Files.exists(dir), "round " + round + ": this cleaner left " + dir);
            other.join();
        }
    }
}
