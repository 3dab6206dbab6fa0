package io.tutti.coll.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The builder's forms with one or two dependencies and its join of a run of steps record what the
 * varargs forms record, and a builder read in place shows only its current schedule's steps.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ScheduleBuilderTest {
    private static final byte R = Schedule.RECV_BUFFER;
    private static final byte T = Schedule.TEMP_BUFFER;

    /** The same steps through the fixed forms ({@code arrays} false) or explicit arrays (true). */
    private static Schedule steps(boolean arrays) {
        ScheduleBuilder b = new ScheduleBuilder("forms", 1, 4);
        int r = arrays ? b.recv(0, 3, R, 0, 8, new int[] {ScheduleBuilder.NONE}) : b.recv(0, 3, R, 0, 8, ScheduleBuilder.NONE);
        int s1 = arrays ? b.send(2, 4, R, 0, 8, new int[] {r}) : b.send(2, 4, R, 0, 8, r);
        int s2 = arrays ? b.send(3, 4, R, 0, 8, new int[] {r}) : b.send(3, 4, R, 0, 8, r);
        int c = arrays ? b.copy(T, 16, R, 0, 8, new int[] {r}) : b.copy(T, 16, R, 0, 8, r);
        int d1 = arrays ? b.reduce(R, 0, T, 16, 8, true, new int[] {c}) : b.reduce(R, 0, T, 16, 8, true, c);
        int d2 = arrays ? b.reduce(R, 0, T, 16, 8, false, new int[] {s2, d1}) : b.reduce(R, 0, T, 16, 8, false, s2, d1);
        int j = arrays ? b.join(new int[] {s1, d2}) : b.join(s1, d2);
        if (arrays) {
            b.join(new int[] {s1, s2, c, d1});
        } else {
            b.joinRun(s1, 4);
        }
        b.join(j);
        return b.build();
    }

    private static String described(Schedule s) {
        StringBuilder sb = new StringBuilder(s.toString());
        for (int i = 0; i <= s.steps(); i++) {
            sb.append(s.successorsFrom(i)).append(' ');
        }
        for (int k = 0; k < s.successorsFrom(s.steps()); k++) {
            sb.append(s.successor(k)).append(',');
        }
        for (int i = 0; i < s.steps(); i++) {
            sb.append(s.srcIsLeft(i)).append(' ');
        }
        return sb.toString();
    }

    @Test
    void theFixedFormsRecordWhatTheVarargsFormsRecord() {
        Schedule fixed = steps(false);
        assertEquals(described(steps(true)), described(fixed));
        assertEquals("[1, 2, 3, 4]", java.util.Arrays.toString(fixed.dependencies(7)), "the run, in order");
    }

    @Test
    void theFixedFormsRefuseAnUnknownStep() {
        ScheduleBuilder b = new ScheduleBuilder("forms", 0, 2);
        int first = b.join();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.send(1, 0, R, 0, 8, first + 1));
        assertTrue(e.getMessage().contains("unknown step"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.reduce(R, 0, T, 0, 8, true, first, 5));
        assertThrows(IllegalArgumentException.class, () -> b.joinRun(first, 2));
        assertThrows(IllegalArgumentException.class, () -> b.joinRun(first, -1));
    }

    @Test
    void aResetBuilderShowsOnlyItsCurrentSteps() {
        ScheduleBuilder b = new ScheduleBuilder("long", 0, 8);
        int last = ScheduleBuilder.NONE;
        for (int k = 1; k < 8; k++) {
            last = b.send(k, k, R, 0, 8, last);
        }
        b.reset("short", 3, 8);
        int r = b.recv(2, 1, R, 0, 8, ScheduleBuilder.NONE);
        b.send(4, 1, R, 0, 8, r);
        assertEquals("short 3/8 2", b.name() + " " + b.rank() + "/" + b.size() + " " + b.steps());
        assertEquals(Schedule.RECV, b.kind(0));
        assertEquals(4, b.peer(1));
        assertEquals(1, b.dependenciesFrom(2));
        assertEquals(0, b.dependency(0));
        assertThrows(IndexOutOfBoundsException.class, () -> b.kind(2), "the long schedule's third step is gone");
        assertThrows(IndexOutOfBoundsException.class, () -> b.dependency(1));
        assertThrows(IndexOutOfBoundsException.class, () -> b.dependenciesFrom(3));
    }
}
