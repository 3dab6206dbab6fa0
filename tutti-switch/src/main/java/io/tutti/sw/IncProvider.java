package io.tutti.sw;

import io.tutti.TuttiException;
import io.tutti.coll.inc.InNetworkAggregation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;

/** Opens an {@link IncClient} toward the ToR named by {@value IncClient#SWITCH}; nothing without it. */
public final class IncProvider implements InNetworkAggregation.Provider {
    @Override
    public String name() {
        return "udp-switch";
    }

    @Override
    public InNetworkAggregation open(InNetworkAggregation.Context context) {
        Map<String, String> s = context.settings();
        String where = s.get(IncClient.SWITCH);
        if (where == null || where.isBlank()) {
            return null;
        }
        try {
            return new IncClient(context.wireJobId(), context.worldRank(), parse(IncClient.SWITCH, where.trim()),
                    millis(s, IncClient.RETRY, IncClient.RETRY_DEFAULT),
                    millis(s, IncClient.TIMEOUT, IncClient.TIMEOUT_DEFAULT),
                    millis(s, IncClient.SETUP, IncClient.SETUP_DEFAULT), context.progress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the socket toward the switch " + where, e);
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

    private static long millis(Map<String, String> s, String name, long fallback) {
        return io.tutti.bootstrap.LaunchEnvironment.positive(s, name, fallback, "a positive number of milliseconds");
    }
}
