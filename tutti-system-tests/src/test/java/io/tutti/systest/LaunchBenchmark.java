package io.tutti.systest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Start-up to the first completed barrier on the test cluster ({@link Cluster}, 4 hosts over ssh):
 * {@code tutti run --hostfile} of {@link FirstBarrier} against Open MPI's {@code mpirun --hostfile}
 * of the same program in C, by turns. A benchmark, not a test: run its main as root on a quiet
 * machine (the command is in docs/perf/launch.md). Arguments: rounds, then rank counts.
 */
public final class LaunchBenchmark {
    private LaunchBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        int[] counts = Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray();
        try (Cluster c = Cluster.start(4)) {
            Path dir = c.dir();
            Path source = dir.resolve("first_barrier.c");
            try (var in = LaunchBenchmark.class.getResourceAsStream("/first_barrier.c")) {
                Files.copy(in, source);
            }
            Path binary = dir.resolve("first_barrier");
            Process cc = new ProcessBuilder("mpicc", "-O2", "-o", binary.toString(), source.toString()).inheritIO()
                    .start();
            if (cc.waitFor() != 0) {
                throw new IllegalStateException("mpicc failed");
            }
            for (int n : counts) {
                int slots = (n + 3) / 4;
                Path hostfile = dir.resolve("hostfile-" + n);
                StringBuilder lines = new StringBuilder();
                for (String h : c.hosts()) {
                    lines.append(h).append(" slots=").append(slots).append('\n');
                }
                Files.writeString(hostfile, lines);
                List<Long> tutti = new ArrayList<>();
                List<Long> ompi = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    tutti.add(time(c, tuttiRun(c, hostfile, n)));
                    ompi.add(time(c, mpirun(c, hostfile, n, binary)));
                }
                System.out.printf("%d ranks: tutti run %s ms (median %d), mpirun %s ms (median %d), ratio %.2f%n", n,
                        tutti, median(tutti), ompi, median(ompi), (double) median(tutti) / median(ompi));
            }
        }
    }

    private static List<String> tuttiRun(Cluster c, Path hostfile, int n) {
        // the launcher as ./tutti starts it, the ranks with tutti run's own JVM options; TUTTI_NET_TIMEOUT_MS
        // from the benchmark's environment, since 32 ranks starting on 2 cores outlast the default 1.5 s
        List<String> env = new ArrayList<>(List.of("env"));
        String timeout = System.getenv("TUTTI_NET_TIMEOUT_MS");
        if (timeout != null) {
            env.add("TUTTI_NET_TIMEOUT_MS=" + timeout);
        }
        env.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", Launch.lib().toAbsolutePath() + "/*",
                "io.tutti.cli.Main", "run", "-n", Integer.toString(n), "--hostfile", hostfile.toString(),
                "--launch-agent", "ssh -F " + c.sshConfig(), "--timeout", "300s", "--cp", Launch.testClasses(),
                "io.tutti.systest.FirstBarrier"));
        return env;
    }

    private static List<String> mpirun(Cluster c, Path hostfile, int n, Path binary) {
        return new ArrayList<>(List.of("/usr/bin/mpirun.openmpi", "--allow-run-as-root", "-np", Integer.toString(n),
                "--hostfile", hostfile.toString(), "--oversubscribe", "--mca", "plm_rsh_agent", "ssh -F " + c.sshConfig(),
                "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include",
                "eth0", binary.toString()));
    }

    /** Milliseconds from starting {@code cmd} on host 0 to the barrier-done time it prints. */
    private static long time(Cluster c, List<String> cmd) throws Exception {
        long start = System.currentTimeMillis();
        Cluster.Result r = c.exec(0, Duration.ofSeconds(300), cmd.toArray(String[]::new));
        String done = r.stdout().lines().filter(l -> l.startsWith("barrier-done ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no barrier-done line: " + r));
        if (r.exitCode() != 0) {
            throw new IllegalStateException(r.toString());
        }
        return Long.parseLong(done.substring("barrier-done ".length())) - start;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
