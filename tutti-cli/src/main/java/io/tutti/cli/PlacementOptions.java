package io.tutti.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options that place ranks on hosts and choose how they talk, shared by {@code tutti run} and
 * {@code tutti bench}. Every way of naming hosts gives them slots ({@code --hostfile},
 * {@code --host}, or {@code --hosts} with {@code --ppn} slots each), which the ranks fill host by
 * host; {@link Placement} holds the result. The network settings reach the ranks as environment
 * variables.
 */
public final class PlacementOptions {
    /** The launch agent when none is given, as Open MPI's {@code plm_rsh_agent}. */
    static final String DEFAULT_AGENT = "ssh";

    @Option(names = "--hostfile", paramLabel = "FILE",
            description = "Run the ranks on the hosts of FILE, Open MPI's format: 'hostname [slots=N] [max_slots=M]'"
                    + " per line, # comments. Ranks fill each host's slots in turn; -n defaults to all slots.")
    Path hostfile;

    @Option(names = {"--host", "-H"}, split = ",", paramLabel = "HOST[:N][,...]", hideParamSyntax = true,
            description = "Run the ranks on these hosts, N slots each (default 1), e.g. --host a:4,b:4.")
    List<String> hostList = new ArrayList<>();

    @Option(names = "--oversubscribe", description = "Allow more ranks than slots (up to each host's max_slots).")
    boolean oversubscribe;

    @Option(names = "--launch-agent", paramLabel = "CMD",
            description = "Start the ranks on other hosts of --hostfile/--host through 'CMD HOST ...' (default: "
                    + DEFAULT_AGENT + "); ranks on localhost or this machine's name start directly.")
    String launchAgent;

    @Option(names = "--hosts", split = ",", paramLabel = "HOST[,HOST...]", hideParamSyntax = true,
            description = "Run the ranks on these hosts, --ppn consecutive ranks on each (default: this machine"
                    + " only), each started through --exec-prefix or else directly here. Ranks on one host share"
                    + " memory; the network rails join the hosts.")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--ppn", paramLabel = "K",
            description = "Slots per host of --hosts (default: -n spread evenly).")
    Integer ppn;

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

    @Option(names = "--bind-to", paramLabel = "none|core|socket",
            description = "Bind each rank's main thread to a core of its host, or to that core's socket, as mpirun"
                    + " does; ranks that outnumber a host's cores stay unbound (sets TUTTI_BIND; default none).")
    String bindTo;

    /** The drained hosts; tests point it elsewhere. */
    DrainList drainList = DrainList.standard();
    /** The drained hosts the latest {@link #placement} left out. */
    private final List<String> skipped = new ArrayList<>();

    /** Whether hosts were named at all (any of --hostfile, --host, --hosts). */
    boolean namesHosts() {
        return hostfile != null || !hostList.isEmpty() || !hosts.isEmpty();
    }

    /** Whether the options say where or how ranks start: then a Slurm allocation around the launcher is not used. */
    boolean choosesHosts() {
        return namesHosts() || launchAgent != null || execPrefix != null;
    }

    /** The placement without a Slurm allocation; see {@link #placement(Integer, SlurmAllocation)}. */
    Placement placement(Integer ranks) {
        return placement(ranks, null);
    }

    /**
     * The placement, after checking the values; {@code ranks} is {@code -n}, or null when it was not
     * given (then the hosts' slots decide it). Without hosts named, {@code allocation} (null: none)
     * gives its nodes and slots and starts each rank through srun. A job of {@code ranks} that does
     * not fit is an error here.
     */
    Placement placement(Integer ranks, SlurmAllocation allocation) {
        int ways = (hostfile != null ? 1 : 0) + (hostList.isEmpty() ? 0 : 1) + (hosts.isEmpty() ? 0 : 1);
        if (ways > 1) {
            throw new IllegalArgumentException("give the hosts one way: --hostfile FILE, --host a:4,b:4 or --hosts"
                    + " a,b --ppn 4");
        }
        if (ppn != null && ppn < 1) {
            throw new IllegalArgumentException("--ppn must be at least 1, got " + ppn);
        }
        if (ppn != null && hosts.isEmpty()) {
            throw new IllegalArgumentException("--ppn goes with --hosts: with --host or --hostfile give the slots"
                    + " there (--host a:" + ppn + " or 'a slots=" + ppn + "')");
        }
        if (launchAgent != null && execPrefix != null) {
            throw new IllegalArgumentException("--launch-agent and --exec-prefix both say how ranks start: give one");
        }
        if (launchAgent != null && (hostfile == null && hostList.isEmpty())) {
            throw new IllegalArgumentException("--launch-agent starts ranks on the hosts of --hostfile or --host;"
                    + " with --hosts, give --exec-prefix 'CMD {host}'");
        }
        if (launchAgent != null && launchAgent.isBlank()) {
            throw new IllegalArgumentException("--launch-agent is empty: give a command such as 'ssh' or"
                    + " 'ssh -o BatchMode=yes'");
        }
        if (transport != null && !transport.equals("auto") && !transport.equals("net")) {
            throw new IllegalArgumentException("--transport must be auto or net, got '" + transport + "'");
        }
        if (bindTo != null && !List.of("none", "core", "socket").contains(bindTo)) {
            throw new IllegalArgumentException("--bind-to must be none, core or socket, got '" + bindTo + "'");
        }
        Map<String, String> env = new HashMap<>();
        if (bindTo != null) {
            env.put("TUTTI_BIND", bindTo);
        }
        if (!rails.isEmpty()) {
            env.put("TUTTI_RAILS", String.join(",", rails));
        }
        if (transport != null) {
            env.put("TUTTI_TRANSPORT", transport);
        }
        List<Hosts.Host> slots;
        String agent = null;
        String prefix = execPrefix;
        boolean slurm = allocation != null && !choosesHosts();
        if (hostfile != null || !hostList.isEmpty()) {
            slots = undrained(hostfile != null ? Hosts.readHostfile(hostfile) : Hosts.parseHostList(hostList));
            agent = execPrefix != null ? null : launchAgent != null ? launchAgent.strip() : DEFAULT_AGENT;
        } else if (slurm) {
            // Slurm drains its nodes itself (scontrol update state=drain)
            slots = allocation.hosts();
            prefix = allocation.template();
        } else {
            slots = undrained(hostsWithPpn(ranks));
        }
        Placement placement = new Placement(slots, oversubscribe, prefix, agent, env);
        if (ranks != null && ranks > 0) {
            try {
                placement.counts(ranks);
            } catch (Launcher.UsageException e) {
                throw new IllegalArgumentException((slurm ? "Slurm job " + allocation.jobId() + ": " : "")
                        + e.getMessage());
            }
        }
        return placement;
    }

    /**
     * {@code hosts} without those drained ({@link DrainList}), which {@link #skipped} names; an
     * error when none is left.
     */
    private List<Hosts.Host> undrained(List<Hosts.Host> hosts) {
        skipped.clear();
        List<Hosts.Host> kept = drainList.without(hosts, Hosts.Host::name, skipped);
        if (kept.isEmpty() && !hosts.isEmpty()) {
            throw new IllegalArgumentException("every host named is drained (" + String.join(", ", skipped)
                    + "; tutti host list): 'tutti host undrain HOST' brings one back");
        }
        return kept;
    }

    /** The one line that says which drained hosts {@link #placement} left out, or null when none. */
    String skippedNotice() {
        return skipped.isEmpty() ? null : "leaving out drained host" + (skipped.size() == 1 ? " " : "s ")
                + String.join(", ", skipped) + " (tutti host list; tutti host undrain HOST brings one back)";
    }

    /** {@code --hosts}: --ppn slots on each, or without it {@code -n} spread evenly (the last host may get fewer). */
    private List<Hosts.Host> hostsWithPpn(Integer ranks) {
        if (hosts.isEmpty()) {
            return List.of();
        }
        for (String h : hosts) {
            if (h.isBlank() || h.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("--hosts: '" + h + "' is not a host name");
            }
        }
        int each;
        if (ppn != null) {
            each = ppn;
        } else {
            if (ranks == null) {
                throw new IllegalArgumentException("--hosts without --ppn spreads the -n ranks evenly: give -n N,"
                        + " or --ppn K for K ranks on each host");
            }
            each = Math.max(1, (ranks + hosts.size() - 1) / hosts.size());
        }
        int k = each;
        return hosts.stream().map(h -> new Hosts.Host(h, k, 0)).toList();
    }
}
