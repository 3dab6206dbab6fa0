package io.tutti.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where ranks run: on this machine (no hosts), or in blocks of {@code ppn} consecutive ranks on
 * each of {@code hosts}, each process started through {@code execPrefix} with {@code {host}}
 * replaced (e.g. {@code ip netns exec {host}}). Ranks with the same host share memory; the
 * others talk over the network rails.
 *
 * @param hosts      host names; empty for this machine only
 * @param ppn        ranks per host; 0 spreads the ranks evenly
 * @param execPrefix command words put before every rank's command, or null
 * @param env        variables set for every rank (the network settings: TUTTI_RAILS, TUTTI_TRANSPORT)
 */
public record Placement(List<String> hosts, int ppn, String execPrefix, Map<String, String> env) {
    public static final Placement LOCAL = new Placement(List.of(), 0, null, Map.of());

    public Placement {
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        env = env == null ? Map.of() : Map.copyOf(env);
        if (ppn < 0) {
            throw new Launcher.UsageException("--ppn must be at least 1, got " + ppn);
        }
        if (execPrefix != null && execPrefix.isBlank()) {
            execPrefix = null;
        }
    }

    /** Ranks per host for a job of {@code ranks} ranks. */
    int perHost(int ranks) {
        if (hosts.isEmpty()) {
            return ranks;
        }
        int k = ppn > 0 ? ppn : (ranks + hosts.size() - 1) / hosts.size();
        if ((long) k * hosts.size() < ranks) {
            throw new Launcher.UsageException(ranks + " ranks do not fit " + hosts.size() + " hosts with --ppn " + ppn
                    + ": give at least " + ((ranks + hosts.size() - 1) / hosts.size()) + " ranks per host");
        }
        return k;
    }

    /** The host of {@code rank}, or null when the job runs on this machine only. */
    String hostOf(int rank, int ranks) {
        return hosts.isEmpty() ? null : hosts.get(rank / perHost(ranks));
    }

    /** The words before a rank's command on {@code host}. */
    List<String> prefix(String host) {
        if (execPrefix == null) {
            return List.of();
        }
        List<String> words = new ArrayList<>();
        for (String w : execPrefix.trim().split("\\s+")) {
            words.add(w.replace("{host}", host == null ? "localhost" : host));
        }
        return words;
    }

    /**
     * Whether the rank inherits the launcher's environment: with no template, or with
     * {@code ip netns exec}, which starts the command itself. Any other template (ssh, ...) is
     * taken to start a remote shell that joins its words and parses them anew, with an
     * environment of its own.
     */
    boolean inheritsEnvironment() {
        if (execPrefix == null) {
            return true;
        }
        String[] w = execPrefix.trim().split("\\s+");
        return w.length >= 3 && w[0].equals("ip") && w[1].equals("netns") && w[2].equals("exec");
    }

    /**
     * The full command of a rank on {@code host}: the template's words, then the command. When
     * the template does not pass the environment on ({@link #inheritsEnvironment()}), the rank's
     * {@code TUTTI_*} variables go on the command line as {@code env K=V ...}, and every word
     * after the template is quoted for the remote shell.
     */
    List<String> command(String host, List<String> command, Map<String, String> rankEnv) {
        List<String> full = new ArrayList<>(prefix(host));
        if (inheritsEnvironment()) {
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
