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
 * {@link InboundRing#release()} against {@link InboundRing#tryClaim(int)} on a full ring: release
 * clears the space it hands back, then publishes the new head with a release store, and a claim
 * reads the head (volatile) before it takes that space, so a record claimed there is never wiped by
 * the clearing, and the records not yet read are untouched. The ring holds five records, the first
 * one read (512 bytes, below the size at which {@link InboundRing#read} releases at once); the
 * producer claims 256 or exactly 512 bytes while the consumer releases.
 * Result: whether the claim got room (1) or found the ring full (0), then the verdict on all that
 * the consumer reads afterwards ({@link Rings.Seen#check}).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE,
        desc = "the claim came before the release and found the ring full; nothing was lost")
@Outcome(id = "1, 0", expect = ACCEPTABLE,
        desc = "the claim took the released space; its record and the unread ones arrived whole")
@Outcome(id = "[01], 1", expect = FORBIDDEN,
        desc = "a torn record: the clearing of released space overwrote what the claim wrote")
@Outcome(id = "[01], 2", expect = FORBIDDEN, desc = "a committed record was lost: the clearing wiped its stamp")
@Outcome(id = "[01], [34]", expect = FORBIDDEN,
        desc = "a record was handed out twice, out of order, or one nobody wrote")
@Outcome(id = "[01], 5", expect = FORBIDDEN,
        desc = "the consumer met a header with an impossible length: the clearing hit it")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class InboundRingRelease {
    private final InboundRing consumer;
    private final InboundRing producer;
    private final Rings.Seen seen = new Rings.Seen();
    /** The record claimed: 256 bytes (id 2) or exactly the 512 released (id 6). */
    private final int claimed = ThreadLocalRandom.current().nextBoolean() ? 2 : 6;
    private long position;

    public InboundRingRelease() {
        MemorySegment ring = Rings.newRing(false);
        consumer = new InboundRing(ring);
        producer = new InboundRing(ring);
        // 512 + 3 x 1024 + 512: full
        int[] fill = {4, 5, 5, 5, 4};
        for (int id : fill) {
            if (Rings.put(producer, id) < 0) {
                throw new IllegalStateException("filling the ring: record " + id + " refused");
            }
        }
        if (consumer.read((segment, at, length) -> { }, 1) != 1 || producer.tryClaim(0) >= 0) {
            throw new IllegalStateException("the ring is not full with its first record read but held");
        }
    }

    @Actor
    public void consumer() {
        consumer.release();
    }

    @Actor
    public void producer() {
        position = Rings.put(producer, claimed);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        seen.readFrom(consumer, 8);
        r.r1 = position >= 0 ? 1 : 0;
        r.r2 = position >= 0 ? seen.check(5, 5, 5, 4, claimed) : seen.check(5, 5, 5, 4);
    }
}
