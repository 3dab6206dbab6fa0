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
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * {@link Counters#sent}: the bytes are stored before the count, both with release; the reader loads
 * the count first (acquire), then the bytes, so it never sees a message counted whose bytes are
 * not. The owner counts two sends of 100 bytes to peer 1; the reader reads peer 1's sent messages
 * and bytes. Result: messages, bytes.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "nothing counted yet")
@Outcome(id = "0, 100", expect = ACCEPTABLE, desc = "the first send's bytes, its count not yet")
@Outcome(id = "0, 200", expect = ACCEPTABLE, desc = "both sends' bytes, their counts not yet")
@Outcome(id = "1, 100", expect = ACCEPTABLE, desc = "the first send")
@Outcome(id = "1, 200", expect = ACCEPTABLE, desc = "the first send, and the second's bytes")
@Outcome(id = "2, 200", expect = ACCEPTABLE, desc = "both sends")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a send counted whose bytes are not: out of order")
@Outcome(id = "2, [01]00", expect = FORBIDDEN, desc = "two sends counted, their bytes not all: out of order")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class CountersTraffic {
    private static final List<Counters.Operation> OPS = List.of(new Counters.Operation("barrier", List.of("linear")));
    private final MemorySegment file = MemorySegment.ofArray(new long[(int) (Counters.fileLength(2, OPS) / 8)]);
    private final Counters owner = Counters.format(file, true, "j", 0, 2, 1, OPS);
    private final CountersReader reader = CountersReader.of(file, null);

    @Actor
    public void owner() {
        owner.sent(1, 100);
        owner.sent(1, 100);
    }

    @Actor
    public void reader(JJ_Result r) {
        Metrics.Traffic t = reader.read().peers().get(1).traffic();
        r.r1 = t.messagesSent();
        r.r2 = t.bytesSent();
    }
}
