package io.tutti.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.tutti.metrics.Counters;
import io.tutti.metrics.RailControl;
import io.tutti.transport.RailCounters;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link RailControl#tryPost}: two operators post a rail command at once into a file whose last
 * command is answered; exactly one wins (a compare-and-set on the command word), the other finds
 * an unanswered command and posts nothing; the transport, loading the word with acquire after
 * both (two actors: the machines that run these have two cores), reads the winner's whole. Result:
 * operator A posted, B posted, what the transport read (0 nothing, 1 A's word, 2 B's word, 3
 * anything else).
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "A won, and the transport reads A's command")
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "B won, and the transport reads B's command")
@Outcome(id = "1, 1, .", expect = FORBIDDEN, desc = "both posted over one answered command")
@Outcome(id = "0, 0, .", expect = FORBIDDEN, desc = "neither posted")
@Outcome(expect = FORBIDDEN, desc = "the loser's command, or a torn word")
@State
public class RailCommandPost {
    private static final List<Counters.Operation> OPS = List.of(new Counters.Operation("barrier", List.of("linear")));
    private final MemorySegment file = MemorySegment.ofArray(new long[(int) (Counters.fileLength(2, OPS) / 8)]);
    private final Counters transport = Counters.format(file, true, "j", 0, 2, 1, OPS);
    private final RailControl a = RailControl.of(file);
    private final RailControl b = RailControl.of(file);
    private final long aWord = RailCounters.command(1, RailCounters.RAIL_DOWN, 1);
    private final long bWord = RailCounters.command(1, RailCounters.RAIL_UP, 2);

    @Actor
    public void operatorA(III_Result r) {
        r.r1 = a.tryPost(RailCounters.RAIL_DOWN, 1) == aWord ? 1 : 0;
    }

    @Actor
    public void operatorB(III_Result r) {
        r.r2 = b.tryPost(RailCounters.RAIL_UP, 2) == bWord ? 1 : 0;
    }

    @Arbiter
    public void transport(III_Result r) {
        long w = transport.railCommand();
        r.r3 = w == 0 ? 0 : w == aWord ? 1 : w == bWord ? 2 : 3;
    }
}
