package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.transport.shm.InboundRing;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link InboundRing#tryClaim(int)} and {@link InboundRing#commit(long)} of two producers at once
 * (separate instances over one ring, as in two processes), while the consumer reads: the CAS on the
 * tail hands out disjoint space, each commit's release store of the stamp publishes the body written
 * before it, and {@link InboundRing#read} (acquire loads of the stamps) hands every record out once,
 * whole, in claim order, stopping at a claimed but uncommitted one. The second producer reads right
 * after its commit, racing the first producer; the arbiter reads the rest. Rings start anywhere in
 * a lap, at the wrap (a claim then commits a padding record first) or on the second lap.
 * Result: records the racing read got, then the verdict on everything got ({@link Rings.Seen#check}).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE,
        desc = "the read came while the first claim was uncommitted; all arrived whole, in claim order")
@Outcome(id = "1, 0", expect = ACCEPTABLE,
        desc = "the read got the first claim's record only; all arrived whole, in claim order")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "the read got both records; all arrived whole, in claim order")
@Outcome(id = "[0-9], 1", expect = FORBIDDEN,
        desc = "a torn or stale record: its body is not what was written before its commit")
@Outcome(id = "[0-9], 2", expect = FORBIDDEN, desc = "a committed record was lost")
@Outcome(id = "[0-9], 3", expect = FORBIDDEN, desc = "a record was handed out twice, or one nobody wrote")
@Outcome(id = "[0-9], 4", expect = FORBIDDEN, desc = "records were handed out in another order than claimed")
@Outcome(id = "[0-9], 5", expect = FORBIDDEN, desc = "the consumer met a record header with an impossible length")
@Outcome(id = "[0-9], 6", expect = FORBIDDEN, desc = "a claim was refused though the ring had room")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class InboundRingProducers {
    /** Where the ring starts: fresh; mid-lap; 128, 64 bytes before the wrap; on the second lap. */
    private static final long[] START = {0, 1024, Rings.CAPACITY - 128, Rings.CAPACITY - 64, Rings.CAPACITY + 2048};

    private final InboundRing consumer;
    private final InboundRing producerA;
    private final InboundRing producerB;
    private final Rings.Seen seen = new Rings.Seen();
    private long positionA;
    private long positionB;
    private int racing;

    public InboundRingProducers() {
        MemorySegment ring = Rings.newRing(false);
        consumer = new InboundRing(ring);
        producerA = new InboundRing(ring);
        producerB = new InboundRing(ring);
        Rings.advance(producerA, consumer, START[ThreadLocalRandom.current().nextInt(START.length)]);
    }

    @Actor
    public void producer() {
        positionA = Rings.put(producerA, 0);
    }

    @Actor
    public void producerThenConsumer() {
        positionB = Rings.put(producerB, 1);
        racing = seen.readFrom(consumer, 8);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        seen.readFrom(consumer, 8);
        r.r1 = racing;
        if (positionA < 0 || positionB < 0) {
            r.r2 = Rings.REFUSED;
        } else {
            r.r2 = positionA < positionB ? seen.check(0, 1) : seen.check(1, 0);
        }
    }
}
