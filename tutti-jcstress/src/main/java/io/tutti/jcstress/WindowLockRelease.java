package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.rma.WindowArea;
import io.tutti.rma.WindowAreaDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A dead holder's lock released ({@link WindowArea#releaseDead}) while a live rank takes it: rank 2
 * holds the exclusive word and has died; a waiter releases it while rank 1 asks for the lock
 * ({@link WindowArea#tryLockExclusive}), each through its own view of the area. The release is a CAS
 * from the dead holder's value, asked only of dead holders, so it never clears the word rank 1 took,
 * however often the waiter releases.
 * Result: 1 if rank 1 got the word, then the holder after both (-1 free).
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "released, then taken by rank 1")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "rank 1 tried before the release; free now, it takes it next time")
@Outcome(id = "1, -1", expect = FORBIDDEN, desc = "the release cleared the word a live rank had taken")
@Outcome(id = "0, 2", expect = FORBIDDEN, desc = "the dead holder's word was not released")
@Outcome(expect = FORBIDDEN, desc = "no such outcome")
@State
public class WindowLockRelease {
    private static final int RANKS = 3;

    private final WindowArea waiter;
    private final WindowArea locker;

    public WindowLockRelease() {
        MemorySegment file = Arena.ofAuto().allocate(WindowAreaDescriptor.fileLength(RANKS, 0), 4096);
        waiter = new WindowArea(file);
        locker = new WindowArea(file);
        waiter.tryLockExclusive(2);
    }

    @Actor
    public void releaser() {
        // twice, as a waiter does once per liveness interval: the second finds rank 1's word or none
        waiter.releaseDead(RANKS, r -> r == 2);
        waiter.releaseDead(RANKS, r -> r == 2);
    }

    @Actor
    public void exclusiveLocker(II_Result r) {
        r.r1 = locker.tryLockExclusive(1) ? 1 : 0;
    }

    @Arbiter
    public void holder(II_Result r) {
        r.r2 = waiter.exclusiveHolder();
    }
}
