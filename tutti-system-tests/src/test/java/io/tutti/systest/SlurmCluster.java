package io.tutti.systest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Slurm on a {@link Cluster}: munged on every host with one shared key, slurmctld on the first host,
 * slurmd on every host (2 CPUs each, partition {@code debug} of all), one slurm.conf in the
 * cluster's directory; {@link #exec} runs a command on a host with {@code SLURM_CONF} set, so
 * {@code srun}, {@code sbatch}, {@code sinfo} work there. {@link #start} returns once every node is
 * idle. Each host gets back the cgroup v1 hierarchies its fresh sysfs hides. Closing closes the
 * cluster, which kills every daemon with its host. Needs {@code slurm-wlm} and {@code munge}.
 */
final class SlurmCluster implements AutoCloseable {
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(90);
    private static final List<String> NEEDED = List.of("/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
            "/usr/bin/srun", "/usr/bin/sbatch", "/usr/bin/sinfo", "/usr/bin/squeue");
    private final Cluster cluster;
    private final Path dir;

    private SlurmCluster(Cluster cluster) {
        this.cluster = cluster;
        this.dir = cluster.dir().resolve("slurm");
    }

    /** Skips the calling test, with the reason, unless this machine can make a Slurm cluster. */
    static void assumeAvailable() {
        Cluster.assumeAvailable();
        for (String cmd : NEEDED) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of(cmd)), cmd + " is missing: the Slurm test cluster needs"
                    + " Slurm and munge (apt-get install slurm-wlm munge)");
        }
    }

    /** Makes a cluster of {@code hostCount} hosts running Slurm, all nodes idle; on failure removes it all. */
    static SlurmCluster start(int hostCount) throws IOException, InterruptedException {
        Cluster cluster = Cluster.start(hostCount);
        SlurmCluster s = new SlurmCluster(cluster);
        try {
            s.configure(hostCount);
            for (int h = 0; h < hostCount; h++) {
                s.startMunge(h);
            }
            s.daemon(0, "slurmctld", "/usr/sbin/slurmctld", "-i");
            for (int h = 0; h < hostCount; h++) {
                s.daemon(h, "slurmd", "/usr/sbin/slurmd", "-N", cluster.host(h));
            }
            s.awaitIdle(hostCount);
            return s;
        } catch (IOException | InterruptedException | RuntimeException e) {
            try {
                cluster.close();
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    Cluster cluster() {
        return cluster;
    }

    /** The directory of Slurm's files, on the cluster's shared directory (scripts and job output go here too). */
    Path dir() {
        return dir;
    }

    /** Runs {@code cmd} on host {@code h} with SLURM_CONF set; past {@code timeout} kills it and fails. */
    Cluster.Result exec(int h, Duration timeout, String... cmd) throws IOException, InterruptedException {
        return Cluster.run(command(h, cmd), timeout);
    }

    /** The command line that runs {@code cmd} on host {@code h} with SLURM_CONF set: for processes a test starts. */
    List<String> command(int h, String... cmd) {
        List<String> full = new ArrayList<>(List.of("env", "SLURM_CONF=" + dir.resolve("slurm.conf")));
        full.addAll(List.of(cmd));
        return cluster.command(h, full.toArray(String[]::new));
    }

    /** The daemons' logs, for a failure message. */
    String logs() {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                b.append("\n--- ").append(f.getFileName()).append(" (last lines):\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
            }
        } catch (IOException e) {
            b.append("\n(logs unreadable: ").append(e.getMessage()).append(')');
        }
        return b.toString();
    }

    @Override
    public void close() {
        cluster.close();
    }

    private void configure(int hostCount) throws IOException {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createDirectories(dir.resolve("state"));
        byte[] key = new byte[1024];
        new SecureRandom().nextBytes(key);
        Path keyFile = dir.resolve("munge.key");
        Files.write(keyFile, key);
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        List<String> conf = new ArrayList<>(List.of(
                "ClusterName=tutti",
                "SlurmctldHost=" + cluster.host(0) + "(" + Cluster.address(0) + ")",
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "AuthInfo=socket=/run/munge/munge.sock",
                "CryptoType=crypto/munge",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool") + "/%n",
                // per host: /run is private to each
                "SlurmctldPidFile=/run/slurmctld.pid",
                "SlurmdPidFile=/run/slurmd.pid",
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("slurmd-%n.log"),
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SwitchType=switch/none",
                "MpiDefault=none",
                "ReturnToService=2",
                "SchedulerType=sched/builtin",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "JobCompType=jobcomp/none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "MailProg=/bin/true"));
        List<String> nodes = new ArrayList<>();
        for (int h = 0; h < hostCount; h++) {
            Files.createDirectories(dir.resolve("spool").resolve(cluster.host(h)));
            conf.add("NodeName=" + cluster.host(h) + " NodeAddr=" + Cluster.address(h) + " CPUs=2 State=UNKNOWN");
            nodes.add(cluster.host(h));
        }
        conf.add("PartitionName=debug Nodes=" + String.join(",", nodes)
                + " Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES");
        Files.writeString(dir.resolve("slurm.conf"), String.join("\n", conf) + "\n");
        Files.writeString(dir.resolve("cgroup.conf"), "CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n");
    }

    /** Host {@code h}'s munged, on its private /run, with the shared key; and the cgroup hierarchies back. */
    private void startMunge(int h) throws IOException, InterruptedException {
        // which hierarchies the machine has: read outside, mounted inside
        List<String> mounts = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .map(l -> l.split(" ")).filter(f -> f.length > 3 && f[2].equals("cgroup")).map(f -> f[1] + " " + f[3])
                .toList();
        StringBuilder cg = new StringBuilder("set -e\nmkdir -p -m 755 /run/munge\n");
        if (!mounts.isEmpty()) {
            cg.append("mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup\n");
            for (String m : mounts) {
                String[] f = m.split(" ");
                String options = Stream.of(f[1].split(",")).filter(o -> !o.equals("rw") && !o.equals("relatime"))
                        .reduce((a, b) -> a + "," + b).orElse("none");
                cg.append("mkdir -p ").append(f[0]).append(" && mount -t cgroup -o ").append(options)
                        .append(" cgroup ").append(f[0]).append('\n');
            }
        }
        Cluster.Result r = cluster.exec(h, "sh", "-c", mounts.isEmpty() ? "mkdir -p -m 755 /run/munge" : cg.toString());
        if (r.exitCode() != 0) {
            throw new IOException("on " + cluster.host(h) + ", preparing /run/munge and /sys/fs/cgroup failed: " + r
                    + "\n--- script:\n" + cg);
        }
        r = cluster.exec(h, "/usr/sbin/munged", "--socket=/run/munge/munge.sock",
                "--key-file=" + dir.resolve("munge.key"), "--pid-file=/run/munge/munged.pid",
                "--log-file=" + dir.resolve("munged-" + h + ".log"), "--seed-file=/run/munge/seed", "--force");
        if (r.exitCode() != 0) {
            throw new IOException("munged did not start on " + cluster.host(h) + ": " + r + logs());
        }
    }

    private void daemon(int h, String name, String... cmd) throws IOException, InterruptedException {
        Cluster.Result r = exec(h, Duration.ofSeconds(30), cmd);
        if (r.exitCode() != 0) {
            throw new IOException(name + " did not start on " + cluster.host(h) + ": " + r + logs());
        }
    }

    /** Waits until sinfo shows {@code hostCount} idle nodes. */
    private void awaitIdle(int hostCount) throws IOException, InterruptedException {
        long end = System.nanoTime() + IDLE_TIMEOUT.toNanos();
        Cluster.Result last = null;
        while (System.nanoTime() < end) {
            last = exec(0, Duration.ofSeconds(30), "sinfo", "-h", "-N", "-o", "%N %T");
            if (last.exitCode() == 0 && last.stdout().lines().filter(l -> l.endsWith(" idle")).count() == hostCount) {
                return;
            }
            Thread.sleep(250);
        }
        throw new IOException("the Slurm nodes were not all idle within " + IDLE_TIMEOUT.toSeconds() + " s; sinfo: "
                + last + logs());
    }
}
