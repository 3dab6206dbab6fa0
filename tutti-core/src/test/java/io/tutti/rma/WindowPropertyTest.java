package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.AccumulateOp;
import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.Tutti;
import io.tutti.Window;
import io.tutti.Window.LockType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Random sequences of puts (plain and strided), gets, accumulates and fetchAndOps under fence,
 * post/start/complete/wait and lock epochs, on 2 to 8 ranks as threads, in every window kind
 * (dynamic ones addressed by their ranks' attached addresses), against a sequential model
 * of every rank's window. Each rank draws the same plan from the seed and runs its own part.
 *
 * <p>The plan keeps every epoch's result defined by MPI: in an epoch, each element of a window is
 * either written by the puts of one origin (each element once), or the target of accumulates with
 * one operation (any origins, any order: the operations are commutative on longs), or only read;
 * beyond MPI, an origin also reads back what it put in the epoch ({@code GET_OWN}: Tutti keeps one
 * origin's operations to one target in order, so such a get reads the put before it), and
 * fetches and swaps there ({@code FETCH_OWN}, {@code CAS_OWN}: their old values are then defined).
 * After each epoch every rank compares its window with the model, and each get, fetch and swap
 * with the values the model held when it was issued (across hosts they complete only at the end of
 * its epoch).
 */
class WindowPropertyTest {
    static final int ELEMENTS = 48;
    static final AccumulateOp[] OPS = {AccumulateOp.SUM, AccumulateOp.BXOR, AccumulateOp.BOR, AccumulateOp.BAND,
        AccumulateOp.MAX, AccumulateOp.MIN, AccumulateOp.PROD};

    enum Kind { PUT, STRIDED_PUT, GET, ACC, FETCH, GET_OWN, FETCH_OWN, CAS_OWN }

    enum Epoch { FENCE, PSCW, LOCK, LOCK_ALL }

    /** {@code compare}: a CAS_OWN's; {@code old}: what a FETCH_OWN or CAS_OWN must return. */
    record Op(int origin, int target, Kind kind, int element, int count, long[] values, AccumulateOp op,
              LockType lock, long[] compare, long[] old) {
    }

    record Plan(Epoch epoch, List<Op> ops, long[][] before, long[][] after) {
    }

    /** The whole job's plan: every epoch, its operations, and the model's windows before and after it. */
    static List<Plan> plan(long seed, int n, int epochs) {
        Random rnd = new Random(seed);
        long[][] model = new long[n][ELEMENTS];
        List<Plan> plans = new ArrayList<>();
        for (int k = 0; k < epochs; k++) {
            Epoch epoch = Epoch.values()[rnd.nextInt(Epoch.values().length)];
            long[][] before = copy(model);
            // role per element: 0..n-1 put by that origin, n accumulate zone, n + 1 read only, -1 used
            int[][] role = new int[n][ELEMENTS];
            // the origin that put the element in this epoch, or -1
            int[][] putBy = new int[n][ELEMENTS];
            AccumulateOp[][] zoneOp = new AccumulateOp[n][ELEMENTS];
            for (int t = 0; t < n; t++) {
                for (int e = 0; e < ELEMENTS; e++) {
                    role[t][e] = rnd.nextInt(n + 2);
                    putBy[t][e] = -1;
                    zoneOp[t][e] = OPS[rnd.nextInt(OPS.length)];
                }
            }
            List<Op> ops = new ArrayList<>();
            for (int o = 0; o < n; o++) {
                int count = rnd.nextInt(7);
                for (int i = 0; i < count; i++) {
                    Op op = draw(rnd, o, n, role, putBy, zoneOp, model);
                    if (op != null) {
                        ops.add(op);
                    }
                }
            }
            plans.add(new Plan(epoch, ops, before, copy(model)));
        }
        return plans;
    }

    private static Op draw(Random rnd, int o, int n, int[][] role, int[][] putBy, AccumulateOp[][] zoneOp,
                           long[][] model) {
        int t = rnd.nextInt(n);
        Kind kind = Kind.values()[rnd.nextInt(Kind.values().length)];
        LockType lock = rnd.nextBoolean() ? LockType.SHARED : LockType.EXCLUSIVE;
        int want = switch (kind) {
            case PUT, STRIDED_PUT -> o;
            case GET -> n + 1;
            case ACC, FETCH -> n;
            case GET_OWN, FETCH_OWN, CAS_OWN -> -1;
        };
        int start = rnd.nextInt(ELEMENTS);
        int e = start;
        while (!has(role, putBy, t, e, want, o)) {
            e = (e + 1) % ELEMENTS;
            if (e == start) {
                return null;
            }
        }
        int stride = kind == Kind.STRIDED_PUT ? 2 : 1;
        int max = kind == Kind.FETCH || kind == Kind.FETCH_OWN || kind == Kind.CAS_OWN ? 1 : 1 + rnd.nextInt(4);
        int count = 0;
        while (count < max && e + count * stride < ELEMENTS && has(role, putBy, t, e + count * stride, want, o)
                && (want != n || zoneOp[t][e + count * stride] == zoneOp[t][e])) {
            count++;
        }
        long[] values = new long[count];
        long[] compare = new long[count];
        long[] old = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = rnd.nextInt(1000) - 300;
            int at = e + i * stride;
            switch (kind) {
                case PUT, STRIDED_PUT -> {
                    model[t][at] = values[i];
                    role[t][at] = -1; // one put per element and epoch
                    putBy[t][at] = o;
                }
                case ACC, FETCH -> model[t][at] = combine(zoneOp[t][e], model[t][at], values[i]);
                case GET, GET_OWN -> values[i] = model[t][at]; // what the get must read
                case FETCH_OWN -> {
                    old[i] = model[t][at];
                    model[t][at] = combine(zoneOp[t][e], model[t][at], values[i]);
                }
                case CAS_OWN -> {
                    old[i] = model[t][at];
                    compare[i] = rnd.nextBoolean() ? old[i] : old[i] + 1; // a swap that wins or one that loses
                    if (compare[i] == old[i]) {
                        model[t][at] = values[i];
                    }
                }
            }
        }
        return new Op(o, t, kind, e, count, values, zoneOp[t][e], lock, compare, old);
    }

    /** Whether element {@code e} of {@code t} has role {@code want}; -1: origin {@code o} put it in this epoch. */
    private static boolean has(int[][] role, int[][] putBy, int t, int e, int want, int o) {
        return want == -1 ? putBy[t][e] == o : role[t][e] == want;
    }

    static long combine(AccumulateOp op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            default -> throw new AssertionError(op);
        };
    }

    private static long[][] copy(long[][] m) {
        long[][] c = new long[m.length][];
        for (int i = 0; i < m.length; i++) {
            c[i] = m[i].clone();
        }
        return c;
    }

    @Property(tries = 30)
    void epochsOfRandomOperationsMatchTheModel(@ForAll @IntRange(min = 2, max = 8) int n, @ForAll long seed,
                                               @ForAll @IntRange(min = 0, max = 3) int windowKind,
                                               @ForAll boolean byteDisplacements) {
        check(n, seed, windowKind, byteDisplacements, (rank, env) -> { });
    }

    /**
     * The same over the network path (the test's in-process transport): every pair of ranks over
     * it ({@code mixed} false), or two hosts, ranks of one sharing memory, so that a window mixes
     * both paths. Shared and dynamic windows across hosts are refused: allocated and created ones.
     */
    @Property(tries = 12, shrinking = net.jqwik.api.ShrinkingMode.OFF)
    void epochsAcrossTheNetworkMatchTheModel(@ForAll @IntRange(min = 2, max = 6) int n, @ForAll long seed,
                                             @ForAll boolean created, @ForAll boolean byteDisplacements,
                                             @ForAll boolean mixed) {
        check(n, seed, created ? 2 : 0, byteDisplacements, (rank, env) -> {
            env.put("TUTTI_NET_PROVIDER", "inproc");
            if (mixed) {
                env.put(io.tutti.bootstrap.LaunchEnvironment.HOST, rank < (n + 1) / 2 ? "a" : "b");
            } else {
                env.put("TUTTI_TRANSPORT", "net");
            }
        });
    }

    private static void check(int n, long seed, int windowKind, boolean byteDisplacements,
                              java.util.function.BiConsumer<Integer, java.util.Map<String, String>> env) {
        List<Plan> plans = plan(seed, n, 6);
        // a dynamic window (kind 3) has byte displacements: its ranks' addresses
        int unit = byteDisplacements || windowKind == 3 ? 1 : 8;
        io.tutti.testing.RankThreads.run(n, java.time.Duration.ofSeconds(120), env, rank -> {
            try (Tutti t = Tutti.init(new String[0]); Arena arena = Arena.ofShared()) {
                Communicator w = t.world();
                long bytes = 8L * ELEMENTS;
                MemorySegment attached = windowKind == 3 ? arena.allocate(bytes, 8) : null;
                try (Window win = switch (windowKind) {
                    case 0 -> w.allocateWindow(bytes, unit);
                    case 1 -> w.allocateSharedWindow(bytes, unit);
                    case 2 -> w.createWindow(arena.allocate(bytes, 8), unit);
                    default -> w.createDynamicWindow();
                }) {
                    long[] bases = new long[n];
                    if (attached != null) {
                        win.attach(attached);
                        w.allgather(new long[] {attached.address()}, bases, 1, Datatype.LONG);
                    }
                    MemorySegment memory = attached != null ? attached : win.segment();
                    for (int k = 0; k < plans.size(); k++) {
                        Epoch next = k + 1 < plans.size() ? plans.get(k + 1).epoch() : Epoch.FENCE;
                        run(win, w, rank, plans.get(k), k, 8 / unit, next, bases, memory);
                    }
                    if (attached != null) {
                        w.barrier();
                        win.detach(attached);
                    }
                }
            }
        });
    }

    private static boolean passive(Epoch e) {
        return e == Epoch.LOCK || e == Epoch.LOCK_ALL;
    }

    /**
     * One epoch. Only passive epochs need barriers around the check (the target takes no part in
     * them): active ones are closed by their own synchronisation, which the test thereby checks.
     */
    private static void run(Window win, Communicator w, int me, Plan plan, int k, int scale, Epoch next, long[] bases,
                            MemorySegment memory) {
        List<Op> mine = new ArrayList<>();
        TreeSet<Integer> targets = new TreeSet<>();
        TreeSet<Integer> origins = new TreeSet<>();
        for (Op op : plan.ops()) {
            if (op.origin() == me) {
                mine.add(op);
                targets.add(op.target());
            }
            if (op.target() == me) {
                origins.add(op.origin());
            }
        }
        switch (plan.epoch()) {
            case FENCE -> win.fence();
            case PSCW -> {
                if (!origins.isEmpty()) {
                    win.post(ints(origins));
                }
                if (!targets.isEmpty()) {
                    win.start(ints(targets));
                }
            }
            case LOCK_ALL -> win.lockAll();
            case LOCK -> { }
        }
        List<long[]> gets = new ArrayList<>();
        for (Op op : mine) {
            boolean lockEach = plan.epoch() == Epoch.LOCK;
            if (lockEach) {
                win.lock(op.lock(), op.target());
            }
            long[] got = new long[op.count()];
            long disp = bases[op.target()] + (long) op.element() * scale;
            switch (op.kind()) {
                case PUT -> win.put(op.values(), op.count(), Datatype.LONG, op.target(), disp);
                case STRIDED_PUT -> win.put(op.values(), Datatype.LONG, new Window.Vector(op.count(), 1, 1),
                        op.target(), disp, new Window.Vector(op.count(), 1, 2));
                case GET, GET_OWN -> win.get(got, op.count(), Datatype.LONG, op.target(), disp);
                case ACC -> win.accumulate(op.values(), op.count(), Datatype.LONG, op.target(), disp, op.op());
                case FETCH -> win.fetchAndOp(op.values(), got, Datatype.LONG, op.target(), disp, op.op());
                case FETCH_OWN -> win.fetchAndOp(op.values(), got, Datatype.LONG, op.target(), disp, op.op());
                case CAS_OWN -> win.compareAndSwap(op.values(), op.compare(), got, Datatype.LONG, op.target(), disp);
            }
            gets.add(got);
            if (lockEach) {
                win.unlock(op.target());
            }
        }
        switch (plan.epoch()) {
            case FENCE -> win.fence(Window.MODE_NOSUCCEED);
            case PSCW -> {
                if (!targets.isEmpty()) {
                    win.complete();
                }
                if (!origins.isEmpty()) {
                    win.waitExposure();
                }
            }
            case LOCK_ALL -> win.unlockAll();
            case LOCK -> { }
        }
        // passive epochs end for the target only when every origin is done with it
        if (passive(plan.epoch())) {
            w.barrier();
        }
        assertArrayEquals(plan.after()[me], memory.toArray(ValueLayout.JAVA_LONG),
                "epoch " + k + " (" + plan.epoch() + "): rank " + me + "'s window");
        for (int i = 0; i < mine.size(); i++) {
            Op op = mine.get(i);
            boolean fetched = op.kind() == Kind.FETCH_OWN || op.kind() == Kind.CAS_OWN;
            if (op.kind() == Kind.GET || op.kind() == Kind.GET_OWN || fetched) {
                for (int j = 0; j < op.count(); j++) {
                    assertEquals(fetched ? op.old()[j] : op.values()[j], gets.get(i)[j], "epoch " + k + ": "
                            + op.kind() + " of element " + (op.element() + j) + " of rank " + op.target());
                }
            }
        }
        // nobody starts a passive epoch's accesses before every rank has checked this one; fence and
        // start wait for the target by themselves
        if (passive(next)) {
            w.barrier();
        }
    }

    private static int[] ints(TreeSet<Integer> set) {
        return set.stream().mapToInt(Integer::intValue).toArray();
    }
}
