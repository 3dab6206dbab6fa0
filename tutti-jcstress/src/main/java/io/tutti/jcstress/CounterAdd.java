package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.offload.Counter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link Counter#add(long)} from two writers at once: a volatile read-modify-write, so adds commute
 * and none is lost, and each returns the level it made in some order of the two. One adds 1, the
 * other -3 (the wrap of a run adds a negative amount), to a private counter at level 2.
 * Result: what each add returned, then the level afterwards ({@link Counter#level()}).
 */
@JCStressTest
@Outcome(id = "3, 0, 0", expect = ACCEPTABLE, desc = "+1 first, then -3: both counted")
@Outcome(id = "0, -1, 0", expect = ACCEPTABLE, desc = "-3 first, then +1: both counted")
@Outcome(expect = FORBIDDEN, desc = "an add was lost, or returned a level no order of the two adds makes")
@State
public class CounterAdd {
    private final Counter counter = new Counter();

    public CounterAdd() {
        counter.add(2);
    }

    @Actor
    public void up(JJJ_Result r) {
        r.r1 = counter.add(1);
    }

    @Actor
    public void down(JJJ_Result r) {
        r.r2 = counter.add(-3);
    }

    @Arbiter
    public void arbiter(JJJ_Result r) {
        r.r3 = counter.level();
    }
}
