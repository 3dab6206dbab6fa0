package io.tutti.cli;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.coll.CollConfig;
import io.tutti.net.NetConfig;
import io.tutti.offload.OffloadConfig;
import io.tutti.p2p.P2pConfig;
import io.tutti.rma.RmaConfig;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code TUTTI_*} settings every rank will read, checked by the launcher before it starts any:
 * a value out of its range is reported once, naming the variable, instead of by every rank with a
 * stack trace. Each component's own parser does the checking, so the rules live in one place.
 */
final class SettingsCheck {
    private SettingsCheck() {
    }

    /** Why the settings in {@code environment} would fail every rank, or null when they would not. */
    static String problem(Map<String, String> environment) {
        Config settings = Config.from(environment, new Properties());
        try {
            P2pConfig.from(settings);
            CollConfig.from(settings);
            OffloadConfig.from(settings);
            RmaConfig.from(settings);
            NetConfig.from(settings.asMap());
            return null;
        } catch (TuttiException.InvalidArgument | IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
