package io.tutti.bench.jmh;

import io.tutti.Tutti;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.bootstrap.ShmFiles;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * Two ranks of one job as threads of the benchmark JVM: rank 0 is the benchmark thread, rank 1 a
 * daemon thread that runs a loop until rank 0 tells it (through the loop's own protocol) to stop.
 */
final class ThreadRanks implements AutoCloseable {
    private final Path jobDir;
    private final Thread peer;
    private final Tutti rank0;

    /** Starts rank 1 running {@code peerLoop}, then joins as rank 0. */
    ThreadRanks(Consumer<Tutti> peerLoop) throws Exception {
        String jobId = "jmh" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        jobDir = ShmFiles.createJobDirectory(ShmFiles.defaultRoot().resolve("tutti-" + jobId));
        CountDownLatch started = new CountDownLatch(1);
        Throwable[] peerFailure = new Throwable[1];
        peer = Thread.ofPlatform().daemon().name("rank-1").start(() -> {
            try {
                Tutti t = ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT,
                        ThreadLauncher.environment(jobId, jobDir, 1, 2)).call(() -> Tutti.init(new String[0]));
                started.countDown();
                peerLoop.accept(t);
                t.close();
            } catch (Throwable e) {
                peerFailure[0] = e;
                started.countDown();
            }
        });
        rank0 = ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT,
                ThreadLauncher.environment(jobId, jobDir, 0, 2)).call(() -> Tutti.init(new String[0]));
        started.await();
        if (peerFailure[0] != null) {
            throw new IllegalStateException("rank 1 failed to start", peerFailure[0]);
        }
    }

    Tutti rank0() {
        return rank0;
    }

    /** Waits for rank 1's loop to end (rank 0 must have told it to), then closes both ranks. */
    @Override
    public void close() throws InterruptedException {
        peer.join(10_000);
        rank0.close();
        ShmFiles.deleteTree(jobDir);
    }
}
