package io.tutti.net;

import io.tutti.os.Platform;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Linux UDP segmentation offload ({@code UDP_SEGMENT}, "UDP GSO") on the socket of a
 * {@link DatagramChannel}: with it set to {@code n}, one send of several frames of {@code n}
 * bytes (the last may be shorter) leaves as that many datagrams, while the stack below the socket
 * (routing, qdisc, a veth or bridge, the NIC's driver) handles them as one packet and the
 * segmentation happens as late as possible (in the NIC, or at the receiving socket on a host-local
 * path). A send of at most {@code n} bytes goes as one datagram, as without the option.
 *
 * <p>The JDK gives no access to a channel's descriptor, so it is found among the process's open
 * descriptors ({@code /proc/self/fd}) as the only IPv4 socket bound to the channel's local address
 * and port. {@link #set} returns false elsewhere than on Linux, where native access is denied, or
 * when the descriptor is not found or the kernel refuses the option; the caller then sends one
 * frame per call.
 */
final class UdpSegmentation {
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;
    private static final short AF_INET = 2;
    /** The kernel's bound on segments per send (64 before Linux 6.10, 128 since): the lower. */
    static final int MAX_SEGMENTS = 64;
    /** The largest UDP payload of one send, segmented or not. */
    static final int MAX_BYTES = 65507;

    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle SETSOCKOPT;

    static {
        MethodHandle get = null;
        MethodHandle set = null;
        if (Platform.LINUX) {
            try {
                Linker linker = Linker.nativeLinker();
                get = linker.defaultLookup().find("getsockname").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                ValueLayout.ADDRESS))).orElse(null);
                set = linker.defaultLookup().find("setsockopt").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT))).orElse(null);
            } catch (RuntimeException | Error e) {
                get = null;
                set = null;
            }
        }
        GETSOCKNAME = get;
        SETSOCKOPT = set;
    }

    private UdpSegmentation() {
    }

    /**
     * The descriptor of {@code ch}'s socket (bound to a specific IPv4 address), or -1 when it
     * cannot be told.
     */
    static int descriptor(DatagramChannel ch) {
        if (GETSOCKNAME == null) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined();
             DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            if (!(ch.getLocalAddress() instanceof InetSocketAddress local)
                    || !(local.getAddress() instanceof Inet4Address a) || a.isAnyLocalAddress()) {
                return -1;
            }
            byte[] want = a.getAddress();
            MemorySegment addr = arena.allocate(16, 4);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            int found = -1;
            for (Path p : fds) {
                int fd;
                try {
                    fd = Integer.parseInt(p.getFileName().toString());
                    if (!Files.readSymbolicLink(p).toString().startsWith("socket:")) {
                        continue;
                    }
                } catch (NumberFormatException | IOException e) {
                    // not a descriptor, or closed meanwhile (the directory's own, for one)
                    continue;
                }
                addr.fill((byte) 0);
                len.set(ValueLayout.JAVA_INT, 0, 16);
                if ((int) GETSOCKNAME.invokeExact(fd, addr, len) != 0
                        || addr.get(ValueLayout.JAVA_SHORT, 0) != AF_INET) {
                    continue;
                }
                int port = Short.toUnsignedInt(addr.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2));
                byte[] ip = addr.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE);
                if (port == local.getPort() && Arrays.equals(ip, want)) {
                    if (found >= 0) {
                        // two sockets on one address and port (SO_REUSEPORT): not ours to tell apart
                        return -1;
                    }
                    found = fd;
                }
            }
            return found;
        } catch (Throwable e) {
            return -1;
        }
    }

    /** Sets {@code UDP_SEGMENT} of socket {@code fd} to {@code segment} (0: off); whether the kernel took it. */
    static boolean set(int fd, int segment) {
        if (SETSOCKOPT == null || fd < 0) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            v.set(ValueLayout.JAVA_INT, 0, segment);
            return (int) SETSOCKOPT.invokeExact(fd, SOL_UDP, UDP_SEGMENT, v, (int) Integer.BYTES) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
