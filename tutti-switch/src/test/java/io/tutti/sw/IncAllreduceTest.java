package io.tutti.sw;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.ReduceOp;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The allreduce algorithm {@code inc} end to end in one JVM: ranks as threads (pretending to be
 * four nodes of two ranks), a spine and two ToR switch processes on loopback UDP.
 */
@Timeout(180)
class IncAllreduceTest {
    final List<SwitchServer> servers = new ArrayList<>();
    final List<Thread> loops = new ArrayList<>();

    SwitchServer start(SwitchConfig c) throws Exception {
        SwitchServer s = new SwitchServer(c);
        servers.add(s);
        Thread t = Thread.ofPlatform().daemon().name("switch-" + c.id()).start(() -> {
            try {
                s.run();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        loops.add(t);
        return s;
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (SwitchServer s : servers) {
            s.stop();
        }
        for (Thread t : loops) {
            t.join(2000);
        }
        for (SwitchServer s : servers) {
            s.close();
        }
    }

    static InetSocketAddress loopback() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    /** Spine + two ToRs; returns the ToRs' addresses. */
    InetSocketAddress[] fabric(double loss) throws Exception {
        return fabric(loss, null);
    }

    /** Spine + two ToRs with {@code key} (null: none); returns the ToRs' addresses. */
    InetSocketAddress[] fabric(double loss, IncKey key) throws Exception {
        SwitchServer spine = start(new SwitchConfig(SwitchConfig.Role.SPINE, 9, List.of(loopback()), List.of(), 4, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), loss, 11, Long.MAX_VALUE, key));
        InetSocketAddress up = spine.port(0);
        SwitchServer t1 = start(new SwitchConfig(SwitchConfig.Role.TOR, 1, List.of(loopback()), List.of(up), 4, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), loss, 12, Long.MAX_VALUE, key));
        SwitchServer t2 = start(new SwitchConfig(SwitchConfig.Role.TOR, 2, List.of(loopback()), List.of(up), 4, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), loss, 13, Long.MAX_VALUE, key));
        return new InetSocketAddress[] {t1.port(0), t2.port(0)};
    }

    static void job(int n, ThreadLauncher.RankBody body, BiConsumer<Integer, Map<String, String>> env) {
        String jobId = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Path jobDir = ShmFiles.defaultRoot().resolve("tutti-" + jobId);
        ThreadLauncher.Outcome o = ThreadLauncher.run(jobId, jobDir, n, Duration.ofSeconds(150), body, env);
        if (!o.succeeded()) {
            ThreadLauncher.RankResult f = o.firstFailure();
            AssertionError e = new AssertionError(f != null ? "rank " + f.rank() + " failed" : "timed out: "
                    + o.stillRunning());
            if (f != null) {
                e.initCause(f.failure());
            }
            throw e;
        }
    }

    static BiConsumer<Integer, Map<String, String>> incEnv(InetSocketAddress[] tors) {
        return (rank, env) -> {
            env.put("TUTTI_TOPOLOGY_NODE_SIZE", "2");
            env.put("TUTTI_COLL_ALLREDUCE", "inc");
            if (tors != null) {
                // nodes 0-1 under the first ToR, nodes 2-3 under the second
                InetSocketAddress t = tors[rank / 4];
                env.put(io.tutti.Config.envName(IncConfig.SWITCH), t.getHostString() + ":" + t.getPort());
            }
            env.put(io.tutti.Config.envName(IncConfig.RETRY), "3");
        };
    }

    /** Every operation the switches reduce, on every integer and floating type, 4 B to 4 KiB, against a reference. */
    void everyOpAndType(int n) {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.BAND,
                ReduceOp.BOR, ReduceOp.BXOR, ReduceOp.LAND, ReduceOp.LOR, ReduceOp.LXOR}) {
            for (Datatype type : new Datatype[] {Datatype.INT, Datatype.LONG, Datatype.FLOAT, Datatype.DOUBLE}) {
                if (!op.supports(type)) {
                    continue;
                }
                for (int bytes : new int[] {4, 8, 64, 256, 260, 1024, 4096}) {
                    if (bytes % type.size() != 0) {
                        continue;
                    }
                    check(n, op, type, bytes / type.size());
                }
            }
        }
    }

    static long value(int rank, int i, ReduceOp op) {
        return switch (op) {
            case PROD -> (rank + i) % 3 == 0 ? 2 : 1;
            case LAND, LOR, LXOR -> (rank * 7 + i) % 3 == 0 ? 0 : 1;
            default -> (rank + 1) * 31L + i * 7L - 40;
        };
    }

    static long combine(ReduceOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            case LAND -> (a != 0 && b != 0) ? 1 : 0;
            case LOR -> (a != 0 || b != 0) ? 1 : 0;
            case LXOR -> ((a != 0) ^ (b != 0)) ? 1 : 0;
            default -> throw new IllegalArgumentException();
        };
    }

    static final ThreadLocal<Communicator> WORLD = new ThreadLocal<>();

    static void check(int n, ReduceOp op, Datatype type, int count) {
        Communicator w = WORLD.get();
        int rank = w.rank();
        long[] expected = new long[count];
        for (int i = 0; i < count; i++) {
            long e = value(0, i, op);
            for (int r = 1; r < n; r++) {
                e = combine(op, e, value(r, i, op));
            }
            expected[i] = e;
        }
        String what = op + " " + type + " x" + count;
        switch (type) {
            case INT -> {
                int[] a = new int[count];
                int[] out = new int[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (int) value(rank, i, op);
                }
                w.allreduce(a, out, count, type, op);
                for (int i = 0; i < count; i++) {
                    assertEquals((int) expected[i], out[i], what + " at " + i);
                }
            }
            case LONG -> {
                long[] a = new long[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(rank, i, op);
                }
                w.allreduce(Communicator.IN_PLACE, a, count, type, op);
                assertArrayEquals(expected, a, what);
            }
            case FLOAT -> {
                float[] a = new float[count];
                float[] out = new float[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(rank, i, op);
                }
                w.allreduce(a, out, count, type, op);
                for (int i = 0; i < count; i++) {
                    assertEquals((float) expected[i], out[i], what + " at " + i);
                }
            }
            default -> {
                double[] a = new double[count];
                double[] out = new double[count];
                for (int i = 0; i < count; i++) {
                    a[i] = value(rank, i, op);
                }
                w.allreduce(a, out, count, type, op);
                for (int i = 0; i < count; i++) {
                    assertEquals((double) expected[i], out[i], what + " at " + i);
                }
            }
        }
    }

    void runJob(InetSocketAddress[] tors) {
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                everyOpAndType(8);
                // an operation the switches do not reduce falls back to the host path
                int[] pairs = {rank, rank};
                int[] out = new int[2];
                t.world().allreduce(pairs, out, 1, Datatype.INT2, ReduceOp.MAXLOC);
                assertArrayEquals(new int[] {7, 7}, out);
            }
        }, incEnv(tors));
    }

    @Test
    void everyOperationAndTypeIsExactThroughTheSwitches() throws Exception {
        InetSocketAddress[] tors = fabric(0);
        runJob(tors);
        for (SwitchServer s : servers) {
            assertEquals(0, s.logic().groups(), "the job released its group");
            assertTrue(s.logic().counters().aggregated > 0, "the switch aggregated");
        }
    }

    @Test
    void resultsAreExactWithFivePercentLossAtEverySwitch() throws Exception {
        InetSocketAddress[] tors = fabric(0.05);
        runJob(tors);
        long injected = servers.stream().mapToLong(SwitchServer::injectedLosses).sum();
        assertTrue(injected > 0, "packets were lost");
        for (SwitchServer s : servers) {
            assertEquals(0, s.logic().groups());
        }
    }

    @Test
    void socketLeadersEachExchangeWithTheSwitches() throws Exception {
        InetSocketAddress[] tors = fabric(0);
        // two nodes of four ranks, two sockets each: four socket leaders, two per node, one node per ToR
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.LONG, 3);
                check(8, ReduceOp.MIN, Datatype.INT, 300);
            }
        }, (rank, env) -> {
            env.put("TUTTI_TOPOLOGY_NODE_SIZE", "4");
            env.put("TUTTI_TOPOLOGY_SOCKETS", "2");
            env.put("TUTTI_INC_MODE", "socket");
            env.put("TUTTI_COLL_ALLREDUCE", "inc");
            InetSocketAddress t = tors[rank / 4];
            env.put(io.tutti.Config.envName(IncConfig.SWITCH), t.getHostString() + ":" + t.getPort());
        });
        // 6 packets per leader (3 longs: 1; 300 ints = 1200 B: 5); each ToR combined its two socket
        // leaders' packets, the spine the two ToRs'
        for (SwitchServer s : servers) {
            assertEquals(12, s.logic().counters().aggregated);
        }
    }

    @Test
    void nonblockingAndPersistentCallsGoThroughTheSwitchesToo() throws Exception {
        InetSocketAddress[] tors = fabric(0);
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                long[] a = {rank, 1};
                long[] b = new long[2];
                io.tutti.Request r = w.iallreduce(a, b, 2, Datatype.LONG, ReduceOp.SUM);
                r.waitFor();
                assertArrayEquals(new long[] {28, 8}, b);
                double[] x = new double[100];
                double[] y = new double[100];
                io.tutti.Request p = w.allreduceInit(x, y, 100, Datatype.DOUBLE, ReduceOp.MAX);
                for (int round = 0; round < 5; round++) {
                    java.util.Arrays.fill(x, rank * 10 + round);
                    p.start();
                    p.waitFor();
                    assertEquals(70 + round, y[99]);
                }
                p.free();
            }
        }, incEnv(tors));
        assertTrue(servers.getFirst().logic().counters().aggregated >= 2 * 6, "the spine took part in every call");
    }

    @Test
    void theSpineWithTheMostFreeGroupsIsChosen() throws Exception {
        SwitchServer busy = start(new SwitchConfig(SwitchConfig.Role.SPINE, 21, List.of(loopback()), List.of(), 2, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), 0, 11, Long.MAX_VALUE));
        SwitchServer idle = start(new SwitchConfig(SwitchConfig.Role.SPINE, 22, List.of(loopback()), List.of(), 6, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), 0, 11, Long.MAX_VALUE));
        List<InetSocketAddress> ups = List.of(busy.port(0), idle.port(0));
        InetSocketAddress[] tors = new InetSocketAddress[2];
        for (int i = 0; i < 2; i++) {
            tors[i] = start(SwitchConfig.of(SwitchConfig.Role.TOR, i + 1, List.of(loopback()), ups)).port(0);
        }
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.INT, 10);
            }
        }, incEnv(tors));
        assertEquals(0, busy.logic().counters().aggregated, "the spine with fewer free groups was passed over");
        assertEquals(2, idle.logic().counters().aggregated);
    }

    @Test
    void aGroupTheSwitchesHaveNoRoomForFallsBack() throws Exception {
        SwitchServer spine = start(new SwitchConfig(SwitchConfig.Role.SPINE, 9, List.of(loopback()), List.of(), 0, 8,
                256, SwitchConfig.allOps(), SwitchConfig.allTypes(), 0, 11, Long.MAX_VALUE));
        InetSocketAddress up = spine.port(0);
        InetSocketAddress[] tors = new InetSocketAddress[2];
        for (int i = 0; i < 2; i++) {
            tors[i] = start(SwitchConfig.of(SwitchConfig.Role.TOR, i + 1, List.of(loopback()), List.of(up))).port(0);
        }
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.INT, 10);
            }
        }, incEnv(tors));
        for (SwitchServer s : servers) {
            assertEquals(0, s.logic().groups(), "nothing left behind by the refused set-up");
            assertEquals(0, s.logic().counters().aggregated);
        }
    }

    @Test
    void aToRWithNoRoomRefusesTheNotifyAndTheJobFallsBack() throws Exception {
        SwitchServer spine = start(SwitchConfig.of(SwitchConfig.Role.SPINE, 9, List.of(loopback()), List.of()));
        InetSocketAddress up = spine.port(0);
        InetSocketAddress[] tors = new InetSocketAddress[2];
        tors[0] = start(SwitchConfig.of(SwitchConfig.Role.TOR, 1, List.of(loopback()), List.of(up))).port(0);
        tors[1] = start(SwitchConfig.of(SwitchConfig.Role.TOR, 2, List.of(loopback()), List.of(up)).withCapacity(0))
                .port(0);
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.INT, 10);
            }
        }, incEnv(tors));
        // the first ToR and the spine had installed the group for the leaders they accepted:
        // the release after the refusal took it off again
        for (SwitchServer s : servers) {
            assertEquals(0, s.logic().groups());
            assertEquals(0, s.logic().counters().aggregated);
        }
        assertTrue(servers.get(1).logic().counters().controlPackets > 0, "the first ToR took part in the set-up");
    }

    @Test
    void withoutASwitchTheHostAlgorithmRuns() {
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.INT, 16);
                check(8, ReduceOp.MAX, Datatype.DOUBLE, 600);
            }
        }, incEnv(null));
    }

    /** {@code key} in an owner-only file of hex digits, as the switches and leaders read it. */
    static Path keyFile(Path dir, String name, IncKey key) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, HexFormat.of().formatHex(key.bytes()) + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    static BiConsumer<Integer, Map<String, String>> withKeyFile(BiConsumer<Integer, Map<String, String>> env, Path f) {
        return env.andThen((rank, e) -> e.put(io.tutti.Config.envName(IncConfig.KEY_FILE), f.toString()));
    }

    void sumOfTen(InetSocketAddress[] tors, Path key) {
        job(8, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                WORLD.set(t.world());
                check(8, ReduceOp.SUM, Datatype.INT, 10);
            }
        }, withKeyFile(incEnv(tors), key));
    }

    @Test
    void switchesWithAKeyServeLeadersWithTheirKeyFile(@TempDir Path dir) throws Exception {
        sumOfTen(fabric(0, SwitchAuthTest.KEY), keyFile(dir, "switch.key", SwitchAuthTest.KEY));
        for (SwitchServer s : servers) {
            assertTrue(s.logic().counters().aggregated > 0, "the switch aggregated");
            assertEquals(0, s.logic().counters().refused);
            assertEquals(0, s.logic().groups(), "the job released its group");
        }
    }

    @Test
    void leadersWithAnotherKeyAreRefusedAndTheJobFallsBack(@TempDir Path dir) throws Exception {
        sumOfTen(fabric(0, SwitchAuthTest.KEY), keyFile(dir, "other.key", SwitchAuthTest.OTHER));
        for (SwitchServer s : servers) {
            assertEquals(0, s.logic().counters().aggregated);
            assertEquals(0, s.logic().groups());
        }
        assertTrue(servers.get(1).logic().counters().refused > 0, "the ToRs refused the leaders");
        assertTrue(servers.get(2).logic().counters().refused > 0);
    }
}
