package io.tutti.offload;

import io.tutti.reduce.OffloadAlu;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.TuttiException;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** [water-tank] tables 2, 4, 5 and 6, reproduced by the compiler. */
class OffloadGoldenTest {
    /** Th, Ot, Iv/Cl/Cr, Pq of one entry. */
    record Row(long th, String op, long value, int peer) {
    }

    static List<Row> rows(OffloadProgram p, byte... ops) {
        List<Row> l = new ArrayList<>();
        for (DeferredWork w : p.list()) {
            for (byte o : ops) {
                if (w.op() == o) {
                    l.add(new Row(w.threshold(), w.opName(), w.value(), w.peer()));
                }
            }
        }
        return l;
    }

    static final byte PUT = OffloadProgram.PUT;
    static final byte RCA = OffloadProgram.REMOTE_CNTR_ADD;
    static final byte ADD = OffloadProgram.CNTR_ADD;

    /**
     * Table 4, P0 of the 8-rank butterfly barrier: Th 0, 4, 6, 7; Iv 4, 2, 1, -7; Pq 1, 2, 4. The
     * [water-tank]'s completion row is a remote add of -7 to P0 itself; Tutti makes it the local CNTR_ADD.
     */
    @Test
    @Timeout(30)
    void table4ButterflyBarrier() {
        OffloadProgram p = OffloadPlans.program(OffloadPlans.Coll.BARRIER, 8, 0, 0, 0, null, null);
        assertEquals(List.of(new Row(0, "REMOTE_CNTR_ADD", 4, 1), new Row(4, "REMOTE_CNTR_ADD", 2, 2),
                new Row(6, "REMOTE_CNTR_ADD", 1, 4), new Row(7, "CNTR_ADD", -7, -1)), rows(p, RCA, ADD));
        assertEquals(1, p.counters());
        // the COMPLETE entry sits at the last threshold, before the wrap
        assertEquals(OffloadProgram.COMPLETE, p.entry(p.entries() - 2).op());
        assertEquals(7, p.entry(p.entries() - 2).threshold());
    }

    /** Table 5, P0 of the 8-rank butterfly allgather: RTR/DAT/RTE per round, then FIN_C. */
    @Test
    @Timeout(30)
    void table5ButterflyAllgather() {
        OffloadProgram p = OffloadPlans.program(OffloadPlans.Coll.ALLGATHER, 8, 0, 8, 0, null, null);
        assertEquals(List.of(
                new Row(0, "REMOTE_CNTR_ADD", 32, 1), // RTR1
                new Row(32, "PUT", 0, 1), // DAT1
                new Row(32, "REMOTE_CNTR_ADD", 16, 1), // RTE1
                new Row(48, "REMOTE_CNTR_ADD", 8, 2), // RTR2
                new Row(56, "PUT", 0, 2),
                new Row(56, "REMOTE_CNTR_ADD", 4, 2),
                new Row(60, "REMOTE_CNTR_ADD", 2, 4),
                new Row(62, "PUT", 0, 4),
                new Row(62, "REMOTE_CNTR_ADD", 1, 4),
                new Row(63, "CNTR_ADD", -63, -1)), // FIN_C
                rows(p, PUT, RCA, ADD));
        assertEquals(6, p.checkpoints(), "R = 2 x 3 rounds");
    }

    /**
     * Pre-posted receives: rank 0 of 8 in recursive doubling with a region per receive sends one PUT
     * per round that carries the partner's bucket (4, 2, 1 as table 4's barrier), with no RTR; the
     * round-k PUT fires once the first k - 1 rounds' arrivals are in (thresholds 0, 4, 6).
     */
    @Test
    @Timeout(30)
    void prePostedExchangeIsOnePacketPerRound() {
        OffloadProgram p = OffloadCompiler.bucket(r -> RecursiveDoublingAllreduce.buildOwnRegions(r, 8, 16, 8, true), 0,
                OffloadAlu.Op.ADD, OffloadAlu.Type.INT64, true);
        List<Row> puts = rows(p, PUT, RCA);
        assertEquals(List.of(new Row(0, "PUT", 4, 1), new Row(4, "PUT", 2, 2), new Row(6, "PUT", 1, 4)), puts);
        assertEquals(3, p.arrivals());
        // each round lands in a scratch slot of its own
        List<Long> slots = new ArrayList<>();
        for (int i = 0; i < p.entries(); i++) {
            if (p.entry(i).op() == OffloadProgram.PUT) {
                slots.add(p.remoteOffset(i));
            }
        }
        assertEquals(List.of(16L, 32L, 48L), slots);
    }

    /** A receive region that another step touches meanwhile cannot be posted for the whole run. */
    @Test
    @Timeout(30)
    void prePostedRefusesASharedScratch() {
        var e = assertThrows(OffloadCompiler.Refused.class, () -> OffloadCompiler.bucket(
                r -> Schedules.recursiveDoublingAllreduce(r, 4, 16, 8, false, true), 0, OffloadAlu.Op.ADD,
                OffloadAlu.Type.INT64, true));
        assertTrue(e.getMessage().contains("cannot be posted for the whole run"), e.getMessage());
        // with the table 5 exchange the same schedule compiles: the RTR protects the scratch
        OffloadCompiler.bucket(r -> Schedules.recursiveDoublingAllreduce(r, 4, 16, 8, false, true), 0,
                OffloadAlu.Op.ADD, OffloadAlu.Type.INT64, false);
    }

    /** Table 2: a non-root rank of the binary tree (fan-out 2): sync, add the fan-out, two branch writes. */
    @Test
    @Timeout(30)
    void table2BinaryBranch() {
        OffloadProgram p = OffloadCompiler.singleSource(r -> Schedules.kary(r, 8, 64, 0, 2), 1);
        List<Row> rows = rows(p, PUT, ADD);
        assertEquals(List.of(new Row(0, "PUT", 1, 0), new Row(1, "CNTR_ADD", 2, -1), new Row(3, "PUT", 1, 3),
                new Row(3, "PUT", 1, 4)), rows.subList(0, 4));
        assertEquals(0, p.entry(0).length(), "the sync carries no data");
        // and the root waits for the n - 1 syncs (figure 4: threshold n - 1)
        OffloadProgram root = OffloadCompiler.singleSource(r -> Schedules.kary(r, 8, 64, 0, 2), 0);
        assertEquals(List.of(new Row(7, "PUT", 1, 1), new Row(7, "PUT", 1, 2)), rows(root, PUT));
    }

    /** Figure 5: an intermediate rank of a pipeline forwards segment i at threshold i + 1. */
    @Test
    @Timeout(30)
    void figure5Pipeline() {
        OffloadProgram p = OffloadCompiler.singleSource(r -> Schedules.chain(r, 4, 100, 0, 20), 1);
        List<Row> puts = rows(p, PUT);
        assertEquals(new Row(0, "PUT", 1, 0), puts.get(0), "sync");
        for (int i = 0; i < 5; i++) {
            assertEquals(new Row(i + 1, "PUT", 1, 2), puts.get(i + 1));
        }
    }

    /**
     * Section 5.1.1: a 2049-segment pipeline (the K computer's 128 MB split) takes one counter on an
     * inner rank; the pre-matched offload one counter per send and two per receive.
     */
    @Test
    @Timeout(60)
    void longPipelineNeedsOneCounter() {
        int segments = 2049;
        OffloadProgram p = OffloadCompiler.singleSource(x -> Schedules.chain(x, 4, segments * 64L, 0, 64), 1);
        OffloadCompiler.Resources res = OffloadCompiler.resources(p, Schedules.chain(1, 4, segments * 64L, 0, 64));
        assertEquals(1, res.counters());
        assertEquals(3 * segments, res.preMatchedCounters());
        assertEquals(segments, p.entry(p.entries() - 1).value() * -1, "the wrap subtracts one per segment");
    }

    /**
     * Section 5.1.1: Trinaryx3's three pipelines need one counter each (plus, in Tutti, one that
     * gathers their completions), where the pre-matched offload needs a counter per send and two
     * per receive.
     */
    @Test
    @Timeout(30)
    void trinaryx3CountersPerPipeline() {
        int n = 13;
        int most = 0;
        for (int r = 0; r < n; r++) {
            OffloadProgram p = OffloadCompiler.singleSource(x -> Schedules.trinaryx3(x, n, 600, 0, 100), r);
            most = Math.max(most, p.counters());
            OffloadCompiler.Resources res = OffloadCompiler.resources(p, Schedules.trinaryx3(r, n, 600, 0, 100));
            assertTrue(res.counters() < res.preMatchedCounters() || r == 0, "rank " + r + ": " + res);
        }
        assertEquals(4, most, "3 pipelines + completion");
    }

    /**
     * Table 6: 82,944 ranks need 1 counter against 54 = 18 x 3, a million ranks 1 against 63 = 21 x 3,
     * where 18 and 21 = floor(log2 N) + 2 are the rounds of a rank that folds (rank 1).
     */
    @Test
    @Timeout(60)
    void table6Counters() {
        for (int[] row : new int[][] {{82_944, 18, 54}, {1_000_000, 21, 63}}) {
            int n = row[0];
            OffloadCompiler.Resources res = OffloadPlans.resources(OffloadPlans.Coll.ALLGATHER, n, 1, 8, 0);
            assertEquals(1, res.counters());
            assertEquals(row[1], res.rounds());
            assertEquals(row[1], 31 - Integer.numberOfLeadingZeros(n) + 2);
            assertEquals(row[2], 3 * res.preMatchedRounds());
            assertTrue(res.arrivals() <= OffloadCompiler.MAX_BUCKETS, "fits one 64-bit counter");
            for (int r : new int[] {0, 2, 3, n / 2, n - 1}) {
                assertEquals(1, OffloadPlans.resources(OffloadPlans.Coll.ALLGATHER, n, r, 8, 0).counters());
                assertEquals(1, OffloadPlans.resources(OffloadPlans.Coll.BARRIER, n, r, 0, 0).counters());
            }
        }
    }

    /** The pattern schedule used above 1,024 ranks compiles to the full schedule's program, COPYs aside. */
    @Test
    @Timeout(60)
    void allgatherPatternMatchesTheSchedule() {
        for (int n = 1; n <= 40; n++) {
            for (int r = 0; r < n; r++) {
                final int size = n;
                long[] b = new long[n];
                long[] d = new long[n];
                for (int i = 0; i < n; i++) {
                    b[i] = 3;
                    d[i] = 3L * i;
                }
                OffloadProgram full = OffloadCompiler.bucket(
                        x -> Schedules.recursiveDoublingAllgather(x, size, b, d, false), r, null, null);
                OffloadProgram pattern = OffloadCompiler.bucket(x -> OffloadPlans.allgatherPattern(x, size, 3), r, null,
                        null);
                assertEquals(rows(full, PUT, RCA, ADD), rows(pattern, PUT, RCA, ADD), "N " + n + " rank " + r);
            }
        }
    }

    @Test
    @Timeout(30)
    void refusesWhatOneCounterCannotExpress() {
        // a tree bcast has two children's RTRs that may come in either order: not a prefix
        var e = assertThrows(OffloadCompiler.Refused.class,
                () -> OffloadCompiler.bucket(r -> Schedules.kary(r, 8, 64, 0, 2), 1, null, null));
        assertTrue(e.getMessage().contains("neither includes the other"), e.getMessage());
        // the allgather receives from several peers
        e = assertThrows(OffloadCompiler.Refused.class, () -> OffloadCompiler.singleSource(
                r -> OffloadPlans.allgatherPattern(r, 8, 8), 0));
        assertTrue(e.getMessage().contains("no single source"), e.getMessage());
        // a rank that forwards what it got from two sources in one send
        e = assertThrows(OffloadCompiler.Refused.class, () -> OffloadCompiler.singleSource(OffloadGoldenTest::merge, 2));
        assertTrue(e.getMessage().contains("several sources"), e.getMessage());
        // two sends, each waiting for a different one of two receives: no order serves both
        e = assertThrows(OffloadCompiler.Refused.class, () -> OffloadCompiler.bucket(OffloadGoldenTest::crossed, 0,
                null, null));
        assertTrue(e.getMessage().contains("neither includes the other"), e.getMessage());
        // but a send that waits for the second receive only is fine: that receive gets the larger bucket
        OffloadProgram skip = OffloadCompiler.bucket(OffloadGoldenTest::skipOne, 0, null, null);
        assertEquals(List.of(new Row(2, "REMOTE_CNTR_ADD", 1, 3)), rows(skip, RCA));
        OffloadProgram[] all = new OffloadProgram[4];
        for (int r = 0; r < 4; r++) {
            all[r] = OffloadCompiler.bucket(OffloadGoldenTest::skipOne, r, null, null);
        }
        for (long seed = 0; seed < 50; seed++) {
            new OffloadHarness(all, seed).run(); // once: its senders hear nothing back, so they could run ahead
        }
        // 64 arrivals on one counter
        e = assertThrows(OffloadCompiler.Refused.class, () -> OffloadCompiler.bucket(OffloadGoldenTest::fanIn65, 0,
                null, null));
        assertTrue(e.getMessage().contains("at most 63"), e.getMessage());
        // the ALU has no multiply, and no logic on floats
        assertThrows(TuttiException.InvalidArgument.class, () -> OffloadAlu.of(io.tutti.ReduceOp.PROD));
        assertThrows(TuttiException.InvalidArgument.class, () -> OffloadCompiler.nicTree(true, 4, 0, 0, 8,
                OffloadAlu.Op.BXOR, OffloadAlu.Type.FLOAT64));
    }

    static Schedule skipOne(int rank) {
        ScheduleBuilder b = new ScheduleBuilder("skip-one", rank, 4);
        if (rank == 0) {
            b.recv(1, 0, Schedule.RECV_BUFFER, 0, 0);
            int second = b.recv(2, 0, Schedule.RECV_BUFFER, 0, 0);
            b.send(3, 0, Schedule.RECV_BUFFER, 0, 0, second);
        } else if (rank == 3) {
            b.recv(0, 0, Schedule.RECV_BUFFER, 0, 0);
        } else {
            b.send(0, 0, Schedule.RECV_BUFFER, 0, 0);
        }
        return b.build();
    }

    static Schedule crossed(int rank) {
        ScheduleBuilder b = new ScheduleBuilder("crossed", rank, 5);
        switch (rank) {
            case 0 -> {
                int one = b.recv(1, 0, Schedule.RECV_BUFFER, 0, 0);
                int two = b.recv(2, 0, Schedule.RECV_BUFFER, 0, 0);
                b.send(3, 0, Schedule.RECV_BUFFER, 0, 0, one);
                b.send(4, 0, Schedule.RECV_BUFFER, 0, 0, two);
            }
            case 1, 2 -> b.send(0, 0, Schedule.RECV_BUFFER, 0, 0);
            default -> b.recv(0, 0, Schedule.RECV_BUFFER, 0, 0);
        }
        return b.build();
    }

    static Schedule merge(int rank) {
        ScheduleBuilder b = new ScheduleBuilder("merge", rank, 4);
        switch (rank) {
            case 0 -> {
                b.send(1, 0, Schedule.RECV_BUFFER, 0, 8);
                b.send(2, 0, Schedule.RECV_BUFFER, 0, 8);
            }
            case 1 -> {
                int got = b.recv(0, 0, Schedule.RECV_BUFFER, 0, 8);
                b.send(2, 1, Schedule.RECV_BUFFER, 0, 8, got);
            }
            case 2 -> {
                int a = b.recv(0, 0, Schedule.RECV_BUFFER, 0, 8);
                int c = b.recv(1, 1, Schedule.RECV_BUFFER, 8, 8);
                b.send(3, 0, Schedule.RECV_BUFFER, 0, 16, a, c);
            }
            default -> b.recv(2, 0, Schedule.RECV_BUFFER, 0, 16);
        }
        return b.build();
    }

    static Schedule fanIn65(int rank) {
        ScheduleBuilder b = new ScheduleBuilder("fan-in", rank, 65);
        if (rank == 0) {
            for (int r = 1; r < 65; r++) {
                b.recv(r, 0, Schedule.RECV_BUFFER, 0, 0);
            }
        } else {
            b.send(0, 0, Schedule.RECV_BUFFER, 0, 0);
        }
        return b.build();
    }
}
