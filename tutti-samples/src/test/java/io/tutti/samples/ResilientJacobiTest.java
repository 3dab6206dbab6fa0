package io.tutti.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The resilient solver without a failure, ranks as threads (which cannot fail alone; the run that
 * loses a rank is ShrinkAfterKillIT in tutti-system-tests): it checkpoints and matches the
 * sequential answer, which main checks and throws on.
 */
@Timeout(120)
class ResilientJacobiTest {
    @Test
    void withoutAFailureItMatchesTheSequentialRun() {
        OneSidedSamplesTest.job(3, rank -> ResilientJacobi.main(new String[] {"301", "45"}));
    }

    @Test
    void theSequentialAnswerMovesWithTheIterations() {
        // the check above would pass trivially if the iteration did nothing
        assertNotEquals(ResilientJacobi.sequential(10, 3)[4], ResilientJacobi.sequential(10, 4)[4]);
        assertArrayEquals(ResilientJacobi.sequential(10, 5), ResilientJacobi.sequential(10, 5));
    }
}
