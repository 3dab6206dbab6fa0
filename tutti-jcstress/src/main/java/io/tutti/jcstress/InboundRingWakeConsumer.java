package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.transport.shm.InboundRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link InboundRing#wakeConsumer()} against {@link InboundRing#sleep(long, java.util.function.BooleanSupplier)}
 * for a condition other than a record (a slot stamp, an offload counter): the writer's release store
 * of the condition, then wakeConsumer's fence and look at the doorbell; the consumer arms the
 * doorbell, fences, then evaluates the condition. A consumer that finds the condition false is
 * woken: it never sleeps once the condition holds with nobody to wake it. The condition throws where
 * the consumer would sleep (see {@link Sleeps}), so the arbiter reads the doorbell it left armed.
 * Result: whether the consumer saw the condition (1) or would sleep (0), then the doorbell afterwards
 * (1: still armed, nobody woke the sleeper).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the consumer saw the condition and did not sleep")
@Outcome(id = "0, 0", expect = ACCEPTABLE,
        desc = "the consumer saw no condition and would sleep; wakeConsumer saw the doorbell and woke it")
@Outcome(id = "0, 1", expect = FORBIDDEN,
        desc = "lost wake-up: the consumer sleeps though the condition holds and nobody wakes it")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class InboundRingWakeConsumer {
    private static final VarHandle STAMP = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment ring = Rings.newRing(true);
    private final InboundRing consumer = new InboundRing(ring);
    private final InboundRing writer = new InboundRing(ring);
    /** The condition's word, in other shared memory (as a slot's stamp is). */
    private final MemorySegment stamp = Arena.ofAuto().allocate(64, 64);
    private final BooleanSupplier stamped = () -> {
        if ((long) STAMP.getAcquire(stamp, 0L) != 0) {
            return true;
        }
        throw Sleeps.WOULD_SLEEP;
    };
    private int sawCondition;

    @Actor
    public void consumer() {
        try {
            consumer.sleep(1_000_000L, stamped);
            sawCondition = 1;
        } catch (Sleeps.WouldSleep e) {
            sawCondition = 0;
        }
    }

    @Actor
    public void writer() {
        STAMP.setRelease(stamp, 0L, 1L);
        writer.wakeConsumer();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = sawCondition;
        r.r2 = Sleeps.doorbell(ring);
    }
}
