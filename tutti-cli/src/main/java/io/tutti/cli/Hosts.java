package io.tutti.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosts of a job and their slots, as Open MPI's {@code mpirun} reads them: a hostfile
 * ({@code --hostfile}: {@code hostname [slots=N] [max_slots=M]} per line, {@code #} comments,
 * blank lines) or a host list ({@code --host a:4,b:4}; {@code a,b} is one slot each). A host
 * listed twice adds its slots. A hostfile line without {@code slots=} gives its host one slot:
 * Open MPI counts the host's cores there, which the launcher cannot see before it starts anything.
 */
final class Hosts {
    private Hosts() {
    }

    /**
     * A host and how many ranks it takes.
     *
     * @param name     the host's name, as the launch agent and the ranks' {@code TUTTI_HOST} see it
     * @param slots    ranks placed there before the next host gets any, at least 1
     * @param maxSlots the most ranks it takes even with {@code --oversubscribe}; 0 for no limit
     */
    record Host(String name, int slots, int maxSlots) {
        Host {
            if (slots < 1 || (maxSlots != 0 && maxSlots < slots)) {
                throw new IllegalArgumentException("host " + name + ": slots=" + slots + " max_slots=" + maxSlots);
            }
        }

        /** Both entries of a host listed twice: slots add up, and so do limits when both have one. */
        Host plus(Host more) {
            return new Host(name, sum(slots, more.slots), maxSlots == 0 || more.maxSlots == 0 ? 0
                    : sum(maxSlots, more.maxSlots));
        }

        /** Added up, at most {@link Integer#MAX_VALUE}: more slots than that are as good as unlimited. */
        private static int sum(int a, int b) {
            return (int) Math.min(Integer.MAX_VALUE, (long) a + b);
        }

        @Override
        public String toString() {
            return name + ":" + slots;
        }
    }

    /** Reads a hostfile; an unreadable file or a bad line is an error naming the file and line. */
    static List<Host> readHostfile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--hostfile " + file + ": there is no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException("--hostfile " + file + ": cannot read it (" + e.getMessage() + ")");
        }
        return parseHostfile(file.toString(), lines);
    }

    /** The hosts of a hostfile's lines; {@code name} names the file in errors. */
    static List<Host> parseHostfile(String name, List<String> lines) {
        Map<String, Host> hosts = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            line = (hash < 0 ? line : line.substring(0, hash)).strip().replaceAll("\\s*=\\s*", "=");
            if (line.isEmpty()) {
                continue;
            }
            String where = name + " line " + (i + 1) + ": ";
            String[] words = line.split("\\s+");
            if (!hostName(words[0])) {
                throw new IllegalArgumentException(where + "'" + words[0] + "' is not a host name: a line is"
                        + " 'hostname [slots=N] [max_slots=M]'");
            }
            Integer slots = null;
            Integer max = null;
            for (int w = 1; w < words.length; w++) {
                int eq = words[w].indexOf('=');
                String key = eq < 0 ? words[w] : words[w].substring(0, eq);
                String value = eq < 0 ? "" : words[w].substring(eq + 1);
                switch (key) {
                    case "slots" -> slots = count(where, key, value, slots);
                    case "max_slots", "max-slots" -> max = count(where, key, value, max);
                    default -> throw new IllegalArgumentException(where + "'" + words[w] + "' is not understood: a"
                            + " line is 'hostname [slots=N] [max_slots=M]'");
                }
            }
            int s = slots == null ? 1 : slots;
            if (max != null && max < s) {
                throw new IllegalArgumentException(where + "max_slots=" + max + " is less than slots=" + s
                        + ": max_slots is the most ranks the host takes, so at least its slots");
            }
            add(hosts, new Host(words[0], s, max == null ? 0 : max));
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException(name + " lists no hosts: write one 'hostname slots=N' per line");
        }
        return List.copyOf(hosts.values());
    }

    private static int count(String where, String key, String value, Integer before) {
        if (before != null) {
            throw new IllegalArgumentException(where + key + " is given twice");
        }
        if (!value.matches("[0-9]{1,9}") || Integer.parseInt(value) < 1) {
            throw new IllegalArgumentException(where + "'" + key + "=" + value + "' is not a count: give "
                    + key + "=N with N a whole number of at least 1");
        }
        return Integer.parseInt(value);
    }

    /** The hosts of {@code --host} entries: {@code name} (one slot) or {@code name:N}. */
    static List<Host> parseHostList(List<String> entries) {
        Map<String, Host> hosts = new LinkedHashMap<>();
        for (String entry : entries) {
            String e = entry.strip();
            int colon = e.lastIndexOf(':');
            String name = colon < 0 ? e : e.substring(0, colon);
            String n = colon < 0 ? "1" : e.substring(colon + 1);
            if (!hostName(name)) {
                throw new IllegalArgumentException("--host: '" + entry + "' is not a host name: give HOST or"
                        + " HOST:SLOTS, e.g. --host a:4,b:4");
            }
            if (!n.matches("[0-9]{1,9}") || Integer.parseInt(n) < 1) {
                throw new IllegalArgumentException("--host: '" + entry + "': the slots after ':' must be a whole"
                        + " number of at least 1, e.g. " + name + ":4");
            }
            add(hosts, new Host(name, Integer.parseInt(n), 0));
        }
        return List.copyOf(hosts.values());
    }

    /**
     * Whether {@code name} can be a host name: not empty, no '=', no white space nor control
     * character (the hostfile's words split at ASCII white space only, so a control character
     * would reach ssh inside a name).
     */
    private static boolean hostName(String name) {
        return !name.isEmpty()
                && name.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c) || c == '=');
    }

    private static void add(Map<String, Host> hosts, Host h) {
        hosts.merge(h.name(), h, Host::plus);
    }

    /** {@code a:4, b:4}, shortened after a few hosts, for messages. */
    static String describe(List<Host> hosts) {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < Math.min(4, hosts.size()); i++) {
            shown.add(hosts.get(i).toString());
        }
        return String.join(", ", shown) + (hosts.size() > 4 ? ", ... (" + hosts.size() + " hosts)" : "");
    }
}
