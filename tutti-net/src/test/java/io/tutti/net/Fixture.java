package io.tutti.net;

import io.tutti.transport.KeyValueStore;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/** Transports of one job in one JVM, over loopback, through an in-memory key-value store. */
final class Fixture implements AutoCloseable {
    static final int JOB = 0x7a11;
    static final byte[] SECRET = "the job secret".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** A start-up store in memory shared by the ranks of one JVM: {@link #of} is one rank's view. */
    static final class MemoryStore {
        private final Map<String, String> map = new ConcurrentHashMap<>();
        /** Whether every rank has started, as a launcher would say; read only where deaths are reported. */
        volatile boolean jobStarted = true;

        KeyValueStore of(int rank) {
            return new KeyValueStore() {
                @Override
                public void put(String key, String value) {
                    map.put(key + "-" + rank, value);
                }

                @Override
                public String get(int owner, String key) throws TimeoutException {
                    String v = map.get(key + "-" + owner);
                    if (v == null) {
                        throw new TimeoutException("rank " + owner + " put no key " + key);
                    }
                    return v;
                }

                @Override
                public void fence() {
                }

                @Override
                public boolean jobStarted() {
                    return jobStarted;
                }
            };
        }
    }

    final RailsTransport[] t;
    /** The start-up store the ranks share. */
    final MemoryStore store = new MemoryStore();

    /** Settings of the wire ({@code udp} or {@code tcp}) with the silence and start-up timeouts given. */
    static Map<String, String> timeouts(String wire, int timeoutMs, int startTimeoutMs) {
        Map<String, String> m = new HashMap<>();
        m.put("TUTTI_NET", wire);
        m.put("TUTTI_NET_TIMEOUT_MS", Integer.toString(timeoutMs));
        m.put("TUTTI_NET_START_TIMEOUT_MS", Integer.toString(startTimeoutMs));
        return m;
    }

    Fixture(int n, Map<String, String> settings) throws TimeoutException {
        this(n, settings, JOB, SECRET);
    }

    Fixture(int n, Map<String, String> settings, int job, byte[] secret) throws TimeoutException {
        this(hosts(n), settings, job, secret);
    }

    /** Rank r on host {@code hosts[r]}: ranks of one host share the rail table when the settings name a job directory. */
    Fixture(String[] hosts, Map<String, String> settings) throws TimeoutException {
        this(hosts, settings, JOB, SECRET);
    }

    private static String[] hosts(int n) {
        String[] h = new String[n];
        Arrays.fill(h, "localhost");
        return h;
    }

    private Fixture(String[] hosts, Map<String, String> settings, int job, byte[] secret) throws TimeoutException {
        this(hosts, settings, job, secret, hosts.length);
    }

    /**
     * {@code n} ranks that all publish their rails, of which only the first {@code connected} connect
     * now: the others are still starting until {@link #connect(int)}.
     */
    static Fixture starting(int n, int connected, Map<String, String> settings) throws TimeoutException {
        return new Fixture(hosts(n), settings, JOB, SECRET, connected, false, true);
    }

    /**
     * {@code n} connected ranks whose launcher reports deaths and has not yet said that every rank
     * has started ({@link MemoryStore#jobStarted}, set by the test), as under {@code tutti run}.
     */
    static Fixture launched(int n, Map<String, String> settings) throws TimeoutException {
        return new Fixture(hosts(n), settings, JOB, SECRET, n, true, false);
    }

    private Fixture(String[] hosts, Map<String, String> settings, int job, byte[] secret, int connected)
            throws TimeoutException {
        this(hosts, settings, job, secret, connected, false, true);
    }

    private Fixture(String[] hosts, Map<String, String> settings, int job, byte[] secret, int connected,
                    boolean deathsReported, boolean jobStarted) throws TimeoutException {
        int n = hosts.length;
        MemoryStore kvs = store;
        kvs.jobStarted = jobStarted;
        boolean[] remote = new boolean[n];
        Arrays.fill(remote, true);
        t = new RailsTransport[n];
        for (int r = 0; r < n; r++) {
            boolean[] mine = remote.clone();
            mine[r] = false;
            t[r] = new RailsTransport(new RemoteTransportProvider.Context(r, n, mine, job, secret, hosts[r], kvs.of(r),
                    new HashMap<>(settings), jobDir(settings), null, deathsReported));
        }
        for (int r = 0; r < connected; r++) {
            t[r].connect();
        }
    }

    /** Rank {@code r}, created by {@link #starting} but not connected, connects now. */
    void connect(int r) throws TimeoutException {
        t[r].connect();
    }

    /** Polls every transport once; arrivals are offered to {@code sinks[rank]}. */
    int pollAll(RemoteTransport.Sink... sinks) {
        int work = 0;
        for (int r = 0; r < t.length; r++) {
            work += t[r].poll(sinks.length > r && sinks[r] != null ? sinks[r] : (s, m, o, l) -> true);
        }
        return work;
    }

    /** Polls until every transport can send to every other, or fails after the deadline. */
    void awaitHandshake(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            pollAll();
            boolean all = true;
            for (int a = 0; a < t.length; a++) {
                for (int b = 0; b < t.length; b++) {
                    all &= a == b || t[a].canSend(b);
                }
            }
            if (all) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no handshake within " + millis + " ms: " + t[0].statistics());
    }

    /**
     * Polls rank {@code observer} until it reports {@code peer} failed or {@code millis} pass;
     * returns the reason, or null.
     */
    String awaitFailure(int observer, int peer, long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        String why = null;
        while (why == null && System.nanoTime() < end) {
            t[observer].poll((s, m, o, l) -> true);
            why = t[observer].failure(peer);
        }
        return why;
    }

    /**
     * Polls every transport (arrivals to {@code sinks[rank]}) until rank 0 has dropped a packet for
     * {@code reason} or {@code millis} pass.
     */
    void awaitDrop(DropReason reason, long millis, RemoteTransport.Sink... sinks) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end && t[0].dropped(reason) == 0) {
            pollAll(sinks);
        }
    }

    /** Polls every transport, rank {@code rank}'s arrivals into {@code got}, until it holds a record or 2 s pass. */
    void awaitRecord(int rank, Collector got) {
        RemoteTransport.Sink[] sinks = new RemoteTransport.Sink[t.length];
        sinks[rank] = got;
        long end = System.nanoTime() + 2_000_000_000L;
        while (got.got.isEmpty() && System.nanoTime() < end) {
            pollAll(sinks);
        }
    }

    /**
     * The scenario of a peer that closes, on either wire: its last record arrives, its goodbye
     * makes it "closed" rather than failed, and nothing stays outstanding to it.
     */
    static void closingPeer(Map<String, String> settings) throws TimeoutException {
        try (Fixture f = new Fixture(2, settings)) {
            f.awaitHandshake(5000);
            Collector got = new Collector();
            f.t[0].send(1, MemorySegment.ofArray(new byte[] {1, 2, 3}), 0, 3);
            f.awaitRecord(1, got);
            org.junit.jupiter.api.Assertions.assertEquals(1, got.got.size());
            f.t[1].close();
            org.junit.jupiter.api.Assertions.assertEquals("rank 1 has closed its end", f.awaitFailure(0, 1, 2000));
            org.junit.jupiter.api.Assertions.assertTrue(f.t[0].quiescent());
        }
    }

    /**
     * Two ranks whose job secrets differ, connected and polled for half a second: the caller checks
     * that neither got through, and closes both.
     */
    static RailsTransport[] withDifferentSecrets(Map<String, String> settings) throws TimeoutException {
        MemoryStore kvs = new MemoryStore();
        RailsTransport a = new RailsTransport(new RemoteTransportProvider.Context(0, 2, new boolean[] {false, true}, JOB,
                "secret one".getBytes(), "h", kvs.of(0), settings, jobDir(settings)));
        RailsTransport b = new RailsTransport(new RemoteTransportProvider.Context(1, 2, new boolean[] {true, false}, JOB,
                "secret two".getBytes(), "h", kvs.of(1), settings, jobDir(settings)));
        try {
            a.connect();
            b.connect();
        } catch (TimeoutException | RuntimeException e) {
            a.close();
            b.close();
            throw e;
        }
        // each tries to reach the other, as a first send does: the peers' handshake starts then
        a.canSend(1);
        b.canSend(0);
        long end = System.nanoTime() + 500_000_000L;
        while (System.nanoTime() < end) {
            a.poll((s, m, o, l) -> true);
            b.poll((s, m, o, l) -> true);
        }
        return new RailsTransport[] {a, b};
    }

    /** A sink that keeps copies of what arrives. */
    static final class Collector implements RemoteTransport.Sink {
        final List<byte[]> got = new ArrayList<>();
        final List<Integer> sources = new ArrayList<>();

        @Override
        public boolean accept(int source, MemorySegment record, long offset, int length) {
            byte[] b = new byte[length];
            MemorySegment.copy(record, offset, MemorySegment.ofArray(b), 0, length);
            got.add(b);
            sources.add(source);
            return true;
        }
    }

    @Override
    public void close() {
        for (RailsTransport x : t) {
            x.close();
        }
    }

    /** The job directory a test names in its settings (where ranks of one host share the rail table), or null. */
    static java.nio.file.Path jobDir(Map<String, String> settings) {
        String dir = settings.get("TUTTI_JOB_DIR");
        return dir == null || dir.isBlank() ? null : java.nio.file.Path.of(dir);
    }
}
