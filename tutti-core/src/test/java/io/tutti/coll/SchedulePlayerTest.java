package io.tutti.coll;

import io.tutti.ReduceOp;
import io.tutti.coll.algo.RecursiveDoublingAllreduce;
import io.tutti.coll.schedule.CollectiveCall;
import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import io.tutti.reduce.Reduction;
import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Datatype;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The player itself: it runs correct schedules and catches the faults it promises to catch. */
class SchedulePlayerTest {
    static final SchedulePlayer.Combiner LONG_SUM = new SchedulePlayer.Combiner() {
        @Override
        public void apply(MemorySegment inout, long io, MemorySegment in, long i, long bytes) {
            Reduction.apply(ReduceOp.SUM, Datatype.LONG, inout, io, in, i, bytes / 8);
        }

        @Override
        public boolean commutative() {
            return true;
        }
    };

    @Test
    void runsRecursiveDoublingForEverySize() {
        for (int n = 1; n <= 13; n++) {
            for (long seed = 0; seed < 20; seed++) {
                Schedule[] s = new Schedule[n];
                MemorySegment[] snd = new MemorySegment[n];
                MemorySegment[] rcv = new MemorySegment[n];
                for (int r = 0; r < n; r++) {
                    s[r] = new RecursiveDoublingAllreduce().build(CollectiveCall.allreduce(24, 8, false, true), r, n);
                    snd[r] = MemorySegment.ofArray(new long[] {r, 1, r * r});
                    rcv[r] = MemorySegment.ofArray(new long[3]);
                }
                SchedulePlayer.play(s, snd, rcv, LONG_SUM, seed);
                for (int r = 0; r < n; r++) {
                    assertEquals((long) n * (n - 1) / 2, rcv[r].getAtIndex(ValueLayout.JAVA_LONG, 0));
                    assertEquals(n, rcv[r].getAtIndex(ValueLayout.JAVA_LONG, 1));
                }
            }
        }
    }

    @Test
    void catchesLengthMismatchDeadlockAndRace() {
        MemorySegment[] bufs = {MemorySegment.ofArray(new byte[16]), MemorySegment.ofArray(new byte[16])};
        ScheduleBuilder a = new ScheduleBuilder("t", 0, 2);
        a.send(1, 0, Schedule.RECV_BUFFER, 0, 8);
        ScheduleBuilder b = new ScheduleBuilder("t", 1, 2);
        b.recv(0, 0, Schedule.RECV_BUFFER, 0, 4);
        AssertionError e = assertThrows(AssertionError.class,
                () -> SchedulePlayer.play(new Schedule[] {a.build(), b.build()}, bufs, bufs, LONG_SUM, 1));
        assertTrue(e.getMessage().contains("receives 4 B"), e.getMessage());

        ScheduleBuilder c = new ScheduleBuilder("t", 0, 2);
        c.recv(1, 0, Schedule.RECV_BUFFER, 0, 8);
        ScheduleBuilder d = new ScheduleBuilder("t", 1, 2);
        int got = d.recv(0, 0, Schedule.RECV_BUFFER, 0, 8);
        d.send(0, 0, Schedule.RECV_BUFFER, 0, 8, got);
        e = assertThrows(AssertionError.class,
                () -> SchedulePlayer.play(new Schedule[] {c.build(), d.build()}, bufs, bufs, LONG_SUM, 1));
        assertTrue(e.getMessage().contains("deadlock"), e.getMessage());

        // a copy into a buffer that a send may still be reading, with no dependency between them
        boolean caught = false;
        for (long seed = 0; seed < 50 && !caught; seed++) {
            ScheduleBuilder f = new ScheduleBuilder("t", 0, 2);
            f.send(1, 0, Schedule.RECV_BUFFER, 0, 8);
            f.copy(Schedule.RECV_BUFFER, 0, Schedule.SEND_BUFFER, 0, 8);
            ScheduleBuilder g = new ScheduleBuilder("t", 1, 2);
            g.recv(0, 0, Schedule.RECV_BUFFER, 0, 8);
            try {
                SchedulePlayer.play(new Schedule[] {f.build(), g.build()}, bufs, bufs, LONG_SUM, seed);
            } catch (AssertionError x) {
                caught = x.getMessage().contains("race");
            }
        }
        assertTrue(caught, "the unordered copy is reported as a race for some order");
    }
}
