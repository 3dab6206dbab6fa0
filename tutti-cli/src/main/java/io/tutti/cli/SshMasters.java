package io.tutti.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One ssh connection per remote host, shared by the sessions that start its ranks (OpenSSH's
 * connection multiplexing): the launcher opens a master ({@code ssh -M}) to each host first, and
 * every rank's {@code ssh} then runs as a session of it, without a key exchange or authentication
 * of its own, while still exiting with its rank's status. A master's own session reads the
 * launcher's pipe, so it ends with the launcher, however that ends. Only for a launch agent that is
 * {@code ssh}; a host whose master does not come up in time is reached as before, by a connection
 * per rank. {@value #SETTING}=0 turns it off.
 */
final class SshMasters implements AutoCloseable {
    /** The environment variable that turns shared connections off (0) or on (1, the default). */
    static final String SETTING = "TUTTI_LAUNCH_SHARED_SSH";
    /** How long a master may take to log in before its host's ranks connect on their own. */
    static final Duration READY = Duration.ofSeconds(10);

    private final Map<String, Path> sockets = new LinkedHashMap<>();
    private final List<Process> masters = new ArrayList<>();

    private SshMasters() {
    }

    /** Whether {@code agent} (the launch agent's words) is OpenSSH's client. */
    static boolean isSsh(String agent) {
        if (agent == null || agent.isBlank()) {
            return false;
        }
        String first = agent.trim().split("\\s+")[0];
        return first.equals("ssh") || first.endsWith("/ssh");
    }

    /** Whether the environment allows shared connections ({@link #SETTING}). */
    static boolean enabled(Map<String, String> env) {
        String v = env.getOrDefault(SETTING, "1").trim();
        if (!v.equals("0") && !v.equals("1")) {
            throw new Launcher.UsageException(SETTING + " must be 0 or 1, not '" + v + "'");
        }
        return v.equals("1");
    }

    /** No master at all: every rank's ssh connects on its own. */
    static SshMasters none() {
        return new SshMasters();
    }

    /**
     * Opens a master through {@code agent} to each of {@code hosts}, its control socket in
     * {@code dir}, and waits (up to {@link #READY} in all) until each listens or has given up.
     */
    static SshMasters open(String agent, List<String> hosts, Path dir) {
        SshMasters m = new SshMasters();
        List<String> words = List.of(agent.trim().split("\\s+"));
        Map<String, Process> started = new LinkedHashMap<>();
        int i = 0;
        for (String host : hosts) {
            // short and ours: a Unix socket's path is at most 107 bytes
            Path socket = dir.resolve("ssh-" + i++);
            List<String> cmd = new ArrayList<>();
            cmd.add(words.getFirst());
            cmd.addAll(List.of("-M", "-o", "ControlPath=" + socket, "-o", "ControlPersist=no"));
            cmd.addAll(words.subList(1, words.size()));
            cmd.add(host);
            // its session reads our pipe to its end, so a launcher that dies, even by SIGKILL, ends it
            cmd.add("cat >/dev/null");
            try {
                Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                m.masters.add(p);
                started.put(host, p);
                m.sockets.put(host, socket);
            } catch (IOException e) {
                // no master for this host: its ranks connect on their own, and say why they cannot
            }
        }
        long deadline = System.nanoTime() + READY.toNanos();
        for (Map.Entry<String, Process> e : started.entrySet()) {
            Path socket = m.sockets.get(e.getKey());
            try {
                while (!Files.exists(socket) && e.getValue().isAlive() && System.nanoTime() < deadline) {
                    e.getValue().waitFor(10, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            if (!Files.exists(socket)) {
                m.sockets.remove(e.getKey());
            }
        }
        return m;
    }

    /**
     * The rank command {@code words} (the agent's words first) with the options that make its ssh a
     * session of {@code host}'s master, or unchanged without one.
     */
    List<String> share(String host, List<String> words) {
        Path socket = host == null ? null : sockets.get(host);
        if (socket == null || words.isEmpty()) {
            return words;
        }
        List<String> out = new ArrayList<>(words.size() + 4);
        out.add(words.getFirst());
        // ControlMaster=no: use the master, and connect as before if it has gone meanwhile
        out.addAll(List.of("-o", "ControlPath=" + socket, "-o", "ControlMaster=no"));
        out.addAll(words.subList(1, words.size()));
        return out;
    }

    /** The hosts that have a master listening. */
    List<String> hosts() {
        return List.copyOf(sockets.keySet());
    }

    /** Ends the masters; the ranks' sessions have ended before. */
    @Override
    public void close() {
        for (Process p : masters) {
            try {
                p.getOutputStream().close();
            } catch (IOException e) {
                // gone already
            }
        }
        for (Process p : masters) {
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
