package io.tutti.bootstrap;

import io.tutti.idle.Idle;
import io.tutti.transport.KeyValueStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Rendezvous key-value store in a directory every rank can reach: a put is a file written aside and
 * renamed into place (atomic), a get waits for the file, a fence waits for every rank's mark. Rank
 * {@code r}'s key {@code k} is the file {@code k-r}.
 * Used by {@code tutti run} (the job directory) and by foreign launchers ({@code TUTTI_KVS_DIR}).
 */
public final class FileKeyValueStore implements KeyValueStore {
    private final Path dir;
    private final int rank;
    private final int size;
    private final Duration timeout;
    private final BooleanSupplier abort;
    private int fenceEpoch;
    /** A file appears without a doorbell: looks from 20 µs apart, doubling to 5 ms ({@link Idle#FILE}). */
    private static final Idle IDLE = new Idle(Idle.FILE);

    public FileKeyValueStore(Path dir, int rank, int size, Duration timeout, BooleanSupplier abort) {
        this.dir = dir;
        this.rank = rank;
        this.size = size;
        this.timeout = timeout;
        this.abort = abort;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the rendezvous directory " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void put(String key, String value) {
        checkKey(key);
        Path target = dir.resolve(key + "-" + rank);
        Path tmp = dir.resolve("." + key + ".tmp-" + rank + "-" + ProcessHandle.current().pid() + "-"
                + Thread.currentThread().threadId());
        try {
            Files.writeString(tmp, value, StandardCharsets.UTF_8);
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system; the directory's permissions still apply
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("rendezvous put of '" + key + "' in " + dir + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String get(int owner, String key) throws TimeoutException {
        checkKey(key);
        Path target = dir.resolve(key + "-" + owner);
        long deadline = System.nanoTime() + timeout.toNanos();
        int round = 0;
        while (true) {
            try {
                return Files.readString(target, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                // not there yet
            } catch (IOException e) {
                throw new UncheckedIOException("rendezvous get of '" + key + "' failed: " + e.getMessage(), e);
            }
            if (abort.getAsBoolean()) {
                throw new TimeoutException("rendezvous for '" + key + "' abandoned: the job is ending");
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("rank " + owner + " did not publish '" + key + "' in " + dir + " within "
                        + timeout.toMillis() + " ms; did every rank start?");
            }
            round = IDLE.idle(round);
        }
    }

    @Override
    public void fence() throws TimeoutException {
        int epoch = fenceEpoch++;
        put("fence-" + epoch, "");
        for (int r = 0; r < size; r++) {
            get(r, "fence-" + epoch);
        }
    }

    private static void checkKey(String key) {
        if (key.isEmpty() || key.contains("/") || key.startsWith(".")) {
            throw new IllegalArgumentException("bad rendezvous key '" + key + "'");
        }
    }
}
