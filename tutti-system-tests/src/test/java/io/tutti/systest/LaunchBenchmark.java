package io.tutti.systest;

import static io.tutti.systest.ClusterBenchmarks.median;
import static io.tutti.systest.ClusterBenchmarks.shell;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Start-up to the first completed barrier on the test cluster (4 hosts over ssh): {@code tutti run
 * --hostfile} of {@link FirstBarrier} against Open MPI's {@code mpirun --hostfile} of the same
 * program in C, by turns. With {@code --srun} the cluster also runs Slurm ({@link SlurmCluster}),
 * and Tutti's side is {@code srun --mpi=pmi2} of the rank JVMs instead; mpirun still starts its
 * ranks over the same hosts' sshd. A benchmark, not a test: run its main as root on a quiet machine
 * (the commands are in docs/perf/launch.md). Arguments: rounds, then {@code --srun} or not, then
 * {@code --also K=V} for a second Tutti line with that setting (by turns with the first), or
 * {@code --threads} for a second line of {@code tutti run --threads --hostfile} (one JVM per host,
 * its ranks as threads), or {@code --threads-only} for that line alone (a JVM per rank at 64 ranks
 * takes minutes on 2 cores), or none of these, then rank counts.
 */
public final class LaunchBenchmark {
    private static final Duration JOB_LIMIT = Duration.ofSeconds(300);

    private LaunchBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        boolean srun = args.length > 1 && args[1].equals("--srun");
        int at = srun ? 2 : 1;
        // --also K=V: a second Tutti line with that setting, by turns with the first
        String also = args.length > at + 1 && args[at].equals("--also") ? args[at + 1] : null;
        at += also == null ? 0 : 2;
        // --threads: the second line is tutti run --threads, one JVM per host
        boolean threads = !srun && also == null && args.length > at && args[at].equals("--threads");
        at += threads ? 1 : 0;
        // --threads-only: tutti run --threads is Tutti's only line
        boolean threadsOnly = !srun && also == null && !threads && args.length > at
                && args[at].equals("--threads-only");
        at += threadsOnly ? 1 : 0;
        String variant = threads ? "--threads" : also;
        int[] counts = Arrays.stream(args, at, args.length).mapToInt(Integer::parseInt).toArray();
        // a SlurmCluster is a Cluster with Slurm's daemons added: closing the cluster stops them too
        SlurmCluster slurm = srun ? SlurmCluster.start(4) : null;
        try (Cluster c = srun ? slurm.cluster() : Cluster.start(4)) {
            Path binary = ClusterBenchmarks.mpicc(c, "first_barrier.c");
            String side = srun ? "srun" : threadsOnly ? "tutti run --threads" : "tutti run";
            for (int n : counts) {
                Path hostfile = hostfile(c, n);
                List<String> tutti = srun ? slurm.command(0, srun(n).toArray(String[]::new))
                        : c.command(0, tuttiRun(c, hostfile, n, threadsOnly).toArray(String[]::new));
                List<String> ompi = c.command(0, ClusterBenchmarks.mpirun(c, List.of("-np", Integer.toString(n),
                        "--hostfile", hostfile.toString(), "--oversubscribe"), "self,vader,tcp", binary.toString())
                        .toArray(String[]::new));
                List<String> other = null;
                if (also != null) {
                    other = new ArrayList<>(tutti);
                    // after the cluster's nsenter words, where the job's own env starts
                    other.add(other.indexOf("env") + 1, also);
                } else if (threads) {
                    other = c.command(0, tuttiRun(c, hostfile, n, true).toArray(String[]::new));
                }
                System.out.println("# " + side + ": " + shell(tutti));
                if (other != null) {
                    System.out.println("# " + side + " with " + variant + ": " + shell(other));
                }
                System.out.println("# mpirun: " + shell(ompi));
                List<Long> tuttiMs = new ArrayList<>();
                List<Long> otherMs = new ArrayList<>();
                List<Long> ompiMs = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    tuttiMs.add(time(tutti));
                    if (other != null) {
                        otherMs.add(time(other));
                    }
                    ompiMs.add(time(ompi));
                }
                System.out.printf("%d ranks: %s %s ms (median %d), mpirun %s ms (median %d), ratio %.2f%n", n, side,
                        tuttiMs, median(tuttiMs), ompiMs, median(ompiMs),
                        (double) median(tuttiMs) / median(ompiMs));
                if (other != null) {
                    System.out.printf("%d ranks: %s with %s %s ms (median %d), ratio %.2f%n", n, side, variant, otherMs,
                            median(otherMs), (double) median(otherMs) / median(ompiMs));
                }
            }
        }
    }

    /** A hostfile of the cluster's 4 hosts with n/4 slots each (rounded up), in the cluster's directory. */
    private static Path hostfile(Cluster c, int n) throws Exception {
        StringBuilder lines = new StringBuilder();
        for (String h : c.hosts()) {
            lines.append(h).append(" slots=").append((n + 3) / 4).append('\n');
        }
        return Files.writeString(c.dir().resolve("hostfile-" + n), lines);
    }

    /** The launcher as ./tutti starts it; the ranks get tutti run's own JVM options; {@code threads}: one JVM per host. */
    private static List<String> tuttiRun(Cluster c, Path hostfile, int n, boolean threads) {
        List<String> run = new ArrayList<>(List.of("run", "-n", Integer.toString(n), "--hostfile", hostfile.toString(),
                "--launch-agent", "ssh -F " + c.sshConfig(), "--timeout", "300s", "--cp", Launch.testClasses(),
                "io.tutti.systest.FirstBarrier"));
        if (threads) {
            run.add(1, "--threads");
        }
        return ClusterBenchmarks.tutti(run.toArray(String[]::new));
    }

    /** srun of n rank JVMs on the 4 hosts, block by block as the hostfile's slots; each host has only 2 CPUs. */
    private static List<String> srun(int n) {
        List<String> cmd = ClusterBenchmarks.env();
        cmd.addAll(List.of("srun", "--mpi=pmi2", "--overcommit", "-N", "4", "-n", Integer.toString(n)));
        List<String> java = SlurmIT.java("FirstBarrier");
        // the JVM options tutti run gives its ranks, so that only the launcher differs
        java.add(1, "-XX:+UseSerialGC");
        cmd.addAll(java);
        return cmd;
    }

    /** Milliseconds from starting {@code hostCommand} to the barrier-done time it prints. */
    private static long time(List<String> hostCommand) throws Exception {
        long start = System.currentTimeMillis();
        Cluster.Result r = ClusterBenchmarks.succeed(hostCommand, JOB_LIMIT);
        String done = r.stdout().lines().filter(l -> l.startsWith("barrier-done ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no barrier-done line: " + r));
        return Long.parseLong(done.substring("barrier-done ".length())) - start;
    }
}
