package io.tutti;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.bootstrap.ThreadLauncher;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The whole-array forms of {@link TypedCalls}: each gives what its count-and-datatype form gives on
 * the same arrays (every overload, for every element type), refuses arrays whose lengths disagree
 * before anything is sent, reports the errors of the form it calls unchanged, and allocates nothing
 * in a loop.
 */
@Timeout(180)
class TypedCallsTest {
    private static final List<Class<?>> ARRAYS = List.of(byte[].class, int[].class, long[].class, float[].class,
            double[].class);
    /** Elements per rank's block in the sweep. */
    private static final int K = 2;

    static void job(int n, ThreadLauncher.RankBody body) {
        io.tutti.testing.RankThreads.run(n, Duration.ofSeconds(150), body);
    }

    // ------------------------------------------------------------ the same results as the datatype forms

    /** Every public typed overload, called on every element type, against its count-and-datatype form. */
    @Test
    void everyTypedFormGivesWhatItsDatatypeFormGives() {
        Set<Method> called = ConcurrentHashMap.newKeySet();
        job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                for (Class<?> a : ARRAYS) {
                    new Sweep(w, a, called).run();
                }
            }
        });
        for (Method m : TypedCalls.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())) {
                assertTrue(called.contains(m), "the sweep does not call " + m);
            }
        }
    }

    /** One element type's calls, typed (by reflection, so that one sweep covers the five types) and by datatype. */
    private record Sweep(Communicator w, Class<?> a, Set<Method> called) {
        Datatype type() {
            return typeOf(a);
        }

        Object typed(String name, List<Class<?>> params, Object... args) {
            try {
                Method m = Communicator.class.getMethod(name, params.toArray(Class<?>[]::new));
                called.add(m);
                return m.invoke(w, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw new AssertionError(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("no typed " + name + params, e);
            }
        }

        void run() {
            int rank = w.rank();
            int size = w.size();
            int n = K * size;
            pointToPoint(n);
            for (int root = 0; root < size; root++) {
                Object buf = rank == root ? make(a, n, 40 + root) : Array.newInstance(a.getComponentType(), n);
                Object ref = rank == root ? make(a, n, 40 + root) : Array.newInstance(a.getComponentType(), n);
                typed("bcast", List.of(a, int.class), buf, root);
                w.bcast(ref, n, type(), root);
                same("bcast from " + root, ref, buf);

                Object in = make(a, K, rank);
                Object out = rank == root ? Array.newInstance(a.getComponentType(), n) : null;
                Object refOut = rank == root ? Array.newInstance(a.getComponentType(), n) : null;
                typed("gather", List.of(a, a, int.class), in, out, root);
                w.gather(in, refOut, K, type(), root);
                same("gather to " + root, refOut, out);

                Object whole = rank == root ? make(a, n, 7) : null;
                out = Array.newInstance(a.getComponentType(), K);
                refOut = Array.newInstance(a.getComponentType(), K);
                typed("scatter", List.of(a, a, int.class), whole, out, root);
                w.scatter(whole, refOut, K, type(), root);
                same("scatter from " + root, refOut, out);

                for (ReduceOp op : ops()) {
                    in = make(a, n, rank);
                    out = rank == root ? Array.newInstance(a.getComponentType(), n) : null;
                    refOut = rank == root ? Array.newInstance(a.getComponentType(), n) : null;
                    typed("reduce", List.of(a, a, ReduceOp.class, int.class), in, out, op, root);
                    w.reduce(in, refOut, count(op, n), typeFor(op), op, root);
                    same("reduce " + op + " to " + root, refOut, out);

                    Object inOut = make(a, n, rank);
                    Object refInOut = make(a, n, rank);
                    typed("reduce", List.of(a, ReduceOp.class, int.class), inOut, op, root);
                    w.reduce(rank == root ? Communicator.IN_PLACE : refInOut, rank == root ? refInOut : null,
                            count(op, n), typeFor(op), op, root);
                    same("in-place reduce " + op + " to " + root, refInOut, inOut);
                }
            }
            for (ReduceOp op : ops()) {
                for (String name : List.of("allreduce", "scan", "exscan")) {
                    Object in = make(a, n, rank);
                    Object out = Array.newInstance(a.getComponentType(), n);
                    Object refOut = Array.newInstance(a.getComponentType(), n);
                    typed(name, List.of(a, a, ReduceOp.class), in, out, op);
                    reduction(name, in, refOut, count(op, n), op);
                    same(name + " " + op, refOut, out);

                    Object inOut = make(a, n, rank);
                    Object refInOut = make(a, n, rank);
                    typed(name, List.of(a, ReduceOp.class), inOut, op);
                    reduction(name, Communicator.IN_PLACE, refInOut, count(op, n), op);
                    same("in-place " + name + " " + op, refInOut, inOut);
                }
            }
            Object in = make(a, K, rank);
            Object out = Array.newInstance(a.getComponentType(), n);
            Object refOut = Array.newInstance(a.getComponentType(), n);
            typed("allgather", List.of(a, a), in, out);
            w.allgather(in, refOut, K, type());
            same("allgather", refOut, out);

            Object inOut = make(a, n, rank);
            Object refInOut = make(a, n, rank);
            typed("allgather", List.of(a), inOut);
            w.allgather(Communicator.IN_PLACE, refInOut, K, type());
            same("in-place allgather", refInOut, inOut);

            in = make(a, n, rank);
            out = Array.newInstance(a.getComponentType(), n);
            refOut = Array.newInstance(a.getComponentType(), n);
            typed("alltoall", List.of(a, a), in, out);
            w.alltoall(in, refOut, K, type());
            same("alltoall", refOut, out);

            inOut = make(a, n, rank);
            refInOut = make(a, n, rank);
            typed("alltoall", List.of(a), inOut);
            w.alltoall(Communicator.IN_PLACE, refInOut, K, type());
            same("in-place alltoall", refInOut, inOut);
        }

        /** Rank 0 sends to rank 1, rank 1 receives: each typed form against a count form or another typed one. */
        void pointToPoint(int n) {
            int rank = w.rank();
            if (rank == 0) {
                typed("send", List.of(a, int.class, int.class), make(a, n, 1), 1, 11);
                byCount(make(a, n, 2), 12);
                typed("send", List.of(a, int.class, int.class), make(a, n, 3), 1, 13);
                Request r = (Request) typed("isend", List.of(a, int.class, int.class), make(a, n, 4), 1, 14);
                r.waitFor();
            } else if (rank == 1) {
                Object buf = Array.newInstance(a.getComponentType(), n + 1);   // the length is a capacity
                Status s = (Status) typed("recv", List.of(a, int.class, int.class), buf, 0, 11);
                assertEquals((long) n * type().size(), s.bytes(), "bytes of the typed send");
                assertEquals(0, s.source());
                assertEquals(11, s.tag());
                same("typed send, typed recv", make(a, n, 1), copyOf(buf, n));

                buf = Array.newInstance(a.getComponentType(), n);
                Status into = new Status();
                typed("recv", List.of(a, int.class, int.class, Status.class), buf, 0, 12, into);
                assertEquals(12, into.tag());
                assertEquals(n, into.count(type()));
                same("count send, typed recv into a status", make(a, n, 2), buf);

                buf = Array.newInstance(a.getComponentType(), n);
                Request r = (Request) typed("irecv", List.of(a, int.class, int.class), buf, 0, 13);
                assertEquals(13, r.waitFor().tag());
                same("typed send, irecv", make(a, n, 3), buf);

                buf = Array.newInstance(a.getComponentType(), n);
                byCount(buf, 14);
                same("isend, count recv", make(a, n, 4), buf);
            }
        }

        /** Rank 0 sends, rank 1 receives the whole array with the offset-and-count form of its type. */
        void byCount(Object buf, int tag) {
            int n = Array.getLength(buf);
            if (w.rank() == 0) {
                switch (buf) {
                    case byte[] b -> w.send(b, 0, n, 1, tag);
                    case int[] b -> w.send(b, 0, n, 1, tag);
                    case long[] b -> w.send(b, 0, n, 1, tag);
                    case float[] b -> w.send(b, 0, n, 1, tag);
                    case double[] b -> w.send(b, 0, n, 1, tag);
                    default -> throw new AssertionError(buf);
                }
            } else {
                switch (buf) {
                    case byte[] b -> w.recv(b, 0, n, 0, tag);
                    case int[] b -> w.recv(b, 0, n, 0, tag);
                    case long[] b -> w.recv(b, 0, n, 0, tag);
                    case float[] b -> w.recv(b, 0, n, 0, tag);
                    case double[] b -> w.recv(b, 0, n, 0, tag);
                    default -> throw new AssertionError(buf);
                }
            }
        }

        void reduction(String name, Object in, Object out, int count, ReduceOp op) {
            switch (name) {
                case "allreduce" -> w.allreduce(in, out, count, typeFor(op), op);
                case "scan" -> w.scan(in, out, count, typeFor(op), op);
                case "exscan" -> w.exscan(in, out, count, typeFor(op), op);
                default -> throw new AssertionError(name);
            }
        }

        /** SUM and MAX on every type, a bitwise operation on the integer ones, MAXLOC and MINLOC where there are pairs. */
        List<ReduceOp> ops() {
            return switch (type()) {
                case BYTE -> List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.BOR);
                case INT, LONG -> List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.BXOR, ReduceOp.MAXLOC, ReduceOp.MINLOC);
                default -> List.of(ReduceOp.SUM, ReduceOp.MIN, ReduceOp.MAXLOC, ReduceOp.MINLOC);
            };
        }

        Datatype typeFor(ReduceOp op) {
            if (op != ReduceOp.MAXLOC && op != ReduceOp.MINLOC) {
                return type();
            }
            return Datatype.valueOf(type().name() + "2");
        }

        int count(ReduceOp op, int n) {
            return typeFor(op).isPair() ? n / 2 : n;
        }
    }

    static Datatype typeOf(Class<?> a) {
        return Datatype.valueOf(a.getComponentType().getName().toUpperCase(java.util.Locale.ROOT));
    }

    /** An array of {@code n} small values that depend on {@code seed} (a rank) and the index. */
    static Object make(Class<?> a, int n, int seed) {
        Object arr = Array.newInstance(a.getComponentType(), n);
        for (int i = 0; i < n; i++) {
            int v = (seed * 37 + i * 11 + 5) % 23;
            switch (arr) {
                case byte[] b -> b[i] = (byte) v;
                case int[] b -> b[i] = v;
                case long[] b -> b[i] = v * 1_000_000_007L;
                case float[] b -> b[i] = v * 0.5f;
                case double[] b -> b[i] = v * 0.25;
                default -> throw new AssertionError(arr);
            }
        }
        return arr;
    }

    static Object copyOf(Object array, int n) {
        Object c = Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, c, 0, n);
        return c;
    }

    static void same(String what, Object expected, Object actual) {
        assertTrue(Objects.deepEquals(expected, actual), what + ": expected " + Arrays.deepToString(
                new Object[] {expected}) + ", got " + Arrays.deepToString(new Object[] {actual}));
    }

    // ------------------------------------------------------------ as a program writes them

    @Test
    void maxlocOnADoubleArrayReadsItAsValueIndexPairs() {
        job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator world = t.world();
                double residual = rank == 1 ? 9.5 : rank + 1;
                double[] mine = {residual, rank, -residual, rank};
                double[] max = new double[4];
                world.allreduce(mine, max, ReduceOp.MAXLOC);
                assertArrayEquals(new double[] {9.5, 1, -1, 0}, max);
                world.allreduce(mine, ReduceOp.MINLOC);
                assertArrayEquals(new double[] {1, 0, -9.5, 1}, mine);

                long[] counts = {rank + 1L, 10};
                world.allreduce(counts, ReduceOp.SUM);
                assertArrayEquals(new long[] {6, 30}, counts);
                int[] all = new int[3];
                world.allgather(new int[] {rank * rank}, all);
                assertArrayEquals(new int[] {0, 1, 4}, all);
                float[] block = new float[2];
                world.scatter(rank == 0 ? new float[] {1, 2, 3, 4, 5, 6} : null, block, 0);
                assertArrayEquals(new float[] {2 * rank + 1, 2 * rank + 2}, block);
                byte[] flag = {(byte) (rank == 2 ? 1 : 0)};
                world.allreduce(flag, ReduceOp.LOR);
                assertEquals(1, flag[0]);
            }
        });
    }

    // ------------------------------------------------------------ errors

    /** Lengths that disagree are refused before anything is sent, so every rank can go on. */
    @Test
    void lengthsThatDisagreeAreRefusedWithWhatTheyNeed() {
        job(3, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                refused("allreduce: out has 3 elements and in 4", () -> w.allreduce(new double[4], new double[3],
                        ReduceOp.SUM));
                refused("scan: out has 1 elements and in 2", () -> w.scan(new int[2], new int[1], ReduceOp.SUM));
                refused("exscan: out has 0 elements and in 2", () -> w.exscan(new long[2], new long[0],
                        ReduceOp.SUM));
                refused("allgather: out has 5 elements; it needs one block of in.length = 2 per rank, size() * 2 = 6",
                        () -> w.allgather(new int[2], new int[5]));
                refused("alltoall: out has 6 elements and in 3", () -> w.alltoall(new float[3], new float[6]));
                refused("alltoall: in and out has 4 elements, which is not one block per rank: the length must be a"
                        + " multiple of size() = 3", () -> w.alltoall(new long[4], new long[4]));
                refused("alltoall: inOut has 5 elements", () -> w.alltoall(new byte[5]));
                refused("allgather: inOut has 7 elements", () -> w.allgather(new double[7]));
                refused("allreduce: in is null", () -> w.allreduce((double[]) null, new double[1], ReduceOp.SUM));
                refused("allreduce: out is null", () -> w.allreduce(new double[1], (double[]) null, ReduceOp.SUM));
                refused("allreduce: inOut is null", () -> w.allreduce((int[]) null, ReduceOp.SUM));
                refused("bcast: buf is null", () -> w.bcast((long[]) null, 0));
                refused("must be even, not 3", () -> w.allreduce(new double[3], new double[3], ReduceOp.MAXLOC));
                refused("must be even, not 1", () -> w.reduce(new int[1], ReduceOp.MINLOC, 0));
                refused("MAXLOC on a byte[]: bytes have no (value, index) pair type", () -> w.allreduce(new byte[2],
                        new byte[2], ReduceOp.MAXLOC));
                if (rank == 0) {
                    // root-only checks: the others do not call, which is safe as nothing was sent
                    refused("gather: out has 5 elements; it needs one block of in.length = 2 per rank, size() * 2 = 6",
                            () -> w.gather(new double[2], new double[5], 0));
                    refused("gather: out (at the root) is null", () -> w.gather(new double[2], null, 0));
                    refused("scatter: in has 4 elements; it needs one block of out.length = 2 per rank",
                            () -> w.scatter(new int[4], new int[2], 0));
                    refused("reduce: out has 3 elements and in 2", () -> w.reduce(new long[2], new long[3],
                            ReduceOp.SUM, 0));
                }
                // nothing is left half-sent: the next collective and message work
                double[] sum = {1};
                w.allreduce(sum, ReduceOp.SUM);
                assertEquals(3, sum[0]);
            }
        });
    }

    /** The typed forms report what their datatype forms report: ranks, tags, roots, operations, null buffers. */
    @Test
    void theErrorsOfTheCalledFormsReachTheProgramUnchanged() {
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int[] buf = new int[4];
                double[] d = new double[4];
                sameError(() -> w.send(buf, 2, 0), () -> w.send(buf, 0, 4, 2, 0));
                sameError(() -> w.send(buf, 1, -3), () -> w.send(buf, 0, 4, 1, -3));
                sameError(() -> w.recv(buf, 5, 0), () -> w.recv(buf, 0, 4, 5, 0));
                sameError(() -> w.recv(buf, 0, -7, null), () -> w.recv(buf, 0, 4, 0, -7, null));
                sameError(() -> w.isend((int[]) null, 1, 0), () -> w.isend((int[]) null, 0, 0, 1, 0));
                sameError(() -> w.irecv((double[]) null, 1, 0), () -> w.irecv((double[]) null, 0, 0, 1, 0));
                sameError(() -> w.bcast(buf, 2), () -> w.bcast(buf, 4, Datatype.INT, 2));
                sameError(() -> w.gather(buf, buf, -1), () -> w.gather(buf, buf, 4, Datatype.INT, -1));
                sameError(() -> w.allreduce(d, d.clone(), ReduceOp.BAND),
                        () -> w.allreduce(d, d.clone(), 4, Datatype.DOUBLE, ReduceOp.BAND));
                sameError(() -> w.allreduce(d, d.clone(), null),
                        () -> w.allreduce(d, d.clone(), 4, Datatype.DOUBLE, (ReduceOp) null));
                sameError(() -> w.reduce(d, null, ReduceOp.SUM, 3),
                        () -> w.reduce(d, null, 4, Datatype.DOUBLE, ReduceOp.SUM, 3));
                w.barrier();
            }
        });
    }

    static void refused(String message, Executable call) {
        TuttiException e = assertThrows(TuttiException.InvalidArgument.class, call);
        assertTrue(e.getMessage().contains(message), "expected \"" + message + "\" in: " + e.getMessage());
    }

    static void sameError(Executable typed, Executable byDatatype) {
        TuttiException expected = assertThrows(TuttiException.class, byDatatype);
        TuttiException actual = assertThrows(TuttiException.class, typed);
        assertEquals(expected.getClass(), actual.getClass(), actual.getMessage());
        assertEquals(expected.getMessage(), actual.getMessage());
    }

    // ------------------------------------------------------------ allocation

    /**
     * A loop of each typed call allocates nothing once warm, on every rank, as its datatype form does:
     * in the least of five rounds, less than a byte per call.
     */
    @Test
    void loopsOfTypedCallsAllocateNothing() {
        io.tutti.testing.Allocation.assumeCounted();
        job(2, rank -> {
            try (Tutti t = Tutti.init(new String[0])) {
                Communicator w = t.world();
                int peer = 1 - rank;
                double[] a = new double[8];
                double[] b = new double[8];
                double[] half = new double[4];
                long[] l = new long[8];
                Status status = new Status();
                List<Loop> loops = List.of(
                        new Loop("send/recv", () -> {
                            if (rank == 0) {
                                w.send(a, peer, 1);
                                w.recv(b, peer, 2, status);
                            } else {
                                w.recv(b, peer, 1, status);
                                w.send(a, peer, 2);
                            }
                        }),
                        new Loop("bcast", () -> w.bcast(l, 0)),
                        new Loop("allreduce", () -> w.allreduce(a, b, ReduceOp.SUM)),
                        new Loop("allreduce in place", () -> w.allreduce(l, ReduceOp.BXOR)),
                        new Loop("allreduce MAXLOC", () -> w.allreduce(a, b, ReduceOp.MAXLOC)),
                        new Loop("reduce", () -> w.reduce(a, b, ReduceOp.MAX, 1)),
                        new Loop("reduce in place", () -> w.reduce(l, ReduceOp.BOR, 0)),
                        new Loop("scan", () -> w.scan(a, b, ReduceOp.SUM)),
                        new Loop("exscan in place", () -> w.exscan(l, ReduceOp.SUM)),
                        new Loop("gather", () -> w.gather(half, a, 0)),
                        new Loop("scatter", () -> w.scatter(a, half, 1)),
                        new Loop("allgather", () -> w.allgather(half, b)),
                        new Loop("allgather in place", () -> w.allgather(a)),
                        new Loop("alltoall", () -> w.alltoall(a, b)),
                        new Loop("alltoall in place", () -> w.alltoall(l)));
                int calls = 300;
                for (Loop loop : loops) {
                    loop.run(600);
                    long least = io.tutti.testing.Allocation.least(5, calls, loop.body());
                    assertTrue(least < calls, "rank " + rank + ": " + least + " bytes allocated by " + calls
                            + " typed " + loop.name() + " calls (the least of 5 rounds)");
                }
            }
        });
    }

    /** A call to repeat; made once, so that the loop itself allocates nothing. */
    private record Loop(String name, Runnable body) {
        void run(int calls) {
            for (int i = 0; i < calls; i++) {
                body.run();
            }
        }
    }
}
