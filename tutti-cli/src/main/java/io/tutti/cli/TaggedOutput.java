package io.tutti.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code --tag-output}: every line a rank prints is prefixed with {@code [rank] } and written to the
 * launcher's stream in one piece, so that lines of different ranks never interleave mid-line.
 * Lines are split on bytes, not characters, so output in any encoding passes through unchanged.
 */
final class TaggedOutput {
    private TaggedOutput() {
    }

    static byte[] prefix(int rank) {
        return ("[" + rank + "] ").getBytes(StandardCharsets.US_ASCII);
    }

    /** Copies a child's stream to {@code target} line by line; the body of one pump thread per stream. */
    static void pump(InputStream in, PrintStream target, byte[] prefix) {
        LineBuffer line = new LineBuffer(prefix);
        byte[] chunk = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                line.write(chunk, 0, n, target);
            }
        } catch (IOException e) {
            // The child is gone and its pipe with it; what arrived has been passed on.
        } finally {
            line.flushPartial(target);
        }
    }

    /** A stream for {@link System#setOut} in thread mode; see {@link ThreadStream}. */
    static ThreadStream perThread(PrintStream target, Supplier<byte[]> currentPrefix) {
        return new ThreadStream(target, currentPrefix);
    }

    /**
     * Thread mode's {@code --tag-output}: each thread's bytes are collected in its own line buffer and
     * written, prefixed with the tag of the rank the thread belongs to, when a line is complete.
     * Threads outside any rank (the launcher's own) write untagged.
     */
    static final class ThreadStream extends PrintStream {
        private final ThreadLocal<LineBuffer> buffers;
        private final PrintStream target;

        ThreadStream(PrintStream target, Supplier<byte[]> currentPrefix) {
            this(target, ThreadLocal.withInitial(() -> new LineBuffer(currentPrefix.get())));
        }

        private ThreadStream(PrintStream target, ThreadLocal<LineBuffer> buffers) {
            super(new OutputStream() {
                @Override
                public void write(int b) {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    buffers.get().write(b, off, len, target);
                }

                @Override
                public void flush() {
                    // A partial line stays buffered: writing it now would let another rank's line split it.
                    target.flush();
                }
            }, true, StandardCharsets.UTF_8);
            this.buffers = buffers;
            this.target = target;
        }

        /** Writes out the calling thread's unfinished line, when its rank ends. */
        void endLine() {
            flush();
            buffers.get().flushPartial(target);
            buffers.remove();
        }
    }

    /** Bytes of the current line of one stream (or one thread) with the tag in front. */
    static final class LineBuffer {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        private final byte[] prefix;

        LineBuffer(byte[] prefix) {
            this.prefix = prefix.clone();
            line.writeBytes(prefix);
        }

        void write(byte[] b, int off, int len, PrintStream target) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i + 1 - start);
                    emit(target);
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
        }

        void flushPartial(PrintStream target) {
            if (line.size() > prefix.length) {
                line.write('\n');
                emit(target);
            }
        }

        private void emit(PrintStream target) {
            // One write call: PrintStream locks per call, so the tag and its line stay together.
            byte[] bytes = line.toByteArray();
            target.write(bytes, 0, bytes.length);
            target.flush();
            line.reset();
            line.writeBytes(prefix);
        }
    }
}
