package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A job's identity, its secret and the launcher's shared-memory directory, set up before any rank
 * starts: the owner-only directory with the launcher's pid in it (for {@link StaleJobs}), and 256
 * random bits that only the launcher and the ranks know (handed over with the rendezvous address,
 * never written to a file): the rendezvous credential and the rails' HMAC key.
 *
 * @param id     the job id, 12 hex digits
 * @param dir    the job directory under the shared-memory root
 * @param secret the job's secret
 */
record JobDirectory(String id, Path dir, byte[] secret) {
    static final int SECRET_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Creates the job directory with the launcher's pid, and the secret. {@code launcher.pid} is
     * written atomically so that a concurrent stale-job cleaner never sees it empty.
     */
    static JobDirectory create() throws IOException {
        return create(id -> {
            byte[] secret = new byte[SECRET_BYTES];
            RANDOM.nextBytes(secret);
            return secret;
        });
    }

    /** As {@link #create()}, with the secret {@code secretOf} gives for the new job's id (a spawned job's). */
    static JobDirectory create(java.util.function.Function<String, byte[]> secretOf) throws IOException {
        Path root = ShmFiles.defaultRoot();
        String id;
        Path dir;
        do {
            byte[] raw = new byte[6];
            RANDOM.nextBytes(raw);
            id = HexFormat.of().formatHex(raw);
            dir = root.resolve("tutti-" + id);
        } while (Files.exists(dir));
        ShmFiles.createJobDirectory(dir);
        writeAtomically(dir, StaleJobs.LAUNCHER_PID, ProcessHandle.current().pid() + "\n");
        return new JobDirectory(id, dir, secretOf.apply(id));
    }

    static void writeAtomically(Path dir, String name, String content) throws IOException {
        Path tmp = dir.resolve("." + name + ".tmp");
        Files.writeString(tmp, content);
        try {
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
