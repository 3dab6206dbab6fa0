package io.tutti.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one-sided samples run to their own check (each throws when its result is wrong), ranks as threads. */
@Timeout(120)
class OneSidedSamplesTest {
    static void job(int n, ThreadLauncher.RankBody body) {
        ThreadLauncher.Outcome o = ThreadLauncher.run(n, Duration.ofSeconds(90), body);
        ThreadLauncher.RankResult f = o.firstFailure();
        assertTrue(o.succeeded(), f != null ? "rank " + f.rank() + ": " + f.failure() : "timed out");
    }

    @Test
    void theCounterHandsOutEveryTaskOnce() {
        job(4, rank -> DistributedCounter.main(new String[] {"2000"}));
    }

    @Test
    void theHaloExchangeMatchesTheSequentialRun() {
        job(3, rank -> HaloExchange.main(new String[] {"50", "200"}));
    }
}
