package io.tutti.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options that place ranks on hosts and choose how they talk, shared by {@code tutti run} and
 * {@code tutti bench}. The network settings reach the ranks as environment variables.
 */
public final class PlacementOptions {
    @Option(names = "--hosts", split = ",", paramLabel = "HOST[,HOST...]", hideParamSyntax = true,
            description = "Run the ranks on these hosts, --ppn consecutive ranks on each (default: this machine"
                    + " only). Ranks on one host share memory; the network rails join the hosts.")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--ppn", paramLabel = "K", description = "Ranks per host (default: spread evenly).")
    int ppn;

    @Option(names = "--exec-prefix", paramLabel = "TEMPLATE",
            description = "Start each rank through this command, {host} replaced by its host: e.g."
                    + " 'ip netns exec {host}' or 'ssh {host}'.")
    String execPrefix;

    @Option(names = "--rails", split = ",", paramLabel = "IF[,IF...]", hideParamSyntax = true,
            description = "Network interfaces to use as rails, by name (sets TUTTI_RAILS).")
    List<String> rails = new ArrayList<>();

    @Option(names = "--transport", paramLabel = "auto|net",
            description = "auto: shared memory inside a host, the network between hosts; net: the network even"
                    + " inside one host (sets TUTTI_TRANSPORT).")
    String transport;

    /** The placement, after checking the values. */
    Placement placement() {
        for (String h : hosts) {
            if (h.isBlank() || h.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("--hosts: '" + h + "' is not a host name");
            }
        }
        if (ppn < 0) {
            throw new IllegalArgumentException("--ppn must be at least 1, got " + ppn);
        }
        if (transport != null && !transport.equals("auto") && !transport.equals("net")) {
            throw new IllegalArgumentException("--transport must be auto or net, got '" + transport + "'");
        }
        java.util.Map<String, String> env = new java.util.HashMap<>();
        if (!rails.isEmpty()) {
            env.put("TUTTI_RAILS", String.join(",", rails));
        }
        if (transport != null) {
            env.put("TUTTI_TRANSPORT", transport);
        }
        return new Placement(hosts, ppn, execPrefix, env);
    }
}
