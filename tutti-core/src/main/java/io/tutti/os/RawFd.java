package io.tutti.os;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeoutException;

/**
 * Reads and writes of a file descriptor the process inherited (a launcher's socket, {@code PMI_FD}),
 * which Java cannot open as a stream: read(2), write(2) and poll(2) through the FFM API, with EINTR
 * and EAGAIN retried and every wait bounded. Not for data paths: each call allocates.
 */
public final class RawFd {
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final short POLLIN = 0x1;
    private static final short POLLOUT = 0x4;
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle READ = handle("read", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = handle("write", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle POLL = handle("poll", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    private RawFd() {
    }

    /** Whether the calls exist here (Linux, native access allowed). */
    public static boolean available() {
        return READ != null && WRITE != null && POLL != null;
    }

    /**
     * Reads at most {@code len} bytes into {@code into} at {@code off}, waiting for some at most
     * {@code timeoutMillis}; returns how many, 0 at end of file.
     */
    public static int read(int fd, byte[] into, int off, int len, long timeoutMillis)
            throws IOException, TimeoutException {
        check();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, len));
            MemorySegment state = arena.allocate(CAPTURE);
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            while (true) {
                await(fd, POLLIN, deadline, arena);
                long n = (long) READ.invokeExact(state, fd, buf, (long) len);
                if (n >= 0) {
                    MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, into, off, (int) n);
                    return (int) n;
                }
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != EINTR && errno != EAGAIN) {
                    throw new IOException("read(2) of file descriptor " + fd + " failed with errno " + errno);
                }
            }
        } catch (IOException | TimeoutException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("read(2) could not be called", e);
        }
    }

    /** Writes all of {@code bytes}, waiting at most {@code timeoutMillis} for room. */
    public static void write(int fd, byte[] bytes, long timeoutMillis) throws IOException, TimeoutException {
        check();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, buf, ValueLayout.JAVA_BYTE, 0, bytes.length);
            MemorySegment state = arena.allocate(CAPTURE);
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            long done = 0;
            while (done < bytes.length) {
                long n = (long) WRITE.invokeExact(state, fd, buf.asSlice(done), (long) bytes.length - done);
                if (n >= 0) {
                    done += n;
                    continue;
                }
                int errno = (int) ERRNO.get(state, 0L);
                if (errno == EAGAIN) {
                    await(fd, POLLOUT, deadline, arena);
                } else if (errno != EINTR) {
                    throw new IOException("write(2) to file descriptor " + fd + " failed with errno " + errno);
                }
            }
        } catch (IOException | TimeoutException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("write(2) could not be called", e);
        }
    }

    /** Waits until {@code fd} is ready for {@code events} (or has hung up), in slices of at most 100 ms. */
    private static void await(int fd, short events, long deadline, Arena arena) throws Throwable {
        String what = events == POLLIN ? "read" : "write";
        MemorySegment pfd = arena.allocate(8, 4);
        MemorySegment state = arena.allocate(CAPTURE);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("file descriptor " + fd + " was not ready to " + what + " in time");
            }
            pfd.set(ValueLayout.JAVA_INT, 0, fd);
            pfd.set(ValueLayout.JAVA_SHORT, 4, events);
            pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int n = (int) POLL.invokeExact(state, pfd, 1L, (int) Math.min(100, Math.max(1, left / 1_000_000L)));
            if (n > 0) {
                return; // readable, writable, or hung up / in error: the read or write says which
            }
            if (n < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != EINTR) {
                    throw new IOException("poll(2) of file descriptor " + fd + " failed with errno " + errno);
                }
            }
        }
    }

    private static void check() {
        if (!available()) {
            throw new UnsupportedOperationException("raw file-descriptor calls are not available here (they need"
                    + " Linux and native access: --enable-native-access=ALL-UNNAMED)");
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        if (!Platform.LINUX) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name)
                    .map(a -> linker.downcallHandle(a, fd, Linker.Option.captureCallState("errno"))).orElse(null);
        } catch (RuntimeException | Error e) {
            return null;
        }
    }
}
