package io.tutti.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Conservation, determinism and step order of host mode, over every algorithm the builders offer. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostModelTest {
    /** Records every start, completion and match. */
    static final class Recorder implements HostModel.Trace {
        final CompiledSchedules s;
        final long[][] started;
        final long[][] completed;
        final int[][] matchedAs;
        final List<int[]> startOrder = new ArrayList<>();
        final List<int[]> matches = new ArrayList<>();

        Recorder(CompiledSchedules s) {
            this.s = s;
            started = new long[s.size()][];
            completed = new long[s.size()][];
            matchedAs = new int[s.size()][];
            for (int r = 0; r < s.size(); r++) {
                started[r] = filled(s.steps(r), -1);
                completed[r] = filled(s.steps(r), -1);
                matchedAs[r] = new int[s.steps(r)];
            }
        }

        private static long[] filled(int n, long v) {
            long[] a = new long[n];
            java.util.Arrays.fill(a, v);
            return a;
        }

        @Override
        public void started(int rank, int step, long t) {
            assertEquals(-1, started[rank][step], "rank " + rank + " step " + step + " started twice");
            started[rank][step] = t;
            startOrder.add(new int[] {rank, step});
        }

        @Override
        public void completed(int rank, int step, long t) {
            assertEquals(-1, completed[rank][step], "rank " + rank + " step " + step + " completed twice");
            assertTrue(started[rank][step] >= 0 && t >= started[rank][step]);
            completed[rank][step] = t;
        }

        @Override
        public void matched(int src, int sendStep, int dst, int recvStep, long t) {
            matchedAs[src][sendStep]++;
            matchedAs[dst][recvStep]++;
            matches.add(new int[] {src, sendStep, dst, recvStep});
        }
    }

    private static List<Object[]> cases() {
        List<Object[]> out = new ArrayList<>();
        for (Map.Entry<Kind, List<String>> e : Selector.AVAILABLE.entrySet()) {
            for (String alg : e.getValue()) {
                if (alg.equals(Selector.NODE_LEADERS) || alg.equals(Selector.SOCKET_LEADERS)
                        || alg.equals(Selector.INC) || alg.equals(Selector.SLOTS)) {
                    continue; // leaders need a topology; inc needs switches (the switch mode); slots shared memory
                }
                for (int ranks : new int[] {1, 2, 5, 8, 13}) {
                    out.add(new Object[] {e.getKey(), alg, ranks});
                }
            }
        }
        return out;
    }

    private static CompiledSchedules build(Kind kind, String alg, int ranks) {
        // 8-byte elements, 3 per rank: uneven blocks in the block algorithms, several segments in none
        return Sims.schedules(kind, alg, ranks, 24, 8);
    }

    /**
     * Both ways of sending: every message eager, and (rule 9) those of 16 B and more by rendezvous,
     * so that a run has both kinds between the same ranks.
     */
    private static final List<SimParams> PROTOCOLS = List.of(SimParams.defaults(),
            SimParams.defaults().with(Map.of("rendezvous_bytes", "16", "rendezvous_control", "8")));

    /** Every SEND is matched exactly once by a RECV of the same length, and every step runs once. */
    @Test
    void everySendReceivedExactlyOnce() {
        for (SimParams p : PROTOCOLS) {
            everySendReceivedExactlyOnce(p);
        }
    }

    private static void everySendReceivedExactlyOnce(SimParams p) {
        for (Object[] c : cases()) {
            Kind kind = (Kind) c[0];
            String alg = (String) c[1];
            int ranks = (int) c[2];
            CompiledSchedules cs = build(kind, alg, ranks);
            Recorder rec = new Recorder(cs);
            SimResult r = Sims.runLogGP(cs, p, rec);
            long sends = 0;
            for (int q = 0; q < ranks; q++) {
                for (int i = 0; i < cs.steps(q); i++) {
                    byte k = cs.kind(q, i);
                    assertTrue(rec.completed[q][i] >= 0, kind + "/" + alg + " P=" + ranks + ": step never completed");
                    if (k == Schedule.SEND) {
                        sends++;
                    }
                    if (k == Schedule.SEND || k == Schedule.RECV) {
                        assertEquals(1, rec.matchedAs[q][i], kind + "/" + alg + " P=" + ranks + " rank " + q + " step " + i);
                    }
                }
            }
            assertEquals(sends, r.messages(), kind + "/" + alg);
            assertEquals(cs.totalSteps(), r.steps());
            for (int[] m : rec.matches) {
                assertEquals(cs.length(m[0], m[1]), cs.length(m[2], m[3]));
                assertEquals(m[2], cs.peer(m[0], m[1]));
                assertEquals(m[0], cs.peer(m[2], m[3]));
                assertEquals(cs.tag(m[0], m[1]), cs.tag(m[2], m[3]));
            }
        }
    }

    /**
     * The simulator runs steps in an order the host executor could: a step starts only after all
     * its dependencies completed (the schedule's DAG), and sends pair with receives as the real
     * executor and the schedule player pair them — the n-th send from a to b with tag t (in a's
     * posting order) with the n-th receive b posts for (a, t).
     */
    @Test
    void stepOrderAgreesWithHostSemantics() {
        for (SimParams p : PROTOCOLS) {
            stepOrderAgreesWithHostSemantics(p);
        }
    }

    private static void stepOrderAgreesWithHostSemantics(SimParams p) {
        for (Object[] c : cases()) {
            Kind kind = (Kind) c[0];
            String alg = (String) c[1];
            int ranks = (int) c[2];
            CompiledSchedules cs = build(kind, alg, ranks);
            Recorder rec = new Recorder(cs);
            Sims.runLogGP(cs, p, rec);
            String what = kind + "/" + alg + " P=" + ranks + (p.rendezvousBytes() > 0 ? " rendezvous" : "");
            // dependencies, from the Schedule objects themselves
            CollectiveCallSchedules original = new CollectiveCallSchedules(kind, alg, ranks);
            int[][] startIndex = new int[ranks][];
            for (int q = 0; q < ranks; q++) {
                startIndex[q] = new int[cs.steps(q)];
            }
            for (int n = 0; n < rec.startOrder.size(); n++) {
                int[] rs = rec.startOrder.get(n);
                startIndex[rs[0]][rs[1]] = n;
            }
            for (int q = 0; q < ranks; q++) {
                Schedule s = original.get(q);
                assertEquals(s.steps(), cs.steps(q));
                for (int i = 0; i < s.steps(); i++) {
                    for (int d : s.dependencies(i)) {
                        assertTrue(rec.completed[q][d] <= rec.started[q][i], what + " rank " + q + " step " + i
                                + " started before its dependency " + d + " completed");
                    }
                }
            }
            // non-overtaking pairing in posting order
            Map<List<Integer>, ArrayDeque<int[]>> sends = new HashMap<>();
            Map<List<Integer>, ArrayDeque<int[]>> recvs = new HashMap<>();
            for (int[] rs : rec.startOrder) {
                int q = rs[0];
                int i = rs[1];
                byte k = cs.kind(q, i);
                if (k == Schedule.SEND) {
                    sends.computeIfAbsent(List.of(q, cs.peer(q, i), cs.tag(q, i)), x -> new ArrayDeque<>()).add(rs);
                } else if (k == Schedule.RECV) {
                    recvs.computeIfAbsent(List.of(cs.peer(q, i), q, cs.tag(q, i)), x -> new ArrayDeque<>()).add(rs);
                }
            }
            Map<List<Integer>, int[]> expected = new HashMap<>();
            for (Map.Entry<List<Integer>, ArrayDeque<int[]>> e : sends.entrySet()) {
                ArrayDeque<int[]> rq = recvs.get(e.getKey());
                for (int[] snd : e.getValue()) {
                    int[] rcv = rq.poll();
                    expected.put(List.of(snd[0], snd[1]), rcv);
                }
            }
            for (int[] m : rec.matches) {
                int[] rcv = expected.get(List.of(m[0], m[1]));
                assertArrayEquals(rcv, new int[] {m[2], m[3]}, what + ": rank " + m[0] + " step " + m[1]
                        + " matched out of posting order");
            }
        }
    }

    /** The original Schedule objects, for the checks that need their dependency lists. */
    private record CollectiveCallSchedules(Kind kind, String alg, int ranks) {
        Schedule get(int r) {
            return new Selector(Map.of()).build(SimExperiment.call(kind, 24, 8, ranks), r, ranks,
                    io.tutti.coll.schedule.Topology.flat(ranks, false), alg);
        }
    }

    /** Same input, same result, for both networks; a different input gives a different result. */
    @Test
    void deterministic() {
        SimParams p = SimParams.defaults();
        for (String net : List.of("loggp", "packet")) {
            SimExperiment.Spec spec = new SimExperiment.Spec(Kind.ALLREDUCE, "rabenseifner", "host", net, "fattree:k=4",
                    64, 2, 64 * 1024, 8, p);
            CompiledSchedules cs = Sims.schedules(Kind.ALLREDUCE, "rabenseifner", 128, 64 * 1024, 8);
            SimResult a = run(cs, p, net);
            SimResult b = run(cs, p, net);
            assertEquals(a.completionNs(), b.completionNs());
            assertArrayEquals(a.finishNs(), b.finishNs());
            assertEquals(a.events(), b.events());
            SimExperiment.Row r1 = SimExperiment.run(spec, null);
            SimExperiment.Row r2 = SimExperiment.run(spec, null);
            assertEquals(r1.completionNs(), r2.completionNs());
            assertEquals(r1.events(), r2.events());
            SimResult slower = run(cs, p.with(Map.of("L", "" + (p.L() * 2), "link_latency", "" + (p.linkLatency() * 2))),
                    net);
            assertNotEquals(a.completionNs(), slower.completionNs(), net);
        }
    }

    private static SimResult run(CompiledSchedules cs, SimParams p, String net) {
        Network n = net.equals("loggp") ? new LogGPNetwork(p.L())
                : new PacketNetwork(Fabric.parse("fattree:k=4", 64), p, 2);
        return Simulation.run(new HostModel(cs, p, null), n, null);
    }

    /** One message of s bytes from rank 0 to rank 1 under LogGP; rank 1 first copies {@code busy} bytes. */
    private static long pointToPoint(SimParams p, long s, long busy) {
        ScheduleBuilder b0 = new ScheduleBuilder("test", 0, 2);
        b0.send(1, 0, Schedule.SEND_BUFFER, 0, s);
        ScheduleBuilder b1 = new ScheduleBuilder("test", 1, 2);
        int after = busy > 0 ? b1.copy(Schedule.RECV_BUFFER, 0, Schedule.SEND_BUFFER, 0, busy) : -1;
        b1.recv(0, 0, Schedule.RECV_BUFFER, 0, s, after);
        return Sims.runLogGP(CompiledSchedules.of(new Schedule[] {b0.build(), b1.build()}), p, null).completionNs();
    }

    /**
     * Rule 9: a message of R bytes or more costs its request, its answer (each a message of the
     * control size) and then itself; one of R − 1 bytes is eager.
     */
    @Test
    void rendezvousPaysARequestAndAnAnswerBeforeTheData() {
        SimParams eager = Sims.loggp(1000, 300, 200, 50, 2.0, 0.5);
        SimParams rdv = eager.with(Map.of("rendezvous_bytes", "1024", "rendezvous_control", "16"));
        assertEquals(pointToPoint(eager, 4096, 0) + 2 * pointToPoint(eager, 16, 0), pointToPoint(rdv, 4096, 0));
        assertEquals(pointToPoint(eager, 1024, 0) + 2 * pointToPoint(eager, 16, 0), pointToPoint(rdv, 1024, 0));
        assertEquals(pointToPoint(eager, 1023, 0), pointToPoint(rdv, 1023, 0));
        assertThrows(IllegalArgumentException.class, () -> eager.with(Map.of("rendezvous_bytes", "-1")));
    }

    /**
     * Rule 9: the answer waits for the receive to be posted. An eager message that arrives while
     * the receiver is busy waits in the unexpected queue and is matched when the receive starts; a
     * rendezvous one is only then answered, so its data still has to come.
     */
    @Test
    void rendezvousDataWaitsForTheReceiveToBePosted() {
        SimParams eager = Sims.loggp(1000, 300, 200, 50, 2.0, 0.5).with(Map.of("copy_per_byte", "10"));
        SimParams rdv = eager.with(Map.of("rendezvous_bytes", "1024", "rendezvous_control", "16"));
        long busy = 100_000;
        long copy = busy * 10;
        assertTrue(pointToPoint(eager, 4096, 0) < copy, "the copy outlasts the message");
        // after the copy the CPU takes the waiting message in: o_r + (s − 1)·G
        assertEquals(copy + 200 + 2 * 4095, pointToPoint(eager, 4096, busy));
        // the CPU takes the waiting request in, matches it to the receive posted at the copy's end
        // and only then answers; the data follows the answer
        assertEquals(copy + 200 + 2 * 15 + pointToPoint(eager, 16, 0) + pointToPoint(eager, 4096, 0),
                pointToPoint(rdv, 4096, busy));
    }

    /**
     * Rule 9: a rendezvous message's data leaves from the sender's buffer, so its send completes
     * only when the NIC has taken the last byte, (s − 1)·G after the data entered the network: the
     * receiver then ends L + o_r later. An eager send completes after its CPU work, (s − 1)·O.
     */
    @Test
    void aRendezvousSendCompletesWhenTheNicHasTakenItsData() {
        SimParams eager = Sims.loggp(1000, 300, 200, 50, 2.0, 0.5);
        SimParams rdv = eager.with(Map.of("rendezvous_bytes", "1024", "rendezvous_control", "16"));
        long s = 4096;
        long[] sent = finishes(rdv, s);
        assertEquals(1000 + 200, sent[1] - sent[0]);
        long[] plain = finishes(eager, s);
        // the receiver's CPU takes the bytes in at G, the sender's spent O on them
        assertEquals(1000 + 200 + Math.round(2.0 * (s - 1)) - Math.round(0.5 * (s - 1)), plain[1] - plain[0]);
    }

    private static long[] finishes(SimParams p, long s) {
        ScheduleBuilder b0 = new ScheduleBuilder("test", 0, 2);
        b0.send(1, 0, Schedule.SEND_BUFFER, 0, s);
        ScheduleBuilder b1 = new ScheduleBuilder("test", 1, 2);
        b1.recv(0, 0, Schedule.RECV_BUFFER, 0, s);
        return Sims.runLogGP(CompiledSchedules.of(new Schedule[] {b0.build(), b1.build()}), p, null).finishNs();
    }

    /** Rule 8: o_per_rank = d adds d·(P − 1) to every o_s and o_r between nodes; a binomial bcast's 4 rounds on 16 ranks pay both. */
    @Test
    void overheadsGrowWithTheCommunicatorUnderOPerRank() {
        CompiledSchedules cs = Sims.schedules(Kind.BCAST, "binomial", 16, 8, 8);
        SimParams p = SimParams.defaults();
        long plain = Sims.runLogGP(cs, p, null).completionNs();
        long scaled = Sims.runLogGP(cs, p.with(Map.of("o_per_rank", "10")), null).completionNs();
        assertEquals(4 * 2 * 10 * 15, scaled - plain);
        assertThrows(IllegalArgumentException.class, () -> p.with(Map.of("o_per_rank", "-1")));
    }

    /** A receive nobody sends to is reported as a deadlock, not a hang or a silent result. */
    @Test
    void deadlockIsReported() {
        ScheduleBuilder b0 = new ScheduleBuilder("test", 0, 2);
        b0.recv(1, 0, Schedule.RECV_BUFFER, 0, 8);
        ScheduleBuilder b1 = new ScheduleBuilder("test", 1, 2);
        b1.recv(0, 0, Schedule.RECV_BUFFER, 0, 8);
        CompiledSchedules cs = CompiledSchedules.of(new Schedule[] {b0.build(), b1.build()});
        SimulationException e = assertThrows(SimulationException.class,
                () -> Sims.runLogGP(cs, SimParams.defaults(), null));
        assertTrue(e.getMessage().contains("deadlock"), e.getMessage());
    }

    /** A send and its receive of different lengths fail the run, as they fail the real executor. */
    @Test
    void lengthMismatchIsReported() {
        ScheduleBuilder b0 = new ScheduleBuilder("test", 0, 2);
        b0.send(1, 0, Schedule.RECV_BUFFER, 0, 8);
        ScheduleBuilder b1 = new ScheduleBuilder("test", 1, 2);
        b1.recv(0, 0, Schedule.RECV_BUFFER, 0, 16);
        CompiledSchedules cs = CompiledSchedules.of(new Schedule[] {b0.build(), b1.build()});
        assertThrows(SimulationException.class, () -> Sims.runLogGP(cs, SimParams.defaults(), null));
    }

    /** Shapes: a dissemination barrier compresses to one shape, and compression keeps every step. */
    @Test
    void compression() {
        CompiledSchedules cs = Sims.schedules(Kind.BARRIER, "dissemination", 1000, 0, 1);
        assertEquals(1, cs.shapes());
        assertEquals(1000L * 2 * 10, cs.totalSteps());
        for (int r : new int[] {0, 1, 999}) {
            assertEquals((r + 1) % 1000, cs.peer(r, 0));
            assertEquals((r + 999) % 1000, cs.peer(r, 1));
        }
    }

    /**
     * Ranks paired by a bit (recursive doubling) have a different offset pattern each, but the same
     * masks: they compress to a few shapes, not one per rank.
     */
    @Test
    void schedulesThatPairRanksByABitShareTheirMasks() {
        int ranks = 4096;
        CompiledSchedules cs = Sims.schedules(Kind.ALLREDUCE, "recursive-doubling", ranks, 8, 8);
        assertTrue(cs.shapes() <= 3, cs.shapes() + " shapes");
        for (int r : new int[] {0, 1, 2, 4095, 1234}) {
            for (int i = 0; i < cs.steps(r); i++) {
                byte k = cs.kind(r, i);
                if (k == Schedule.SEND || k == Schedule.RECV) {
                    assertEquals(1, Integer.bitCount(cs.peer(r, i) ^ r), "rank " + r + " step " + i);
                }
            }
        }
        // and a schedule of offsets stays one shape
        assertEquals(1, Sims.schedules(Kind.BARRIER, "dissemination", ranks, 0, 1).shapes());
    }

    /** The compact form gives back each rank's own steps, exactly as the real builder made them. */
    @Test
    void compactFormKeepsEveryRanksSteps() {
        Selector alg = new Selector(Map.of());
        int ranks = 300;
        for (Object[] c : new Object[][] {{Kind.BCAST, "binomial"}, {Kind.ALLREDUCE, "ring"},
            {Kind.ALLTOALL, "bruck"}, {Kind.REDUCE, "rabenseifner"}, {Kind.ALLREDUCE, "recursive-doubling"},
            {Kind.BARRIER, "butterfly"}}) {
            Kind kind = (Kind) c[0];
            String name = (String) c[1];
            CompiledSchedules cs = Sims.schedules(kind, name, ranks, 24, 8);
            long total = 0;
            for (int r = 0; r < ranks; r++) {
                Schedule s = alg.build(SimExperiment.call(kind, 24, 8, ranks), r, ranks,
                        io.tutti.coll.schedule.Topology.flat(ranks, false), name);
                assertEquals(s.steps(), cs.steps(r), kind + " rank " + r);
                total += s.steps();
                for (int i = 0; i < s.steps(); i++) {
                    assertEquals(s.kind(i), cs.kind(r, i));
                    assertEquals(s.length(i), cs.length(r, i));
                    if (s.kind(i) == Schedule.SEND || s.kind(i) == Schedule.RECV) {
                        assertEquals(s.peer(i), cs.peer(r, i), kind + " rank " + r + " step " + i);
                        assertEquals(s.tag(i), cs.tag(r, i));
                    }
                }
            }
            assertEquals(total, cs.totalSteps());
            assertTrue(cs.shapes() <= ranks);
        }
    }

    /** host_noise keeps every CPU time's mean, is repeatable per operation and seed, and 0 is exact. */
    @Test
    void noiseKeepsTheMeanOfEveryCpuTime() {
        SimParams none = SimParams.defaults();
        SimParams half = none.with(Map.of("host_noise", "0.5"));
        SimParams full = none.with(Map.of("host_noise", "1"));
        SimParams other = none.with(Map.of("host_noise", "1", "noise_seed", "2"));
        int n = 200_000;
        double sumHalf = 0;
        double sumFull = 0;
        int same = 0;
        for (int k = 0; k < n; k++) {
            assertEquals(3000, none.noisy(3000, k, k, SimParams.NOISE_SEND));
            long h = half.noisy(3000, k, 7, SimParams.NOISE_RECV);
            assertTrue(h >= 1500, "half the time is constant: " + h);
            sumHalf += h;
            long f = full.noisy(3000, k, 7, SimParams.NOISE_RECV);
            assertEquals(f, full.noisy(3000, k, 7, SimParams.NOISE_RECV), "one operation, one draw");
            sumFull += f;
            if (f == other.noisy(3000, k, 7, SimParams.NOISE_RECV)) {
                same++;
            }
        }
        assertEquals(3000, sumHalf / n, 30);
        assertEquals(3000, sumFull / n, 30);
        assertTrue(same < n / 100, "another seed draws other times: " + same + " equal");
        assertEquals(0, full.noisy(0, 1, 1, SimParams.NOISE_SEND));
        assertThrows(IllegalArgumentException.class, () -> none.with(Map.of("host_noise", "1.5")));
    }

    /**
     * With noisy overheads of the same mean a reduce takes longer, and the more so the deeper its tree:
     * each parent waits for the slowest of its children. One seed gives one repeatable run.
     */
    @Test
    void noiseSlowsATreeMoreTheMoreRanksItWaitsFor() {
        SimParams quiet = Sims.loggp(1000, 3000, 3000, 0, 0, 0);
        SimParams noisy = quiet.with(Map.of("host_noise", "1"));
        double[] ratio = new double[2];
        int[] sizes = {4, 64};
        for (int i = 0; i < sizes.length; i++) {
            CompiledSchedules cs = Sims.schedules(Kind.REDUCE, "binomial", sizes[i], 8, 8);
            long base = Sims.runLogGP(cs, quiet, null).completionNs();
            double sum = 0;
            int runs = 64;
            for (int seed = 1; seed <= runs; seed++) {
                SimParams p = noisy.with(Map.of("noise_seed", Integer.toString(seed)));
                long c = Sims.runLogGP(cs, p, null).completionNs();
                assertEquals(c, Sims.runLogGP(cs, p, null).completionNs(), "a seed is repeatable");
                sum += c;
            }
            ratio[i] = sum / runs / base;
        }
        assertTrue(ratio[0] > 1.02, "4 ranks: noisy / quiet = " + ratio[0]);
        assertTrue(ratio[1] > ratio[0] + 0.1, "64 ranks wait for more: " + ratio[1] + " against " + ratio[0]);
    }
}
