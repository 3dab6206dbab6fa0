package io.tutti.cli;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Tells why a rank started through a remote shell ({@code ssh HOST ...}) ended before it ran: the
 * shell exits 255 when it cannot reach the host (its last line on standard error says why), and
 * the remote command exits 127 when the host has no {@code java} at the rank's path. Those get
 * one line naming the host and the rank instead of a bare exit code. A program that itself exits
 * 255 or 127 through a remote shell is read the same way; ssh leaves no other way to tell them apart.
 * srun passes on the task's own code and prints its own errors: a rank started through it is only named.
 */
final class RemoteStarts {
    /** How long to wait, after the shell exited, for the rest of its standard error. */
    private static final long DRAIN_MILLIS = 1000;
    /** The longest line kept, in bytes; a longer one is cut there. */
    private static final int LINE_LIMIT = 1000;

    /** {@code who}: the ranks it runs, as messages name them ({@code rank 3}, or a host JVM's ranks). */
    private record Started(String who, String host, String shell, String java, Tail tail) {
    }

    private final Map<Integer, Started> ranks = new ConcurrentHashMap<>();

    /**
     * Remembers that the {@code count} ranks from {@code first} on ({@code who}: one rank, or a host
     * JVM's rank threads) were started on {@code host} through {@code shell} to run the JVM at
     * {@code java}; returns its standard error, which the caller reads on (to pass it through).
     */
    InputStream track(int first, int count, String who, String host, String shell, String java, InputStream stderr) {
        Tail tail = new Tail(stderr);
        Started s = new Started(who, host, shell, java, tail);
        for (int r = first; r < first + count; r++) {
            ranks.put(r, s);
        }
        return tail;
    }

    /** How a rank started through a remote shell is named in messages ({@code rank 5 on host h2}), or null. */
    String where(int rank) {
        Started s = ranks.get(rank);
        return s == null ? null : s.who + " on host " + s.host + " (through '" + s.shell + "')";
    }

    /** One line on why {@code rank} ended with {@code code} without running, or null when that is not known. */
    String explain(int rank, int code) {
        Started s = ranks.get(rank);
        if (s == null || s.shell.equals("srun") || (code != 255 && code != 127)) {
            return null;
        }
        if (code == 127) {
            String home = s.java.endsWith("/bin/java") ? s.java.substring(0, s.java.length() - 9) : s.java;
            return "host " + s.host + " has no JDK 25 at " + home + " (" + s.who + " could not start there"
                    + " through '" + s.shell + "'): install one there (the same path), or run tutti from a JDK 25"
                    + " installed at the same path on every host";
        }
        String line = s.tail.lastLine(DRAIN_MILLIS);
        return "cannot reach host " + s.host + " through '" + s.shell + "' to start " + s.who + ": "
                + (line.isEmpty() ? "it exited with code 255 and printed nothing" : line);
    }

    /** A stream that passes everything through and keeps its last non-blank line. */
    static final class Tail extends FilterInputStream {
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();
        private final CountDownLatch ended = new CountDownLatch(1);
        private String last = "";

        Tail(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = guarded(super.read());
            if (b >= 0) {
                see(new byte[] {(byte) b}, 0, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = guarded(super.read(buf, off, len));
            if (n > 0) {
                see(buf, off, n);
            }
            return n;
        }

        private int guarded(int n) {
            if (n < 0) {
                ended.countDown();
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            ended.countDown();
            super.close();
        }

        private synchronized void see(byte[] buf, int off, int n) {
            for (int i = off; i < off + n; i++) {
                if (buf[i] == '\n') {
                    keep();
                } else if (current.size() < LINE_LIMIT) {
                    current.write(buf[i]);
                }
            }
        }

        private void keep() {
            String line = current.toString(StandardCharsets.UTF_8).strip();
            current.reset();
            if (!line.isEmpty()) {
                last = line;
            }
        }

        /** The last non-blank line, after waiting up to {@code millis} for the end of the stream. */
        String lastLine(long millis) {
            try {
                ended.await(millis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                String partial = current.toString(StandardCharsets.UTF_8).strip();
                return partial.isEmpty() ? last : partial;
            }
        }
    }
}
