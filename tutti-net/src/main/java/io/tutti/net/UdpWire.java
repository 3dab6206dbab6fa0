package io.tutti.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.io.UncheckedIOException;
import io.tutti.transport.Placement;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The UDP wire: one non-blocking datagram socket per rail, one frame per datagram. Loss,
 * duplication and reordering are left to the rails above, which repair them.
 *
 * <p>Each rail reads at most its budget of datagrams per poll. A read that finds nothing costs a
 * system call as dear as one that finds a datagram, so the budget follows the traffic: after a
 * poll that drained the socket it is what that poll found (1 after an empty one: the lone datagram
 * of a ping-pong is read without a second, empty read behind it), and it doubles, up to
 * {@value #MAX_BUDGET}, after a poll that used all of it (datagrams keep coming).
 *
 * <p>Where the kernel offers UDP segmentation ({@link UdpSegmentation}), consecutive frames to one
 * peer and rail leave in one system call ({@link #sendBatch}): the sender's stack, qdisc and any
 * veth or bridge on the way then handle one packet per batch instead of one per frame. A batch the
 * kernel refuses turns segmentation off for that rail and goes frame by frame.
 *
 * <p>Where {@link UdpVectorIo} can be used, a rail whose last datagram was a large one looks at the
 * head of the next before it takes it, and asks the rails whether its payload has a place of its
 * own ({@link Receiver#place}): a DATA record a receive waits for is then taken in two parts, its
 * headers into the wire's buffer and its payload straight into the receive's buffer. A look costs
 * a system call, which a stream of datagrams of tens of kilobytes pays back many times in the copy
 * it saves; small datagrams (a ping-pong's) are never looked at first. The same calls send a frame
 * gathered from the rails' header and a payload where the sender has it ({@link #gathers()}).
 */
final class UdpWire implements RailWire {
    private static final int MAX_BUDGET = 256;
    private static final int SOCKET_BUFFER = 4 << 20;
    /** A datagram at least this long is taken for part of a stream: the next one is looked at first. */
    static final int STREAM_FRAME = 8192;
    /** Bytes of a datagram's head copied for a look: its headers and more. */
    static final int LOOK = 256;

    private final DatagramChannel[] channels;
    private final int[] budget;
    private final List<InetSocketAddress> local = new ArrayList<>();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 16);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    private final InetSocketAddress[][] peers;
    /** Per rail: the socket's descriptor (-1: unknown) and its segment size (0: one frame per send). */
    private final int[] fd;
    private final int[] segment;
    /** Null when datagrams are only taken and sent whole through the channels. */
    private final UdpVectorIo vectors;
    /** Per peer and rail: its address as the kernel takes it, when frames are gathered. */
    private final MemorySegment[][] peerAddress;
    private final long rxAddress = rxSegment.address();
    private final Placement placement = new Placement();
    /** Per rail: look at the next datagram before taking it (the last one was large). */
    private final boolean[] look;
    /** Per rail: the source of the last datagram taken whole, and its IPv4 address and port. */
    private final Object[] lastFrom;
    private final int[] lastAddress;
    private final int[] lastPort;

    /**
     * Opens a socket on each of {@code addresses}; {@code segment} is the size of the frames that
     * batches carry (0: no batches); {@code place}: payloads may be received in place.
     */
    UdpWire(List<InetAddress> addresses, int size, int segment, boolean place) {
        channels = new DatagramChannel[addresses.size()];
        budget = new int[addresses.size()];
        fd = new int[addresses.size()];
        this.segment = new int[addresses.size()];
        look = new boolean[addresses.size()];
        lastFrom = new Object[addresses.size()];
        lastAddress = new int[addresses.size()];
        lastPort = new int[addresses.size()];
        vectors = place && UdpVectorIo.available() ? new UdpVectorIo() : null;
        peerAddress = new MemorySegment[size][];
        java.util.Arrays.fill(budget, 1);
        peers = new InetSocketAddress[size][];
        try {
            for (int r = 0; r < channels.length; r++) {
                DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
                channels[r] = ch;
                ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
                ch.bind(new InetSocketAddress(addresses.get(r), 0));
                ch.configureBlocking(false);
                local.add((InetSocketAddress) ch.getLocalAddress());
                fd[r] = vectors != null || segment > 0 ? UdpSegmentation.descriptor(ch) : -1;
                // two frames at least, or a batch is never more than one
                this.segment[r] = segment > 0 && 2 * segment <= UdpSegmentation.MAX_BYTES
                        && UdpSegmentation.set(fd[r], segment) ? segment : 0;
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot open the UDP rails " + addresses + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public boolean repairsLoss() {
        return false;
    }

    @Override
    public List<InetSocketAddress> localAddresses() {
        return List.copyOf(local);
    }

    @Override
    public void connect(int peer, InetSocketAddress[] addr) {
        peers[peer] = addr.clone();
        if (vectors != null && UdpVectorIo.sendAvailable()) {
            peerAddress[peer] = new MemorySegment[addr.length];
            for (int r = 0; r < addr.length; r++) {
                if (addr[r].getAddress() instanceof Inet4Address ip4) {
                    peerAddress[peer][r] = vectors.socketAddress(ip4.getAddress(), addr[r].getPort());
                }
            }
        }
    }

    @Override
    public boolean gathers() {
        if (vectors == null || !UdpVectorIo.sendAvailable()) {
            return false;
        }
        for (int f : fd) {
            if (f < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean send(int peer, int rail, MemorySegment head, int headLength, long tail, int tailLength) {
        MemorySegment to = peerAddress[peer] == null ? null : peerAddress[peer][rail];
        return to != null && vectors.send(fd[rail], to, head.address(), headLength, tail, tailLength);
    }

    @Override
    public boolean send(int peer, int rail, ByteBuffer frame, int length) {
        frame.limit(length).position(0);
        try {
            // 0: the socket buffer is full, as good as lost; retransmission recovers it
            return channels[rail].send(frame, peers[peer][rail]) != 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public int batchSegment(int rail) {
        return segment[rail];
    }

    @Override
    public boolean sendBatch(int peer, int rail, ByteBuffer frames, int length) {
        int seg = segment[rail];
        if (seg > 0) {
            frames.limit(length).position(0);
            try {
                return channels[rail].send(frames, peers[peer][rail]) != 0;
            } catch (IOException e) {
                // EINVAL, EIO: the route cannot segment (no checksum offload, IPsec, an MTU below
                // the segment); one frame per send from now on
                segment[rail] = 0;
                UdpSegmentation.set(fd[rail], 0);
            }
        }
        boolean all = true;
        int step = seg > 0 ? seg : length;
        for (int at = 0; at < length; at += step) {
            int n = Math.min(step, length - at);
            frames.limit(at + n).position(at);
            try {
                all &= channels[rail].send(frames, peers[peer][rail]) != 0;
            } catch (IOException e) {
                all = false;
            }
        }
        return all;
    }

    /**
     * Looks at the next datagram on {@code r} and, when the rails have a place for its payload,
     * takes it in two parts and hands it on: 1. When it has no place (or comes from another source
     * than the last datagram taken whole, whose address object the rails know it by), it stays
     * queued for the channel to take: 0. Nothing waits: -1.
     */
    private int receivePlaced(int r, Receiver into) {
        long length = vectors.peek(fd[r], rxAddress, LOOK);
        if (length < 0) {
            return -1;
        }
        Object from = lastFrom[r];
        if (from == null || vectors.sourceAddress() != lastAddress[r] || vectors.sourcePort() != lastPort[r]
                || length > rx.capacity() || length <= LOOK
                || !into.place(r, from, rx, rxSegment, LOOK, (int) length, placement)) {
            return 0;
        }
        int head = placement.header;
        long got = vectors.receive(fd[r], rxAddress, head, placement.address, (int) length - head);
        if (got < 0) {
            return -1;
        }
        if (got == length) {
            into.placedFrame(r, from, rx, rxSegment, (int) length, placement);
        }
        // else another datagram than the one looked at: impossible with one reader, and whatever it
        // was is as good as lost; the rails resend
        return 1;
    }

    /** Whether batches on {@code rail} leave in one system call. */
    boolean segmenting(int rail) {
        return segment[rail] > 0;
    }

    @Override
    public int receive(Receiver into, boolean drain) {
        int frames = 0;
        for (int r = 0; r < channels.length; r++) {
            int limit = drain ? MAX_BUDGET : budget[r];
            int n = 0;
            while (n < limit) {
                if (look[r]) {
                    int placed = receivePlaced(r, into);
                    if (placed < 0) {
                        break;
                    }
                    if (placed > 0) {
                        n++;
                        continue;
                    }
                }
                rx.clear();
                SocketAddress from;
                try {
                    from = channels[r].receive(rx);
                } catch (IOException e) {
                    break;
                }
                if (from == null) {
                    break;
                }
                n++;
                if (vectors != null && fd[r] >= 0) {
                    look[r] = rx.position() >= STREAM_FRAME;
                    if (from != lastFrom[r] && from instanceof InetSocketAddress a
                            && a.getAddress() instanceof Inet4Address ip4) {
                        byte[] b = ip4.getAddress();
                        lastAddress[r] = (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
                        lastPort[r] = a.getPort();
                        lastFrom[r] = from;
                    }
                }
                into.frame(r, from, rx, rxSegment, rx.position());
            }
            // all of it used: more may wait, and the caller polls again at once since frames > 0
            budget[r] = n == limit ? Math.min(MAX_BUDGET, 2 * limit) : Math.max(1, n);
            frames += n;
        }
        return frames;
    }

    /** Every datagram names its source address: replies go to the published one, nothing to remember. */
    @Override
    public void claimed(int peer, int rail, Object from) {
    }

    @Override
    public void authenticated(int peer, int rail, Object from) {
    }

    @Override
    public void close() {
        if (vectors != null) {
            vectors.close();
        }
        for (DatagramChannel ch : channels) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // closing: nothing to recover
                }
            }
        }
    }
}
