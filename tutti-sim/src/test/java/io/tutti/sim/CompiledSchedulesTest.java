package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.Topology;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Folding every rank's schedule straight from one reused builder: each rank's compiled steps are
 * those of the {@link Schedule} a fresh builder makes for it (successors as the schedule inverts
 * them), and in steady state the folding makes nothing per rank but its shape's index.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CompiledSchedulesTest {
    private static final Selector SELECTOR = new Selector(Map.of());

    /** {@code nodes} nodes of {@code ppn} ranks each. */
    private static Topology nodes(int nodes, int ppn) {
        int[] node = new int[nodes * ppn];
        for (int r = 0; r < node.length; r++) {
            node[r] = r / ppn;
        }
        return new Topology(node, new int[node.length], false);
    }

    private static void assertFoldsAsFresh(Kind kind, String algorithm, long bytes, int nodes, int ppn) {
        int ranks = nodes * ppn;
        Topology topo = nodes(nodes, ppn);
        CollectiveCall c = SimExperiment.call(kind, bytes, 8, ranks);
        String alg = algorithm != null ? algorithm : SELECTOR.choose(c, ranks, topo, null);
        CompiledSchedules cs = CompiledSchedules.build(SELECTOR, c, ranks, topo, alg);
        for (int r = 0; r < ranks; r++) {
            Schedule s = SELECTOR.build(c, r, ranks, topo, alg);
            String what = kind + "/" + alg + " " + nodes + "x" + ppn + " rank " + r;
            assertEquals(s.steps(), cs.steps(r), what);
            int base = cs.shapeStart[cs.shapeOf[r]];
            for (int i = 0; i < s.steps(); i++) {
                String step = what + " step " + i;
                assertEquals(s.kind(i), cs.kind(r, i), step);
                if (s.kind(i) == Schedule.SEND || s.kind(i) == Schedule.RECV) {
                    assertEquals(s.peer(i), cs.peer(r, i), step);
                    assertEquals(s.tag(i), cs.tag(r, i), step);
                }
                assertEquals(s.length(i), cs.length(r, i), step);
                assertEquals(s.dependencyCount(i), cs.depCount[base + i], step);
                StringBuilder expected = new StringBuilder();
                for (int k = s.successorsFrom(i); k < s.successorsFrom(i + 1); k++) {
                    expected.append(s.successor(k)).append(' ');
                }
                StringBuilder folded = new StringBuilder();
                for (int k = cs.succStart[base + i]; k < cs.succStart[base + i + 1]; k++) {
                    folded.append(cs.succ[k]).append(' ');
                }
                assertEquals(expected.toString(), folded.toString(), step + ": successors in order");
            }
        }
    }

    @Test
    void everyRankFoldsAsItsFreshSchedule() {
        assertFoldsAsFresh(Kind.BCAST, "binomial", 8, 100, 1);
        assertFoldsAsFresh(Kind.BARRIER, "dissemination", 0, 37, 1);
        assertFoldsAsFresh(Kind.BARRIER, null, 0, 64, 1);         // node leaders: mask shapes
        assertFoldsAsFresh(Kind.ALLREDUCE, null, 8, 24, 4);       // leaders over nodes of four
        assertFoldsAsFresh(Kind.ALLREDUCE, "rabenseifner", 1 << 16, 64, 1);
        assertFoldsAsFresh(Kind.ALLREDUCE, "recursive-doubling", 24, 13, 1);
        assertFoldsAsFresh(Kind.ALLGATHER, "bruck", 24, 11, 1);    // joins of steps that are no run
        assertFoldsAsFresh(Kind.REDUCE, "binomial", 24, 10, 1);
        assertFoldsAsFresh(Kind.ALLTOALL, "pairwise", 24, 6, 1);
    }

    /**
     * Ranks of one send each, chosen so that rank 2 makes a mask shape (its masks are rank 1's),
     * rank 3 takes it, and rank 4 repeats rank 2's offsets but not its masks: a rank may reuse the
     * rank before's shape on equal offsets only when that shape came from offsets.
     */
    @Test
    void aRankAfterAMaskShapeIsLookedUpAgain() {
        int[] peers = {1, 3, 0, 1, 2, 6, 7, 0};
        Schedule[] schedules = new Schedule[peers.length];
        for (int r = 0; r < peers.length; r++) {
            io.tutti.coll.schedule.ScheduleBuilder b = new io.tutti.coll.schedule.ScheduleBuilder("sends", r,
                    peers.length);
            b.send(peers[r], 0, Schedule.RECV_BUFFER, 0, 8);
            schedules[r] = b.build();
        }
        CompiledSchedules cs = CompiledSchedules.of(schedules);
        for (int r = 0; r < peers.length; r++) {
            assertEquals(peers[r], cs.peer(r, 0), "rank " + r + " (shape " + cs.shapeOf[r] + ")");
        }
        assertTrue(cs.xor[cs.shapeOf[2]] && cs.shapeOf[3] == cs.shapeOf[2], "ranks 2 and 3 share a mask shape");
    }

    /**
     * Bytes this thread allocates folding {@code ranks} ranks (the least of three, after a warm-up):
     * a {@code Schedule} per rank made 0.7 KB a rank for the broadcast and 3.5 KB for the barrier.
     */
    private static long foldingBytes(Kind kind, String algorithm, int ranks) {
        com.sun.management.ThreadMXBean bean =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(bean.isThreadAllocatedMemorySupported() && bean.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count the bytes a thread allocates");
        CollectiveCall c = SimExperiment.call(kind, 8, 8, ranks);
        Topology topo = Topology.flat(ranks, false);
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = bean.getCurrentThreadAllocatedBytes();
            CompiledSchedules cs = CompiledSchedules.build(SELECTOR, c, ranks, topo, algorithm);
            long bytes = bean.getCurrentThreadAllocatedBytes() - before;
            assertEquals(ranks, cs.size());
            if (round >= 2) {
                least = Math.min(least, bytes);
            }
        }
        return least;
    }

    @Test
    void foldingMakesNothingPerRankButItsShape() {
        int ranks = 1 << 15;
        for (String[] run : new String[][] {{"BCAST", "binomial"}, {"BARRIER", "dissemination"}}) {
            long bytes = foldingBytes(Kind.valueOf(run[0]), run[1], ranks);
            // the shape index (4 bytes) and, where the JIT has not removed them, the group each emit is
            // given and the broadcast's list of its steps (24 bytes each); a Schedule would be 700 or more
            assertTrue(bytes < 96L * ranks, run[0] + "/" + run[1] + ": " + bytes / ranks + " bytes a rank");
        }
    }
}
