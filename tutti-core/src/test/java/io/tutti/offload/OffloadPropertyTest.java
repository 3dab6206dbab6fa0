package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.schedule.Schedule;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Random;
import java.util.function.IntFunction;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

/**
 * Offloaded collectives against their sequential reference, for random N (powers of two or not),
 * sizes, roots, operations and types, each under a random delivery order: the harness fails any try
 * in which an entry fires before the arrivals it needs (or never fires). Each try runs under a
 * preemptive time limit.
 */
class OffloadPropertyTest {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    static OffloadProgram[] compile(int n, IntFunction<Schedule> s, boolean singleSource) {
        OffloadProgram[] p = new OffloadProgram[n];
        for (int r = 0; r < n; r++) {
            p[r] = singleSource ? OffloadCompiler.singleSource(s, r) : OffloadCompiler.bucket(s, r, null, null);
        }
        return p;
    }

    /** No rank completes a run before every rank has started it. */
    @Property(tries = 60, shrinking = ShrinkingMode.OFF)
    void barrier(@ForAll @IntRange(min = 1, max = 40) int n, @ForAll boolean dissemination, @ForAll long seed) {
        assertTimeoutPreemptively(LIMIT, () -> {
            OffloadProgram[] p = compile(n, dissemination ? r -> Schedules.dissemination(r, n)
                    : r -> Schedules.butterfly(r, n), false);
            OffloadHarness h = new OffloadHarness(p, seed);
            h.run(3, new BarrierOrderObserver(n));
            for (int r = 0; r < n; r++) {
                assertEquals(0, h.counter(r, 0).level(), "counter wrapped to 0");
            }
        });
    }

    @Property(tries = 80, shrinking = ShrinkingMode.OFF)
    void bcast(@ForAll @IntRange(min = 1, max = 33) int n, @ForAll @IntRange(min = 0, max = 300) int bytes,
               @ForAll @IntRange(min = 0, max = 3) int algorithm, @ForAll @IntRange(min = 0, max = 99) int rootPick,
               @ForAll long seed) {
        assertTimeoutPreemptively(LIMIT, () -> {
            int root = rootPick % n;
            IntFunction<Schedule> s = switch (algorithm) {
                case 0 -> r -> Schedules.kary(r, n, bytes, root, 2);
                case 1 -> r -> Schedules.binomialBcast(r, n, bytes, root);
                case 2 -> r -> Schedules.chain(r, n, bytes, root, 1 + bytes / 5);
                default -> r -> Schedules.trinaryx3(r, n, bytes, root, 1 + bytes / 7);
            };
            OffloadHarness h = new OffloadHarness(compile(n, s, true), seed);
            if (n == 1) {
                h.run(); // one rank: the schedule moves nothing and names no buffer
                return;
            }
            Random random = new Random(seed);
            byte[] data = new byte[bytes];
            random.nextBytes(data);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, h.memory(root, OffloadProgram.RECV_BUFFER), 0, bytes);
            h.run(2, null);
            for (int r = 0; r < n; r++) {
                assertArrayEquals(data, bytes(h.memory(r, OffloadProgram.RECV_BUFFER), 0, bytes), "rank " + r);
            }
        });
    }

    @Property(tries = 60, shrinking = ShrinkingMode.OFF)
    void allgather(@ForAll @IntRange(min = 1, max = 24) int n, @ForAll @IntRange(min = 1, max = 40) int block,
                   @ForAll long seed) {
        assertTimeoutPreemptively(LIMIT, () -> {
            long[] b = new long[n];
            long[] d = new long[n];
            for (int i = 0; i < n; i++) {
                b[i] = block;
                d[i] = (long) i * block;
            }
            OffloadHarness h = new OffloadHarness(compile(n,
                    r -> Schedules.recursiveDoublingAllgather(r, n, b, d, false), false), seed);
            Random random = new Random(seed);
            byte[] all = new byte[n * block];
            random.nextBytes(all);
            for (int r = 0; r < n; r++) {
                MemorySegment.copy(MemorySegment.ofArray(all), (long) r * block, h.memory(r, OffloadProgram.SEND_BUFFER),
                        0, block);
            }
            h.run();
            for (int r = 0; r < n; r++) {
                assertArrayEquals(all, bytes(h.memory(r, OffloadProgram.RECV_BUFFER), 0, all.length), "rank " + r);
            }
        });
    }

    /** Every operation on every type it supports, reduce and allreduce, against a sequential fold. */
    @Property(tries = 300, shrinking = ShrinkingMode.OFF)
    void reductions(@ForAll @IntRange(min = 1, max = 24) int n, @ForAll OffloadAlu.Op op,
                    @ForAll OffloadAlu.Type type, @ForAll @IntRange(min = 1, max = 30) int items,
                    @ForAll boolean allreduce, @ForAll @IntRange(min = 0, max = 99) int rootPick, @ForAll long seed) {
        if (!op.supports(type)) {
            return;
        }
        assertTimeoutPreemptively(LIMIT, () -> {
            int root = rootPick % n;
            long bytes = (long) items * OffloadAlu.itemBytes(op, type);
            OffloadProgram[] p = new OffloadProgram[n];
            for (int r = 0; r < n; r++) {
                p[r] = OffloadCompiler.nicTree(allreduce, n, r, root, bytes, op, type);
            }
            OffloadHarness h = new OffloadHarness(p, seed);
            Random random = new Random(seed);
            MemorySegment expect = Arena.ofAuto().allocate(bytes, 8);
            for (int r = 0; r < n; r++) {
                MemorySegment in = h.memory(r, OffloadProgram.SEND_BUFFER);
                ReductionReference.fill(in, op, type, bytes, r, random);
                if (r == 0) {
                    MemorySegment.copy(in, 0, expect, 0, bytes);
                } else {
                    ReductionReference.combine(op, type, expect, in, bytes);
                }
            }
            h.run();
            byte[] want = bytes(expect, 0, bytes);
            for (int r = 0; r < n; r++) {
                if (allreduce || r == root) {
                    assertArrayEquals(want, bytes(h.memory(r, OffloadProgram.RECV_BUFFER), 0, bytes),
                            op + " " + type + " rank " + r + " of " + n);
                }
            }
        });
    }

    /**
     * Host schedules through {@link OffloadCompiler#compile}, which picks the pattern: recursive
     * doubling allreduce and binomial reduce (their REDUCE steps run on the ALU), Bruck's allgather,
     * the tree barrier; and recursive doubling with a region per receive through the 2^n scheme with
     * pre-posted receives (one PUT per exchange); results against the sequential reference.
     */
    @Property(tries = 100, shrinking = ShrinkingMode.OFF)
    void hostSchedules(@ForAll @IntRange(min = 1, max = 20) int n, @ForAll @IntRange(min = 0, max = 4) int which,
                       @ForAll @IntRange(min = 1, max = 12) int items, @ForAll boolean maximum, @ForAll long seed) {
        assertTimeoutPreemptively(LIMIT, () -> {
            OffloadAlu.Op op = maximum ? OffloadAlu.Op.MAX : OffloadAlu.Op.ADD;
            OffloadAlu.Type type = maximum ? OffloadAlu.Type.FLOAT64 : OffloadAlu.Type.INT64;
            long bytes = 8L * items;
            long[] b = new long[n];
            long[] d = new long[n];
            for (int i = 0; i < n; i++) {
                b[i] = bytes;
                d[i] = i * bytes;
            }
            IntFunction<Schedule> s = switch (which) {
                case 0 -> r -> Schedules.recursiveDoublingAllreduce(r, n, bytes, 8, false, true);
                case 1 -> r -> Schedules.binomialReduce(r, n, bytes, 8, 0, false, true);
                case 2 -> r -> Schedules.bruckAllgather(r, n, b, d, false);
                case 3 -> r -> Schedules.tree(r, n);
                default -> r -> RecursiveDoublingAllreduce.buildOwnRegions(r, n, bytes, 8, true);
            };
            OffloadProgram[] p = new OffloadProgram[n];
            for (int r = 0; r < n; r++) {
                p[r] = which == 4 ? OffloadCompiler.bucket(s, r, op, type, true) : OffloadCompiler.compile(s, r, op, type);
            }
            OffloadHarness h = new OffloadHarness(p, seed);
            Random random = new Random(seed);
            MemorySegment expect = Arena.ofAuto().allocate(Math.max(1, which == 2 ? n * bytes : bytes), 8);
            for (int r = 0; r < n && which != 3; r++) {
                MemorySegment in = h.memory(r, OffloadProgram.SEND_BUFFER);
                if (in.byteSize() < bytes) {
                    continue; // one rank: nothing is sent
                }
                ReductionReference.fill(in, op, type, bytes, r, random);
                if (which == 2) {
                    MemorySegment.copy(in, 0, expect, r * bytes, bytes);
                } else if (r == 0) {
                    MemorySegment.copy(in, 0, expect, 0, bytes);
                } else {
                    ReductionReference.combine(op, type, expect, in, bytes);
                }
            }
            h.run(2, null);
            if (which == 3 || n == 1) {
                return;
            }
            long len = which == 2 ? n * bytes : bytes;
            for (int r = 0; r < (which == 1 ? 1 : n); r++) {
                assertArrayEquals(bytes(expect, 0, len), bytes(h.memory(r, OffloadProgram.RECV_BUFFER), 0, len),
                        p[r].name() + " rank " + r + " of " + n);
            }
        });
    }

    static byte[] bytes(MemorySegment s, long off, long len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }
}
