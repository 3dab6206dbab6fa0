package io.tutti.systest;

import io.tutti.Communicator;
import io.tutti.Tutti;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Helpers for the programs the system tests run as ranks: they tell the test their pids through
 * files (the test process has no other way to learn them) and synchronise with a hand-made barrier,
 * so the programs exercise nothing but point-to-point.
 */
final class Ranks {
    private Ranks() {
    }

    /** Writes {@code rank-R.NAME} in {@code dir} holding this process's pid, atomically. */
    static void mark(Path dir, int rank, String name) {
        try {
            Path tmp = dir.resolve(".rank-" + rank + "." + name + ".tmp");
            Files.writeString(tmp, Long.toString(ProcessHandle.current().pid()));
            Files.move(tmp, dir.resolve("rank-" + rank + "." + name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code rank-R.done}, then holds still until the test writes {@code go} in {@code dir}, at
     * most 120 s, calling only {@code Tutti.progress()} (which sends and receives nothing of its own),
     * so the test reads counters that no longer change.
     */
    static void holdUntilGo(Path dir, int rank, Tutti tutti) throws InterruptedException {
        mark(dir, rank, "done");
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(dir.resolve("go")) && System.nanoTime() < deadline) {
            tutti.progress();
            Thread.sleep(20);
        }
    }

    /**
     * The start of the blocking rank programs: initialises Tutti, writes {@code rank-R.pid}, meets
     * the others, writes {@code rank-R.ready}, and returns the world.
     */
    static Communicator ready(Path dir, String[] args) {
        Communicator w = Tutti.init(args).world();
        mark(dir, w.rank(), "pid");
        barrier(w);
        mark(dir, w.rank(), "ready");
        return w;
    }

    /** Everyone reports to rank 0, which releases everyone: a barrier from sends and receives. */
    static void barrier(Communicator world) {
        byte[] token = new byte[1];
        if (world.rank() == 0) {
            for (int r = 1; r < world.size(); r++) {
                world.recv(token, 0, 1, r, 900);
            }
            for (int r = 1; r < world.size(); r++) {
                world.send(token, 0, 1, r, 901);
            }
        } else {
            world.send(token, 0, 1, 0, 900);
            world.recv(token, 0, 1, 0, 901);
        }
    }
}
