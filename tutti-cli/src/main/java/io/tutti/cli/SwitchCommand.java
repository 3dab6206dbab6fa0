package io.tutti.cli;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.sw.IncProvider;
import io.tutti.sw.SwitchConfig;
import io.tutti.sw.SwitchServer;
import io.tutti.wire.IncPacketDescriptor;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tutti switch}: runs an in-network aggregation switch (ToR or spine) until stopped. Leaders
 * find their ToR with {@code TUTTI_INC_SWITCH=host:port}; a ToR names its spines with
 * {@code --uplink}.
 */
@Command(name = "switch", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, sortOptions = false,
        versionProvider = Main.Version.class,
        description = {"Runs an in-network aggregation switch: forwards ordinary packets, answers query/notify/release,"
            + " aggregates allreduce data per slot and sends results down; stops on SIGTERM or Ctrl-C."},
        footer = {"", "Examples:",
            "  tutti switch --role spine --ports 10.0.0.1:7700",
            "  tutti switch --role tor --ports 0.0.0.0:7700 --uplink 10.0.0.1:7700",
            "  ranks: TUTTI_COLL_ALLREDUCE=inc TUTTI_INC_SWITCH=<tor-host>:7700 tutti run ..."})
public final class SwitchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--role", required = true, description = "tor (leaders below, spines above) or spine.")
    String role;

    @Option(names = "--ports", required = true, split = ",", paramLabel = "HOST:PORT",
            description = "UDP addresses to receive on, one per port (e.g. 0.0.0.0:7700).")
    List<String> ports;

    @Option(names = "--uplink", split = ",", paramLabel = "HOST:PORT",
            description = "A ToR's spines; none for a spine, or for a ToR that is always the root.")
    List<String> uplinks = new ArrayList<>();

    @Option(names = "--id", description = "Switch id in control packets, unique in the network (default: random).")
    Integer id;

    @Option(names = "--capacity", description = "Groups it can host at once (default: ${DEFAULT-VALUE}).")
    int capacity = SwitchConfig.CAPACITY_DEFAULT;

    @Option(names = "--slots", description = "Aggregation slots per group (default: ${DEFAULT-VALUE}).")
    int slots = SwitchConfig.SLOTS_DEFAULT;

    @Option(names = "--max-payload", description = "Data bytes per packet, 8..256 (default: ${DEFAULT-VALUE}).")
    int maxPayload = IncPacketDescriptor.MAX_PAYLOAD;

    @Option(names = "--ops", split = ",", description = "Operations it reduces (default: all but maxloc, minloc).")
    List<String> ops;

    @Option(names = "--types", split = ",", description = "Element types it reduces (default: all but pairs).")
    List<String> types;

    @Option(names = "--loss", description = "Fault injection: share of received INC packets dropped, 0..1"
            + " (default: ${DEFAULT-VALUE}).")
    double loss;

    @Option(names = "--seed", description = "Seed of the fault injection (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--lease", paramLabel = "DURATION", converter = Durations.class,
            defaultValue = SwitchConfig.LEASE_DEFAULT_SECONDS + "s",
            description = "Reclaim a group idle this long, e.g. 300s or 5m (default: ${DEFAULT-VALUE}).")
    Duration lease;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SwitchConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            err.println("tutti switch: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        try (SwitchServer server = new SwitchServer(config)) {
            server.onGroupsChanged(g -> {
                out.println("tutti switch: groups in use " + g + " of " + config.capacity());
                out.flush();
            });
            Thread main = Thread.currentThread();
            Thread hook = new Thread(() -> {
                server.stop();
                try {
                    main.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Runtime.getRuntime().addShutdownHook(hook);
            StringBuilder at = new StringBuilder();
            for (int i = 0; i < config.ports().size(); i++) {
                at.append(i == 0 ? "" : ", ").append(server.port(i));
            }
            out.println("tutti switch: " + config.role().name().toLowerCase(Locale.ROOT) + " " + config.id()
                    + " listening on " + at + (config.uplinks().isEmpty() ? "" : ", uplinks " + config.uplinks())
                    + (config.loss() > 0 ? ", dropping " + config.loss() + " of INC packets" : ""));
            out.flush();
            server.run();
            var c = server.logic().counters();
            out.println("tutti switch: stopped; control " + c.controlPackets + ", data " + c.dataPackets + " (from children " + c.fromChildren
                    + ", results to children " + c.toChildren + "), aggregated "
                    + c.aggregated + ", duplicates " + c.duplicates + ", resent " + c.resent + ", forwarded "
                    + c.forwarded + ", dropped " + c.dropped + ", injected losses " + server.injectedLosses());
            out.flush();
        }
        return 0;
    }

    SwitchConfig config() {
        SwitchConfig.Role r = switch (role.toLowerCase(Locale.ROOT)) {
            case "tor" -> SwitchConfig.Role.TOR;
            case "spine" -> SwitchConfig.Role.SPINE;
            default -> throw new IllegalArgumentException("--role must be tor or spine, got '" + role + "'");
        };
        List<InetSocketAddress> p = addresses("--ports", ports);
        List<InetSocketAddress> u = addresses("--uplink", uplinks);
        int opMask = ops == null ? SwitchConfig.allOps() : mask(ops, "--ops", ReduceOp.class);
        int typeMask = types == null ? SwitchConfig.allTypes() : mask(types, "--types", Datatype.class);
        long leaseNanos = lease.toNanos();
        return new SwitchConfig(r, id != null ? id : SwitchConfig.randomId(), p, u, capacity, slots, maxPayload,
                opMask, typeMask, loss, seed, leaseNanos);
    }

    private static List<InetSocketAddress> addresses(String option, List<String> values) {
        List<InetSocketAddress> a = new ArrayList<>();
        for (String v : values) {
            try {
                a.add(IncProvider.parse(option, v.trim()));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
        }
        return a;
    }

    private static <E extends Enum<E>> int mask(List<String> names, String option, Class<E> type) {
        int m = 0;
        for (String n : names) {
            try {
                m |= 1 << Enum.valueOf(type, n.trim().toUpperCase(Locale.ROOT)).ordinal();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": '" + n + "' is not one of "
                        + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT));
            }
        }
        return m;
    }
}
