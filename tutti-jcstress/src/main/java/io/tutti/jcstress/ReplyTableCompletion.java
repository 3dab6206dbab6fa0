package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.rma.ReplyTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * A window's table of the replies its gets wait for ({@link ReplyTable}): the thread that receives
 * a reply copies its data into the get's destination and completes the request, while the owner
 * asks whether it is complete and then reads the destination. The owner must never see a request
 * complete and its data not there, whether it asks for one request ({@link ReplyTable#done}) or
 * for all of them ({@link ReplyTable#allDone}, as a flush does).
 */
public final class ReplyTableCompletion {
    private static final long DATA = 0x2A2A2A2A2A2A2A2AL;

    private ReplyTableCompletion() {
    }

    private static MemorySegment reply() {
        MemorySegment s = Arena.ofAuto().allocate(8, 8);
        s.set(ValueLayout.JAVA_LONG, 0, DATA);
        return s;
    }

    /** One request answered while the owner asks for it. Result: the destination's value, -1 if not complete. */
    @JCStressTest
    @Outcome(id = "-1", expect = ACCEPTABLE, desc = "not complete yet")
    @Outcome(id = "3038287259199220266", expect = ACCEPTABLE, desc = "complete, with its data")
    @Outcome(id = "0", expect = FORBIDDEN, desc = "complete, but its data not seen")
    @Outcome(expect = FORBIDDEN, desc = "no such outcome")
    @State
    public static class OneRequest {
        private final ReplyTable table = new ReplyTable(4);
        private final MemorySegment into = Arena.ofAuto().allocate(8, 8);
        private final MemorySegment data = reply();
        private final long id = table.open(into, 0, 8);

        @Actor
        public void answer() {
            table.reply(id, 0, data, 0, 8);
        }

        @Actor
        public void owner(J_Result r) {
            r.r1 = table.done(id) ? into.get(ValueLayout.JAVA_LONG, 0) : -1;
        }
    }

    /** Two requests answered while the owner asks for all of them. Result: both values' sum, -1 if not all complete. */
    @JCStressTest
    @Outcome(id = "-1", expect = ACCEPTABLE, desc = "not all complete yet")
    @Outcome(id = "6076574518398440532", expect = ACCEPTABLE, desc = "all complete, with their data")
    @Outcome(expect = FORBIDDEN, desc = "complete, but some data not seen")
    @State
    public static class AllRequests {
        private final ReplyTable table = new ReplyTable(4);
        private final MemorySegment into = Arena.ofAuto().allocate(16, 8);
        private final MemorySegment data = reply();
        private final long first = table.open(into, 0, 8);
        private final long second = table.open(into, 8, 8);

        @Actor
        public void answer() {
            table.reply(second, 0, data, 0, 8);
            table.reply(first, 0, data, 0, 8);
        }

        @Actor
        public void owner(J_Result r) {
            r.r1 = table.allDone() ? into.get(ValueLayout.JAVA_LONG, 0) + into.get(ValueLayout.JAVA_LONG, 8) : -1;
        }
    }
}
