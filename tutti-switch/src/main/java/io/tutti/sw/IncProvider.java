package io.tutti.sw;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.coll.inc.InNetworkAggregation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * Opens an {@link IncClient} toward the ToR of {@link IncConfig#tor()}, with the key of
 * {@link IncConfig#keyFile()} where one is named; nothing without a ToR.
 */
public final class IncProvider implements InNetworkAggregation.Provider {
    @Override
    public String name() {
        return "udp-switch";
    }

    @Override
    public InNetworkAggregation open(InNetworkAggregation.Context context) {
        IncConfig config = IncConfig.from(context.settings());
        if (config.tor() == null) {
            return null;
        }
        IncKey key = config.keyFile() == null ? null
                : IncKey.read(Config.envName(IncConfig.KEY_FILE), config.keyFile());
        try {
            return new IncClient(context.wireJobId(), context.worldRank(), config.tor(), config.retryMillis(),
                    config.timeoutMillis(), config.setupMillis(), key, context.progress(), context.count());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the socket toward the switch " + config.tor(), e);
        }
    }

    /** {@code host:port} as an address; a clear error otherwise. */
    public static InetSocketAddress parse(String setting, String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try {
            if (colon > 0) {
                int port = Integer.parseInt(hostPort.substring(colon + 1));
                if (port > 0 && port < 65536) {
                    return new InetSocketAddress(hostPort.substring(0, colon), port);
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new TuttiException.InvalidArgument(setting + " must be host:port (for example 10.0.0.1:7700), got '"
                + hostPort + "'");
    }
}
