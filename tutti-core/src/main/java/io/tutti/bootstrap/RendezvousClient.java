package io.tutti.bootstrap;

import static io.tutti.bootstrap.RendezvousWire.utf8;

import io.tutti.transport.KeyValueStore;
import io.tutti.transport.SilenceWatch;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A rank's side of the launcher's rendezvous ({@link RendezvousWire}): the job's key-value store
 * and fences, over one authenticated connection kept open for the whole job. A reader thread takes
 * the launcher's answers and pings, another pings it every second; when the connection ends without
 * the launcher's goodbye, or the launcher is silent for {@link #SILENCE}, the rank is told through
 * {@code onLost} (its launcher or the launcher's host has died). The launcher also tells it of
 * every other rank's death ({@link #failure}).
 */
public final class RendezvousClient implements KeyValueStore, AutoCloseable {
    /** How long the launcher may be silent (it pings every second) before it is taken for dead. */
    static final Duration SILENCE = Duration.ofSeconds(10);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final SocketChannel ch;
    private final String address;
    private final int rank;
    private final Duration timeout;
    /** When this JVM last printed its threads for a launcher, so ranks that are its threads print them once. */
    private static final java.util.concurrent.atomic.AtomicLong LAST_STACKS = new java.util.concurrent.atomic.AtomicLong();
    private static final long STACKS_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often a wait for the launcher's answer looks whether this JVM's job was aborted ({@link JobControl}). */
    private static final long ABORT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private volatile String networkAddress;
    private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
    private final Consumer<String> onLost;
    /** The ranks the launcher reported dead, and why. */
    private final Map<Integer, String> failures = new ConcurrentHashMap<>();
    private int nextId = 1;
    private int fenceEpoch;
    private volatile long heard = System.nanoTime();
    /** Whether every rank has finished starting, as the launcher says: until then its silence counts after the start bound. */
    private volatile boolean jobStarted;
    private volatile boolean ending;
    private boolean saidGoodbye;
    /** The file copied to the launcher with every ping, and its name; null when none (guarded by this). */
    private MemorySegment copied;
    private String copiedName;
    private byte[] copyBuffer;
    /** Carries out the rail commands the launcher forwards: (operation, rail) to result. */
    private volatile java.util.function.IntBinaryOperator railCommands;

    private RendezvousClient(SocketChannel ch, String address, int rank, Duration timeout, Consumer<String> onLost) {
        this.ch = ch;
        this.address = address;
        this.rank = rank;
        this.timeout = timeout;
        this.onLost = onLost;
    }

    /** This JVM's connections to a launcher, which its exit closes first ({@link #closeAtExit}). */
    private static final java.util.Set<RendezvousClient> OPEN = ConcurrentHashMap.newKeySet();

    static {
        try {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("tutti-rendezvous-exit")
                    .unstarted(RendezvousClient::closeAtExit));
        } catch (IllegalStateException e) {
            // the JVM is exiting already: nothing to hurry
        }
    }

    /**
     * At System.exit, ends every connection at once. Its reader sits in a blocking read, and
     * HotSpot's exit waits up to 300 ms for threads in native code: a rank that exited took
     * 0.39 s to be seen dead, against 0.06-0.08 s without the connection (docs/perf/reliability.md).
     * The launcher takes the end for the rank's death unless it said goodbye.
     */
    private static void closeAtExit() {
        for (RendezvousClient c : OPEN) {
            c.ending = true;
            c.closeQuietly();
        }
    }

    /**
     * Connects to the first of {@code addresses} that answers and proves it is this job's launcher,
     * and proves the same of this rank. {@code onLost} gets a description when the launcher is gone.
     */
    public static RendezvousClient connect(List<String> addresses, String jobId, int rank, byte[] secret,
                                           Duration timeout, Consumer<String> onLost) throws IOException {
        List<String> failures = new ArrayList<>();
        for (String a : addresses) {
            SocketAddress to = RendezvousWire.parse(a);
            SocketChannel ch;
            try {
                if (to instanceof UnixDomainSocketAddress) {
                    ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                    ch.connect(to);
                } else {
                    ch = SocketChannel.open();
                    ch.socket().connect(to, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                    ch.socket().setTcpNoDelay(true);
                }
            } catch (IOException e) {
                failures.add(a + ": " + e.getMessage());
                continue;
            }
            RendezvousClient c = new RendezvousClient(ch, a, rank, timeout, onLost);
            try {
                c.authenticate(jobId, rank, secret);
                c.networkAddress = networkAddress(ch, addresses);
                return c;
            } catch (IOException e) {
                failures.add(a + ": " + e.getMessage());
            }
        }
        throw new IOException("cannot reach the launcher's rendezvous (" + String.join("; ", failures)
                + "); is tutti run still running, and can this host reach it? (tutti run --rendezvous-address"
                + " sets the address the ranks are given)");
    }

    private void authenticate(String jobId, int rank, byte[] secret) throws IOException {
        Thread guard = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(Math.max(1000, timeout.toMillis()));
                closeQuietly();
            } catch (InterruptedException e) {
                // answered in time
            }
        });
        try {
            RendezvousWire.Frame hello = RendezvousWire.read(ch);
            if (hello.type() != RendezvousWire.HELLO || hello.fields().size() != 2
                    || !RendezvousWire.MAGIC.equals(hello.text(0))) {
                throw new IOException("the rendezvous at " + address + " does not speak " + RendezvousWire.MAGIC);
            }
            byte[] serverNonce = hello.fields().get(1);
            byte[] nonce = new byte[RendezvousWire.NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            byte[] r = utf8(Integer.toString(rank));
            RendezvousWire.write(ch, RendezvousWire.AUTH, 0, utf8(jobId), r, nonce,
                    RendezvousWire.mac(secret, utf8("rank"), utf8(jobId), r, serverNonce, nonce));
            RendezvousWire.Frame answer = RendezvousWire.read(ch);
            if (answer.type() == RendezvousWire.DENIED) {
                throw new IOException("the launcher at " + address + " refused rank " + rank + ": " + answer.text(0));
            }
            byte[] expected = RendezvousWire.mac(secret, utf8("launcher"), utf8(jobId), r, serverNonce, nonce);
            if (answer.type() != RendezvousWire.WELCOME || answer.fields().size() != 1
                    || !RendezvousWire.sameMac(expected, answer.fields().get(0))) {
                throw new IOException("the rendezvous at " + address + " did not prove it knows the job secret");
            }
        } catch (java.nio.channels.AsynchronousCloseException e) {
            throw new IOException("the rendezvous at " + address + " did not answer within " + timeout.toMillis()
                    + " ms", e);
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        } finally {
            guard.interrupt();
        }
        heard = System.nanoTime();
        OPEN.add(this);
        Thread.ofPlatform().daemon().name("tutti-rendezvous-reader").start(this::readLoop);
        Thread.ofPlatform().daemon().name("tutti-rendezvous-watch").start(this::watchSilence);
    }

    /**
     * The address of this host that faces the job's other hosts, or null when the job has none: over
     * TCP the local end of this connection (the interface that reaches the launcher's host); over the
     * launcher's Unix socket its TCP address, which is this host's own. The rails' default.
     */
    public String networkAddress() {
        return networkAddress;
    }

    private static String networkAddress(SocketChannel ch, List<String> addresses) throws IOException {
        if (ch.getLocalAddress() instanceof java.net.InetSocketAddress local) {
            return local.getAddress().isLoopbackAddress() ? null : local.getAddress().getHostAddress();
        }
        for (String a : addresses) {
            if (RendezvousWire.parse(a) instanceof java.net.InetSocketAddress tcp && tcp.getAddress() != null
                    && !tcp.getAddress().isLoopbackAddress() && !tcp.getAddress().isAnyLocalAddress()) {
                return tcp.getAddress().getHostAddress();
            }
        }
        return null;
    }

    /**
     * Why the launcher reported rank {@code r} dead, or null while it has not. Allocates nothing
     * until some rank has died.
     */
    public String failure(int r) {
        return failures.isEmpty() ? null : failures.get(r);
    }

    /** Where this client is connected. */
    public String address() {
        return address;
    }

    private void readLoop() {
        String why = "its launcher closed the connection";
        try {
            while (true) {
                RendezvousWire.Frame f = RendezvousWire.read(ch);
                heard = System.nanoTime();
                switch (f.type()) {
                    case RendezvousWire.PING -> { }
                    case RendezvousWire.STARTED -> jobStarted = true;
                    case RendezvousWire.STACKS -> printStacks();
                    case RendezvousWire.END -> {
                        ending = true;
                        failAll("the launcher ended the job");
                        return;
                    }
                    case RendezvousWire.VALUE, RendezvousWire.DONE -> {
                        CompletableFuture<String> p = pending.remove(f.id());
                        if (p != null) {
                            p.complete(f.fields().isEmpty() ? "" : f.text(0));
                        }
                    }
                    case RendezvousWire.FAILED -> failures.putIfAbsent(Integer.parseInt(f.text(0)), f.text(1));
                    case RendezvousWire.RAIL -> railCommand(RendezvousServer.parseWord(f.text(0)));
                    case RendezvousWire.ERROR -> {
                        CompletableFuture<String> p = pending.remove(f.id());
                        if (p != null) {
                            p.completeExceptionally(new IllegalStateException(f.text(0)));
                        }
                    }
                    default -> throw new IOException("unexpected rendezvous message " + f.type());
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!(e instanceof java.io.EOFException)) {
                why = "its connection to the launcher failed (" + e.getMessage() + ")";
            }
        }
        closeQuietly();
        failAll(why);
        if (!ending) {
            onLost.accept(why);
        }
    }

    /**
     * Tells the launcher that this rank has finished starting ({@link RendezvousServer#START_MILLIS});
     * once it says every rank has, it is taken for dead after {@link #SILENCE} without a word.
     */
    public void started() {
        tell(RendezvousWire.STARTED);
    }

    /** Sends the launcher a message of {@code type} without fields; a broken connection is the reader's to see. */
    private synchronized void tell(byte type) {
        try {
            RendezvousWire.write(ch, type, 0);
        } catch (IOException e) {
            // the reader sees the broken connection
        }
    }

    /**
     * Prints every thread's stack of this JVM on standard error in one print, as the launcher asked
     * (a job past its timeout: where each thread is), then tells the launcher it has. The lines of
     * ranks on one output may interleave ({@code --tag-output} tells them apart); ranks that are
     * threads of one JVM print its threads once, and the others say so.
     */
    private void printStacks() {
        long now = System.nanoTime();
        long last = LAST_STACKS.get();
        if (last != 0 && now - last < STACKS_AGAIN_NANOS || !LAST_STACKS.compareAndSet(last, now)) {
            System.err.println("tutti: rank " + rank + "'s threads are those of its JVM, printed just now");
            tell(RendezvousWire.STACKS);
            return;
        }
        StringBuilder b = new StringBuilder("tutti: rank " + rank + "'s threads, as the launcher asked:\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            b.append("  \"").append(t.getName()).append("\" ").append(t.getState())
                    .append(t.isDaemon() ? " daemon" : "").append('\n');
            for (StackTraceElement frame : e.getValue()) {
                b.append("      at ").append(frame).append('\n');
            }
        }
        System.err.print(b);
        System.err.flush();
        tell(RendezvousWire.STACKS);
    }

    /** Whether the launcher has said that every rank has started. */
    @Override
    public boolean jobStarted() {
        return jobStarted;
    }

    /**
     * Pings the launcher every second, and takes it for dead after {@link #SILENCE} without a word
     * ({@link RendezvousServer#START_MILLIS} while this rank starts).
     */
    private void watchSilence() {
        SilenceWatch watch = new SilenceWatch(TimeUnit.SECONDS.toNanos(1), System.nanoTime());
        while (!ending && ch.isOpen()) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                try {
                    if (copied != null) {
                        sendCopy();
                    } else {
                        RendezvousWire.write(ch, RendezvousWire.PING, 0);
                    }
                } catch (IOException e) {
                    // the reader sees the broken connection
                }
            }
            long bound = jobStarted ? SILENCE.toNanos() : TimeUnit.MILLISECONDS.toNanos(RendezvousServer.START_MILLIS);
            long now = System.nanoTime();
            watch.tick(now);
            if (watch.silence(heard, now) > bound && !ending) {
                closeQuietly();
                return;
            }
        }
    }

    /**
     * Sends {@code file} to the launcher as {@code name} in place of every ping (a COPY also tells the
     * launcher this rank lives). Returns what sends the last copy and stops, to run before
     * {@code file} is unmapped.
     */
    Runnable copy(String name, MemorySegment file, java.util.function.IntBinaryOperator railCommands) {
        this.railCommands = railCommands;
        synchronized (this) {
            copied = file;
            copiedName = name;
            copyBuffer = new byte[(int) Math.min(file.byteSize(), RendezvousWire.MAX_FRAME - 64 - name.length() * 4L)];
        }
        return () -> {
            synchronized (this) {
                if (copied != null && ch.isOpen()) {
                    try {
                        sendCopy();
                    } catch (IOException e) {
                        // the reader sees the broken connection
                    }
                }
                copied = null;
            }
        };
    }

    /**
     * A rail command the launcher forwards from its copy of this rank's counters: carried out on a
     * thread of its own (it waits for the transport's answer), then answered with RAIL_ANSWER and
     * a fresh copy, so the launcher's view shows the rail's new state at once.
     */
    private void railCommand(long word) {
        java.util.function.IntBinaryOperator handler = railCommands;
        if (word == 0 || handler == null) {
            return;
        }
        Thread.ofVirtual().name("tutti-rail-command").start(() -> {
            int result = handler.applyAsInt(io.tutti.transport.RailCounters.operation(word),
                    io.tutti.transport.RailCounters.rail(word));
            if (result == 0) {
                return;   // no answer in time: the operator's own wait says so
            }
            synchronized (this) {
                try {
                    if (copied != null) {
                        sendCopy();
                    }
                    RendezvousWire.write(ch, RendezvousWire.RAIL_ANSWER, 0,
                            utf8(Long.toString(io.tutti.transport.RailCounters.answer(word, result))));
                } catch (IOException e) {
                    // the reader sees the broken connection
                }
            }
        });
    }

    /**
     * One COPY frame; caller holds the lock. A file larger than a frame goes cut short (a job of
     * about 16,000 ranks), which the launcher refuses to keep. The bulk copy moves aligned 8-byte
     * cells whole, so no counter is torn.
     */
    private void sendCopy() throws IOException {
        MemorySegment.copy(copied, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, copyBuffer, 0, copyBuffer.length);
        RendezvousWire.write(ch, RendezvousWire.COPY, 0, utf8(copiedName), copyBuffer);
    }

    private void failAll(String why) {
        for (Integer id : List.copyOf(pending.keySet())) {
            CompletableFuture<String> p = pending.remove(id);
            if (p != null) {
                p.completeExceptionally(new IOException(why));
            }
        }
    }

    private String request(byte type, long waitNanos, String what, byte[]... fields) throws TimeoutException {
        CompletableFuture<String> answer = new CompletableFuture<>();
        int id;
        synchronized (this) {
            id = nextId++;
            pending.put(id, answer);
            try {
                RendezvousWire.write(ch, type, id, fields);
            } catch (IOException e) {
                pending.remove(id);
                throw new IllegalStateException("rendezvous " + what + " failed: the launcher at " + address
                        + " is unreachable (" + e.getMessage() + ")", e);
            }
        }
        try {
            // in slices: ranks that are threads of this JVM stop waiting once their job is aborted (a
            // rank thread failed before it joined), as a rank process's launcher would stop it
            long deadline = System.nanoTime() + waitNanos;
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return answer.get(Math.min(left, ABORT_POLL_NANOS), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    String aborted = JobControl.abortReason();
                    if (aborted != null) {
                        pending.remove(id);
                        throw new IllegalStateException("rendezvous " + what + " failed: the job is being stopped: "
                                + aborted, e);
                    }
                    if (left <= ABORT_POLL_NANOS) {
                        throw e;
                    }
                }
            }
        } catch (TimeoutException e) {
            pending.remove(id);
            throw new TimeoutException("no answer to rendezvous " + what + " within " + timeout.toMillis()
                    + " ms; did every rank start?");
        } catch (ExecutionException e) {
            throw new IllegalStateException("rendezvous " + what + " failed: " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("rendezvous " + what + " interrupted");
        }
    }

    @Override
    public void put(String key, String value) {
        try {
            // the launcher's store is flat: a key is stored with its owner's rank
            request(RendezvousWire.PUT, timeout.toNanos(), "put of '" + key + "'", utf8(key + "-" + rank),
                    utf8(value));
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public String get(int owner, String key) throws TimeoutException {
        return request(RendezvousWire.GET, timeout.toNanos(), "get of rank " + owner + "'s '" + key + "'",
                utf8(key + "-" + owner));
    }

    @Override
    public void fence() throws TimeoutException {
        int epoch;
        synchronized (this) {
            epoch = fenceEpoch++;
        }
        request(RendezvousWire.FENCE, timeout.toNanos(), "fence " + epoch, utf8(Integer.toString(epoch)));
    }

    /**
     * Asks the launcher to start the processes of {@code programs}, in a new job with {@code parents}
     * spawning ranks; returns its answer (the new job's id, a newline, its rendezvous addresses), or
     * throws IllegalStateException with the launcher's reason.
     */
    public String spawn(List<io.tutti.Communicator.Program> programs, int parents, Duration wait)
            throws TimeoutException {
        List<byte[]> fields = new ArrayList<>(List.of(utf8(Integer.toString(parents)),
                utf8(Integer.toString(programs.size()))));
        for (io.tutti.Communicator.Program p : programs) {
            fields.add(utf8(p.mainClass()));
            fields.add(utf8(Integer.toString(p.count())));
            fields.add(utf8(Integer.toString(p.args().size())));
            p.args().forEach(a -> fields.add(utf8(a)));
        }
        return refusedFor(() -> request(RendezvousWire.SPAWN, wait.toNanos(), "spawn of "
                + programs.getFirst().mainClass(), fields.toArray(byte[][]::new)));
    }

    /**
     * Asks the launcher for port or name operation {@code operation} with {@code args}
     * ({@link RendezvousServer.PortHandler}) and returns its answer, waiting at most {@code wait};
     * throws IllegalStateException with the launcher's reason when it refuses.
     */
    public String port(String operation, Duration wait, String... args) throws TimeoutException {
        byte[][] fields = new byte[args.length + 1][];
        fields[0] = utf8(operation);
        for (int i = 0; i < args.length; i++) {
            fields[i + 1] = utf8(args[i]);
        }
        return refusedFor(() -> request(RendezvousWire.PORT, wait.toNanos(), operation + " of a port or name", fields));
    }

    /** A request whose refusal says the launcher's reason alone: it says what was wrong with the request. */
    private static String refusedFor(java.util.concurrent.Callable<String> request) throws TimeoutException {
        try {
            return request.call();
        } catch (IllegalStateException e) {
            throw e.getCause() instanceof ExecutionException refused
                    ? new IllegalStateException(refused.getCause().getMessage(), e) : e;
        } catch (TimeoutException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Says goodbye: the launcher takes the end of this connection for a rank that finished. The
     * connection stays open until the process ends, so a rank that lingers after its job still stops
     * when its launcher dies.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (saidGoodbye) {
                return;
            }
            saidGoodbye = true;
            // pings only from now: the copied file may be unmapped once this rank has said goodbye
            copied = null;
            try {
                RendezvousWire.write(ch, RendezvousWire.BYE, 0);
            } catch (IOException ignored) {
                // the launcher is gone already
            }
        }
    }

    /** Says goodbye and ends the connection at once, which is no death: a port's client that is done. */
    public void disconnect() {
        ending = true;
        close();
        closeQuietly();
    }

    private void closeQuietly() {
        OPEN.remove(this);
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
