// CPU time of a whole start (all processes of the machine, /proc/stat), tutti run --threads against mpirun
// on the four-host fixture. Compile against tutti-system-tests' test classes (the class path of
// "How to run the cluster benchmarks") and run as root: java ... io.tutti.systest.Cpu RANKS ROUNDS
package io.tutti.systest;
import java.nio.file.*; import java.util.*;
public final class Cpu {
    static long[] stat() throws Exception {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0, idle = 0;
        for (int i = 1; i < f.length; i++) { long v = Long.parseLong(f[i]); if (i == 4 || i == 5) idle += v; else busy += v; }
        return new long[] {busy, idle};
    }
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]); int rounds = Integer.parseInt(a[1]);
        try (Cluster c = Cluster.start(4)) {
            Path binary = ClusterBenchmarks.mpicc(c, "first_barrier.c");
            StringBuilder lines = new StringBuilder();
            for (String h : c.hosts()) lines.append(h).append(" slots=").append((n + 3) / 4).append('\n');
            Path hf = Files.writeString(c.dir().resolve("hostfile-" + n), lines);
            List<String> tutti = c.command(0, ClusterBenchmarks.tutti("run", "--threads", "-n", Integer.toString(n), "--hostfile", hf.toString(),
                    "--launch-agent", "ssh -F " + c.sshConfig(), "--timeout", "300s", "--cp", Launch.testClasses(),
                    "io.tutti.systest.FirstBarrier").toArray(String[]::new));
            List<String> ompi = c.command(0, ClusterBenchmarks.mpirun(c, List.of("-np", Integer.toString(n),
                    "--hostfile", hf.toString(), "--oversubscribe"), "self,vader,tcp", binary.toString()).toArray(String[]::new));
            for (int r = 0; r < rounds; r++) {
                for (List<String> cmd : List.of(tutti, ompi)) {
                    Thread.sleep(1000);
                    long[] s0 = stat(); long t0 = System.nanoTime();
                    ClusterBenchmarks.succeed(cmd, java.time.Duration.ofMinutes(3));
                    long[] s1 = stat(); long t1 = System.nanoTime();
                    System.out.printf("%s wall %.2f s, CPU busy %.2f s (all cores, whole job to exit)%n", cmd == tutti ? "tutti" : "mpirun",
                        (t1 - t0) / 1e9, (s1[0] - s0[0]) / 100.0);
                }
            }
        }
    }
}
