package io.tutti.coll;

import io.tutti.coll.AlgorithmCheck.Op;
import io.tutti.coll.algo.ScheduleAlgorithm;
import io.tutti.coll.algo.ScheduleAlgorithm.Params;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Group;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.coll.schedule.ScheduleSteps;
import io.tutti.coll.schedule.Topology;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The algorithms through their common interface, as the selector's table lists them: each builds
 * the schedule it names, and each composes on a part of a communicator (virtual ranks in another
 * order, tags and scratch from a base, after an earlier step), as the leader schedules use them.
 */
class ScheduleAlgorithmTest {
    /** Ranks 0 and 1 stay out; the group is the others, last first. */
    static final int OUT = 2;
    static final int TAG_BASE = 300;
    static final long TEMP_BASE = 40;

    static Group group(int rank, int size) {
        int n = size - OUT;
        int[] ranks = new int[n];
        for (int v = 0; v < n; v++) {
            ranks[v] = size - 1 - v;
        }
        return new Group(ranks, rank < OUT ? 0 : size - 1 - rank, TAG_BASE);
    }

    /** Rank {@code rank}'s schedule: nothing outside the group, else a join and then the algorithm after it. */
    static Schedule composed(ScheduleAlgorithm a, CollectiveCall call, int rank, int size, Params p) {
        ScheduleBuilder b = new ScheduleBuilder("composed", rank, size);
        if (rank >= OUT) {
            int first = b.join();
            a.emit(b, group(rank, size), call, p, TEMP_BASE, first);
        }
        return b.build();
    }

    /** Two nodes by communicator rank (the second half), sockets alternating. */
    static Params twoNodes(int size) {
        int[] node = new int[size];
        int[] socket = new int[size];
        for (int r = 0; r < size; r++) {
            node[r] = r < (size + 1) / 2 ? 0 : 1;
            socket[r] = r % 2;
        }
        return Params.DEFAULT.withTopology(new Topology(node, socket, false)).withSegment(16);
    }

    @Test
    void everyAlgorithmBuildsTheScheduleItNames() {
        for (Kind k : Kind.values()) {
            for (String name : Selector.AVAILABLE.get(k)) {
                ScheduleAlgorithm a = Selector.algorithm(k, name);
                assertEquals(k, a.kind());
                assertEquals(name, a.name());
            }
        }
        ScheduleAlgorithm ring = Selector.algorithm(Kind.ALLREDUCE, "ring");
        CollectiveCall ordered = CollectiveCall.allreduce(64, 8, false, false);
        assertFalse(ring.serves(ordered, Params.DEFAULT));
        assertEquals("allreduce/ring", ring.build(CollectiveCall.allreduce(64, 8, false, true), 1, 3).name());
    }

    @Test
    void allreducesComposeOnAGroup() {
        for (String name : Selector.AVAILABLE.get(Kind.ALLREDUCE)) {
            if (name.equals(Selector.SLOTS) || name.equals(Selector.INC)) {
                continue; // the communicator's own slots, the switches' group
            }
            ScheduleAlgorithm a = Selector.algorithm(Kind.ALLREDUCE, name);
            for (Op op : Op.values()) {
                for (int size : new int[] {3, 4, 5, 7, 10}) {
                    Params p = twoNodes(size);
                    CollectiveCall call = CollectiveCall.allreduce(5L * op.extent, op.extent, false, op.commutative);
                    if (!a.serves(call, p)) {
                        continue;
                    }
                    Random rnd = new Random(size * 31L + op.ordinal());
                    int n = size - OUT;
                    long[][] data = new long[n][];
                    MemorySegment[] send = new MemorySegment[size];
                    MemorySegment[] recv = new MemorySegment[size];
                    for (int v = 0; v < n; v++) {
                        data[v] = op.data(rnd, 5);
                        send[size - 1 - v] = AlgorithmCheck.seg(data[v]);
                        recv[size - 1 - v] = MemorySegment.ofArray(new long[data[v].length]);
                    }
                    Schedule[] s = AlgorithmCheck.schedules(size, r -> composed(a, call, r, size, p));
                    AlgorithmCheck.play(s, send, recv, op, size);
                    long[] expected = op.fold(data, 0, n - 1);
                    for (int v = 0; v < n; v++) {
                        assertArrayEquals(expected, AlgorithmCheck.longs(recv[size - 1 - v]),
                                name + " " + op + " size " + size + " virtual rank " + v);
                    }
                }
            }
        }
    }

    @Test
    void bcastsAndBarriersComposeOnAGroup() {
        for (String name : Selector.AVAILABLE.get(Kind.BCAST)) {
            ScheduleAlgorithm a = Selector.algorithm(Kind.BCAST, name);
            for (int size : new int[] {3, 4, 6, 9}) {
                int n = size - OUT;
                for (int root = 0; root < n; root++) {
                    Params p = twoNodes(size);
                    CollectiveCall call = CollectiveCall.bcast(40, root);
                    long[] payload = Op.SUM.data(new Random(root), 5);
                    MemorySegment[] buf = new MemorySegment[size];
                    for (int v = 0; v < n; v++) {
                        buf[size - 1 - v] = v == root ? AlgorithmCheck.seg(payload)
                                : MemorySegment.ofArray(new long[5]);
                    }
                    Schedule[] s = AlgorithmCheck.schedules(size, r -> composed(a, call, r, size, p));
                    SchedulePlayer.play(s, buf, buf, Op.SUM.combiner(), root);
                    for (int v = 0; v < n; v++) {
                        assertArrayEquals(payload, AlgorithmCheck.longs(buf[size - 1 - v]), name + " size " + size
                                + " root " + root + " virtual rank " + v);
                    }
                }
            }
        }
        for (String name : Selector.AVAILABLE.get(Kind.BARRIER)) {
            if (name.equals(Selector.SLOTS)) {
                continue;
            }
            ScheduleAlgorithm a = Selector.algorithm(Kind.BARRIER, name);
            for (int size : new int[] {3, 4, 5, 8, 11}) {
                IntFunction<Schedule> build = r -> composed(a, CollectiveCall.barrier(), r, size, twoNodes(size));
                Schedule[] s = AlgorithmCheck.schedules(size, build);
                SchedulePlayer.play(s, new MemorySegment[size], new MemorySegment[size], Op.SUM.combiner(), size);
                // over every rank, last first: no rank leaves before every other entered
                Schedule[] all = AlgorithmCheck.schedules(size, r -> {
                    ScheduleBuilder b = new ScheduleBuilder("reversed", r, size);
                    int[] ranks = new int[size];
                    java.util.Arrays.setAll(ranks, v -> size - 1 - v);
                    a.emit(b, new Group(ranks, size - 1 - r, TAG_BASE), CollectiveCall.barrier(), twoNodes(size), 0,
                            ScheduleBuilder.NONE);
                    return b.build();
                });
                assertTrue(BarrierOrder.everyExitAfterEveryEntry(all), name + " of " + size);
            }
        }
    }

    /**
     * One builder reset for every rank (as the simulator builds a million schedules) gives each rank
     * the schedule a fresh builder gives: same steps, peers, tags, regions, dependencies and scratch.
     * The ranks go largest schedule first and again in order, so that a reset must forget more steps
     * than the next schedule has. Read in place ({@link Selector#ranks}, as the simulator folds them),
     * the builder shows the same steps as the schedule it would build.
     */
    @Test
    void aBuilderReusedForEveryRankBuildsTheSchedulesOfFreshOnes() {
        Selector selector = new Selector(java.util.Map.of());
        long[] blocks = {24, 8, 16, 0, 40, 8, 24};
        long[] displs = new long[blocks.length];
        for (int r = 1; r < blocks.length; r++) {
            displs[r] = displs[r - 1] + blocks[r - 1];
        }
        CollectiveCall[] calls = {CollectiveCall.barrier(), CollectiveCall.bcast(4096, 2),
            CollectiveCall.reduce(4096, 8, 1, false, true), CollectiveCall.allreduce(40, 8, false, true),
            CollectiveCall.allreduce(1 << 20, 8, false, true), CollectiveCall.scan(64, 8, false, true, true),
            CollectiveCall.allgather(blocks, displs, false), CollectiveCall.gather(blocks, displs, 3, false),
            CollectiveCall.alltoall(blocks, displs, blocks, displs, false)};
        int size = blocks.length;
        Topology topo = twoNodes(size).topology();
        int compared = 0;
        for (CollectiveCall c : calls) {
            for (String name : Selector.AVAILABLE.get(c.kind())) {
                if (name.equals(Selector.SLOTS) || name.equals(Selector.INC)) {
                    continue;
                }
                ScheduleBuilder reuse = new ScheduleBuilder("reused", 0, size);
                ScheduleBuilder inPlace = new ScheduleBuilder("read in place", 0, size);
                for (int k = 0; k < 2 * size; k++) {
                    int r = k < size ? size - 1 - k : k - size;
                    Schedule fresh;
                    try {
                        fresh = selector.build(c, r, size, topo, name);
                    } catch (io.tutti.TuttiException e) {
                        break; // this algorithm cannot serve the call: nothing to compare
                    }
                    Schedule again = selector.build(c, r, size, topo, name, reuse);
                    String what = c.kind() + "/" + name + " rank " + r;
                    assertEquals(fresh.toString(), again.toString(), what);
                    for (int i = 0; i < fresh.steps(); i++) {
                        assertEquals(fresh.srcIsLeft(i), again.srcIsLeft(i), what + " step " + i);
                        assertEquals(fresh.dependencyCount(i), again.dependencyCount(i), what + " step " + i);
                        assertEquals(fresh.successorsFrom(i + 1), again.successorsFrom(i + 1), what + " step " + i);
                    }
                    assertSameSteps(fresh, selector.ranks(c, size, topo, name).fill(r, inPlace), what + " in place");
                    compared++;
                }
            }
        }
        assertTrue(compared > 100, "compared " + compared + " schedules");
    }

    /** The same steps as {@link ScheduleSteps} shows them: kinds, peers, tags, lengths and dependency lists. */
    static void assertSameSteps(ScheduleSteps expected, ScheduleSteps actual, String what) {
        assertEquals(expected.name() + " " + expected.rank() + "/" + expected.size() + " " + expected.steps(),
                actual.name() + " " + actual.rank() + "/" + actual.size() + " " + actual.steps(), what);
        for (int i = 0; i < expected.steps(); i++) {
            String step = what + " step " + i;
            assertEquals(expected.kind(i), actual.kind(i), step);
            if (expected.kind(i) == Schedule.SEND || expected.kind(i) == Schedule.RECV) {
                assertEquals(expected.peer(i), actual.peer(i), step);
                assertEquals(expected.tag(i), actual.tag(i), step);
            }
            assertEquals(expected.length(i), actual.length(i), step);
            assertEquals(expected.dependenciesFrom(i + 1), actual.dependenciesFrom(i + 1), step);
            for (int k = expected.dependenciesFrom(i); k < expected.dependenciesFrom(i + 1); k++) {
                assertEquals(expected.dependency(k), actual.dependency(k), step + " dependency " + k);
            }
        }
    }
}
