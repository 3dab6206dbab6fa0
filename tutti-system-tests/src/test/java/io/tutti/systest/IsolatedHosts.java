package io.tutti.systest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hosts that share nothing but a virtual network: each host of a {@link Netns} cluster also gets a
 * mount namespace with a private /dev/shm (tmpfs) and a PID namespace, held open by a sleeping
 * process that is PID 1 there. {@link #shell()} is an ssh-like command, {@code SHELL HOST WORDS...}:
 * it runs the words joined and parsed by {@code sh -c} on that host, with a fresh environment, as
 * sshd would. Needs root, {@code unshare} and {@code nsenter}; everything made is removed on close.
 */
final class IsolatedHosts implements AutoCloseable {
    private final Netns net;
    private final Path dir;
    private final List<Process> holders = new ArrayList<>();
    private final List<Long> pids = new ArrayList<>();

    private IsolatedHosts(Netns net, Path dir) {
        this.net = net;
        this.dir = dir;
    }

    static IsolatedHosts create(int hosts, Path work) throws IOException, InterruptedException {
        Netns net = Netns.create(hosts, 1, null);
        IsolatedHosts h = new IsolatedHosts(net, Files.createDirectories(work.resolve("hosts")));
        try {
            for (String host : net.hosts()) {
                Process p = new ProcessBuilder("ip", "netns", "exec", host, "unshare", "--mount", "--pid", "--fork",
                        "--mount-proc", "--propagation", "private", "sh", "-c",
                        "mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec sleep 100000")
                        .redirectErrorStream(true).redirectOutput(h.dir.resolve(host + ".log").toFile()).start();
                h.holders.add(p);
                long pid = h.awaitSleeper(p, host);
                h.pids.add(pid);
                Files.writeString(h.dir.resolve(host + ".pid"), pid + "\n");
            }
            Path shell = h.dir.resolve("hostsh");
            // The command's standard error goes to HOST.stderr, which outlives a killed launcher's pipes.
            Files.writeString(shell, "#!/bin/sh\n"
                    + "# hostsh HOST WORDS...: the words, joined and parsed anew by a shell, on HOST, as ssh does\n"
                    + "pid=$(cat \"" + h.dir + "/$1.pid\") || exit 255\n"
                    + "log=\"" + h.dir + "/$1.stderr\"\n"
                    + "shift\n"
                    + "exec nsenter -t \"$pid\" -m -p -n -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root"
                    + " sh -c \"$* 2>>'$log'\"\n");
            Files.setPosixFilePermissions(shell, PosixFilePermissions.fromString("rwx------"));
            Path lingering = h.dir.resolve("hostsh-linger");
            Files.writeString(lingering, Files.readString(shell).replace("'$log'\"", "'$log'; sleep 60\""));
            Files.setPosixFilePermissions(lingering, PosixFilePermissions.fromString("rwx------"));
            return h;
        } catch (IOException | InterruptedException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** The sleeping PID 1 of the host's namespaces, once its /dev/shm is mounted (it has exec'd sleep). */
    private long awaitSleeper(Process unshare, String host) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (ProcessHandle c : unshare.children().toList()) {
                Path comm = Path.of("/proc", Long.toString(c.pid()), "comm");
                if (Files.exists(comm) && Files.readString(comm).strip().equals("sleep")) {
                    return c.pid();
                }
            }
            if (!unshare.isAlive()) {
                throw new IOException("unshare failed: " + Files.readString(dir.resolve(host + ".log")));
            }
            Thread.sleep(20);
        }
        throw new IOException("the namespaces of a host were not ready within 20 s");
    }

    List<String> hosts() {
        return net.hosts();
    }

    /** The ssh-like command for {@code --exec-prefix 'SHELL {host}'}. */
    String shell() {
        return dir.resolve("hostsh").toString();
    }

    /** As {@link #shell()}, but the remote shell lives on for a minute after its command ends. */
    String lingeringShell() {
        return dir.resolve("hostsh-linger").toString();
    }

    /** Runs {@code sh -c script} on host {@code h} (at most 20 s) and returns its output. */
    String run(int h, String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("nsenter", "-t", Long.toString(pids.get(h)), "-m", "-p", "-n", "--", "sh",
                "-c", script).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("'" + script + "' on host " + h + " did not end within 20 s");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** What the ranks started through {@link #shell()} on every host wrote to standard error. */
    String rankErrors() throws IOException {
        StringBuilder all = new StringBuilder();
        try (var logs = Files.newDirectoryStream(dir, "*.stderr")) {
            for (Path log : logs) {
                all.append(Files.readString(log));
            }
        }
        return all.toString();
    }

    /** The job directories in host {@code h}'s own /dev/shm. */
    List<String> jobDirectories(int h) throws IOException, InterruptedException {
        return run(h, "ls -a /dev/shm").lines().filter(l -> l.startsWith("tutti-")).toList();
    }

    @Override
    public void close() {
        // PID 1 of a namespace takes every process in it along when it dies.
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (Process p : holders) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        net.close();
    }
}
