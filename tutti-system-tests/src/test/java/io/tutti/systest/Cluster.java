package io.tutti.systest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A test cluster of 1–4 hosts that share only a virtual network and the root file system (so the JDK
 * and the build's jars are on every host, as on a cluster with a shared home). A host is a holder
 * process, pid 1 of its own PID namespace, in its own network, mount, UTS and IPC namespaces: an
 * {@code eth0} at 10.210.0.(h+1)/24 on a bridge in a switch namespace, private tmpfs on
 * {@code /dev/shm}, {@code /tmp} and {@code /run}, its own hostname ({@link #host}), boot id and
 * {@code /etc/hosts} naming every host, and its own {@code sshd} on its address only. The client
 * config {@link #sshConfig} logs in as root with a throwaway key: {@code ssh -F cfg <host> cmd}
 * works from any host. Files every host must see go in {@link #dir}, not in {@code /tmp}. Needs
 * root, util-linux, iproute2 and openssh-server; {@link #assumeAvailable} skips a test without them.
 */
final class Cluster implements AutoCloseable {
    /** The client's ConnectTimeout: an unreachable host's ssh fails (exit code 255) within it. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final String SSHD = "/usr/sbin/sshd";
    private static final Path FILES = Path.of("/var/tmp");
    private static final Duration EXEC_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static Optional<String> missing; // why no cluster can be made here (empty: it can), once known

    private final String id;
    private final String sw;
    private final Path dir;
    private final List<String> names = new ArrayList<>();
    private final List<Process> unshares = new ArrayList<>();
    private final List<Long> holders = new ArrayList<>();
    private final List<String> pidNamespaces = new ArrayList<>();
    private boolean switchMade;
    private boolean dirMade;

    private Cluster(String id) {
        this.id = id;
        this.sw = "tcsw" + id;
        this.dir = FILES.resolve("tutti-cluster-" + id);
    }

    /** Skips the calling test, with the reason, unless this machine can make a cluster. */
    static void assumeAvailable() {
        String why = missing();
        Assumptions.assumeTrue(why == null, why);
    }

    /** Why this machine cannot make a cluster (root and the commands it needs), or null; found once. */
    private static synchronized String missing() {
        if (missing == null) {
            missing = Optional.ofNullable(findMissing());
        }
        return missing.orElse(null);
    }

    private static String findMissing() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the test cluster needs root (CI runs as root)";
        }
        for (String cmd : List.of("unshare", "nsenter", "ip", "ssh", "ssh-keygen", "bash")) {
            if (!onPath(cmd)) {
                return "'" + cmd + "' is missing: the test cluster needs util-linux, iproute2 and openssh-client "
                        + "(apt-get install util-linux iproute2 openssh-client)";
            }
        }
        if (!Files.isExecutable(Path.of(SSHD))) {
            return SSHD + " is missing: the test cluster needs openssh-server (apt-get install openssh-server)";
        }
        if (!Files.isDirectory(FILES)) {
            return FILES + " is missing: the test cluster keeps its files there";
        }
        if (!Netns.quiet("unshare", "--net", "--mount", "--pid", "--uts", "--ipc", "--fork", "--mount-proc", "true")) {
            return "'unshare --net --mount --pid --uts --ipc' does not work on this machine";
        }
        return null;
    }

    /** Makes a cluster of {@code hostCount} hosts, each with its sshd running; on failure, removes what it made. */
    static Cluster start(int hostCount) throws IOException, InterruptedException {
        return start(hostCount, List.of());
    }

    /** As {@link #start(int)}, with {@code sshdLines} added to every host's sshd_config (to test failures). */
    static Cluster start(int hostCount, List<String> sshdLines) throws IOException, InterruptedException {
        if (hostCount < 1 || hostCount > 4) {
            throw new IllegalArgumentException("a test cluster has 1 to 4 hosts, not " + hostCount);
        }
        Cluster c = new Cluster(Integer.toString(ThreadLocalRandom.current().nextInt(10_000, 99_999)));
        try {
            c.files(hostCount, sshdLines);
            Netns.ip("netns", "add", c.sw);
            c.switchMade = true;
            Netns.ip("-n", c.sw, "link", "set", "lo", "up");
            Netns.ip("-n", c.sw, "link", "add", "br0", "type", "bridge");
            Netns.ip("-n", c.sw, "link", "set", "br0", "up");
            for (int h = 0; h < hostCount; h++) {
                c.startHost(h);
            }
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            try {
                c.close();
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    /** Host {@code h}'s name, also its hostname and its entry in every host's /etc/hosts. */
    String host(int h) {
        return names.get(h);
    }

    /** Every host's name, in order. */
    List<String> hosts() {
        return List.copyOf(names);
    }

    /** Host {@code h}'s address on the cluster's network. */
    static String address(int h) {
        return "10.210.0." + (h + 1);
    }

    /** The ssh client configuration, for {@code ssh -F <it> <host>} on any host. */
    Path sshConfig() {
        return dir.resolve("ssh_config");
    }

    /** The cluster's own directory, seen at the same path on every host and removed by {@link #close}. */
    Path dir() {
        return dir;
    }

    /** The name of the switch's network namespace, which {@link #close} deletes. */
    String switchNamespace() {
        return sw;
    }

    /** The pid (in the machine's own PID namespace) of host {@code h}'s holder, pid 1 on that host. */
    long holderPid(int h) {
        return holders.get(h);
    }

    /** The command line that runs {@code cmd} on host {@code h}, in {@code /}: for processes a test starts itself. */
    List<String> command(int h, String... cmd) {
        List<String> full = new ArrayList<>(List.of("nsenter", "--target", Long.toString(holderPid(h)), "--net",
                "--mount", "--pid", "--uts", "--ipc", "--"));
        full.addAll(List.of(cmd));
        return full;
    }

    /** What a command run on a host did. */
    record Result(int exitCode, String stdout, String stderr, Duration elapsed) {
        @Override
        public String toString() {
            return "exit code " + exitCode + " after " + elapsed.toMillis() + " ms"
                    + (stdout.isEmpty() ? "" : "\n--- stdout:\n" + stdout.strip())
                    + (stderr.isEmpty() ? "" : "\n--- stderr:\n" + stderr.strip());
        }
    }

    /** Runs {@code cmd} on host {@code h} for at most 30 s; see {@link #exec(int, Duration, String...)}. */
    Result exec(int h, String... cmd) throws IOException, InterruptedException {
        return exec(h, EXEC_TIMEOUT, cmd);
    }

    /** Runs {@code cmd} on host {@code h}, without input; past {@code timeout} kills it and fails with its output. */
    Result exec(int h, Duration timeout, String... cmd) throws IOException, InterruptedException {
        return run(command(h, cmd), timeout);
    }

    /** Takes host {@code h}'s cable down or up at the switch: its peers then reach it no more, or again. */
    void cable(int h, boolean up) throws IOException, InterruptedException {
        Netns.ip("-n", sw, "link", "set", "c" + h, up ? "up" : "down");
    }

    /** Stops host {@code h}'s sshd and waits until it is gone; its address then refuses ssh connections. */
    void stopSshd(int h) throws IOException, InterruptedException {
        Path pidFile = dir.resolve("sshd-" + h + ".pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String pid = Files.readString(pidFile).strip();
        exec(h, "sh", "-c", "kill " + pid);
        long end = System.nanoTime() + START_TIMEOUT.toNanos();
        while (exec(h, "sh", "-c", "kill -0 " + pid + " 2>/dev/null").exitCode() == 0) {
            if (System.nanoTime() > end) {
                throw new IOException("the sshd of " + host(h) + " (pid " + pid + " there) did not stop in "
                        + START_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(50);
        }
        Files.deleteIfExists(pidFile); // sshd removes it itself when it ends
    }

    /** Starts host {@code h}'s sshd and waits until it listens (it writes its pid file then). */
    void startSshd(int h) throws IOException, InterruptedException {
        Path pidFile = dir.resolve("sshd-" + h + ".pid");
        Files.deleteIfExists(pidFile);
        Result r = exec(h, SSHD, "-f", dir.resolve("sshd_config-" + h).toString(), "-E",
                dir.resolve("sshd-" + h + ".log").toString());
        if (r.exitCode() != 0) {
            throw new IOException("the sshd of " + host(h) + " did not start: " + r + sshdLog(h));
        }
        long end = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
            if (System.nanoTime() > end) {
                throw new IOException("the sshd of " + host(h) + " did not listen within " + START_TIMEOUT.toSeconds()
                        + " s" + sshdLog(h));
            }
            Thread.sleep(20);
        }
    }

    /**
     * Kills every host (killing pid 1 of a PID namespace kills all of its processes), deletes the
     * switch namespace and the cluster's directory; throws, naming them, if any remain. A second call
     * does nothing.
     */
    @Override
    public void close() {
        List<String> left = new ArrayList<>();
        for (long pid : holders) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (Process p : unshares) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : unshares) {
            try {
                if (!p.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    left.add("process " + p.pid() + " (unshare)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                left.add("process " + p.pid() + " (unshare; interrupted while waiting for it)");
            }
        }
        // the kernel kills the rest of a host when its pid 1 dies, but not at once: wait for them
        long end = System.nanoTime() + START_TIMEOUT.toNanos();
        List<ProcessHandle> rest = processesIn(pidNamespaces);
        while (!rest.isEmpty() && System.nanoTime() < end) {
            rest.forEach(ProcessHandle::destroyForcibly);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            rest = processesIn(pidNamespaces);
        }
        rest.forEach(p -> left.add("process " + p.pid() + " (" + p.info().commandLine().orElse("?") + ")"));
        if (switchMade && !Netns.quiet("ip", "netns", "del", sw)) {
            left.add("network namespace " + sw);
        }
        try {
            if (dirMade) {
                deleteTree(dir);
            }
        } catch (IOException e) {
            left.add(dir + " (" + e.getMessage() + ")");
        }
        holders.clear();
        unshares.clear();
        pidNamespaces.clear();
        switchMade = false;
        dirMade = false;
        if (!left.isEmpty()) {
            throw new IllegalStateException("the test cluster " + id + " could not remove: " + String.join(", ", left));
        }
    }

    /** Keys, /etc/hosts, boot ids and the configurations of sshd and ssh, in the cluster's directory. */
    private void files(int hostCount, List<String> sshdLines) throws IOException, InterruptedException {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        dirMade = true;
        StringBuilder hostsFile = new StringBuilder("127.0.0.1\tlocalhost\n");
        hostsFile.append("::1\tlocalhost ip6-localhost ip6-loopback\n");
        for (int h = 0; h < hostCount; h++) {
            names.add("tutti" + id + "n" + h);
            hostsFile.append(address(h)).append('\t').append(names.get(h)).append('\n');
        }
        write("hosts", hostsFile.toString());
        Netns.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tutti-cluster-" + id + "-host", "-f",
                dir.resolve("host_key").toString());
        Netns.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tutti-cluster-" + id + "-client", "-f",
                dir.resolve("client_key").toString());
        Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"));
        for (int h = 0; h < hostCount; h++) {
            write("boot_id-" + h, UUID.randomUUID() + "\n");
            List<String> sshd = new ArrayList<>(List.of(
                    "ListenAddress " + address(h),
                    "Port 22",
                    "HostKey " + dir.resolve("host_key"),
                    "PidFile " + dir.resolve("sshd-" + h + ".pid"),
                    "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                    // the directory lies in /var/tmp, which anyone may write: StrictModes would refuse the key
                    "StrictModes no",
                    "PermitRootLogin prohibit-password",
                    "AllowUsers root",
                    "AuthenticationMethods publickey",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "UseDNS no",
                    "PrintMotd no",
                    "PrintLastLog no",
                    "X11Forwarding no",
                    // a launcher opens one connection per rank at once
                    "MaxStartups 200",
                    "MaxSessions 200",
                    "LoginGraceTime 30"));
            sshd.addAll(sshdLines);
            write("sshd_config-" + h, String.join("\n", sshd) + "\n");
        }
        write("ssh_config", String.join("\n",
                "Host *",
                "  User root",
                "  IdentityFile " + dir.resolve("client_key"),
                "  IdentitiesOnly yes",
                "  PasswordAuthentication no",
                "  StrictHostKeyChecking no",
                "  UserKnownHostsFile /dev/null",
                "  GlobalKnownHostsFile /dev/null",
                "  BatchMode yes",
                "  ConnectTimeout " + CONNECT_TIMEOUT.toSeconds(),
                "  ConnectionAttempts 1",
                "  LogLevel ERROR") + "\n");
    }

    /** Starts host {@code h}'s holder, waits until its namespaces are set up, plugs it into the switch, starts sshd. */
    private void startHost(int h) throws IOException, InterruptedException {
        String name = names.get(h);
        // The build (a checkout in /tmp, say) stays visible on the host at its path, though /tmp, /run
        // and /dev/shm become the host's own: kept aside before they are covered, put back after.
        List<String> keep = new ArrayList<>();
        List<String> putBack = new ArrayList<>();
        List<Path> build = List.of(Path.of("").toAbsolutePath().getParent(), Path.of(System.getProperty("java.home")));
        for (int i = 0; i < build.size(); i++) {
            Path b = build.get(i).toRealPath();
            if (b.startsWith("/tmp") || b.startsWith("/run") || b.startsWith("/dev/shm")) {
                Path aside = dir.resolve("keep-" + h + "-" + i);
                Files.createDirectories(aside);
                keep.add("mount --bind '" + b + "' '" + aside + "'");
                putBack.add("mkdir -p '" + b + "' && mount --bind '" + aside + "' '" + b + "'");
            }
        }
        List<String> lines = new ArrayList<>(List.of("set -e", "echo " + name + " > /proc/sys/kernel/hostname"));
        lines.addAll(keep);
        lines.addAll(List.of(
                "mount -t tmpfs -o mode=1777 tmpfs /dev/shm",
                "mount -t tmpfs -o mode=1777 tmpfs /tmp",
                "mount -t tmpfs -o mode=755 tmpfs /run"));
        lines.addAll(putBack);
        String setup = String.join("\n", lines) + "\n" + String.join("\n",
                "mkdir -m 755 /run/sshd",
                "mount --bind " + dir.resolve("hosts") + " /etc/hosts",
                "mount --bind " + dir.resolve("boot_id-" + h) + " /proc/sys/kernel/random/boot_id",
                "mount -t sysfs sysfs /sys",
                "echo ready",
                // pid 1 of the host: waits forever and, being bash, reaps the orphans of the host
                "exec bash -c 'trap \"exit 0\" TERM; while :; do sleep 3600 & wait $!; done' tutti-host-" + name
                        + " </dev/null >/dev/null 2>&1");
        Process p = new ProcessBuilder("unshare", "--net", "--mount", "--pid", "--uts", "--ipc", "--fork",
                "--mount-proc", "--propagation", "private", "--", "sh", "-c", setup).redirectErrorStream(true).start();
        unshares.add(p);
        p.getOutputStream().close();
        Output out = new Output(p.getInputStream());
        long end = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!out.text().contains("ready\n")) {
            if (!p.isAlive() || System.nanoTime() > end) {
                p.waitFor(1, TimeUnit.SECONDS);
                throw new IOException("host " + name + " did not come up"
                        + (p.isAlive() ? " in " + START_TIMEOUT.toSeconds() + " s"
                                : " (exit code " + p.exitValue() + ")")
                        + ": " + out.text().strip());
            }
            Thread.sleep(10);
        }
        Optional<ProcessHandle> holder = p.children().findFirst();
        if (holder.isEmpty()) {
            throw new IOException("host " + name + " has no holder process under unshare (pid " + p.pid() + ")");
        }
        holders.add(holder.get().pid());
        pidNamespaces.add(Files.readSymbolicLink(Path.of("/proc/" + holder.get().pid() + "/ns/pid")).toString());
        String peer = "c" + h;
        Netns.ip("-n", sw, "link", "add", peer, "type", "veth", "peer", "name", "eth0", "netns",
                Long.toString(holder.get().pid()));
        Netns.ip("-n", sw, "link", "set", peer, "master", "br0");
        Netns.ip("-n", sw, "link", "set", peer, "up");
        for (List<String> ip : List.of(List.of("ip", "link", "set", "lo", "up"),
                List.of("ip", "addr", "add", address(h) + "/24", "dev", "eth0"),
                List.of("ip", "link", "set", "eth0", "up"))) {
            Result r = exec(h, ip.toArray(String[]::new));
            if (r.exitCode() != 0) {
                throw new IOException("on host " + name + ", " + String.join(" ", ip) + " failed: " + r);
            }
        }
        startSshd(h);
    }

    private String sshdLog(int h) {
        try {
            Path log = dir.resolve("sshd-" + h + ".log");
            return Files.exists(log) ? "\n--- its log:\n" + Files.readString(log).strip() : "";
        } catch (IOException e) {
            return "";
        }
    }

    private void write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    }

    /** Runs {@code cmd} without input for at most {@code timeout}; then kills it with all it started, and fails. */
    static Result run(List<String> cmd, Duration timeout) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        Output out = new Output(p.getInputStream());
        Output err = new Output(p.getErrorStream());
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            throw new IOException(String.join(" ", cmd) + ": no end in " + timeout.toSeconds() + " s; it printed:\n"
                    + out.text() + "--- and on stderr:\n" + err.text());
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        // a process it left behind may hold the pipes: what was printed until now is the output
        out.join(Duration.ofSeconds(2));
        err.join(Duration.ofSeconds(2));
        return new Result(p.exitValue(), out.text(), err.text(), elapsed);
    }

    /** Every process, as seen from outside, in one of these PID namespaces (links of /proc/PID/ns/pid). */
    static List<ProcessHandle> processesIn(List<String> namespaces) {
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            return all.filter(p -> inAny(p.pid(), namespaces)).toList();
        }
    }

    /** Whether process {@code pid} lives in one of these PID namespaces. */
    static boolean inAny(long pid, List<String> namespaces) {
        try {
            return namespaces.contains(Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/pid")).toString());
        } catch (IOException e) {
            return false; // gone, or not ours to see
        }
    }

    private static boolean onPath(String cmd) {
        return Stream.of("/usr/sbin", "/usr/bin", "/sbin", "/bin").anyMatch(d -> Files.isExecutable(Path.of(d, cmd)));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Collects what a stream prints, on a daemon thread, so that a full pipe never blocks the process. */
    private static final class Output {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final Thread reader;

        Output(InputStream in) {
            reader = Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[8192];
                try (in) {
                    for (int n; (n = in.read(buf)) > 0; ) {
                        synchronized (bytes) {
                            bytes.write(buf, 0, n);
                        }
                    }
                } catch (IOException e) {
                    // the process is gone: what it printed until then is kept
                }
            });
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        void join(Duration bound) throws InterruptedException {
            reader.join(bound);
        }
    }
}
