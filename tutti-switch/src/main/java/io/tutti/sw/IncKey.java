package io.tutti.sw;

import io.tutti.TuttiException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Set;

/**
 * The key that switches and leaders tag their control packets with ({@link ControlAuth}): one
 * file of hex digits, at least {@value #MIN_HEX_DIGITS} (16 bytes), made for example by
 * {@code openssl rand -hex 32}, the same file on every switch and leader. Read like an ssh key: a
 * file that its group or others may use is refused, with the chmod that fixes it.
 */
public final class IncKey {
    /** 128 bits: a shorter HMAC key would be the weakest part of the tag. */
    public static final int MIN_HEX_DIGITS = 32;
    /** Longer than any key: what is past it is not a key file. */
    private static final int MAX_FILE_BYTES = 4096;
    private static final Set<PosixFilePermission> OTHERS = Set.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final Path file;
    private final byte[] bytes;

    private IncKey(Path file, byte[] bytes) {
        this.file = file;
        this.bytes = bytes;
    }

    /**
     * Reads the key in {@code file}; {@code setting} names where the file was given (an option or
     * a setting) in the one-line error that a missing, open or malformed file gets.
     */
    public static IncKey read(String setting, Path file) {
        String where = setting + " " + file;
        try {
            PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
            if (view != null) {
                Set<PosixFilePermission> perms = view.readAttributes().permissions();
                if (perms.stream().anyMatch(OTHERS::contains)) {
                    throw new TuttiException.InvalidArgument(where + " is open to others ("
                            + PosixFilePermissions.toString(perms) + "): a key must be the owner's only; run chmod 600 "
                            + file);
                }
            }
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw malformed(where);
            }
            return new IncKey(file, parse(where, Files.readString(file)));
        } catch (NoSuchFileException e) {
            throw new TuttiException.InvalidArgument(where + ": no such file");
        } catch (AccessDeniedException e) {
            throw new TuttiException.InvalidArgument(where + ": permission denied (the key file must be readable by"
                    + " the user that runs this process)");
        } catch (IOException e) {
            throw new TuttiException.InvalidArgument(where + ": cannot read it (" + e.getMessage() + ")");
        }
    }

    /** The key of {@code text}: hex digits, white space around them ignored. */
    static byte[] parse(String where, String text) {
        String hex = text.strip();
        if (hex.length() < MIN_HEX_DIGITS || hex.length() % 2 != 0) {
            throw malformed(where);
        }
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw malformed(where);
        }
    }

    private static TuttiException.InvalidArgument malformed(String where) {
        return new TuttiException.InvalidArgument(where + " must hold one key of " + MIN_HEX_DIGITS
                + " or more hex digits (an even number), e.g. made by: openssl rand -hex 32");
    }

    /** A key from its bytes, for tests and embedding. */
    public static IncKey of(byte[] bytes) {
        if (bytes.length * 2 < MIN_HEX_DIGITS) {
            throw new IllegalArgumentException("a key has at least " + MIN_HEX_DIGITS / 2 + " bytes");
        }
        return new IncKey(null, bytes.clone());
    }

    /** The file it was read from (null for {@link #of}). */
    public Path file() {
        return file;
    }

    byte[] bytes() {
        return bytes;
    }

    /** Names the file, never the key. */
    @Override
    public String toString() {
        return file == null ? "key" : "key of " + file;
    }
}
