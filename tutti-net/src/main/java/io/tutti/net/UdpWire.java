package io.tutti.net;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 */
final class UdpWire implements RailWire {
    private static final int MAX_BUDGET = 256;
    private static final int SOCKET_BUFFER = 4 << 20;

    private final DatagramChannel[] channels;
    private final int[] budget;
    private final List<InetSocketAddress> local = new ArrayList<>();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 16);
    private final InetSocketAddress[][] peers;

    UdpWire(List<InetAddress> addresses, int size) {
        channels = new DatagramChannel[addresses.size()];
        budget = new int[addresses.size()];
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
    public int receive(Receiver into, boolean drain) {
        int frames = 0;
        for (int r = 0; r < channels.length; r++) {
            int limit = drain ? MAX_BUDGET : budget[r];
            int n = 0;
            while (n < limit) {
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
                into.frame(r, from, rx, rx.position());
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
