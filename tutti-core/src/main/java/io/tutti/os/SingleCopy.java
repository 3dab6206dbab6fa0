package io.tutti.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * One copy between the memories of two processes of the same user, through the kernel
 * ({@code process_vm_readv}/{@code process_vm_writev} when both buffers are off-heap,
 * {@code pread}/{@code pwrite} on {@code /proc/PID/mem} when the local buffer is a Java array,
 * which a critical downcall may pass straight to the kernel). Not thread-safe: one per engine.
 */
public final class SingleCopy implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout IOVEC = MemoryLayout.structLayout(
            ValueLayout.ADDRESS.withName("base"), ValueLayout.JAVA_LONG.withName("len"));
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET =
            CALL_STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle VM_READV = find("process_vm_readv", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), ERRNO);
    private static final MethodHandle VM_WRITEV = find("process_vm_writev", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), ERRNO);
    private static final MethodHandle PREAD = find("pread", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            ERRNO, Linker.Option.critical(true));
    private static final MethodHandle PWRITE = find("pwrite", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            ERRNO, Linker.Option.critical(true));
    private static final MethodHandle OPEN = find("open", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT), ERRNO);
    private static final MethodHandle CLOSE = find("close", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT));
    private static final MethodHandle PRCTL = find("prctl", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG));
    private static final int O_RDWR = 2;
    private static final int PR_SET_PTRACER = 0x59616d61;
    private static final long PR_SET_PTRACER_ANY = -1L;

    private static MethodHandle find(String name, FunctionDescriptor fd, Linker.Option... options) {
        return LIBC.find(name).map(a -> LINKER.downcallHandle(a, fd, options)).orElse(null);
    }

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment local = arena.allocate(IOVEC);
    private final MemorySegment remote = arena.allocate(IOVEC);
    private final MemorySegment callState = arena.allocate(CALL_STATE);
    private final java.util.Map<Integer, Integer> memFds = new java.util.HashMap<>();

    /** Whether this platform has the calls at all (Linux with glibc). */
    public static boolean platformSupported() {
        return VM_READV != null && VM_WRITEV != null && PREAD != null && PWRITE != null && OPEN != null;
    }

    /**
     * Lets processes of the same user read this process's memory where Yama restricts ptrace to
     * descendants; harmless where Yama is absent.
     */
    public static void allowPeers() {
        if (PRCTL == null) {
            return;
        }
        try {
            int ignored = (int) PRCTL.invokeExact(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0L, 0L, 0L);
        } catch (Throwable t) {
            // not fatal: the two-copy path remains
        }
    }

    /**
     * Copies {@code length} bytes from {@code remoteAddress} in process {@code pid} into {@code dst}
     * (off-heap or a heap segment over a Java array).
     *
     * @return 0 on success, else the errno of the failed call
     */
    public int read(int pid, long remoteAddress, MemorySegment dst, long length) {
        return read(pid, remoteAddress, dst, 0, length);
    }

    /** As {@link #read(int, long, MemorySegment, long)} into {@code dst} from {@code dstOffset}: no slice per call when off-heap. */
    public int read(int pid, long remoteAddress, MemorySegment dst, long dstOffset, long length) {
        java.util.Objects.checkFromIndexSize(dstOffset, length, dst.byteSize());
        try {
            if (dst.isNative()) {
                return vm(VM_READV, pid, dst.address() + dstOffset, remoteAddress, length);
            }
            return procMem(PREAD, pid, dst.asSlice(dstOffset, length), remoteAddress, length);
        } catch (Throwable t) {
            throw new IllegalStateException("single copy from pid " + pid + " failed", t);
        }
    }

    /** Copies {@code src} into process {@code pid} at {@code remoteAddress}; 0 or an errno. */
    public int write(int pid, long remoteAddress, MemorySegment src, long length) {
        return write(pid, remoteAddress, src, 0, length);
    }

    /** As {@link #write(int, long, MemorySegment, long)} from {@code src} at {@code srcOffset}: no slice per call when off-heap. */
    public int write(int pid, long remoteAddress, MemorySegment src, long srcOffset, long length) {
        java.util.Objects.checkFromIndexSize(srcOffset, length, src.byteSize());
        try {
            if (src.isNative()) {
                return vm(VM_WRITEV, pid, src.address() + srcOffset, remoteAddress, length);
            }
            return procMem(PWRITE, pid, src.asSlice(srcOffset, length), remoteAddress, length);
        } catch (Throwable t) {
            throw new IllegalStateException("single copy to pid " + pid + " failed", t);
        }
    }

    private int vm(MethodHandle call, int pid, long localAddress, long remoteAddress, long length) throws Throwable {
        long done = 0;
        while (done < length) {
            // raw addresses as longs: no segment object per call
            local.set(ValueLayout.JAVA_LONG, 0, localAddress + done);
            local.set(ValueLayout.JAVA_LONG, 8, length - done);
            remote.set(ValueLayout.JAVA_LONG, 0, remoteAddress + done);
            remote.set(ValueLayout.JAVA_LONG, 8, length - done);
            long n = (long) call.invokeExact(callState, pid, local, 1L, remote, 1L, 0L);
            if (n <= 0) {
                return n == 0 ? 5 /* EIO */ : callState.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
            }
            done += n;
        }
        return 0;
    }

    private int procMem(MethodHandle call, int pid, MemorySegment buffer, long remoteAddress, long length)
            throws Throwable {
        int fd = memFd(pid);
        if (fd < 0) {
            return -fd;
        }
        long done = 0;
        while (done < length) {
            long n = (long) call.invokeExact(callState, fd, buffer.asSlice(done), length - done, remoteAddress + done);
            if (n <= 0) {
                return n == 0 ? 5 : callState.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
            }
            done += n;
        }
        return 0;
    }

    private int memFd(int pid) throws Throwable {
        Integer fd = memFds.get(pid);
        if (fd == null) {
            int opened = (int) OPEN.invokeExact(callState, arena.allocateFrom("/proc/" + pid + "/mem"), O_RDWR);
            fd = opened >= 0 ? opened : -callState.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
            memFds.put(pid, fd);
        }
        return fd;
    }

    @Override
    public void close() {
        for (int fd : memFds.values()) {
            if (fd >= 0) {
                try {
                    int ignored = (int) CLOSE.invokeExact(fd);
                } catch (Throwable ignored) {
                    // closing is best effort
                }
            }
        }
        memFds.clear();
        arena.close();
    }
}
