package io.tutti.bootstrap;

import static io.tutti.bootstrap.RendezvousWire.utf8;

import io.tutti.transport.SilenceWatch;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The job's rendezvous, served by {@code tutti run} ({@link RendezvousWire} is the protocol): the
 * key-value exchange and fences of its ranks, over a Unix domain socket for ranks that share the
 * launcher's file system and over TCP for the others. Each rank keeps its connection open for the
 * whole job and pings every second, so a connection that closes without a goodbye, or stays silent
 * for {@link #SILENCE_MILLIS} ({@link #START_MILLIS} until every rank has started), is that rank's
 * death, reported once to {@link #onRankLost} and at once to every other rank
 * ({@link #announceFailed}), which is how ranks on other hosts learn of it within milliseconds
 * instead of after their transports' silence timeout. Clients without the job secret are
 * refused and counted ({@link #rejected()}). One platform thread per connection: a job has as many
 * connections as ranks.
 */
public final class RendezvousServer implements AutoCloseable {
    /** How long a new connection has to authenticate before it is closed. */
    static final long HANDSHAKE_MILLIS = 10_000;
    static final long PING_MILLIS = 1_000;
    /** How long a rank may be silent (it pings every second) before its host is taken for gone. */
    static final long SILENCE_MILLIS = 10_000;
    /**
     * Both bounds above until every rank has said it started or has died: 64 JVMs starting on 2
     * cores starve a rank's threads past 10 s, and the rank then took its closed connection for the
     * launcher's death (docs/perf/launch.md, "64 ranks"). As long as the rails' start timeout.
     */
    static final long START_MILLIS = 60_000;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String jobId;
    private final byte[] secret;
    private final int size;
    private final long silenceMillis;
    private final long startMillis;
    /** The ranks that said they finished starting: once all have, the silence bound is the short one. */
    private final java.util.Set<Integer> started = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Whether every rank has started or failed: the bounds are the short ones from then on. */
    private volatile boolean allStarted;
    private final List<ServerSocketChannel> listeners = new ArrayList<>();
    private final List<String> addresses = new ArrayList<>();
    private final List<Path> socketFiles = new ArrayList<>();
    private final AtomicInteger rejected = new AtomicInteger();
    private final Map<String, String> values = new HashMap<>();
    private final Map<String, List<Waiter>> gets = new HashMap<>();
    private final Map<Integer, List<Waiter>> fences = new HashMap<>();
    private final Map<Integer, Connection> ranks = new HashMap<>();
    /** The ranks announced dead and why, in the order they died: told to every rank, late joiners too. */
    private final Map<Integer, String> failures = new java.util.LinkedHashMap<>();
    /** The ranks that ever joined: a rank that did was started, whatever its exit code says. */
    private final java.util.Set<Integer> joined = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<Connection> connections = new ArrayList<>();
    private volatile IntConsumer onRankLost = r -> { };
    private volatile Consumer<String> onRejected = m -> { };
    private volatile Consumer<String> onDropped = m -> { };
    /** Counts the ranks' answers to the last {@link #requestStacks}. */
    private volatile java.util.concurrent.CountDownLatch stacksPrinted = new java.util.concurrent.CountDownLatch(0);
    private volatile CopyListener onCopy = (r, name, bytes) -> { };
    private volatile RailAnswerListener onRailAnswer = (r, word) -> { };
    private volatile SpawnHandler onSpawn = (r, programs, parents) -> {
        throw new IllegalStateException("this launcher does not start new processes");
    };
    private volatile PortHandler onPort = (rank, operation, args, asking) -> {
        throw new IllegalStateException("this launcher serves no ports or names");
    };
    /** The credential of an open port, by its id ("run:n"), or null: what a port's client proves it holds. */
    private volatile java.util.function.Function<String, byte[]> portTokens = id -> null;
    private volatile boolean closed;

    private record Waiter(Connection conn, int id) {
    }

    /**
     * A server for a job of {@code size} ranks, listening on a Unix socket at {@code unixPath}
     * (or none when null) and on TCP at {@code tcp} (or none when null; port 0 for an ephemeral one).
     */
    public RendezvousServer(String jobId, byte[] secret, int size, Path unixPath, InetSocketAddress tcp)
            throws IOException {
        this(jobId, secret, size, unixPath, tcp, SILENCE_MILLIS, START_MILLIS);
    }

    RendezvousServer(String jobId, byte[] secret, int size, Path unixPath, InetSocketAddress tcp, long silenceMillis,
                     long startMillis) throws IOException {
        this.jobId = jobId;
        this.startMillis = Math.max(startMillis, silenceMillis);
        this.secret = secret.clone();
        this.size = size;
        this.silenceMillis = silenceMillis;
        try {
            if (unixPath != null) {
                Files.deleteIfExists(unixPath);
                ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                s.bind(UnixDomainSocketAddress.of(unixPath));
                socketFiles.add(unixPath);
                listen(s, "unix:" + unixPath);
            }
            if (tcp != null) {
                ServerSocketChannel s = ServerSocketChannel.open();
                s.bind(tcp, 256);
                listen(s, "tcp:" + hostPort((InetSocketAddress) s.getLocalAddress()));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        Thread.ofPlatform().daemon().name("tutti-rendezvous-ping").start(this::ping);
    }

    private static String hostPort(InetSocketAddress a) {
        String h = a.getAddress().getHostAddress();
        return (h.contains(":") ? "[" + h + "]" : h) + ":" + a.getPort();
    }

    private void listen(ServerSocketChannel s, String address) {
        listeners.add(s);
        addresses.add(address);
        Thread.ofPlatform().daemon().name("tutti-rendezvous-accept").start(() -> accept(s));
    }

    /** Where this server listens: {@code unix:/path} and {@code tcp:host:port}, as the ranks are told. */
    public List<String> addresses() {
        return List.copyOf(addresses);
    }

    /** The TCP port, or -1 without TCP. */
    public int tcpPort() {
        for (ServerSocketChannel s : listeners) {
            try {
                if (s.getLocalAddress() instanceof InetSocketAddress a) {
                    return a.getPort();
                }
            } catch (IOException e) {
                // closed
            }
        }
        return -1;
    }

    /** Whether rank {@code r} has ever joined (proved it holds the secret). */
    public boolean joined(int r) {
        return joined.contains(r);
    }

    /** Called once per rank whose connection ends without a goodbye (from a connection's thread). */
    public void onRankLost(IntConsumer listener) {
        this.onRankLost = listener;
    }

    /** What a rank on another host sends in place of its pings: a copy of one of its files. */
    @FunctionalInterface
    public interface CopyListener {
        /** Rank {@code rank} (authenticated) sent {@code bytes} as the content of its file {@code name}. */
        void copied(int rank, String name, byte[] bytes);
    }

    /** Gives {@code listener} the copies ranks send (on their connections' threads). */
    public void onCopy(CopyListener listener) {
        this.onCopy = listener;
    }

    /** A rank's answer to a rail command sent with {@link #railCommand}. */
    @FunctionalInterface
    public interface RailAnswerListener {
        /** Rank {@code rank} (authenticated) answered: {@code word} in {@code RailCounters}' answer encoding. */
        void answered(int rank, long word);
    }

    /** Gives {@code listener} the ranks' answers to rail commands (on their connections' threads). */
    public void onRailAnswer(RailAnswerListener listener) {
        this.onRailAnswer = listener;
    }

    /**
     * Asks every rank whose connection is still open, and that has not said goodbye, to print its
     * threads' stacks on its standard error, and waits until each has said it did or {@code wait}
     * has passed; returns {how many did, how many were asked}.
     */
    public int[] requestStacks(java.time.Duration wait) throws InterruptedException {
        List<Connection> asked = new ArrayList<>();
        synchronized (this) {
            for (Connection c : connections) {
                if (c.authenticated && !c.goodbye && !c.portClient) {
                    asked.add(c);
                }
            }
        }
        java.util.concurrent.CountDownLatch printed = new java.util.concurrent.CountDownLatch(asked.size());
        stacksPrinted = printed;
        asked.forEach(c -> c.send(RendezvousWire.STACKS, 0));
        printed.await(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        return new int[] {asked.size() - (int) printed.getCount(), asked.size()};
    }

    /**
     * Sends rail command {@code word} ({@code RailCounters}' command encoding) to rank {@code rank},
     * whose answer comes to {@link #onRailAnswer}; false when the rank is not connected.
     */

    public boolean railCommand(int rank, long word) {
        Connection c;
        synchronized (this) {
            c = ranks.get(rank);
        }
        if (c == null) {
            return false;
        }
        c.send(RendezvousWire.RAIL, 0, utf8(Long.toString(word)));
        return true;
    }

    /** A command or answer word in decimal; 0 (none) when it is not one. */
    static long parseWord(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** What starts the processes a rank asks for with {@code Communicator.spawn}. */
    @FunctionalInterface
    public interface SpawnHandler {
        /**
         * Starts the processes of {@code programs}, which form a new job with {@code parents} ranks of
         * this one; returns the new job's id and rendezvous addresses ({@code id}, a newline, the
         * addresses comma separated). Any exception's message goes back to the rank as the reason.
         */
        String spawn(int rank, List<io.tutti.Communicator.Program> programs, int parents) throws Exception;
    }

    /** Gives {@code handler} the ranks' spawn requests (each on a thread of its own). */
    public void onSpawn(SpawnHandler handler) {
        this.onSpawn = handler;
    }

    /** What serves the ports and names of {@code Tutti.openPort} and the calls after it. */
    @FunctionalInterface
    public interface PortHandler {
        /**
         * Carries out port or name operation {@code operation} (open, close, accept, connect, publish,
         * lookup, unpublish) with {@code args} for rank {@code rank} (-1: a port's client, which
         * proved the credential of the port it names), and returns the answer; may block while
         * {@code asking} says the asker's connection is open
         * (an accept waits for its connect). Any exception's message goes back to the rank as the reason.
         */
        String answer(int rank, String operation, List<String> args, java.util.function.BooleanSupplier asking)
                throws Exception;
    }

    /** Gives {@code handler} the ranks' port and name requests (each on a thread of its own). */
    public void onPort(PortHandler handler) {
        this.onPort = handler;
    }

    /**
     * Lets clients that hold a port's credential ({@code tokens} gives it by the port's id, or null
     * when no such port is open) connect to ask for that port's meeting: another launcher's ranks.
     */
    public void onPortClient(java.util.function.Function<String, byte[]> tokens) {
        this.portTokens = tokens;
    }

    /** Called with a description of every refused connection. */
    public void onRejected(Consumer<String> listener) {
        this.onRejected = listener;
    }

    /**
     * Calls {@code listener} with why a rank's authenticated connection ended other than by the
     * rank's goodbye and end of stream (this side closed it on its silence, or it broke), so that the
     * launcher can say it: the rank itself only sees its connection reset. Null: say nothing more.
     */
    public void onDropped(Consumer<String> listener) {
        this.onDropped = listener == null ? m -> { } : listener;
    }

    /** How many connections were refused: a wrong credential, another job, a bad first message. */
    public int rejected() {
        return rejected.get();
    }

    private void accept(ServerSocketChannel s) {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = s.accept();
            } catch (IOException e) {
                return;
            }
            Connection c = new Connection(ch);
            synchronized (this) {
                if (closed) {
                    c.close();
                    return;
                }
                connections.add(c);
            }
            Thread.ofPlatform().daemon().name("tutti-rendezvous-conn").start(c::serve);
        }
    }

    private void ping() {
        SilenceWatch watch = new SilenceWatch(PING_MILLIS * 1_000_000L, System.nanoTime());
        while (!closed) {
            try {
                Thread.sleep(PING_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            List<Connection> all;
            synchronized (this) {
                all = new ArrayList<>(ranks.values());
                // a port's client waits for its accept as long as it takes: both sides keep it warm
                connections.stream().filter(c -> c.portClient).forEach(all::add);
            }
            long now = System.nanoTime();
            long bound = (allStarted ? silenceMillis : startMillis) * 1_000_000L;
            watch.tick(now);
            for (Connection c : all) {
                long silence = watch.silence(c.heard, now);
                if (silence > bound) {
                    onDropped.accept("rank " + c.rank + " said nothing for " + silence / 1_000_000_000L
                            + " s (it pings every second): its connection" + c.from + " is closed");
                    c.close(); // its thread reports the rank lost
                } else {
                    c.send(RendezvousWire.PING, 0);
                }
            }
        }
    }

    private void reject(Connection c, String why) {
        rejected.incrementAndGet();
        onRejected.accept(why);
        c.send(RendezvousWire.DENIED, 0, utf8(why));
        c.close();
    }

    private final class Connection {
        final SocketChannel ch;
        int rank = -1;
        volatile boolean authenticated;
        volatile long heard = System.nanoTime();
        boolean goodbye;
        /** Whether this is a port's client ({@link #portClient}), not a rank: it may only send PORT. */
        boolean portClient;

        /** " from ADDRESS" for a TCP peer, "" otherwise: read while the channel is open. */
        final String from;

        Connection(SocketChannel ch) {
            this.ch = ch;
            this.from = remote(ch);
        }

        void send(byte type, int id, byte[]... fields) {
            synchronized (this) {
                try {
                    RendezvousWire.write(ch, type, id, fields);
                } catch (IOException e) {
                    // the reader sees the broken connection and reports it
                }
            }
        }

        private static String remote(SocketChannel ch) {
            try {
                return ch.getRemoteAddress() instanceof InetSocketAddress a
                        ? " from " + a.getAddress().getHostAddress() : "";
            } catch (IOException e) {
                return "";
            }
        }

        void close() {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        void serve() {
            try {
                if (!handshake()) {
                    return;
                }
                while (true) {
                    RendezvousWire.Frame f = RendezvousWire.read(ch);
                    heard = System.nanoTime();
                    if (portClient && f.type() != RendezvousWire.PORT && f.type() != RendezvousWire.PING) {
                        return; // said goodbye, or tried what only ranks may
                    }
                    if (f.type() == RendezvousWire.BYE) {
                        // done with the job; the connection lasts as long as the rank's process
                        goodbye = true;
                        continue;
                    }
                    if (f.type() == RendezvousWire.COPY) {
                        if (f.fields().size() == 2) {
                            onCopy.copied(rank, f.text(0), f.fields().get(1));
                        }
                        continue;
                    }
                    if (f.type() == RendezvousWire.STARTED) {
                        started.add(rank);
                        checkAllStarted();
                        continue;
                    }
                    if (f.type() == RendezvousWire.STACKS) {
                        stacksPrinted.countDown();
                        continue;
                    }
                    if (f.type() == RendezvousWire.SPAWN) {
                        spawn(this, f);
                        continue;
                    }
                    if (f.type() == RendezvousWire.PORT) {
                        port(this, f);
                        continue;
                    }
                    if (f.type() == RendezvousWire.RAIL_ANSWER) {
                        long word = f.fields().size() == 1 ? parseWord(f.text(0)) : 0;
                        if (word != 0) {
                            onRailAnswer.answered(rank, word);
                        }
                        continue;
                    }
                    handle(this, f);
                }
            } catch (EOFException e) {
                // closed: a death unless it said goodbye
            } catch (IOException | RuntimeException e) {
                if (!authenticated && !closed) {
                    rejected.incrementAndGet();
                    onRejected.accept("a connection sent a malformed first message: " + e.getMessage());
                } else if (!closed && !goodbye && ch.isOpen()) {
                    onDropped.accept("rank " + rank + "'s connection" + from + " broke: " + e);
                }
            } finally {
                close();
                ended(this);
            }
        }

        private boolean handshake() throws IOException {
            byte[] nonce = new byte[RendezvousWire.NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            long bound = allStarted ? Math.min(HANDSHAKE_MILLIS, silenceMillis) : startMillis;
            Thread guard = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(bound);
                    if (!authenticated) {
                        close();
                    }
                } catch (InterruptedException e) {
                    // authenticated in time
                }
            });
            try {
                send(RendezvousWire.HELLO, 0, utf8(RendezvousWire.MAGIC), nonce);
                RendezvousWire.Frame auth = RendezvousWire.read(ch);
                if (auth.type() != RendezvousWire.AUTH || auth.fields().size() != 4) {
                    reject(this, "the first message was not a rendezvous AUTH");
                    return false;
                }
                String job = auth.text(0);
                int r;
                try {
                    r = Integer.parseInt(auth.text(1));
                } catch (NumberFormatException e) {
                    r = -1;
                }
                byte[] clientNonce = auth.fields().get(2);
                if (job.startsWith(RendezvousWire.PORT_CLIENT)) {
                    return portClient(job, r, nonce, clientNonce, auth.fields().get(3));
                }
                byte[] expected = RendezvousWire.mac(secret, utf8("rank"), utf8(job), utf8(Integer.toString(r)),
                        nonce, clientNonce);
                if (!job.equals(jobId)) {
                    reject(this, "a client asked for job " + job + ", not this job " + jobId);
                    return false;
                }
                if (!RendezvousWire.sameMac(expected, auth.fields().get(3))) {
                    reject(this, "a client for rank " + r + " did not prove it holds the job secret");
                    return false;
                }
                if (r < 0 || r >= size) {
                    reject(this, "rank " + r + " is not in this job of " + size + " ranks");
                    return false;
                }
                byte[] welcome = RendezvousWire.mac(secret, utf8("launcher"), utf8(job), utf8(Integer.toString(r)),
                        nonce, clientNonce);
                synchronized (RendezvousServer.this) {
                    if (ranks.containsKey(r)) {
                        reject(this, "rank " + r + " is connected already");
                        return false;
                    }
                    // WELCOME leaves before the ping thread can see the connection: a PING first would be
                    // taken by the rank for a failed proof (seen with 8 ranks starting on 2 cores)
                    send(RendezvousWire.WELCOME, 0, welcome);
                    rank = r;
                    ranks.put(r, this);
                    joined.add(r);
                    heard = System.nanoTime();
                    authenticated = true;
                    failures.forEach((dead, why) -> sendFailed(this, dead, why));
                    if (allStarted) {
                        send(RendezvousWire.STARTED, 0);
                    }
                }
                return true;
            } finally {
                guard.interrupt();
            }
        }

        /**
         * A client that proves it holds the credential of a port of this launcher ({@link #onPortClient}),
         * in place of a rank's: it may only connect to that port (another {@code tutti run}'s launcher
         * on behalf of its ranks), and is no rank of this job.
         */
        private boolean portClient(String job, int r, byte[] nonce, byte[] clientNonce, byte[] proof) {
            byte[] token = portTokens.apply(job.substring(RendezvousWire.PORT_CLIENT.length()));
            if (token == null || r != -1) {
                reject(this, "a client asked for port " + job + ", which is not open here");
                return false;
            }
            byte[] expected = RendezvousWire.mac(token, utf8("rank"), utf8(job), utf8("-1"), nonce, clientNonce);
            if (!RendezvousWire.sameMac(expected, proof)) {
                reject(this, "a client for " + job + " did not prove it holds the port's credential");
                return false;
            }
            send(RendezvousWire.WELCOME, 0, RendezvousWire.mac(token, utf8("launcher"), utf8(job), utf8("-1"), nonce,
                    clientNonce));
            portClient = true;
            authenticated = true;
            return true;
        }
    }

    private void handle(Connection c, RendezvousWire.Frame f) {
        List<Waiter> ready = List.of();
        String value = null;
        byte reply = 0;
        synchronized (this) {
            switch (f.type()) {
                case RendezvousWire.PUT -> {
                    String key = f.text(0);
                    value = f.text(1);
                    values.put(key, value);
                    ready = gets.remove(key);
                    reply = RendezvousWire.VALUE;
                    c.send(RendezvousWire.DONE, f.id());
                }
                case RendezvousWire.GET -> {
                    String key = f.text(0);
                    String v = values.get(key);
                    if (v == null) {
                        gets.computeIfAbsent(key, k -> new ArrayList<>()).add(new Waiter(c, f.id()));
                    } else {
                        c.send(RendezvousWire.VALUE, f.id(), utf8(v));
                    }
                }
                case RendezvousWire.FENCE -> {
                    int epoch = Integer.parseInt(f.text(0));
                    if (!failures.isEmpty()) {
                        // a fence of every rank can no longer complete
                        c.send(RendezvousWire.ERROR, f.id(), utf8(failedFence(epoch)));
                        return;
                    }
                    List<Waiter> w = fences.computeIfAbsent(epoch, e -> new ArrayList<>());
                    w.add(new Waiter(c, f.id()));
                    if (w.size() == size) {
                        ready = fences.remove(epoch);
                        reply = RendezvousWire.DONE;
                    }
                }
                case RendezvousWire.PING -> {
                    // keeps the connection warm
                }
                default -> c.send(RendezvousWire.ERROR, f.id(), utf8("unknown rendezvous message " + f.type()));
            }
        }
        if (ready != null) {
            for (Waiter w : ready) {
                if (reply == RendezvousWire.VALUE) {
                    w.conn().send(RendezvousWire.VALUE, w.id(), utf8(value));
                } else {
                    w.conn().send(RendezvousWire.DONE, w.id());
                }
            }
        }
    }

    /** Starts a spawn on a thread of its own (processes take a while), and answers the rank when it is done. */
    private void spawn(Connection c, RendezvousWire.Frame f) {
        int from = c.rank;
        Thread.ofVirtual().name("tutti-spawn").start(() -> {
            try {
                String answer = onSpawn.spawn(from, programs(f), Integer.parseInt(f.text(0)));
                c.send(RendezvousWire.VALUE, f.id(), utf8(answer));
            } catch (Exception e) {
                c.send(RendezvousWire.ERROR, f.id(), utf8(String.valueOf(e.getMessage())));
            }
        });
    }

    /** Carries out a port or name operation on a thread of its own (an accept waits), and answers the rank. */
    private void port(Connection c, RendezvousWire.Frame f) {
        int from = c.rank;
        Thread.ofVirtual().name("tutti-port").start(() -> {
            try {
                List<String> args = new ArrayList<>();
                for (int i = 1; i < f.fields().size(); i++) {
                    args.add(f.text(i));
                }
                c.send(RendezvousWire.VALUE, f.id(), utf8(onPort.answer(from, f.text(0), args, c.ch::isOpen)));
            } catch (Exception e) {
                c.send(RendezvousWire.ERROR, f.id(), utf8(String.valueOf(e.getMessage())));
            }
        });
    }

    /** A SPAWN's programs: after the parents' count, how many, then each one's class, count, argument count, arguments. */
    static List<io.tutti.Communicator.Program> programs(RendezvousWire.Frame f) {
        int n = Integer.parseInt(f.text(1));
        List<io.tutti.Communicator.Program> programs = new ArrayList<>();
        int at = 2;
        for (int p = 0; p < n; p++) {
            String main = f.text(at);
            int count = Integer.parseInt(f.text(at + 1));
            int argc = Integer.parseInt(f.text(at + 2));
            if (argc < 0 || argc > f.fields().size()) {
                throw new IllegalArgumentException("a spawn request with " + argc + " arguments");
            }
            List<String> args = new ArrayList<>();
            for (int a = 0; a < argc; a++) {
                args.add(f.text(at + 3 + a));
            }
            programs.add(new io.tutti.Communicator.Program(main, List.copyOf(args), count));
            at += 3 + argc;
        }
        if (programs.isEmpty() || at != f.fields().size()) {
            throw new IllegalArgumentException("a malformed spawn request");
        }
        return programs;
    }

    private void ended(Connection c) {
        boolean lost;
        synchronized (this) {
            connections.remove(c);
            lost = c.authenticated && !c.goodbye && !closed && ranks.get(c.rank) == c;
        }
        if (lost) {
            announceFailed(c.rank, "its connection to the launcher" + c.from + " ended without a goodbye: its"
                    + " process died or its host was cut off");
            onRankLost.accept(c.rank);
        }
    }

    /**
     * Tells every other connected rank, and those that join later, that {@code rank} has failed and
     * why; the first reason for a rank is the one kept.
     */
    public void announceFailed(int rank, String why) {
        List<Connection> all;
        Map<Integer, List<Waiter>> stuck;
        synchronized (this) {
            if (closed || failures.putIfAbsent(rank, why) != null) {
                return;
            }
            all = new ArrayList<>(ranks.values());
            // the fences waiting now never complete: their ranks learn why at once, not at their timeout
            stuck = new HashMap<>(fences);
            fences.clear();
        }
        stuck.forEach((epoch, waiters) -> waiters.forEach(w -> w.conn().send(RendezvousWire.ERROR, w.id(),
                utf8(failedFence(epoch)))));
        for (Connection c : all) {
            if (c.rank != rank) {
                sendFailed(c, rank, why);
            }
        }
        checkAllStarted();
    }

    /**
     * Once every rank has started or failed (a rank that dies while starting never says STARTED),
     * tells every rank so, once: each then takes the launcher's silence after the short bound.
     */
    private void checkAllStarted() {
        List<Connection> all;
        synchronized (this) {
            if (allStarted) {
                return;
            }
            for (int r = 0; r < size; r++) {
                if (!started.contains(r) && !failures.containsKey(r)) {
                    return;
                }
            }
            allStarted = true;
            all = new ArrayList<>(ranks.values());
        }
        all.forEach(c -> c.send(RendezvousWire.STARTED, 0));
    }

    /** Why fence {@code epoch} fails: the first rank that failed, and how. */
    private synchronized String failedFence(int epoch) {
        Map.Entry<Integer, String> first = failures.entrySet().iterator().next();
        return "fence " + epoch + " of the job's " + size + " ranks cannot complete: rank " + first.getKey() + " failed ("
                + first.getValue() + ")";
    }

    private static void sendFailed(Connection c, int rank, String why) {
        c.send(RendezvousWire.FAILED, 0, utf8(Integer.toString(rank)), utf8(why));
    }

    /** Says goodbye to every rank still connected and stops listening. */
    @Override
    public void close() {
        List<Connection> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(connections);
        }
        for (ServerSocketChannel s : listeners) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (Connection c : all) {
            if (c.authenticated) {
                c.send(RendezvousWire.END, 0);
            }
            c.close();
        }
        for (Path p : socketFiles) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // its directory goes with the job
            }
        }
    }
}
