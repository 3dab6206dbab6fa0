package io.tutti.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Creation and mapping of a job's shared-memory files. A job owns one directory (owner-only
 * permissions); each file in it is created by exactly one rank and mapped by the others.
 */
public final class ShmFiles {
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

    private ShmFiles() {
    }

    /** The default parent of job directories: /dev/shm where it exists, else the temp directory. */
    public static Path defaultRoot() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Creates (or accepts an existing) job directory with owner-only permissions. */
    public static Path createJobDirectory(Path dir) {
        try {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
            } catch (FileAlreadyExistsException e) {
                // another rank of the same job was first
            }
            Files.setPosixFilePermissions(dir, OWNER_DIR);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the job directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Creates a new file of {@code length} zero bytes readable only by the owner, and maps it. */
    public static MemorySegment createAndMap(Path file, long length, Arena arena) {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_FILE));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[1]), length - 1);
                return ch.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create shared-memory file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Maps an existing file whole; returns null if it does not exist (yet). */
    public static MemorySegment mapExisting(Path file, Arena arena) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map shared-memory file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Removes a directory tree, ignoring what is already gone. Two cleaners may run at once (a
     * launcher's shutdown hook and its main thread): an entry the other removed is skipped, not an
     * end of the walk, and a walk is repeated while the directory still stands.
     */
    public static void deleteTree(Path dir) {
        for (int attempt = 0; attempt < 3 && Files.exists(dir, LinkOption.NOFOLLOW_LINKS); attempt++) {
            try {
                Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        quietlyDelete(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        return FileVisitResult.CONTINUE;   // removed by the other cleaner
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e) {
                        quietlyDelete(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException | UncheckedIOException ignored) {
                // the directory vanished while walking: the loop's check says whether it is gone
            }
        }
    }

    private static void quietlyDelete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a directory another process is still filling: the next attempt takes it
        }
    }
}
