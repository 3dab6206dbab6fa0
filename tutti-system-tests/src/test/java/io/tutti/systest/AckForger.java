package io.tutti.systest;

import static io.tutti.net.DatagramDescriptor.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The stall attack, from the path: run in the switch namespace of a {@link Netns} cluster (which
 * holds rank 1's address on its loopback, so that it may send from it), it reads every IPv4 packet crossing the switch (a packet socket),
 * and for each rails DATA from rank 0 to rank 1 sends rank 0 an ACK of that newest sequence number
 * from rank 1's own address and port, with the session's tag it saw, a fresh counter and a made-up
 * MAC; it also sends again, later, ACKs that rank 1 really sent (replays). {@code AckForger
 * SECONDS STOPFILE} runs that long at most, or until STOPFILE exists, and prints
 * {@code forged F replayed R}.
 */
public final class AckForger {
    private static final int AF_PACKET = 17;
    private static final int SOCK_DGRAM = 2;
    /**
     * htons(ETH_P_ALL) on a little-endian host: a bridge takes the frames it forwards before any
     * protocol's packet socket would see them, only the all-protocols taps see them.
     */
    private static final int ETH_P_ALL_BE = 0x0300;

    private AckForger() {
    }

    public static void main(String[] args) throws Throwable {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        java.nio.file.Path stop = java.nio.file.Path.of(args[1]);
        Linker linker = Linker.nativeLinker();
        MethodHandle socket = linker.downcallHandle(linker.defaultLookup().find("socket").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        MethodHandle recv = linker.downcallHandle(linker.defaultLookup().find("recv").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        int fd = (int) socket.invokeExact(AF_PACKET, SOCK_DGRAM, ETH_P_ALL_BE);
        if (fd < 0) {
            throw new IllegalStateException("no packet socket (needs root in the namespace)");
        }
        long seen = 0;
        long tutti = 0;
        long forged = 0;
        long replayed = 0;
        long counter = 1L << 40;
        CRC32C crc = new CRC32C();
        DatagramChannel out = null;
        InetSocketAddress victim = null;
        List<byte[]> seenAcks = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packet = arena.allocate(1 << 16);
            for (long polls = 0; System.nanoTime() < end && (polls++ % 1024 != 0 || !java.nio.file.Files.exists(stop)); ) {
                // MSG_DONTWAIT: 0x40
                long n = (long) recv.invokeExact(fd, packet, (long) (1 << 16), 0x40);
                if (n <= 0) {
                    Thread.sleep(1);
                    continue;
                }
                seen++;
                ByteBuffer p = packet.asSlice(0, n).asByteBuffer();
                int ihl = (p.get(0) & 0xF) * 4;
                if ((p.get(0) >> 4) != 4 || p.get(9) != 17 || n < ihl + 8 + HEADER) {
                    continue;
                }
                int at = ihl + 8;
                if (p.getShort(at + MAGIC_OFFSET) != MAGIC) {
                    continue;
                }
                tutti++;
                byte type = p.get(at + TYPE_OFFSET);
                int source = p.getInt(at + SOURCE_OFFSET);
                byte[] srcIp = new byte[4];
                byte[] dstIp = new byte[4];
                p.get(12, srcIp);
                p.get(16, dstIp);
                int srcPort = Short.toUnsignedInt(p.getShort(ihl));
                int dstPort = Short.toUnsignedInt(p.getShort(ihl + 2));
                if (type == ACK && source == 1 && n - at == HEADER && p.getLong(at + COUNTER_OFFSET) < 1L << 40) {
                    if (seenAcks.size() < 1000) {
                        byte[] copy = new byte[HEADER];
                        p.get(at, copy);
                        seenAcks.add(copy);
                    }
                    continue;
                }
                if (type != DATA || source != 0) {
                    continue;
                }
                if (out == null) {
                    // rank 1's address and port, bound here though they are not this namespace's
                    out = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
                    out.bind(new InetSocketAddress(InetAddress.getByAddress(dstIp), dstPort));
                    victim = new InetSocketAddress(InetAddress.getByAddress(srcIp), srcPort);
                }
                long newest = p.getLong(at + SEQ_OFFSET) + 1;
                ByteBuffer ack = ByteBuffer.allocate(HEADER);
                ack.put(0, p, at, HEADER);
                ack.put(TYPE_OFFSET, ACK).putInt(SOURCE_OFFSET, 1).putInt(DEST_OFFSET, 0).put(FLAGS_OFFSET, (byte) 0)
                        .putShort(FRAG_INDEX_OFFSET, (short) 0).putShort(FRAG_COUNT_OFFSET, (short) 0)
                        .putShort(PAYLOAD_LENGTH_OFFSET, (short) 0).putLong(SEQ_OFFSET, 0)
                        .putLong(ACK_OFFSET, newest).putLong(CONSUMED_OFFSET, newest)
                        .putInt(RECORD_LENGTH_OFFSET, 0).putInt(FRAG_OFFSET_OFFSET, 0)
                        .putLong(COUNTER_OFFSET, counter++);
                seal(crc, ack, HEADER);
                out.send(ack.clear(), victim);
                forged++;
                if (!seenAcks.isEmpty() && forged % 4 == 0) {
                    out.send(ByteBuffer.wrap(seenAcks.get((int) (forged / 4 % seenAcks.size()))), victim);
                    replayed++;
                }
            }
        }
        System.out.println("forged " + forged + " replayed " + replayed + " (of " + seen + " packets seen, " + tutti
                + " of Tutti's)");
    }
}
