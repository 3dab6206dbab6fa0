package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.Metrics;
import io.tutti.metrics.Counters;
import io.tutti.metrics.CountersReader;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * The blocked call's seqlock ({@link Counters#block} and {@link Counters#unblock} against
 * {@link CountersReader#blocked()}): a reader sees no call, or all fields of one write, never the
 * fields of two writes mixed. The owner records a receive (peer 1, tag 1, context 1), ends it and
 * records another (peer 2, tag 2, context 2); the reader reports the value the three fields agree
 * on, 0 for no call, -1 for fields that disagree. (A reader that finds the sequence moving on
 * every try reports no call, which is allowed: it is bounded so that a busy rank never stalls it.)
 */
@JCStressTest
@Outcome(id = "0", expect = ACCEPTABLE, desc = "no call: before the first, between the two, or a busy sequence")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "the first call, whole")
@Outcome(id = "2", expect = ACCEPTABLE, desc = "the second call, whole")
@Outcome(id = "-1", expect = FORBIDDEN, desc = "fields of two writes mixed: a torn read")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class CountersBlockedCall {
    private static final List<Counters.Operation> OPS = List.of(new Counters.Operation("barrier", List.of("linear")));
    private final MemorySegment file = MemorySegment.ofArray(new long[(int) (Counters.fileLength(4, OPS) / 8)]);
    private final Counters owner = Counters.format(file, true, "j", 0, 4, 1, OPS);
    private final CountersReader reader = CountersReader.of(file, null);

    @Actor
    public void owner() {
        owner.block(Counters.RECV, 1, 1, 1, System.nanoTime());
        owner.unblock();
        owner.block(Counters.RECV, 2, 2, 2, System.nanoTime());
    }

    @Actor
    public void reader(I_Result r) {
        Metrics.Blocked b = reader.blocked();
        r.r1 = b == null ? 0 : b.peer() == b.tag() && b.tag() == b.context() ? b.peer() : -1;
    }
}
