package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.ReduceOp;
import io.tutti.transport.InProcessTransport;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's network path, over a transport between threads (the test's {@code inproc}
 * provider): messages to ranks on another host go through an outbox and the transport, arrive in
 * the receiver's inbound ring, and large ones move as DATA packets. Exactly what the network
 * rails carry, without sockets.
 */
@Timeout(90)
class NetworkPathTest {

    private static void job(int n, BiConsumer<Integer, Map<String, String>> env, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(60), env, body);
    }

    private static void forced(Integer rank, Map<String, String> env) {
        env.put("TUTTI_TRANSPORT", "net");
        env.put("TUTTI_NET_PROVIDER", "inproc");
    }

    /** Ranks 0..n/2-1 on host a, the others on host b. */
    private static BiConsumer<Integer, Map<String, String>> twoHosts(int n) {
        return (rank, env) -> {
            env.put(LaunchEnvironment.HOST, rank < n / 2 ? "a" : "b");
            env.put("TUTTI_NET_PROVIDER", "inproc");
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 8120, 8121, 100_000, 1 << 20, 3_000_001})
    void messagesOfEverySizeCrossTheNetworkIntact(int bytes) {
        long before = InProcessTransport.RECORDS.get();
        job(2, NetworkPathTest::forced, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                byte[] data = new byte[bytes];
                if (rank == 0) {
                    for (int i = 0; i < bytes; i++) {
                        data[i] = (byte) (i * 31 + 7);
                    }
                    w.send(data, 0, bytes, 1, 5);
                    byte[] back = new byte[bytes];
                    Status s = w.recv(back, 0, bytes, 1, 6);
                    assertEquals(bytes, s.bytes());
                    for (int i = 0; i < bytes; i++) {
                        assertEquals((byte) (i * 31 + 8), back[i], "byte " + i);
                    }
                } else {
                    Status s = w.recv(data, 0, bytes, 0, 5);
                    assertEquals(bytes, s.bytes());
                    for (int i = 0; i < bytes; i++) {
                        data[i]++;
                    }
                    w.send(data, 0, bytes, 0, 6);
                }
            }
        });
        // two messages, and a large one's RTS, CTS and DATA packets
        long records = InProcessTransport.RECORDS.get() - before;
        long packets = (bytes + 8119) / 8120;
        assertTrue(records >= (bytes <= 8120 ? 2 : 2 * (2 + packets)), records + " records for " + bytes + " bytes");
    }

    /** Each transport has its own eager limit: a peer on this host gets the shared-memory one, one elsewhere the network's. */
    @Test
    void theEagerLimitFollowsThePeersTransport() {
        job(4, (rank, env) -> {
            twoHosts(4).accept(rank, env);
            env.put("TUTTI_EAGER_LIMIT", "3000");
            env.put("TUTTI_NET_EAGER_LIMIT", "5000");
        }, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Engine e = io.tutti.runtime.Rank.of(t).engine();
                int neighbour = rank ^ 1;           // same host
                int across = (rank + 2) % 4;        // the other host
                assertEquals(3000, e.eagerLimit(neighbour), "rank " + rank + " to " + neighbour);
                assertEquals(5000, e.eagerLimit(across), "rank " + rank + " to " + across);
                // and messages between the two limits cross both ways intact
                Communicator w = t.world();
                byte[] out = new byte[4000];
                java.util.Arrays.fill(out, (byte) rank);
                byte[] in = new byte[4000];
                for (int peer : new int[] {neighbour, across}) {
                    w.sendrecv(out, 0, out.length, peer, 9, in, 0, in.length, peer, 9);
                    for (byte b : in) {
                        assertEquals((byte) peer, b);
                    }
                }
            }
        });
    }

    /** Ranks of one host share a node index (collectives build node-aware schedules on it); hosts count up by lowest rank. */
    @Test
    void ranksOfOneHostShareANode() {
        job(6, (rank, env) -> {
            env.put(LaunchEnvironment.HOST, rank % 3 == 0 ? "x" : rank % 3 == 1 ? "y" : "z");
            env.put("TUTTI_NET_PROVIDER", "inproc");
        }, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                for (int r = 0; r < 6; r++) {
                    assertEquals(r % 3, io.tutti.runtime.Rank.of(t).engine().nodeOf(r), "node of rank " + r + " seen by rank " + rank);
                }
                t.world().barrier();
            }
        });
    }

    @Test
    void manyOutstandingSendsPassTheTransportsWindowInOrder() {
        int messages = 2000;
        job(2, NetworkPathTest::forced, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                if (rank == 0) {
                    Request[] sent = new Request[messages];
                    for (int i = 0; i < messages; i++) {
                        int[] one = {i};
                        sent[i] = w.isend(one, 0, 1, 1, 3);
                    }
                    for (Request r : sent) {
                        r.waitFor();
                    }
                } else {
                    int[] got = new int[1];
                    for (int i = 0; i < messages; i++) {
                        w.recv(got, 0, 1, 0, 3);
                        assertEquals(i, got[0], "message " + i + " overtaken");
                    }
                }
            }
        });
    }

    @Test
    void sendsCompletedBeforeCloseAreStillDelivered() {
        job(2, NetworkPathTest::forced, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                if (rank == 0) {
                    for (int i = 0; i < 500; i++) {
                        w.send(new long[] {i}, 0, 1, 1, 9);
                    }
                    // closes at once: the messages may still sit in the outbox
                } else {
                    Thread.sleep(300);
                    long[] got = new long[1];
                    for (int i = 0; i < 500; i++) {
                        w.recv(got, 0, 1, 0, 9);
                        assertEquals(i, got[0]);
                    }
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void ranksOnTwoHostsMixSharedMemoryAndTheNetwork() {
        int n = 4;
        job(n, twoHosts(n), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                // any-source receives take messages from the local and the remote peer alike
                int[] one = {rank};
                int others = 0;
                for (int r = 0; r < n; r++) {
                    if (r != rank) {
                        w.isend(one, 0, 1, r, 1);
                    }
                }
                int[] got = new int[1];
                for (int k = 0; k < n - 1; k++) {
                    Status s = w.recv(got, 0, 1, Communicator.ANY_SOURCE, 1);
                    assertEquals(s.source(), got[0]);
                    others += 1 << got[0];
                }
                assertEquals(((1 << n) - 1) - (1 << rank), others);

                int count = 70_000;
                double[] in = new double[count];
                double[] out = new double[count];
                for (int i = 0; i < count; i++) {
                    in[i] = rank + i;
                }
                w.allreduce(in, out, count, Datatype.DOUBLE, ReduceOp.SUM);
                for (int i = 0; i < count; i++) {
                    assertEquals(6.0 + 4.0 * i, out[i], "element " + i);
                }
                long[] block = new long[n * 3000];
                long[] all = new long[n * 3000];
                for (int i = 0; i < block.length; i++) {
                    block[i] = rank * 1_000_000L + i;
                }
                w.alltoall(block, all, 3000, Datatype.LONG);
                for (int src = 0; src < n; src++) {
                    for (int i = 0; i < 3000; i++) {
                        assertEquals(src * 1_000_000L + rank * 3000L + i, all[src * 3000 + i]);
                    }
                }
                w.barrier();
            }
        });
    }
}
