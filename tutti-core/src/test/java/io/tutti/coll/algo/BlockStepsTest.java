package io.tutti.coll.algo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tutti.coll.schedule.Schedule;
import io.tutti.coll.schedule.ScheduleBuilder;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Blocks.Steps} joins what was added, in order, whether the steps are a run or not. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BlockStepsTest {
    /** The dependencies of the join of {@code added} (NONE ignored), or "none"/the one step. */
    private static String joined(int... added) {
        ScheduleBuilder b = new ScheduleBuilder("steps", 0, 2);
        for (int i = 0; i < 8; i++) {
            b.join();
        }
        Blocks.Steps s = new Blocks.Steps();
        for (int step : added) {
            s.add(step);
        }
        int j = s.join(b, ScheduleBuilder.NONE);
        if (j < 8) {
            return j == ScheduleBuilder.NONE ? "none" : "step " + j;
        }
        Schedule built = b.build();
        return Arrays.toString(built.dependencies(j));
    }

    @Test
    void joinsWhatWasAddedInOrder() {
        assertEquals("none", joined());
        assertEquals("none", joined(ScheduleBuilder.NONE));
        assertEquals("step 3", joined(3));
        assertEquals("[2, 3, 4]", joined(2, ScheduleBuilder.NONE, 3, 4));
        assertEquals("[2, 3, 5]", joined(2, 3, 5), "a step after a gap ends the run");
        assertEquals("[4, 3]", joined(4, 3), "a step before the run ends it");
        assertEquals("[1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1]",
                joined(1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1), "the list grows past eight");
    }
}
