package io.tutti.cli;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where ranks run and how they are started there. Ranks fill the hosts' slots host by host (Open
 * MPI's {@code --map-by slot}), so each host's ranks are consecutive; with {@code oversubscribe},
 * ranks beyond the slots go round the hosts up to their {@code max_slots}. A rank is started
 * through {@code execPrefix} with {@code {host}} replaced (e.g. {@code ip netns exec {host}}, or
 * {@code srun} inside a Slurm allocation), else on another host through {@code launchAgent}
 * ({@code ssh}), else directly. Ranks with the same host share memory; the others talk over the
 * network rails.
 *
 * @param hosts         the hosts and their slots; empty for this machine only
 * @param oversubscribe whether more ranks than slots may run
 * @param execPrefix    command words put before every rank's command, or null
 * @param launchAgent   the remote shell for ranks on other hosts when there is no execPrefix, or null
 * @param env           variables set for every rank (the network settings: TUTTI_RAILS, TUTTI_TRANSPORT)
 */
public record Placement(List<Hosts.Host> hosts, boolean oversubscribe, String execPrefix, String launchAgent,
                        Map<String, String> env) {
    public static final Placement LOCAL = new Placement(List.of(), false, null, null, Map.of());

    public Placement {
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        env = env == null ? Map.of() : Map.copyOf(env);
        if (execPrefix != null && execPrefix.isBlank()) {
            execPrefix = null;
        }
        if (launchAgent != null && launchAgent.isBlank()) {
            launchAgent = null;
        }
    }

    /** {@code --hosts} with {@code --ppn}: {@code ppn} slots on each host, started through {@code execPrefix}. */
    public Placement(List<String> hosts, int ppn, String execPrefix, Map<String, String> env) {
        this(hosts == null ? List.of() : hosts.stream().map(h -> new Hosts.Host(h, checkPpn(ppn), 0)).toList(),
                false, execPrefix, null, env);
    }

    private static int checkPpn(int ppn) {
        if (ppn < 1) {
            throw new Launcher.UsageException("--ppn must be at least 1, got " + ppn);
        }
        return ppn;
    }

    /** The slots of all hosts together; 0 on this machine only. */
    int slots() {
        long sum = 0;
        for (Hosts.Host h : hosts) {
            sum += h.slots();
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    /** How many of {@code ranks} ranks each host runs, in host order; a request that does not fit is an error. */
    int[] counts(int ranks) {
        int[] counts = new int[hosts.size()];
        int left = ranks;
        for (int i = 0; i < counts.length && left > 0; i++) {
            counts[i] = Math.min(left, hosts.get(i).slots());
            left -= counts[i];
        }
        if (left == 0 || hosts.isEmpty()) {
            return counts;
        }
        if (!oversubscribe) {
            throw new Launcher.UsageException("-n " + ranks + " is more than the " + slots() + " slots of the hosts ("
                    + Hosts.describe(hosts) + "): give -n " + slots() + " or less, more slots, or --oversubscribe to"
                    + " run more ranks than slots");
        }
        // Beyond the slots, one more rank per host in turn, each host up to its max_slots.
        boolean room = true;
        while (left > 0 && room) {
            room = false;
            for (int i = 0; i < counts.length && left > 0; i++) {
                int max = hosts.get(i).maxSlots();
                if (max == 0 || counts[i] < max) {
                    counts[i]++;
                    left--;
                    room = true;
                }
            }
        }
        if (left > 0) {
            throw new Launcher.UsageException("-n " + ranks + " is more than the hosts' max_slots allow ("
                    + (ranks - left) + " ranks), even with --oversubscribe: give -n " + (ranks - left)
                    + " or less, or raise max_slots");
        }
        return counts;
    }

    /** The host of {@code rank} in a job of {@code ranks} ranks, or null when the job runs on this machine only. */
    String hostOf(int rank, int ranks) {
        return layout(ranks).host(rank);
    }

    /** Which host each of {@code ranks} ranks runs on, and its place among that host's ranks. */
    Layout layout(int ranks) {
        return new Layout(hosts.stream().map(Hosts.Host::name).toList(), counts(ranks));
    }

    /**
     * The ranks of a job on its hosts: host {@code i} runs {@code counts[i]} consecutive ranks.
     *
     * @param hosts  host names, in order; empty when the job runs on this machine only
     * @param counts ranks per host
     */
    record Layout(List<String> hosts, int[] counts) {
        /** The host of {@code rank}, or null when the job runs on this machine only. */
        String host(int rank) {
            return hosts.isEmpty() ? null : hosts.get(node(rank));
        }

        /** The index of the host of {@code rank}. */
        int node(int rank) {
            int first = 0;
            for (int i = 0; i < counts.length; i++) {
                if (rank < first + counts[i]) {
                    return i;
                }
                first += counts[i];
            }
            return 0;
        }

        /** The place of {@code rank} among the ranks of its host. */
        int localRank(int rank) {
            int node = node(rank);
            int first = 0;
            for (int i = 0; i < node; i++) {
                first += counts[i];
            }
            return rank - first;
        }

        /** How many ranks run on the host of {@code rank}. */
        int localSize(int rank) {
            return counts[node(rank)];
        }
    }

    /** Names that always mean the launcher's own machine. */
    private static final Set<String> LOOPBACK = Set.of("localhost", "localhost.localdomain", "127.0.0.1", "::1");

    /** This machine's names, looked up once and only when a launch agent needs them. */
    private static final class OwnNames {
        static final Set<String> NAMES = lookUp();

        private static Set<String> lookUp() {
            Set<String> names = new HashSet<>(LOOPBACK);
            try {
                String name = InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
                names.add(name);
                names.add(name.contains(".") ? name.substring(0, name.indexOf('.')) : name);
            } catch (java.io.IOException e) {
                // no name for this machine: only the loopback names are taken as its own
            }
            return names;
        }
    }

    /** Whether {@code host} is the launcher's own machine: {@code localhost} or its host name. */
    static boolean isOwnHost(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return LOOPBACK.contains(h) || OwnNames.NAMES.contains(h);
    }

    /** The words before a rank's command on {@code host}. */
    List<String> prefix(String host) {
        String template = template(host);
        if (template == null) {
            return List.of();
        }
        List<String> words = new ArrayList<>();
        for (String w : template.trim().split("\\s+")) {
            words.add(w.replace("{host}", host == null ? "localhost" : host));
        }
        return words;
    }

    /** The template a rank on {@code host} starts through, or null to start it directly. */
    private String template(String host) {
        if (execPrefix != null) {
            return execPrefix;
        }
        if (launchAgent != null && host != null && !isOwnHost(host)) {
            return launchAgent + " {host}";
        }
        return null;
    }

    /**
     * The remote shell a rank on {@code host} starts through, as the user named it ({@code ssh}, or the
     * template's words before {@code {host}}; {@code srun}), or null when it starts here directly or
     * through {@code ip netns exec}: a rank started through one gets the job secret on its standard
     * input, and a failure to start shows as the remote shell's exit code.
     */
    String remoteShell(String host) {
        String template = template(host);
        if (template == null || isNamespace(template)) {
            return null;
        }
        if (isSrun(template)) {
            return "srun";
        }
        if (execPrefix == null) {
            return launchAgent;
        }
        int at = execPrefix.indexOf("{host}");
        String before = at < 0 ? execPrefix : execPrefix.substring(0, at);
        return before.isBlank() ? execPrefix.strip() : before.strip();
    }

    /** Whether {@code template} is {@code ip netns exec}, which starts the command with the launcher's environment. */
    private static boolean isNamespace(String template) {
        String[] w = template.trim().split("\\s+");
        return w.length >= 3 && w[0].equals("ip") && w[1].equals("netns") && w[2].equals("exec");
    }

    /**
     * Whether {@code template} is Slurm's {@code srun}, which runs the command's words as they are
     * and passes the environment on, though on another host. Any other template but
     * {@code ip netns exec} (ssh, ...) is taken to start a remote shell that joins the words and
     * parses them anew, with an environment of its own.
     */
    private static boolean isSrun(String template) {
        String first = template.trim().split("\\s+")[0];
        return first.equals("srun") || first.endsWith("/srun");
    }

    /**
     * The full command of a rank on {@code host}: the template's words, then the command. When
     * the template does not pass the environment on, the rank's {@code TUTTI_*} variables go on
     * the command line as {@code env K=V ...}, and every word after the template is quoted for
     * the remote shell.
     */
    List<String> command(String host, List<String> command, Map<String, String> rankEnv) {
        List<String> full = new ArrayList<>(prefix(host));
        String template = template(host);
        if (template == null || isNamespace(template) || isSrun(template)) {
            full.addAll(command);
            return full;
        }
        full.add("env");
        new TreeMap<>(rankEnv).forEach((k, v) -> {
            if (k.startsWith("TUTTI_")) {
                full.add(shellQuote(k + "=" + v));
            }
        });
        for (String w : command) {
            full.add(shellQuote(w));
        }
        return full;
    }

    /** {@code word} as one word for a POSIX shell: unchanged when plainly safe, else in single quotes. */
    static String shellQuote(String word) {
        if (!word.isEmpty() && word.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c)
                || "_@%+=:,./-".indexOf(c) >= 0))) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
