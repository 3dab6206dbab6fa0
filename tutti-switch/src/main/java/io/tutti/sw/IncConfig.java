package io.tutti.sw;

import io.tutti.Config;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Settings of a leader's switch client (the in-network aggregation component), each a property
 * name and its environment name ({@code tutti.inc.switch}, {@code TUTTI_INC_SWITCH}) with the
 * default here. Read once, when a communicator first sets up its in-network group.
 *
 * @param tor           the leader's ToR switch ({@code host:port}); null: no switch, the client is not opened
 * @param retryMillis   least wait before a contribution is sent again (the wait follows the measured
 *                      round trip); ten times that for a control request
 * @param timeoutMillis how long a transfer waits without any result before it fails
 * @param setupMillis   how long a query, notify or release waits for its answer
 * @param keyFile       the switches' key file ({@link IncKey}), which control requests are tagged
 *                      with; null: untagged, which only a switch without a key accepts
 */
public record IncConfig(InetSocketAddress tor, long retryMillis, long timeoutMillis, long setupMillis, Path keyFile) {
    public static final String SWITCH = "tutti.inc.switch";
    public static final String RETRY = "tutti.inc.retry.ms";
    /** A loopback round trip takes tens of microseconds; 5 ms leaves room for a loaded host (docs/perf/inc.md). */
    public static final long RETRY_DEFAULT = 5;
    public static final String TIMEOUT = "tutti.inc.timeout.ms";
    public static final long TIMEOUT_DEFAULT = 10_000;
    public static final String SETUP = "tutti.inc.setup.ms";
    public static final long SETUP_DEFAULT = 2_000;
    public static final String KEY_FILE = "tutti.inc.key.file";

    /** From the job's settings by environment name (what the provider context carries). */
    public static IncConfig from(Map<String, String> settings) {
        Config c = Config.from(settings, new Properties());
        String where = c.get(SWITCH);
        String key = c.get(KEY_FILE);
        return new IncConfig(where == null ? null : IncProvider.parse(Config.envName(SWITCH), where),
                positive(c, RETRY, RETRY_DEFAULT), positive(c, TIMEOUT, TIMEOUT_DEFAULT),
                positive(c, SETUP, SETUP_DEFAULT), key == null ? null : Path.of(key));
    }

    private static long positive(Config c, String name, long fallback) {
        long v = c.size(name, fallback);
        if (v <= 0) {
            throw Config.invalid(name, c.get(name), "a positive number of milliseconds");
        }
        return v;
    }
}
