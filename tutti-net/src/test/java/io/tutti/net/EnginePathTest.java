package io.tutti.net;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Request;
import io.tutti.Status;
import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.bootstrap.ShmFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The engine over the rails (ranks as threads, loopback): what the network path must carry. */
@Timeout(120)
class EnginePathTest {

    private static void job(int n, BiConsumer<Integer, Map<String, String>> env, ThreadLauncher.RankBody body) {
        String jobId = "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        ThreadLauncher.Outcome o = ThreadLauncher.run(jobId, ShmFiles.defaultRoot().resolve("tutti-" + jobId), n,
                Duration.ofSeconds(90), body, env);
        ThreadLauncher.RankResult f = o.firstFailure();
        if (!o.succeeded()) {
            AssertionError e = new AssertionError(f != null ? "rank " + f.rank() + " failed" : "timed out");
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }

    private static BiConsumer<Integer, Map<String, String>> rails(String... more) {
        return (rank, env) -> {
            env.put("TUTTI_TRANSPORT", "net");
            env.put("TUTTI_NET_PROVIDER", "rails");
            for (int i = 0; i + 1 < more.length; i += 2) {
                env.put(more[i], more[i + 1]);
            }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 8120, 65536, 65537, 100_000, 1 << 20, 3_000_001})
    void messagesOfEverySizeCrossTheRailsIntact(int bytes) {
        pingPong(bytes, rails("TUTTI_RAILS", "lo,lo", "TUTTI_NET_DROP", "0.01"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 65537, 1 << 20, 3_000_001})
    void messagesOfEverySizeCrossTheTcpRailsIntact(int bytes) {
        pingPong(bytes, rails("TUTTI_RAILS", "lo,lo", "TUTTI_NET", "tcp"));
    }

    /**
     * Off-heap buffers: a pipelined send goes from the buffer straight to the transport, DATA
     * straight into the receive's (on one UDP rail, most of it received there by the kernel).
     */
    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"udp, lo", "udp, 'lo,lo'", "tcp, 'lo,lo'"})
    void offHeapMessagesCrossTheRailsIntact(String wire, String rails) {
        int bytes = 3_000_001;
        job(2, rails("TUTTI_RAILS", rails, "TUTTI_NET", wire, "TUTTI_NET_DROP", wire.equals("udp") ? "0.01" : "0",
                        "TUTTI_NET_CORRUPT", wire.equals("udp") ? "0.005" : "0"),
                rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofConfined()) {
                Communicator w = t.world();
                MemorySegment data = arena.allocate(bytes);
                if (rank == 0) {
                    for (int round = 0; round < 3; round++) {
                        for (int i = 0; i < bytes; i++) {
                            data.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7 + round));
                        }
                        w.send(data, 1, 5);
                        // the buffer is the sender's again once the send completes: a byte the
                        // network still resent from it would arrive as this
                        data.fill((byte) 0x5a);
                    }
                } else {
                    for (int round = 0; round < 3; round++) {
                        data.fill((byte) 0);
                        Status s = w.recv(data, 0, 5);
                        assertEquals(bytes, s.bytes());
                        for (int i = 0; i < bytes; i++) {
                            assertEquals((byte) (i * 31 + 7 + round), data.get(ValueLayout.JAVA_BYTE, i),
                                    "round " + round + ", byte " + i);
                        }
                    }
                }
            }
        });
    }

    private static void pingPong(int bytes, BiConsumer<Integer, Map<String, String>> env) {
        job(2, env, rank -> {
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
    }

    @Test
    void manyOutstandingSendsArriveInOrder() {
        int messages = 5000;
        job(2, rails("TUTTI_NET_DROP", "0.02", "TUTTI_NET_CORRUPT", "0.01"), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                if (rank == 0) {
                    Request[] sent = new Request[messages];
                    for (int i = 0; i < messages; i++) {
                        sent[i] = w.isend(new int[] {i}, 0, 1, 1, 3);
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
        job(2, rails("TUTTI_NET_DROP", "0.05"), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                if (rank == 0) {
                    for (int i = 0; i < 500; i++) {
                        w.send(new long[] {i}, 0, 1, 1, 9);
                    }
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

    /**
     * Rank 1 computes (no Tutti call) for three failure timeouts between two exchanges, while rank 0
     * waits in a receive from it: the keep-alive agents keep both transports' views alive (a
     * transport that judged its peer failed refuses to send to it, and the exchange would hang),
     * and the second exchange carries its data intact. Ranks as threads: the engine's own liveness
     * checks are off in this mode, so the waiting rank's error is what {@code LongComputeIT}
     * (processes) checks.
     */
    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void aRankThatComputesForThreeTimeoutsBetweenExchangesIsNotDeclaredFailed(String wire) {
        int timeoutMs = 300;
        job(2, rails("TUTTI_NET", wire, "TUTTI_NET_TIMEOUT_MS", Integer.toString(timeoutMs)), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                for (int round = 0; round < 2; round++) {
                    long[] mine = new long[1000];
                    for (int i = 0; i < mine.length; i++) {
                        mine[i] = rank * 1_000_000L + round * 1000L + i;
                    }
                    long[] theirs = new long[1000];
                    w.sendrecv(mine, 0, mine.length, 1 - rank, 4, theirs, 0, theirs.length, 1 - rank, 4);
                    for (int i = 0; i < theirs.length; i++) {
                        assertEquals((1 - rank) * 1_000_000L + round * 1000L + i, theirs[i], "round " + round);
                    }
                    if (round == 0 && rank == 1) {
                        Thread.sleep(3L * timeoutMs);
                    }
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"udp", "tcp"})
    void collectivesOverFourRanksOnTheRails(String wire) {
        int n = 4;
        job(n, rails("TUTTI_NET", wire), rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int count = 70_000;
                double[] in = new double[count];
                double[] out = new double[count];
                for (int i = 0; i < count; i++) {
                    in[i] = rank + i;
                }
                w.allreduce(in, out, count, io.tutti.Datatype.DOUBLE, io.tutti.ReduceOp.SUM);
                for (int i = 0; i < count; i++) {
                    assertEquals(6.0 + 4.0 * i, out[i], "element " + i);
                }
                w.barrier();
            }
        });
    }
}
