package io.tutti.cli;

import io.tutti.bootstrap.ShmFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;

/**
 * A job's identity and its shared-memory directory, set up before any rank starts: the owner-only
 * directory, the launcher's pid in it (for {@link StaleJobs}) and the per-job secret.
 *
 * @param id     the job id, 12 hex digits
 * @param dir    the job directory under the shared-memory root
 * @param secret the file that holds the job's secret
 */
record JobDirectory(String id, Path dir, Path secret) {
    /** Name of the per-job secret in the job directory. */
    static final String SECRET = "secret";
    static final int SECRET_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Creates the job directory with the launcher's pid and the secret. {@code launcher.pid} is
     * written atomically so that a concurrent stale-job cleaner never sees it empty.
     */
    static JobDirectory create() throws IOException {
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
        Path secret = dir.resolve(SECRET);
        byte[] bytes = new byte[SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        try (SeekableByteChannel ch = Files.newByteChannel(secret,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.write(ByteBuffer.wrap(bytes));
        }
        return new JobDirectory(id, dir, secret);
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
