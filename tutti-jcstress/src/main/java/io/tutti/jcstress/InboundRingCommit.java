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
 * {@link InboundRing#commit(long)} against {@link InboundRing#read}: the commit's release store of
 * the stamp comes after the header ({@link InboundRing#tryClaim(int)}) and body writes, and the
 * read's acquire load of the stamp comes before it reads them, so a record the consumer sees is
 * the one written, never zeroes of the cleared space or a stale lap. One producer commits a record
 * of four cache lines and a short one while the consumer polls; some rings start where the first
 * record must be padded to the next lap (the padding record's stamp is a release store too).
 * Result: records the polling consumer got, then the verdict on everything got ({@link Rings.Seen#check}).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE,
        desc = "the consumer polled before the first commit; both arrived whole, in order")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the consumer got the first record; both arrived whole, in order")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "the consumer got both records; both arrived whole, in order")
@Outcome(id = "[0-9], 1", expect = FORBIDDEN,
        desc = "a torn or stale record: its body is not what was written before its commit")
@Outcome(id = "[0-9], 2", expect = FORBIDDEN, desc = "a committed record was lost")
@Outcome(id = "[0-9], 3", expect = FORBIDDEN, desc = "a record was handed out twice, or one nobody wrote")
@Outcome(id = "[0-9], 4", expect = FORBIDDEN, desc = "records were handed out in another order than committed")
@Outcome(id = "[0-9], 5", expect = FORBIDDEN, desc = "the consumer met a header not yet written: an impossible length")
@Outcome(id = "[0-9], 6", expect = FORBIDDEN, desc = "a claim was refused though the ring had room")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class InboundRingCommit {
    /** Where the ring starts: fresh; on the second lap; 192 bytes before the wrap (the 256-byte record is padded). */
    private static final long[] START = {0, Rings.CAPACITY + 512, Rings.CAPACITY - 192};

    private final InboundRing consumer;
    private final InboundRing producer;
    private final Rings.Seen seen = new Rings.Seen();
    private boolean refused;
    private int polled;

    public InboundRingCommit() {
        MemorySegment ring = Rings.newRing(false);
        consumer = new InboundRing(ring);
        producer = new InboundRing(ring);
        Rings.advance(producer, consumer, START[ThreadLocalRandom.current().nextInt(START.length)]);
    }

    @Actor
    public void producer() {
        refused = Rings.put(producer, 2) < 0 | Rings.put(producer, 3) < 0;
    }

    @Actor
    public void consumer() {
        for (int i = 0; i < 4 && polled < 2; i++) {
            polled += seen.readFrom(consumer, 8);
        }
    }

    @Arbiter
    public void arbiter(II_Result r) {
        seen.readFrom(consumer, 8);
        r.r1 = polled;
        r.r2 = refused ? Rings.REFUSED : seen.check(2, 3);
    }
}
