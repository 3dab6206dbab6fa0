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
 */
final class UdpWire implements RailWire {
    private static final int RECEIVE_BUDGET = 256;
    private static final int SOCKET_BUFFER = 4 << 20;

    private final DatagramChannel[] channels;
    private final List<InetSocketAddress> local = new ArrayList<>();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(1 << 16);
    private final InetSocketAddress[][] peers;

    UdpWire(List<InetAddress> addresses, int size) {
        channels = new DatagramChannel[addresses.size()];
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
    public int receive(Receiver into) {
        int frames = 0;
        for (int r = 0; r < channels.length; r++) {
            for (int n = 0; n < RECEIVE_BUDGET; n++) {
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
                frames++;
                into.frame(r, from, rx, rx.position());
            }
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
