package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.offload.Counter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link Counter#add(long)} then {@link Counter#level()}: the add is a volatile read-modify-write
 * and the level an acquire load, so a reader that sees the level the add made also sees the plain
 * writes made before the add (the payload of a PUT landing, as {@code OffloadEngine.onPut} copies
 * it, then counts it). The arrival copies two words into a buffer and adds 1; the progress side
 * reads the level, then the words.
 * Result: the level seen, then how many of the two words were already there.
 */
@JCStressTest
@Outcome(id = "0, [012]", expect = ACCEPTABLE, desc = "the level was not reached yet: the data may or may not be there")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "the level was reached and the data counted is there")
@Outcome(id = "1, [01]", expect = FORBIDDEN, desc = "the level was reached but the data counted is not (all) there")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class CounterPublish {
    private static final long A = 0x1111_2222_3333_4444L;
    private static final long B = 0x5555_6666_7777_0001L;
    private static final MemorySegment PAYLOAD = payload();

    private final Counter counter = new Counter();
    private final MemorySegment buffer = MemorySegment.ofArray(new long[2]);

    private static MemorySegment payload() {
        MemorySegment s = Arena.global().allocate(16, 8);
        s.set(ValueLayout.JAVA_LONG, 0, A);
        s.set(ValueLayout.JAVA_LONG, 8, B);
        return s;
    }

    @Actor
    public void arrival() {
        MemorySegment.copy(PAYLOAD, 0, buffer, 0, 16);
        counter.add(1);
    }

    @Actor
    public void progress(II_Result r) {
        r.r1 = (int) counter.level();
        r.r2 = (buffer.get(ValueLayout.JAVA_LONG, 0) == A ? 1 : 0)
                + (buffer.get(ValueLayout.JAVA_LONG, 8) == B ? 1 : 0);
    }
}
