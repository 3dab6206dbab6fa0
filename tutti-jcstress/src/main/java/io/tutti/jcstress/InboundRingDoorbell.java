package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.transport.shm.InboundRing;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link InboundRing#sleep(long, java.util.function.BooleanSupplier)} against
 * {@link InboundRing#commit(long)}: the consumer arms its doorbell, fences, then looks for a record;
 * the producer stores the stamp, fences ({@link InboundRing#wakeConsumer()}), then looks at the
 * doorbell. Of the two looks at least one sees the other's store, so a consumer that finds no record
 * is woken: it never sleeps with a record present and nobody to wake it. The consumer's condition
 * throws where it would go to sleep, leaving {@code sleep} before the futex wait and before it
 * disarms the doorbell: the arbiter then sees whether a commit cleared (woke) it.
 * Result: whether the consumer saw the record (1) or would sleep (0), then the doorbell afterwards
 * (1: still armed, nobody woke the sleeper).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the consumer saw the record and did not sleep")
@Outcome(id = "0, 0", expect = ACCEPTABLE,
        desc = "the consumer found no record and would sleep; the commit saw the doorbell and woke it")
@Outcome(id = "0, 1", expect = FORBIDDEN,
        desc = "lost wake-up: the consumer sleeps with a record present and nobody wakes it")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class InboundRingDoorbell {
    private final MemorySegment ring = Rings.newRing(true);
    private final InboundRing consumer = new InboundRing(ring);
    private final InboundRing producer = new InboundRing(ring);
    private int sawRecord;

    @Actor
    public void consumer() {
        try {
            consumer.sleep(1_000_000L, Sleeps.NEVER_AWAKE);
            sawRecord = 1;
        } catch (Sleeps.WouldSleep e) {
            sawRecord = 0;
        }
    }

    @Actor
    public void producer() {
        Rings.put(producer, 7);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = sawRecord;
        r.r2 = Sleeps.doorbell(ring);
    }
}
