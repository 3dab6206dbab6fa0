package io.tutti.jcstress;

import io.tutti.transport.shm.InboundRingDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.BooleanSupplier;

/**
 * The doorbell tests' way into {@code InboundRing.sleep}: a condition that throws where the consumer
 * would go to sleep, so that it never blocks in the futex and leaves its doorbell armed for the
 * arbiter to read.
 */
final class Sleeps {
    /** Thrown instead of sleeping; one instance, without a stack trace. */
    static final class WouldSleep extends RuntimeException {
        WouldSleep() {
            super("would sleep", null, false, false);
        }
    }

    static final WouldSleep WOULD_SLEEP = new WouldSleep();

    /** A condition that is never true: the consumer would sleep unless a record is there. */
    static final BooleanSupplier NEVER_AWAKE = () -> {
        throw WOULD_SLEEP;
    };

    private Sleeps() {
    }

    /** The ring's doorbell word: 1 while the consumer is (or would be) asleep and no producer has woken it. */
    static int doorbell(MemorySegment ring) {
        return ring.get(ValueLayout.JAVA_INT, ring.byteSize() - InboundRingDescriptor.TRAILER_LENGTH
                + InboundRingDescriptor.DOORBELL_OFFSET);
    }
}
