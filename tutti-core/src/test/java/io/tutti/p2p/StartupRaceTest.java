package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import io.tutti.Tutti;
import io.tutti.bootstrap.ThreadLauncher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank that has nothing to do may init and close at once. Its peers must still start: the start-up
 * fence only says every rank has created its inbound ring, not that every rank has mapped the others'.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartupRaceTest {

    @Test
    void ranksThatCloseImmediatelyDoNotBreakTheStartOfSlowerRanks() {
        List<String> failures = new ArrayList<>();
        for (int attempt = 0; attempt < 30 && failures.isEmpty(); attempt++) {
            ThreadLauncher.Outcome o = ThreadLauncher.run(6, Duration.ofSeconds(20), rank -> {
                try (Tutti t = Tutti.init(new String[0])) {
                    t.world();
                }
            });
            if (!o.succeeded()) {
                ThreadLauncher.RankResult f = o.firstFailure();
                failures.add("attempt " + attempt + ": " + (f == null ? "timed out" : "rank " + f.rank() + ": "
                        + f.failure()));
            }
        }
        assertEquals(List.of(), failures);
    }
}
