package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The TCP wire: one connection per peer per rail, frames one after another on the stream (each
 * frame's header states its length). The lower rank of a pair connects, from its rail's address to
 * the higher rank's listening socket of the same rail; the connection carries nothing but HELLOs
 * until the challenge is answered. With few authenticated connections (at most
 * {@value #DIRECT_MAX}) each poll reads them directly, one system call each, and asks the selector
 * about new connections only every millisecond once every rail of every peer is connected; with
 * more, one selector call per poll finds the connections that have data.
 *
 * <p>A stream that cannot be framed (bad magic or version: garbage, or another protocol) is closed
 * and counted; a frame that frames but fails the rails' checks (another job, a field out of range)
 * is only dropped, and the connection kept. A frame that cannot be written at once is queued on its
 * connection and written on the next polls; acknowledgements are refused, not queued, while a
 * connection holds more than the window (the rails keep them due, and the next one carries the
 * same and more).
 */
final class TcpWire implements RailWire {
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final int MAX_FRAME = HEADER + MAX_PAYLOAD;
    private static final long RETRY_NANOS = 20_000_000L;
    private static final long CLOSE_FLUSH_NANOS = 500_000_000L;
    private static final int DIRECT_MAX = 8;
    private static final int READS_PER_POLL = 64;
    private static final long SELECT_NANOS = 1_000_000L;

    /** One connection: a rail to one peer, or a stranger's until its HELLO names a peer. */
    private static final class Conn {
        final SocketChannel channel;
        final int rail;
        final boolean outbound;
        final SelectionKey key;
        /** The peer: fixed for an outbound connection, set when an inbound one is authenticated. */
        int peer;
        boolean bound;
        boolean connecting;
        /** Write mode: bytes read and not yet framed. */
        final ByteBuffer in = ByteBuffer.allocateDirect(2 * MAX_FRAME);
        final MemorySegment inSegment = MemorySegment.ofBuffer(in);
        /**
         * Write mode: bytes of frames not yet written. An inbound connection starts with none, and
         * grows it only if its frames ever queue: a stranger costs its read buffer alone.
         */
        ByteBuffer out;
        boolean closed;
        String why;
        /** Its place in the order of acceptance (0 for outbound connections). */
        long serial;

        Conn(SocketChannel channel, int rail, boolean outbound, int peer, Selector selector, int ops)
                throws IOException {
            this.channel = channel;
            this.rail = rail;
            this.outbound = outbound;
            this.peer = peer;
            this.out = outbound ? ByteBuffer.allocateDirect(1 << 16) : ByteBuffer.allocate(0);
            this.key = channel.register(selector, ops, this);
        }

        /** Accepted, and not (yet) this rail's authenticated connection to a peer. */
        boolean stranger() {
            return !outbound && !bound && !closed;
        }
    }

    private final int rank;
    private final List<InetAddress> railAddress;
    private final ServerSocketChannel[] listeners;
    private final List<InetSocketAddress> local = new ArrayList<>();
    private final Selector selector;
    private final Conn[][] bound;
    private final Conn[][] reply;
    private final InetSocketAddress[][] remote;
    private final long[][] lastAttempt;
    private final List<Conn> conns = new ArrayList<>();
    private final List<Conn> queued = new ArrayList<>();
    /** The authenticated connections, read directly while there are at most {@value #DIRECT_MAX}. */
    private final List<Conn> authenticated = new ArrayList<>();
    private int expected;
    private long lastSelect;
    private final ByteBuffer frame = ByteBuffer.allocateDirect(MAX_FRAME);
    private final MemorySegment frameSegment = MemorySegment.ofBuffer(frame);
    private final int controlLimit;
    /**
     * Accepted connections that have not authenticated, at most: one per peer and rail the job can
     * have connecting at once, and some spare. Past it the oldest is closed, so strangers that open
     * connections and stay silent hold a bounded amount of memory (each holds a 128 KiB read buffer).
     */
    private final int strangerLimit;
    private long acceptedConnections;
    private final Consumer<SelectionKey> onReady = this::ready;
    private Receiver into;
    private int frames;

    /**
     * @param controlLimit queued bytes on a connection above which acknowledgements are skipped
     */
    TcpWire(int rank, List<InetAddress> addresses, int size, int controlLimit) {
        this.rank = rank;
        this.railAddress = List.copyOf(addresses);
        this.controlLimit = controlLimit;
        int n = addresses.size();
        strangerLimit = size * n + 16;
        listeners = new ServerSocketChannel[n];
        bound = new Conn[size][n];
        reply = new Conn[size][n];
        remote = new InetSocketAddress[size][];
        lastAttempt = new long[size][n];
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for the TCP rails: " + e.getMessage(), e);
        }
        try {
            for (int r = 0; r < n; r++) {
                ServerSocketChannel s = ServerSocketChannel.open();
                listeners[r] = s;
                s.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
                s.bind(new InetSocketAddress(addresses.get(r), 0), 64);
                s.configureBlocking(false);
                s.register(selector, SelectionKey.OP_ACCEPT, r);
                local.add((InetSocketAddress) s.getLocalAddress());
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot open the TCP rails " + addresses + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean repairsLoss() {
        return true;
    }

    @Override
    public List<InetSocketAddress> localAddresses() {
        return List.copyOf(local);
    }

    @Override
    public void connect(int peer, InetSocketAddress[] addr) {
        remote[peer] = addr.clone();
        expected += addr.length;
        if (rank < peer) {
            for (int r = 0; r < addr.length; r++) {
                dial(peer, r, System.nanoTime());
            }
        }
    }

    private void dial(int peer, int r, long now) {
        lastAttempt[peer][r] = now;
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            options(ch);
            ch.bind(new InetSocketAddress(railAddress.get(r), 0));
            boolean done = ch.connect(remote[peer][r]);
            Conn c = new Conn(ch, r, true, peer, selector, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
            c.connecting = !done;
            conns.add(c);
            reply[peer][r] = c;
            if (done && into != null) {
                into.opened(peer, r);
            }
        } catch (IOException e) {
            // refused or unreachable: tried again after a while, and the peer's silence is its failure
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing to recover
                }
            }
        }
    }

    private static void options(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
    }

    private Conn target(int peer, int rail) {
        Conn c = bound[peer][rail];
        return c != null ? c : reply[peer][rail];
    }

    @Override
    public boolean send(int peer, int rail, ByteBuffer f, int length) {
        Conn c = target(peer, rail);
        if (c == null || c.closed || c.connecting) {
            return false;
        }
        f.limit(length).position(0);
        if (c.out.position() > 0) {
            if (f.get(TYPE_OFFSET) == ACK && c.out.position() > controlLimit) {
                return false;
            }
            enqueue(c, f);
            return flush(c);
        }
        try {
            c.channel.write(f);
        } catch (IOException e) {
            fail(c, "cannot write: " + e.getMessage());
            return false;
        }
        if (f.hasRemaining()) {
            enqueue(c, f);
        }
        return true;
    }

    private void enqueue(Conn c, ByteBuffer f) {
        if (c.out.remaining() < f.remaining()) {
            // rare: a connection that cannot keep up holds up to a window of frames
            ByteBuffer bigger = ByteBuffer.allocateDirect(Math.max(2 * c.out.capacity(), c.out.position()
                    + f.remaining()));
            c.out.flip();
            bigger.put(c.out);
            c.out = bigger;
        }
        if (c.out.position() == 0) {
            queued.add(c);
        }
        c.out.put(f);
    }

    /** Writes what is queued on {@code c}; false when the connection failed. */
    private boolean flush(Conn c) {
        c.out.flip();
        try {
            c.channel.write(c.out);
        } catch (IOException e) {
            c.out.clear();
            fail(c, "cannot write: " + e.getMessage());
            return false;
        } finally {
            c.out.compact();
        }
        return true;
    }

    /** Marks a connection failed; it is reported and released by the next {@link #receive}. */
    private void fail(Conn c, String why) {
        if (!c.closed) {
            c.closed = true;
            c.why = why;
        }
    }

    /** Reads every connection until drained or {@value #READS_PER_POLL} buffers, {@code drain} or not. */
    @Override
    public int receive(Receiver receiver, boolean drain) {
        into = receiver;
        frames = 0;
        for (int i = queued.size() - 1; i >= 0; i--) {
            Conn c = queued.get(i);
            if (c.closed || (flush(c) && c.out.position() == 0)) {
                queued.set(i, queued.getLast());
                queued.removeLast();
            }
        }
        boolean direct = authenticated.size() <= DIRECT_MAX;
        if (direct) {
            for (int i = 0; i < authenticated.size(); i++) {
                Conn c = authenticated.get(i);
                if (!c.closed) {
                    read(c);
                }
            }
        }
        long now = 0;
        if (!direct || authenticated.size() < expected || (now = System.nanoTime()) - lastSelect >= SELECT_NANOS) {
            lastSelect = now;
            try {
                selector.selectNow(onReady);
            } catch (IOException e) {
                throw new UncheckedIOException("the TCP rails' selector failed: " + e.getMessage(), e);
            }
        }
        now = 0;
        for (int i = conns.size() - 1; i >= 0; i--) {
            Conn c = conns.get(i);
            if (c.closed) {
                release(c);
                conns.set(i, conns.getLast());
                conns.removeLast();
            }
        }
        for (int p = rank + 1; p < remote.length; p++) {
            for (int r = 0; remote[p] != null && r < remote[p].length; r++) {
                if (bound[p][r] == null && reply[p][r] == null) {
                    now = now == 0 ? System.nanoTime() : now;
                    if (now - lastAttempt[p][r] >= RETRY_NANOS) {
                        dial(p, r, now);
                    }
                }
            }
        }
        return frames;
    }

    private void release(Conn c) {
        c.key.cancel();
        try {
            c.channel.close();
        } catch (IOException e) {
            // closing: nothing to recover
        }
        if (c.peer >= 0 && reply[c.peer][c.rail] == c) {
            reply[c.peer][c.rail] = null;
        }
        if (authenticated.remove(c) && authenticated.size() == DIRECT_MAX) {
            for (Conn a : authenticated) {
                a.key.interestOps(0);
            }
        }
        if (c.bound && bound[c.peer][c.rail] == c) {
            into.lost(c.peer, c.rail, c.why);
        }
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.attachment() instanceof Integer rail) {
            accept((ServerSocketChannel) key.channel(), rail);
            return;
        }
        Conn c = (Conn) key.attachment();
        if (c.closed) {
            return;
        }
        if (c.connecting) {
            try {
                if (c.channel.finishConnect()) {
                    c.connecting = false;
                    key.interestOps(SelectionKey.OP_READ);
                    into.opened(c.peer, c.rail);
                }
            } catch (IOException e) {
                fail(c, "cannot connect: " + e.getMessage());
            }
            return;
        }
        read(c);
    }

    private void accept(ServerSocketChannel listener, int rail) {
        for (int n = 0; n < 16; n++) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (ch == null) {
                return;
            }
            try {
                options(ch);
                makeRoomForStranger();
                Conn c = new Conn(ch, rail, false, -1, selector, SelectionKey.OP_READ);
                c.serial = ++acceptedConnections;
                conns.add(c);
            } catch (IOException e) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing to recover
                }
            }
        }
    }

    /** Closes the oldest unauthenticated connection when {@link #strangerLimit} are open; counted. */
    private void makeRoomForStranger() {
        Conn oldest = null;
        int strangers = 0;
        for (Conn c : conns) {
            if (c.stranger()) {
                strangers++;
                oldest = oldest == null || c.serial < oldest.serial ? c : oldest;
            }
        }
        if (strangers >= strangerLimit && oldest != null) {
            into.garbled(DropReason.STRANGER);
            fail(oldest, "too many connections that have not authenticated");
        }
    }

    /**
     * Reads and frames what has arrived on {@code c}: until the socket is drained, at most
     * {@value #READS_PER_POLL} buffers, so a rank that gets the core rarely still takes all that
     * waits (the sender's window bounds it) rather than one buffer per turn.
     */
    private void read(Conn c) {
        ByteBuffer in = c.in;
        for (int k = 0; k < READS_PER_POLL && !c.closed; k++) {
            int space = in.remaining();
            int n;
            try {
                n = c.channel.read(in);
            } catch (IOException e) {
                fail(c, "connection reset (" + e.getMessage() + ")");
                return;
            }
            if (n < 0) {
                fail(c, "end of stream");
                return;
            }
            if (n == 0) {
                return;
            }
            frame(c);
            if (n < space) {
                // drained
                return;
            }
        }
    }

    /** Hands the whole frames at the start of {@code c.in} to the rails and keeps the partial one. */
    private void frame(Conn c) {
        ByteBuffer in = c.in;
        int end = in.position();
        int at = 0;
        while (end - at >= HEADER && !c.closed) {
            if (in.getShort(at + MAGIC_OFFSET) != MAGIC || in.get(at + VERSION_OFFSET) != VERSION) {
                // nothing after this can be framed
                into.garbled(in.getShort(at + MAGIC_OFFSET) != MAGIC ? DropReason.MAGIC : DropReason.VERSION);
                fail(c, "stream not framed");
                return;
            }
            int length = HEADER + Short.toUnsignedInt(in.getShort(at + PAYLOAD_LENGTH_OFFSET));
            if (end - at < length) {
                break;
            }
            frames++;
            if (at == 0) {
                into.frame(c.rail, c, in, c.inSegment, length);
            } else {
                frame.clear();
                frame.put(0, in, at, length);
                into.frame(c.rail, c, frame, frameSegment, length);
            }
            at += length;
        }
        in.limit(end).position(at);
        in.compact();
    }

    @Override
    public void claimed(int peer, int rail, Object from) {
        Conn c = (Conn) from;
        // only the lower rank of a pair connects: an inbound HELLO names a lower rank
        if (bound[peer][rail] == null && (c.outbound ? c.peer == peer : peer < rank)) {
            reply[peer][rail] = c;
            c.peer = peer;
        }
    }

    @Override
    public void authenticated(int peer, int rail, Object from) {
        Conn c = (Conn) from;
        Conn old = bound[peer][rail];
        if (old == c) {
            return;
        }
        if (old != null) {
            // the peer connected again: the new connection replaces the old one, which is not a loss
            old.bound = false;
            fail(old, "replaced");
        }
        c.peer = peer;
        c.bound = true;
        bound[peer][rail] = c;
        reply[peer][rail] = c;
        authenticated.add(c);
        if (authenticated.size() <= DIRECT_MAX) {
            // read directly by every poll: the selector need not report it
            c.key.interestOps(0);
        } else if (authenticated.size() == DIRECT_MAX + 1) {
            for (Conn a : authenticated) {
                a.key.interestOps(SelectionKey.OP_READ);
            }
        } else {
            c.key.interestOps(SelectionKey.OP_READ);
        }
    }

    @Override
    public void close() {
        long end = System.nanoTime() + CLOSE_FLUSH_NANOS;
        for (Conn c : conns) {
            while (!c.closed && c.out.position() > 0 && System.nanoTime() < end && flush(c)) {
                Thread.onSpinWait();
            }
            try {
                if (!c.closed && !c.connecting) {
                    c.channel.shutdownOutput();
                    // what the peer sent meanwhile is read away, so closing sends no reset ahead of our last frames
                    c.in.clear();
                    c.channel.read(c.in);
                }
            } catch (IOException e) {
                // closing: nothing to recover
            }
            try {
                c.channel.close();
            } catch (IOException e) {
                // closing: nothing to recover
            }
        }
        conns.clear();
        for (ServerSocketChannel s : listeners) {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing: nothing to recover
                }
            }
        }
        try {
            if (selector != null) {
                selector.close();
            }
        } catch (IOException e) {
            // closing: nothing to recover
        }
    }
}
