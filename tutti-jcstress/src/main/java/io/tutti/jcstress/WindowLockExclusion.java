package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.rma.WindowArea;
import io.tutti.rma.WindowAreaDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The passive-target lock of a window ({@link WindowArea}): rank 0 asks for a shared lock
 * ({@link WindowArea#raiseShared}, then {@link WindowArea#exclusiveHolder}), rank 1 for an exclusive
 * one ({@link WindowArea#tryLockExclusive}, then {@link WindowArea#sharedHolder}), at once, each
 * through its own view of the area as separate processes have. Both sides' store-then-load is
 * volatile, so they cannot both miss each other: never do both get the lock. Both may back off
 * (each saw the other), after which the exclusive locker waits for the flag to drop.
 * Result: 1 if the shared locker got the lock, then 1 if the exclusive one did.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the shared lock was taken first")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the exclusive lock was taken first")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "each saw the other; the exclusive locker waits for the flag")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both hold the lock: the shared locker missed the exclusive word"
        + " and the exclusive locker missed the shared flag")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class WindowLockExclusion {
    private static final int RANKS = 2;

    private final WindowArea shared;
    private final WindowArea exclusive;

    public WindowLockExclusion() {
        MemorySegment file = Arena.ofAuto().allocate(WindowAreaDescriptor.fileLength(RANKS, 0), 4096);
        shared = new WindowArea(file);
        exclusive = new WindowArea(file);
    }

    @Actor
    public void sharedLocker(II_Result r) {
        shared.raiseShared(0);
        r.r1 = shared.exclusiveHolder() < 0 ? 1 : 0;
    }

    @Actor
    public void exclusiveLocker(II_Result r) {
        r.r2 = exclusive.tryLockExclusive(1) && exclusive.sharedHolder(RANKS) < 0 ? 1 : 0;
    }
}
