package io.tutti.bootstrap;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;

/**
 * The job secret of a rank started through a remote shell, whose command line anyone on the host
 * can read: the launcher writes it as the first line of the rank's standard input, and this reads
 * exactly that line from file descriptor 0, a byte at a time, so the program's {@code System.in}
 * starts right after it. Read once, by {@link RankMain} before the program starts (or by
 * {@link Bootstrap} for a program started otherwise).
 */
public final class StdinSecret {
    private static final int MAX_LINE = 1024;
    private static byte[] secret;

    private StdinSecret() {
    }

    /** The secret from standard input, read on the first call. */
    public static synchronized byte[] get() {
        if (secret == null) {
            secret = read(new FileInputStream(FileDescriptor.in));
        }
        return secret.clone();
    }

    /** Reads one line of hex from {@code in}, consuming nothing after its newline. */
    static byte[] read(InputStream in) {
        StringBuilder line = new StringBuilder();
        try {
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0 || line.length() > MAX_LINE) {
                    throw new IllegalStateException("the job secret was expected as the first line of standard"
                            + " input (" + LaunchEnvironment.SECRET_STDIN + "=1), but "
                            + (c < 0 ? "the input ended first" : "the line is too long")
                            + "; start ranks with tutti run");
                }
                line.append((char) c);
            }
            return HexFormat.of().parseHex(line.toString().strip());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the job secret from standard input: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the first line of standard input is not a job secret in hex ("
                    + LaunchEnvironment.SECRET_STDIN + "=1)", e);
        }
    }
}
