package io.tutti.cli;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.TuttiException;
import io.tutti.sw.IncKey;
import io.tutti.sw.IncProvider;
import io.tutti.sw.SwitchConfig;
import io.tutti.sw.SwitchServer;
import io.tutti.wire.IncPacketDescriptor;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
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
 * {@code --uplink}; with {@code --key-file} it takes groups only from leaders that have its key
 * ({@code TUTTI_INC_KEY_FILE}).
 */
@Command(name = "switch", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, sortOptions = false,
        versionProvider = Main.Version.class,
        description = {"Runs an in-network aggregation switch: forwards ordinary packets, answers query/notify/release,"
            + " aggregates allreduce data per slot and sends results down; stops on SIGTERM or Ctrl-C."},
        footer = {"", "Authentication (--key-file):",
            "A notify or release (which set up, join and release a group), and a spine's reply that a ToR relays,"
                + " counts only with an HMAC-SHA256 tag made with the key, truncated to " + IncPacketDescriptor.TAG_LENGTH
                + " bytes (128 bits: forging one is hopeless, and it fits the packet), whose time is within "
                + IncPacketDescriptor.AUTH_WINDOW_MILLIS / 1000 + " s of the switch's clock and whose nonce was not"
                + " seen before (so a recorded packet cannot be sent again). Others get no group and are counted as"
                + " 'refused'. A query, which changes nothing, is answered for anyone.",
            "Data packets carry a random 64-bit token that each member's notify installed, with or without a key;"
                + " a packet without its group's token is dropped and counted as 'wrong token', so a host that cannot"
                + " see the traffic cannot alter a result. Nothing is encrypted: a host that sees it can read it.",
            "Every switch of the network and every leader use the same key file.",
            "", "Examples:",
            "  (umask 077; openssl rand -hex 32 > /etc/tutti/switch.key)",
            "  tutti switch --role spine --ports 10.0.0.1:7700 \\",
            "      --key-file /etc/tutti/switch.key",
            "  tutti switch --role tor --ports 0.0.0.0:7700 --uplink 10.0.0.1:7700 \\",
            "      --key-file /etc/tutti/switch.key",
            "  ranks: TUTTI_COLL_ALLREDUCE=inc TUTTI_INC_SWITCH=<tor-host>:7700 \\",
            "      TUTTI_INC_KEY_FILE=/etc/tutti/switch.key tutti run ..."})
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

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "Take groups only from leaders whose notify and release carry a valid tag made with the key"
                    + " in FILE: hex digits, 32 or more (e.g. from openssl rand -hex 32), in a file only its owner may"
                    + " read (chmod 600); the leaders name the same file in TUTTI_INC_KEY_FILE. Without it the switch"
                    + " takes groups from anyone who reaches its ports, and warns so at start.")
    Path keyFile;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SwitchConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException | TuttiException e) {
            err.println("tutti switch: " + e.getMessage());
            return Launcher.EXIT_USAGE;
        }
        if (config.key() == null) {
            err.println("tutti switch: warning: no --key-file: groups are accepted from anyone who reaches its ports");
            err.flush();
        }
        try (SwitchServer server = new SwitchServer(config)) {
            server.onGroupsChanged(g -> {
                out.println("tutti switch: groups in use " + g + " of " + config.capacity());
                out.flush();
            });
            server.onRefused(c -> {
                out.println("tutti switch: refused so far " + c.refused + " control packets (no valid key tag, stale or"
                        + " replayed) and " + c.wrongToken + " data packets (wrong group token)");
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
                    + (config.loss() > 0 ? ", dropping " + config.loss() + " of INC packets" : "")
                    + (config.key() != null ? ", groups only with the " + config.key() : ""));
            out.flush();
            server.run();
            var c = server.logic().counters();
            out.println("tutti switch: stopped; control " + c.controlPackets + ", data " + c.dataPackets + " (from children " + c.fromChildren
                    + ", results to children " + c.toChildren + "), aggregated "
                    + c.aggregated + ", duplicates " + c.duplicates + ", resent " + c.resent + ", forwarded "
                    + c.forwarded + ", dropped " + c.dropped + ", refused " + c.refused + ", wrong token " + c.wrongToken
                    + ", injected losses " + server.injectedLosses());
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
                opMask, typeMask, loss, seed, leaseNanos, keyFile == null ? null : IncKey.read("--key-file", keyFile));
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
