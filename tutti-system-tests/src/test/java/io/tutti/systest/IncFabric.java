package io.tutti.systest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A two-level switched cluster of network namespaces for in-network aggregation: {@code hosts} host
 * namespaces (interface {@code r0}), one ToR namespace per {@code perTor} hosts and one spine
 * namespace, joined by veth pairs and routed (the ToRs and the spine forward IP):
 *
 * <pre>
 *   host h --veth-- ToR t (bridge 10.(110+t).0.254/24, and 10.200.0.1 on every ToR)
 *   ToR t  --veth-- spine (10.(120+t).0.1 — 10.(120+t).0.2)
 * </pre>
 *
 * Every host reaches its own ToR's switch process at {@link #SWITCH_ADDRESS}, so that one setting
 * serves every rank. Switch processes run inside the ToR and spine namespaces. Needs root and
 * {@code ip} (see {@link Netns#assumeAvailable()}).
 */
final class IncFabric implements AutoCloseable {
    static final String SWITCH_ADDRESS = "10.200.0.1";
    static final int PORT = 7700;

    private final String id;
    private final List<String> hosts = new ArrayList<>();
    private final List<String> tors = new ArrayList<>();
    private final String spine;
    private final List<Process> switches = new ArrayList<>();

    private IncFabric(String id) {
        this.id = id;
        this.spine = "tsp" + id;
    }

    static IncFabric create(int hostCount, int perTor) throws IOException, InterruptedException {
        IncFabric f = new IncFabric(Integer.toString(ThreadLocalRandom.current().nextInt(10_000, 99_999)));
        try {
            Netns.ip("netns", "add", f.spine);
            Netns.ip("-n", f.spine, "link", "set", "lo", "up");
            Netns.run("ip", "netns", "exec", f.spine, "sysctl", "-qw", "net.ipv4.ip_forward=1");
            int torCount = (hostCount + perTor - 1) / perTor;
            for (int t = 0; t < torCount; t++) {
                String tor = "tto" + f.id + "x" + t;
                f.tors.add(tor);
                Netns.ip("netns", "add", tor);
                Netns.ip("-n", tor, "link", "set", "lo", "up");
                Netns.run("ip", "netns", "exec", tor, "sysctl", "-qw", "net.ipv4.ip_forward=1");
                Netns.ip("-n", tor, "link", "add", "br0", "type", "bridge");
                Netns.ip("-n", tor, "addr", "add", "10." + (110 + t) + ".0.254/24", "dev", "br0");
                Netns.ip("-n", tor, "addr", "add", SWITCH_ADDRESS + "/32", "dev", "br0");
                Netns.ip("-n", tor, "link", "set", "br0", "up");
                Netns.ip("-n", tor, "link", "add", "upl", "type", "veth", "peer", "name", "d" + t, "netns", f.spine);
                Netns.ip("-n", tor, "addr", "add", "10." + (120 + t) + ".0.1/24", "dev", "upl");
                Netns.ip("-n", tor, "link", "set", "upl", "up");
                Netns.ip("-n", f.spine, "addr", "add", "10." + (120 + t) + ".0.2/24", "dev", "d" + t);
                Netns.ip("-n", f.spine, "link", "set", "d" + t, "up");
                Netns.ip("-n", tor, "route", "add", "10.0.0.0/8", "via", "10." + (120 + t) + ".0.2");
                Netns.ip("-n", f.spine, "route", "add", "10." + (110 + t) + ".0.0/24", "via", "10." + (120 + t) + ".0.1");
            }
            for (int h = 0; h < hostCount; h++) {
                int t = h / perTor;
                String host = "thi" + f.id + "x" + h;
                f.hosts.add(host);
                Netns.ip("netns", "add", host);
                Netns.ip("-n", host, "link", "set", "lo", "up");
                Netns.ip("-n", host, "link", "add", "r0", "type", "veth", "peer", "name", "h" + h, "netns", f.tors.get(t));
                Netns.ip("-n", host, "addr", "add", "10." + (110 + t) + ".0." + (h % perTor + 1) + "/24", "dev", "r0");
                Netns.ip("-n", host, "link", "set", "r0", "up");
                Netns.ip("-n", f.tors.get(t), "link", "set", "h" + h, "master", "br0");
                Netns.ip("-n", f.tors.get(t), "link", "set", "h" + h, "up");
                Netns.ip("-n", host, "route", "add", SWITCH_ADDRESS + "/32", "dev", "r0");
                Netns.ip("-n", host, "route", "add", "10.0.0.0/8", "via", "10." + (110 + t) + ".0.254");
            }
            return f;
        } catch (IOException | InterruptedException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    List<String> hosts() {
        return List.copyOf(hosts);
    }

    /** The spine's address as ToR {@code t} reaches it. */
    static String spineAddress(int t) {
        return "10." + (120 + t) + ".0.2:" + PORT;
    }

    /**
     * Starts the switch processes ({@code tutti switch}) with {@code extra} options (e.g. a loss
     * rate) and waits until each prints that it listens. Their output goes to {@code work}.
     */
    void startSwitches(Path work, String... extra) throws IOException, InterruptedException {
        switches.add(startSwitch(work, spine, "spine", 100, null, extra));
        for (int t = 0; t < tors.size(); t++) {
            switches.add(startSwitch(work, tors.get(t), "tor", t + 1, spineAddress(t), extra));
        }
    }

    private Process startSwitch(Path work, String ns, String role, int id, String uplink, String... extra)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", Launch.lib() + "/*", "io.tutti.cli.Main", "switch", "--role", role,
                "--ports", "0.0.0.0:" + PORT, "--id", Integer.toString(id)));
        if (uplink != null) {
            cmd.addAll(List.of("--uplink", uplink));
        }
        cmd.addAll(List.of(extra));
        Path out = work.resolve("switch-" + ns + ".txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(out).contains("listening on")) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("switch in " + ns + " did not start:\n" + Files.readString(out));
            }
            Thread.sleep(50);
        }
        return p;
    }

    /** Stops the switch processes (SIGTERM: they print their counters to their output files). */
    void stopSwitches() throws InterruptedException {
        for (Process p : switches) {
            p.destroy();
        }
        for (Process p : switches) {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        switches.clear();
    }

    @Override
    public void close() {
        for (Process p : switches) {
            p.destroyForcibly();
        }
        for (String h : hosts) {
            Netns.quiet("ip", "netns", "del", h);
        }
        for (String t : tors) {
            Netns.quiet("ip", "netns", "del", t);
        }
        Netns.quiet("ip", "netns", "del", spine);
    }
}
