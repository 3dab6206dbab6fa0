package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's rendezvous: its protocol, credentials, and what each side does when the other dies. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RendezvousTest {
    private static final byte[] SECRET = HexFormat.of().parseHex("00112233445566778899aabbccddeeff"
            + "00112233445566778899aabbccddeeff");
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    @org.junit.jupiter.api.BeforeEach
    void noAbortedJob() {
        // an earlier thread job of this JVM may have left its abort, which ends rendezvous waits
        JobControl.reset();
    }

    private RendezvousServer server(int size) throws IOException {
        return new RendezvousServer("job1", SECRET, size, tmp.resolve("r.sock"), new InetSocketAddress("127.0.0.1", 0));
    }

    private static String tcp(RendezvousServer s) {
        return "tcp:127.0.0.1:" + s.tcpPort();
    }

    private static RendezvousClient client(String address, int rank, byte[] secret, List<String> lost)
            throws IOException {
        return RendezvousClient.connect(List.of(address), "job1", rank, secret, WAIT, lost::add);
    }

    @Test
    void ranksExchangeKeysWaitForLaterOnesAndFenceOverBothSockets() throws Exception {
        try (RendezvousServer s = server(3)) {
            List<String> lost = new CopyOnWriteArrayList<>();
            List<String> addresses = s.addresses();
            assertTrue(addresses.getFirst().startsWith("unix:"), addresses.toString());
            RendezvousClient a = client(addresses.getFirst(), 0, SECRET, lost);
            RendezvousClient b = client(tcp(s), 1, SECRET, lost);
            RendezvousClient c = client(tcp(s), 2, SECRET, lost);
            CompletableFuture<String> early = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.get(0, "k0");
                } catch (TimeoutException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(100);
            a.put("k0", "value of 0 with spaces and ünïcode");
            assertEquals("value of 0 with spaces and ünïcode", early.get(20, TimeUnit.SECONDS));
            List<CompletableFuture<Void>> fences = new ArrayList<>();
            for (RendezvousClient x : List.of(a, b, c)) {
                fences.add(CompletableFuture.runAsync(() -> {
                    try {
                        x.fence();
                        x.fence();
                    } catch (TimeoutException e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            for (CompletableFuture<Void> f : fences) {
                f.get(20, TimeUnit.SECONDS);
            }
            assertEquals("value of 0 with spaces and ünïcode", c.get(0, "k0"));
            for (RendezvousClient x : List.of(a, b, c)) {
                x.close();
            }
            assertEquals(List.of(), lost);
            assertEquals(0, s.rejected());
        }
    }

    @Test
    void aGetThatIsNeverAnsweredTimesOut() throws Exception {
        try (RendezvousServer s = server(1);
             RendezvousClient a = RendezvousClient.connect(List.of(tcp(s)), "job1", 0, SECRET,
                     Duration.ofMillis(300), w -> { })) {
            TimeoutException e = assertThrows(TimeoutException.class, () -> a.get(0, "never"));
            assertTrue(e.getMessage().contains("did every rank start"), e.getMessage());
            a.put("later", "x");
            assertEquals("x", a.get(0, "later"));
        }
    }

    /** A spawn request reaches the launcher's handler whole, and its answer or its reason comes back. */
    @Test
    void aSpawnRequestGetsTheLaunchersAnswerOrItsReason() throws Exception {
        try (RendezvousServer s = server(1);
             RendezvousClient a = RendezvousClient.connect(List.of(tcp(s)), "job1", 0, SECRET, WAIT, w -> { })) {
            List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
            s.onSpawn((rank, programs, parents) -> {
                asked.add(rank + " " + programs + " " + parents);
                if (programs.getFirst().mainClass().equals("Bad")) {
                    throw new IllegalArgumentException("no class Bad here");
                }
                return "job2\nunix:/x";
            });
            List<io.tutti.Communicator.Program> two = List.of(
                    new io.tutti.Communicator.Program("org.example.Worker", List.of("a b", ""), 3),
                    new io.tutti.Communicator.Program("org.example.Other", List.of(), 1));
            assertEquals("job2\nunix:/x", a.spawn(two, 2, WAIT));
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> a.spawn(List.of(new io.tutti.Communicator.Program("Bad", List.of(), 1)), 1, WAIT));
            assertEquals("no class Bad here", refused.getMessage());
            assertEquals(List.of("0 " + two + " 2", "0 [Program[mainClass=Bad, args=[], count=1]] 1"), asked);
        }
    }

    /** A fence that a failed rank can never reach fails at once, waiting or asked later, naming the rank. */
    @Test
    void aFenceThatCanNoLongerCompleteFailsAtOnce() throws Exception {
        try (RendezvousServer s = server(3);
             RendezvousClient a = RendezvousClient.connect(List.of(tcp(s)), "job1", 0, SECRET, WAIT, w -> { })) {
            java.util.concurrent.CompletableFuture<Void> waiting = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    a.fence();
                } catch (TimeoutException e) {
                    throw new IllegalStateException("timed out", e);
                }
            });
            Thread.sleep(200); // the fence is waiting at the server (or soon will be: then it fails as asked later)
            s.announceFailed(2, "it exited with code 4 before it joined");
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> waiting.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
            assertTrue(e.getCause().getMessage().contains("rank 2 failed (it exited with code 4 before it joined)"),
                    e.getCause().getMessage());
            IllegalStateException later = assertThrows(IllegalStateException.class, a::fence);
            assertTrue(later.getMessage().contains("cannot complete: rank 2 failed"), later.getMessage());
        }
    }

    /** A port request reaches the launcher's handler whole, its answer or reason comes back, and two wait at once. */
    @Test
    void portRequestsGetTheLaunchersAnswerOrItsReason() throws Exception {
        try (RendezvousServer s = server(1);
             RendezvousClient a = RendezvousClient.connect(List.of(tcp(s)), "job1", 0, SECRET, WAIT, w -> { })) {
            java.util.concurrent.CountDownLatch both = new java.util.concurrent.CountDownLatch(2);
            s.onPort((rank, operation, args, asking) -> {
                if (operation.equals("lookup")) {
                    throw new IllegalArgumentException("no service '" + args.getFirst() + "'");
                }
                if (operation.equals("accept")) {
                    // answered only once a second request is waiting too: each runs on a thread of its own
                    both.countDown();
                    both.await();
                }
                return rank + " " + operation + " " + args;
            });
            assertEquals("0 open []", a.port("open", WAIT));
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> a.port("lookup", WAIT, "x y"));
            assertEquals("no service 'x y'", refused.getMessage());
            java.util.concurrent.Future<String> first = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()
                    .submit(() -> a.port("accept", WAIT, "p", "2"));
            assertEquals("0 accept [q, 3]", a.port("accept", WAIT, "q", "3"));
            assertEquals("0 accept [p, 2]", first.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
        }
    }

    /** A joined job's secret sealed for one job is opened by that job alone, and differs per joined job. */
    @Test
    void aSealedSecretOpensOnlyWithItsJobsSecret() {
        byte[] joined = new byte[32];
        new java.util.Random(5).nextBytes(joined);
        byte[] other = RendezvousWire.spawnSecret(SECRET, "x");
        byte[] sealed = RendezvousWire.seal(SECRET, "j1", joined);
        assertFalse(java.util.Arrays.equals(joined, sealed));
        assertTrue(java.util.Arrays.equals(joined, RendezvousWire.seal(SECRET, "j1", sealed)));
        assertFalse(java.util.Arrays.equals(joined, RendezvousWire.seal(other, "j1", sealed)));
        assertFalse(java.util.Arrays.equals(sealed, RendezvousWire.seal(SECRET, "j2", joined)));
        assertThrows(IllegalArgumentException.class, () -> RendezvousWire.seal(SECRET, "j1", new byte[33]));
    }

    /** The secret of a spawned job: the same on both sides, different per job, and not the job's own. */
    @Test
    void aSpawnedJobsSecretIsDerivedPerJob() {
        byte[] one = RendezvousWire.spawnSecret(SECRET, "a1");
        assertEquals(32, one.length);
        assertTrue(java.util.Arrays.equals(one, RendezvousWire.spawnSecret(SECRET, "a1")));
        assertFalse(java.util.Arrays.equals(one, RendezvousWire.spawnSecret(SECRET, "a2")));
        assertFalse(java.util.Arrays.equals(one, SECRET));
    }

    /** Rank threads of one JVM: a wait for a rank that failed before it joined ends once the job is aborted. */
    @Test
    void aWaitEndsWhenThisJvmsJobIsAborted() throws Exception {
        JobControl.reset();
        try (RendezvousServer s = server(2);
             RendezvousClient a = client(tcp(s), 0, SECRET, new CopyOnWriteArrayList<>())) {
            CompletableFuture<Void> fence = CompletableFuture.runAsync(() -> {
                try {
                    a.fence();
                } catch (TimeoutException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(300);
            assertFalse(fence.isDone(), "the fence waits for rank 1");
            long start = System.nanoTime();
            JobControl.abort("rank 1 failed: boom");
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> fence.get(10, TimeUnit.SECONDS));
            // well before the 20 s the rendezvous waits
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
            assertTrue(e.getCause().getMessage().contains("the job is being stopped: rank 1 failed: boom"),
                    e.getCause().getMessage());
        } finally {
            JobControl.reset();
        }
    }

    @Test
    void aWrongCredentialIsRejectedAndCounted() throws Exception {
        try (RendezvousServer s = server(2)) {
            List<String> refused = new CopyOnWriteArrayList<>();
            s.onRejected(refused::add);
            byte[] wrong = SECRET.clone();
            wrong[0] ^= 1;
            IOException e = assertThrows(IOException.class, () -> client(tcp(s), 0, wrong, new ArrayList<>()));
            assertTrue(e.getMessage().contains("refused rank 0"), e.getMessage());
            IOException other = assertThrows(IOException.class, () -> RendezvousClient.connect(List.of(tcp(s)),
                    "another-job", 1, SECRET, WAIT, w -> { }));
            assertTrue(other.getMessage().contains("refused"), other.getMessage());
            assertEquals(2, s.rejected());
            assertEquals(2, refused.size(), refused.toString());
            // the rank itself still gets in, and a second connection for it does not
            try (RendezvousClient ok = client(tcp(s), 0, SECRET, new ArrayList<>())) {
                assertThrows(IOException.class, () -> client(tcp(s), 0, SECRET, new ArrayList<>()));
                assertEquals(3, s.rejected());
                ok.put("still", "served");
                assertEquals("served", ok.get(0, "still"));
            }
        }
    }

    @Test
    void aClientRefusesALauncherThatDoesNotKnowTheSecret() throws Exception {
        byte[] other = new byte[32];
        try (RendezvousServer s = new RendezvousServer("job1", other, 1, null, new InetSocketAddress("127.0.0.1", 0))) {
            IOException e = assertThrows(IOException.class, () -> client(tcp(s), 0, SECRET, new ArrayList<>()));
            assertTrue(e.getMessage().contains("refused") || e.getMessage().contains("did not prove"), e.getMessage());
        }
    }

    @Test
    void aTruncatedMessageEndsOnlyItsConnection() throws Exception {
        try (RendezvousServer s = server(1)) {
            try (SocketChannel raw = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                raw.connect(UnixDomainSocketAddress.of(tmp.resolve("r.sock")));
                RendezvousWire.Frame hello = RendezvousWire.read(raw);
                assertEquals(RendezvousWire.HELLO, hello.type());
                ByteBuffer b = ByteBuffer.allocate(7).putInt(100).put((byte) 2).put((byte) 0).put((byte) 0).flip();
                raw.write(b);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (s.rejected() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, s.rejected());
            try (SocketChannel raw = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                raw.connect(UnixDomainSocketAddress.of(tmp.resolve("r.sock")));
                RendezvousWire.read(raw);
                raw.write(ByteBuffer.allocate(4).putInt(RendezvousWire.MAX_FRAME + 1).flip());
                IOException e = assertThrows(IOException.class, () -> {
                    RendezvousWire.read(raw);
                    RendezvousWire.read(raw);
                });
                assertNotNull(e);
            }
            try (RendezvousClient a = client(tcp(s), 0, SECRET, new ArrayList<>())) {
                a.put("k", "v");
                assertEquals("v", a.get(0, "k"));
            }
        }
    }

    @Test
    void aTruncatedFrameIsReadAsAnError() throws Exception {
        try (ServerSocketChannel l = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel out = SocketChannel.open(l.getLocalAddress());
             SocketChannel in = l.accept()) {
            out.write(ByteBuffer.allocate(15).putInt(20).put((byte) 5).putInt(1).putInt(50).putShort((short) 0).flip());
            out.close();
            IOException e = assertThrows(IOException.class, () -> RendezvousWire.read(in));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        }
    }

    @Test
    void aRankThatDropsItsConnectionWithoutGoodbyeIsReportedOnceAndOneThatSaysGoodbyeIsNot() throws Exception {
        try (RendezvousServer s = server(2)) {
            LinkedBlockingQueue<Integer> lostRanks = new LinkedBlockingQueue<>();
            s.onRankLost(lostRanks::add);
            RendezvousClient polite = client(tcp(s), 0, SECRET, new ArrayList<>());
            polite.close();
            // a rank that dies: its socket closes without BYE
            try (SocketChannel raw = SocketChannel.open(new InetSocketAddress("127.0.0.1", s.tcpPort()))) {
                RendezvousWire.Frame hello = RendezvousWire.read(raw);
                byte[] nonce = new byte[32];
                byte[] r = "1".getBytes(StandardCharsets.UTF_8);
                byte[] job = "job1".getBytes(StandardCharsets.UTF_8);
                RendezvousWire.write(raw, RendezvousWire.AUTH, 0, job, r, nonce, RendezvousWire.mac(SECRET,
                        "rank".getBytes(StandardCharsets.UTF_8), job, r, hello.fields().get(1), nonce));
                assertEquals(RendezvousWire.WELCOME, RendezvousWire.read(raw).type());
            }
            assertEquals(1, lostRanks.poll(20, TimeUnit.SECONDS));
            Thread.sleep(200);
            assertTrue(lostRanks.isEmpty(), lostRanks::toString);
        }
    }

    /** Joins as {@code rank} over a bare socket, so that the test can end the connection as a crash would. */
    private static SocketChannel rawRank(RendezvousServer s, int rank) throws IOException {
        SocketChannel raw = SocketChannel.open(new InetSocketAddress("127.0.0.1", s.tcpPort()));
        RendezvousWire.Frame hello = RendezvousWire.read(raw);
        byte[] nonce = new byte[32];
        byte[] r = Integer.toString(rank).getBytes(StandardCharsets.UTF_8);
        byte[] job = "job1".getBytes(StandardCharsets.UTF_8);
        RendezvousWire.write(raw, RendezvousWire.AUTH, 0, job, r, nonce, RendezvousWire.mac(SECRET,
                "rank".getBytes(StandardCharsets.UTF_8), job, r, hello.fields().get(1), nonce));
        assertEquals(RendezvousWire.WELCOME, RendezvousWire.read(raw).type());
        return raw;
    }

    private static String awaitFailure(RendezvousClient c, int rank) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (c.failure(rank) == null && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        return c.failure(rank);
    }

    @Test
    void aRanksDeathIsToldToTheOthersAndToThoseThatJoinLaterButAGoodbyeIsNotADeath() throws Exception {
        try (RendezvousServer s = server(4)) {
            RendezvousClient watcher = client(tcp(s), 0, SECRET, new ArrayList<>());
            RendezvousClient polite = client(tcp(s), 1, SECRET, new ArrayList<>());
            polite.close();
            rawRank(s, 2).close(); // rank 2 crashes: its socket closes without BYE
            String why = awaitFailure(watcher, 2);
            assertNotNull(why, "rank 0 was not told of rank 2's death");
            assertTrue(why.contains("without a goodbye") && why.contains("127.0.0.1"), why);
            RendezvousClient late = client(tcp(s), 3, SECRET, new ArrayList<>());
            assertEquals(why, awaitFailure(late, 2), "a rank that joined after the death was not told of it");
            assertNull(watcher.failure(1), "a rank that said goodbye was reported dead");
            assertNull(watcher.failure(0));
            s.announceFailed(2, "a second reason");
            Thread.sleep(200);
            assertEquals(why, watcher.failure(2), "the first reason for a death is the one kept");
        }
    }

    @Test
    void aRankThatFallsSilentIsTakenForLostButOneThatPingsIsNot() throws Exception {
        try (RendezvousServer s = new RendezvousServer("job1", SECRET, 2, null, new InetSocketAddress("127.0.0.1", 0),
                3000, 3000)) {
            LinkedBlockingQueue<Integer> lostRanks = new LinkedBlockingQueue<>();
            s.onRankLost(lostRanks::add);
            try (RendezvousClient pinging = client(tcp(s), 0, SECRET, new ArrayList<>());
                 SocketChannel raw = SocketChannel.open(new InetSocketAddress("127.0.0.1", s.tcpPort()))) {
                authenticate(raw, 1);
                // rank 1 now says nothing more, as a host that lost its network
                assertEquals(1, lostRanks.poll(20, TimeUnit.SECONDS));
                Thread.sleep(4000);
                assertTrue(lostRanks.isEmpty(), lostRanks::toString);
                pinging.put("alive", "yes");
            }
        }
    }

    @Test
    void aRankSilentWhileTheJobStartsHasTheStartBoundAndOnceAllStartedTheShortOne() throws Exception {
        try (RendezvousServer s = new RendezvousServer("job1", SECRET, 2, null, new InetSocketAddress("127.0.0.1", 0),
                2000, 9000)) {
            LinkedBlockingQueue<Integer> lostRanks = new LinkedBlockingQueue<>();
            s.onRankLost(lostRanks::add);
            try (RendezvousClient pinging = client(tcp(s), 0, SECRET, new ArrayList<>());
                 SocketChannel raw = SocketChannel.open(new InetSocketAddress("127.0.0.1", s.tcpPort()))) {
                authenticate(raw, 1);
                pinging.started();
                // rank 1 says nothing while it starts, as a JVM starved by many others starting
                assertNull(lostRanks.poll(5, TimeUnit.SECONDS), "a starting rank was taken for lost");
                assertFalse(pinging.jobStarted(), "rank 1 has not started yet");
                RendezvousWire.write(raw, RendezvousWire.STARTED, 0);
                // every rank has started: the launcher says so to each, and silence counts after the short bound
                RendezvousWire.Frame f;
                do {
                    f = RendezvousWire.read(raw);
                } while (f.type() == RendezvousWire.PING);
                assertEquals(RendezvousWire.STARTED, f.type());
                assertEquals(1, lostRanks.poll(20, TimeUnit.SECONDS));
                assertTrue(pinging.jobStarted(), "rank 0 was not told that every rank has started");
                pinging.put("alive", "yes");
            }
        }
    }

    @Test
    void aRankThatDiesWhileStartingEndsTheStartUpBoundsAsIfItHadStarted() throws Exception {
        try (RendezvousServer s = server(2);
             RendezvousClient c = client(tcp(s), 0, SECRET, new ArrayList<>())) {
            c.started();
            try (SocketChannel raw = SocketChannel.open(new InetSocketAddress("127.0.0.1", s.tcpPort()))) {
                authenticate(raw, 1);
            }
            // rank 1 is gone without a goodbye before it said STARTED: rank 0 must not keep the long bound
            long end = System.nanoTime() + WAIT.toNanos();
            while (!c.jobStarted() && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertTrue(c.jobStarted(), "a rank that died while starting kept the job starting for good");
        }
    }

    /** Authenticates {@code raw} as rank {@code r} of job1 by hand, as a rank that then says only what the test writes. */
    private static void authenticate(SocketChannel raw, int r) throws IOException {
        RendezvousWire.Frame hello = RendezvousWire.read(raw);
        byte[] nonce = new byte[32];
        byte[] rank = Integer.toString(r).getBytes(StandardCharsets.UTF_8);
        byte[] job = "job1".getBytes(StandardCharsets.UTF_8);
        RendezvousWire.write(raw, RendezvousWire.AUTH, 0, job, rank, nonce, RendezvousWire.mac(SECRET,
                "rank".getBytes(StandardCharsets.UTF_8), job, rank, hello.fields().get(1), nonce));
        assertEquals(RendezvousWire.WELCOME, RendezvousWire.read(raw).type());
    }

    @Test
    void aRankLearnsOfItsLaunchersDeathAtOnceAndItsPendingGetFails() throws Exception {
        // a launcher that welcomes the rank, then dies without its goodbye
        try (ServerSocketChannel l = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<Void> launcher = CompletableFuture.runAsync(() -> {
                try (SocketChannel ch = l.accept()) {
                    byte[] nonce = new byte[32];
                    RendezvousWire.write(ch, RendezvousWire.HELLO, 0, RendezvousWire.utf8(RendezvousWire.MAGIC), nonce);
                    RendezvousWire.Frame auth = RendezvousWire.read(ch);
                    RendezvousWire.write(ch, RendezvousWire.WELCOME, 0, RendezvousWire.mac(SECRET,
                            RendezvousWire.utf8("launcher"), auth.fields().get(0), auth.fields().get(1), nonce,
                            auth.fields().get(2)));
                    RendezvousWire.read(ch); // the rank's GET, never answered
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            LinkedBlockingQueue<String> lost = new LinkedBlockingQueue<>();
            int port = ((InetSocketAddress) l.getLocalAddress()).getPort();
            RendezvousClient a = RendezvousClient.connect(List.of("tcp:127.0.0.1:" + port), "job1", 0, SECRET, WAIT,
                    lost::add);
            long start = System.nanoTime();
            Exception e = assertThrows(IllegalStateException.class, () -> a.get(0, "k"));
            assertTrue(e.getMessage().contains("launcher"), e.getMessage());
            String why = lost.poll(5, TimeUnit.SECONDS);
            assertNotNull(why, "the rank was not told that its launcher died");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            launcher.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClosedServerSaysGoodbyeSoItsRanksAreNotOrphaned() throws Exception {
        List<String> lost = new CopyOnWriteArrayList<>();
        RendezvousServer s = server(1);
        RendezvousClient a = client(tcp(s), 0, SECRET, lost);
        s.close();
        Thread.sleep(500);
        assertEquals(List.of(), lost);
        assertFalse(Files.exists(tmp.resolve("r.sock")));
        a.close();
    }

    @Test
    void aRankThatCannotReachTheLauncherSaysHow() throws Exception {
        IOException e = assertThrows(IOException.class, () -> RendezvousClient.connect(
                List.of("unix:" + tmp.resolve("none.sock")), "job1", 0, SECRET, WAIT, w -> { }));
        assertTrue(e.getMessage().contains("--rendezvous-address"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RendezvousWire.parse("http://x"));
    }

    @Test
    void aRankOfTuttiRunIsToldTheRendezvousAndTheSecretAndMakesItsOwnJobDirectory() {
        java.util.Map<String, String> env = new java.util.HashMap<>(java.util.Map.of(LaunchEnvironment.JOB_ID, "j9",
                LaunchEnvironment.RANK, "1", LaunchEnvironment.SIZE, "2",
                LaunchEnvironment.RENDEZVOUS, "unix:/x/r.sock, tcp:10.0.0.1:4000", LaunchEnvironment.SECRET, "0aff"));
        JobInfo j = Bootstrap.detect(env);
        assertEquals(List.of("unix:/x/r.sock", "tcp:10.0.0.1:4000"), j.rendezvous());
        assertArrayEquals(new byte[] {10, (byte) 0xff}, j.secret());
        assertEquals(ShmFiles.defaultRoot().resolve("tutti-j9"), j.jobDir());
        assertNull(j.secretFile());
        env.remove(LaunchEnvironment.SECRET);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
        assertTrue(e.getMessage().contains(LaunchEnvironment.SECRET), e.getMessage());
        env.put(LaunchEnvironment.SECRET, "xyz");
        assertThrows(IllegalStateException.class, () -> Bootstrap.detect(env));
    }

    @Test
    void theSecretOnStandardInputIsExactlyTheFirstLine() throws Exception {
        ByteArrayInputStream in = new ByteArrayInputStream(("00ff10\nthe program's input\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(new byte[] {0, (byte) 0xff, 0x10}, StdinSecret.read(in));
        assertEquals("the program's input\n", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        assertThrows(IllegalStateException.class, () -> StdinSecret.read(new ByteArrayInputStream(new byte[0])));
        assertThrows(IllegalStateException.class, () -> StdinSecret.read(new ByteArrayInputStream(
                "not hex\n".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void theLastRankToLeaveRemovesItsHostsJobDirectoryAndCrashedJobsAreSwept() throws Exception {
        Path dir = tmp.resolve("tutti-abc");
        HostJobDirectory r0 = HostJobDirectory.join(dir, 0);
        HostJobDirectory r1 = HostJobDirectory.join(dir, 1);
        assertTrue(Files.exists(dir.resolve("rank-0.pid")));
        r0.leave();
        assertTrue(Files.isDirectory(dir), "rank 1 is still there");
        r1.leave();
        assertFalse(Files.exists(dir));

        Path crashed = Files.createDirectories(tmp.resolve("tutti-dead"));
        Files.writeString(crashed.resolve("rank-0.pid"), "111 " + HostJobDirectory.bootId() + "\n");
        Files.writeString(crashed.resolve("rank-1.pid"), "112 another-boot\n");
        Path living = Files.createDirectories(tmp.resolve("tutti-live"));
        Files.writeString(living.resolve("rank-0.pid"), "222 " + HostJobDirectory.bootId() + "\n");
        Path launched = Files.createDirectories(tmp.resolve("tutti-launched"));
        Files.writeString(launched.resolve("rank-0.pid"), "111 " + HostJobDirectory.bootId() + "\n");
        Files.writeString(launched.resolve("launcher.pid"), "222\n");
        Path unknown = Files.createDirectories(tmp.resolve("tutti-empty"));
        List<Path> swept = HostJobDirectory.sweep(tmp, null, HostJobDirectory.bootId(), pid -> pid == 222);
        assertEquals(List.of(crashed), swept);
        assertTrue(Files.exists(living) && Files.exists(launched) && Files.exists(unknown));
    }

    @Test
    void aRankCopiesItsFileToTheLauncherInPlaceOfItsPingsAndOnceMoreWhenItStops() throws Exception {
        try (RendezvousServer s = server(1); Arena arena = Arena.ofShared()) {
            List<String> got = new CopyOnWriteArrayList<>();
            s.onCopy((rank, name, bytes) -> got.add(rank + " " + name + " " + bytes.length + " " + bytes[3]));
            MemorySegment file = arena.allocate(4096, 8);
            file.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 7);
            try (RendezvousClient c = client(tcp(s), 0, SECRET, new ArrayList<>())) {
                Runnable stop = c.copy("counters-0", file, (op, rail) -> 0);
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (got.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals("0 counters-0 4096 7", got.getFirst(), "the first copy comes within a ping's time");
                file.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 9);
                stop.run();
                deadline = System.nanoTime() + WAIT.toNanos();
                while (!got.getLast().endsWith(" 9") && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals("0 counters-0 4096 9", got.getLast(), "stopping sends the last state");
                int copies = got.size();
                Thread.sleep(2500);
                assertEquals(copies, got.size(), "no copy after stopping: " + got);
            }
        }
    }

    @Test
    void aRailCommandGoesToTheRankAndItsAnswerComesBackAfterAFreshCopy() throws Exception {
        try (RendezvousServer s = server(1); Arena arena = Arena.ofShared()) {
            List<String> events = new CopyOnWriteArrayList<>();
            s.onCopy((rank, name, bytes) -> events.add("copy " + bytes[3]));
            s.onRailAnswer((rank, word) -> events.add("answer " + rank + " " + Long.toHexString(word)));
            assertFalse(s.railCommand(0, io.tutti.transport.RailCounters.command(5, 1, 2)), "rank 0 has not joined");
            MemorySegment file = arena.allocate(4096, 8);
            List<String> carried = new CopyOnWriteArrayList<>();
            try (RendezvousClient c = client(tcp(s), 0, SECRET, new ArrayList<>())) {
                c.copy("counters-0", file, (op, rail) -> {
                    carried.add(op + " " + rail);
                    file.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 5);   // the rail's new state
                    return io.tutti.transport.RailCounters.LAST_RAIL;
                });
                long word = io.tutti.transport.RailCounters.command(5, io.tutti.transport.RailCounters.RAIL_DOWN, 2);
                assertTrue(s.railCommand(0, word));
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (events.stream().noneMatch(e -> e.startsWith("answer")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(List.of("1 2"), carried, "the rank carried out the command it was sent");
                long answer = io.tutti.transport.RailCounters.answer(word, io.tutti.transport.RailCounters.LAST_RAIL);
                int at = events.indexOf("answer 0 " + Long.toHexString(answer));
                assertTrue(at > 0, events::toString);
                assertEquals("copy 5", events.get(at - 1), "a copy with the new state goes just before the answer");
            }
        }
    }
}
