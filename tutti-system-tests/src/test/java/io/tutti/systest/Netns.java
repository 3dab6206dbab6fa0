package io.tutti.systest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small cluster made of network namespaces: {@code hosts} host namespaces, each with {@code rails}
 * interfaces named {@code r0}, {@code r1}, …, and one switch namespace whose bridges join rail k of
 * every host (addresses 10.(100+k).0.(h+1)/24). Only these namespaces' addresses are ever used.
 * Needs root and {@code ip}; a test that cannot have them is skipped, with the reason.
 */
final class Netns implements AutoCloseable {
    private final String id;
    private final List<String> hosts = new ArrayList<>();
    private final String sw;

    private Netns(String id, String sw) {
        this.id = id;
        this.sw = sw;
    }

    /** Skips the calling test unless network namespaces can be made here. */
    static void assumeAvailable() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "network namespaces need root (CI runs as root)");
        String probe = "tprobe" + ThreadLocalRandom.current().nextInt(100_000);
        boolean ok = quiet("ip", "netns", "add", probe);
        if (ok) {
            quiet("ip", "netns", "del", probe);
        }
        Assumptions.assumeTrue(ok, "'ip netns add' does not work on this machine");
    }

    /** Creates the namespaces; {@code rate} (e.g. "1gbit") limits every rail with tbf, or null. */
    static Netns create(int hostCount, int rails, String rate) throws IOException, InterruptedException {
        String id = Integer.toString(ThreadLocalRandom.current().nextInt(10_000, 99_999));
        Netns n = new Netns(id, "tsw" + id);
        try {
            ip("netns", "add", n.sw);
            ip("-n", n.sw, "link", "set", "lo", "up");
            for (int k = 0; k < rails; k++) {
                ip("-n", n.sw, "link", "add", "br" + k, "type", "bridge");
                ip("-n", n.sw, "link", "set", "br" + k, "up");
            }
            for (int h = 0; h < hostCount; h++) {
                String host = "th" + id + "x" + h;
                ip("netns", "add", host);
                n.hosts.add(host);
                ip("-n", host, "link", "set", "lo", "up");
                for (int k = 0; k < rails; k++) {
                    String outer = "h" + h + "r" + k;
                    ip("-n", host, "link", "add", "r" + k, "type", "veth", "peer", "name", outer, "netns", n.sw);
                    ip("-n", host, "addr", "add", "10." + (100 + k) + ".0." + (h + 1) + "/24", "dev", "r" + k);
                    ip("-n", host, "link", "set", "r" + k, "up");
                    ip("-n", n.sw, "link", "set", outer, "master", "br" + k);
                    ip("-n", n.sw, "link", "set", outer, "up");
                    if (rate != null) {
                        run("ip", "netns", "exec", host, "tc", "qdisc", "add", "dev", "r" + k, "root", "tbf", "rate",
                                rate, "burst", "256kb", "latency", "50ms");
                    }
                }
            }
            return n;
        } catch (IOException | InterruptedException | RuntimeException e) {
            n.close();
            throw e;
        }
    }

    /** The host namespaces' names, for {@code --hosts}. */
    List<String> hosts() {
        return List.copyOf(hosts);
    }

    /** The switch namespace's name (tests: a process on the path between the hosts). */
    String switchName() {
        return sw;
    }

    /** Takes rail {@code k} of host {@code h} down or up (from the switch side, as a cut cable). */
    void rail(int h, int k, boolean up) throws IOException, InterruptedException {
        ip("-n", sw, "link", "set", "h" + h + "r" + k, up ? "up" : "down");
    }

    @Override
    public void close() {
        for (String h : hosts) {
            quiet("ip", "netns", "del", h);
        }
        quiet("ip", "netns", "del", sw);
    }

    /** Runs {@code ip} with these arguments; fails with its output. */
    static void ip(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        run(cmd);
    }

    /** Runs a command for at most 20 s; fails with its output when it exits non-zero. */
    static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": no answer in 20 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + out.strip());
        }
    }

    /** Runs a command and ignores its failure (clean-up of what may be gone already). */
    static boolean quiet(String... cmd) {
        try {
            run(cmd);
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
