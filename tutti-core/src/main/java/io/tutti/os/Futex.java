package io.tutti.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Linux futexes on shared memory, so that a rank with nothing to do can sleep in the kernel and
 * the peer that sends it a message wakes it at once (a park sleeps 16–73 µs here, however short the
 * park asked for; a futex wake makes the sleeper runnable immediately). Process-shared futexes
 * (no {@code FUTEX_PRIVATE_FLAG}) on a word of a mapped file.
 *
 * <p>{@link #available()} is false elsewhere than on Linux x86-64 or aarch64, or where native
 * access is denied; callers then fall back to parking.
 */
public final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX = switch (Platform.ARCH) {
        case "amd64", "x86_64" -> 202;
        case "aarch64" -> 98;
        default -> -1;
    };
    private static final MethodHandle SYSCALL = syscall();
    private static final ThreadLocal<MemorySegment> TIMESPEC =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private Futex() {
    }

    public static boolean available() {
        return SYSCALL != null;
    }

    /**
     * Sleeps while the 32-bit word at {@code offset} of {@code segment} (a native, shared mapping)
     * holds {@code expected}, at most {@code timeoutNanos}; returns at once if it does not.
     * Returns early on a wake, a signal, or spuriously: the caller re-checks its condition.
     */
    public static void await(MemorySegment segment, long offset, int expected, long timeoutNanos) {
        MemorySegment ts = TIMESPEC.get();
        ts.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        ts.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, segment.address() + offset, (long) FUTEX_WAIT,
                    (long) expected, ts.address(), 0L, 0L);
        } catch (Throwable e) {
            throw new IllegalStateException("futex wait failed", e);
        }
    }

    /** Wakes up to {@code count} threads sleeping on the word at {@code offset} of {@code segment}. */
    public static void wake(MemorySegment segment, long offset, int count) {
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, segment.address() + offset, (long) FUTEX_WAKE,
                    (long) count, 0L, 0L, 0L);
        } catch (Throwable e) {
            throw new IllegalStateException("futex wake failed", e);
        }
    }

    private static MethodHandle syscall() {
        if (SYS_FUTEX < 0 || !Platform.LINUX) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            // long syscall(long number, ...): every argument passed as a long, variadic after the first
            return linker.defaultLookup().find("syscall").map(a -> linker.downcallHandle(a,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1))).orElse(null);
        } catch (RuntimeException | Error e) {
            return null;
        }
    }
}
