package io.tutti.net;

import io.tutti.os.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

/**
 * {@code recvmsg} and {@code sendmsg} on a UDP socket's descriptor ({@link UdpSegmentation#descriptor}),
 * for what the JDK's channels cannot do: look at the head of the next datagram without taking it,
 * then take it in two parts, its first bytes into the wire's buffer and the rest straight into
 * their destination; and send a datagram gathered from two parts, headers from the wire's buffer
 * and a payload from where it is, on a socket that is not connected. The kernel's copy into or out
 * of the socket is then the only one such a payload takes.
 *
 * <p>Memory for the message header, the two iovecs and the source address, laid out as Linux on a
 * 64-bit machine has them:
 *
 * <pre>
 *  struct msghdr (56 bytes)              struct iovec (16 bytes each)
 *  0  msg_name       -&gt; address         0  iov_base
 *  8  msg_namelen    (16)               8  iov_len
 *  16 msg_iov        -&gt; iovecs
 *  24 msg_iovlen     (1 or 2)           struct sockaddr_in (16 bytes)
 *  32 msg_control    (none)             0  family (2, host order)
 *  40 msg_controllen (0)                2  port (big-endian)
 *  48 msg_flags                         4  IPv4 address (big-endian)
 * </pre>
 *
 * Not thread-safe: one per wire, used by the thread that drives it. {@link #available} is false
 * where the calls cannot be made (not Linux on x86-64 or AArch64, native access denied); the wire
 * then receives through its channels alone.
 */
final class UdpVectorIo implements AutoCloseable {
    private static final int MSG_PEEK = 0x2;
    private static final int MSG_TRUNC = 0x20;
    private static final int MSG_DONTWAIT = 0x40;
    private static final short AF_INET = 2;
    /** Network byte order, made once: {@code withOrder} builds a new layout per call (an allocation per datagram). */
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static final MethodHandle RECVMSG;
    private static final MethodHandle SENDMSG;

    static {
        MethodHandle h = null;
        MethodHandle g = null;
        if (Platform.LINUX && (Platform.ARCH.equals("amd64") || Platform.ARCH.equals("aarch64"))) {
            try {
                Linker linker = Linker.nativeLinker();
                // a non-blocking call of a few microseconds: no thread-state transition around it
                h = linker.defaultLookup().find("recvmsg").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_INT), Linker.Option.critical(false))).orElse(null);
                g = linker.defaultLookup().find("sendmsg").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.JAVA_INT), Linker.Option.critical(false))).orElse(null);
            } catch (RuntimeException | Error e) {
                h = null;
                g = null;
            }
        }
        RECVMSG = h;
        SENDMSG = h == null ? null : g;
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment msg = arena.allocate(56, 8);
    private final MemorySegment iov = arena.allocate(32, 8);
    private final MemorySegment name = arena.allocate(16, 8);

    UdpVectorIo() {
        msg.set(ValueLayout.JAVA_LONG, 16, iov.address());
    }

    /** Whether {@code recvmsg} can be called here. */
    static boolean available() {
        return RECVMSG != null;
    }

    /** Whether {@code sendmsg} can be called here. */
    static boolean sendAvailable() {
        return SENDMSG != null;
    }

    /** The IPv4 socket address {@code address}:{@code port} as the kernel takes it; freed on {@link #close}. */
    MemorySegment socketAddress(byte[] address, int port) {
        MemorySegment a = arena.allocate(16, 8);
        a.set(ValueLayout.JAVA_SHORT, 0, AF_INET);
        a.set(SHORT_BE, 2, (short) port);
        MemorySegment.copy(address, 0, a, ValueLayout.JAVA_BYTE, 4, 4);
        return a;
    }

    /**
     * Copies up to {@code length} bytes of the next datagram waiting on socket {@code fd} to
     * {@code into}, leaving the datagram queued; returns its whole length, or -1 when none waits
     * (or the socket reports an error, which the channel's next receive then reports).
     */
    long peek(int fd, long into, int length) {
        return call(fd, into, length, 0, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
    }

    /**
     * Takes the next datagram waiting on socket {@code fd}: its first {@code headLength} bytes to
     * {@code head}, the next {@code tailLength} to {@code tail}; returns its whole length (more
     * than the two parts when it did not fit, and the rest is lost), or -1 when none waits.
     */
    long receive(int fd, long head, int headLength, long tail, int tailLength) {
        return call(fd, head, headLength, tail, tailLength, MSG_TRUNC | MSG_DONTWAIT);
    }

    /**
     * Sends one datagram to {@code to} (a {@link #socketAddress}) on socket {@code fd}, gathered
     * from {@code headLength} bytes at {@code head} and {@code tailLength} at {@code tail}; whether
     * it left (false: the socket buffer is full, or an error, and it is as good as lost).
     */
    boolean send(int fd, MemorySegment to, long head, int headLength, long tail, int tailLength) {
        setVectors(to, head, headLength, tail, tailLength);
        try {
            return (long) SENDMSG.invokeExact(fd, msg, MSG_DONTWAIT) >= 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** The IPv4 source address of the last datagram peeked at or taken, as an int (big-endian order). */
    int sourceAddress() {
        return name.get(ValueLayout.JAVA_SHORT, 0) == AF_INET
                ? name.get(INT_BE, 4) : 0;
    }

    /** The source port of the last datagram peeked at or taken (-1: not IPv4). */
    int sourcePort() {
        return name.get(ValueLayout.JAVA_SHORT, 0) == AF_INET
                ? Short.toUnsignedInt(name.get(SHORT_BE, 2))
                : -1;
    }

    private long call(int fd, long head, int headLength, long tail, int tailLength, int flags) {
        name.set(ValueLayout.JAVA_SHORT, 0, (short) 0);
        setVectors(name, head, headLength, tail, tailLength);
        try {
            return (long) RECVMSG.invokeExact(fd, msg, flags);
        } catch (Throwable e) {
            return -1;
        }
    }

    private void setVectors(MemorySegment address, long head, int headLength, long tail, int tailLength) {
        iov.set(ValueLayout.JAVA_LONG, 0, head);
        iov.set(ValueLayout.JAVA_LONG, 8, headLength);
        iov.set(ValueLayout.JAVA_LONG, 16, tail);
        iov.set(ValueLayout.JAVA_LONG, 24, tailLength);
        msg.set(ValueLayout.JAVA_LONG, 0, address.address());
        msg.set(ValueLayout.JAVA_INT, 8, (int) address.byteSize());
        msg.set(ValueLayout.JAVA_LONG, 24, tailLength > 0 ? 2 : 1);
        msg.set(ValueLayout.JAVA_LONG, 32, 0);
        msg.set(ValueLayout.JAVA_LONG, 40, 0);
        msg.set(ValueLayout.JAVA_INT, 48, 0);
    }

    @Override
    public void close() {
        arena.close();
    }
}
