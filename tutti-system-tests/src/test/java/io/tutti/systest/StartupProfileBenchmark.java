package io.tutti.systest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the start-up time of {@code tutti run --hostfile} goes on the test cluster ({@link Cluster}):
 * runs {@link StartupProfile} under each of several variants by turns and prints, per run, the time
 * to the first barrier, the ranks' CPU time (to main, to the end of init, in the barrier) and their
 * threads' CPU, which hold on a loaded machine where wall-clock times do not. A benchmark, not a
 * test (docs/perf/launch.md, "Start-up, round two"). Arguments: rounds, then variants
 * {@code N[:K=V,...]}: N ranks, {@code K=V} in the launcher's environment, with {@code LIB=dir} a
 * launcher and Tutti jars other than the build's and {@code LATE=ms} the last rank's delay.
 */
public final class StartupProfileBenchmark {
    private StartupProfileBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        try (Cluster c = Cluster.start(4)) {
            for (int round = 0; round < rounds; round++) {
                for (int v = 1; v < args.length; v++) {
                    run(c, args[v], round);
                }
            }
        }
    }

    private static void run(Cluster c, String variant, int round) throws Exception {
        String[] parts = variant.split(":", 2);
        int n = Integer.parseInt(parts[0]);
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-f", "launcher-cpu-s %U %S", "env"));
        String lib = Launch.lib().toAbsolutePath().toString();
        String late = "0";
        for (String kv : parts.length > 1 ? parts[1].split(",") : new String[0]) {
            if (kv.startsWith("LIB=")) {
                lib = kv.substring(4);
            } else if (kv.startsWith("LATE=")) {
                late = kv.substring(5);
            } else {
                cmd.add(kv);
            }
        }
        Path hostfile = c.dir().resolve("hostfile-" + n);
        StringBuilder lines = new StringBuilder();
        for (String h : c.hosts()) {
            lines.append(h).append(" slots=").append((n + 3) / 4).append('\n');
        }
        Files.writeString(hostfile, lines);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-cp", lib + "/*", "io.tutti.cli.Main", "run",
                "-n", Integer.toString(n), "--hostfile", hostfile.toString(), "--launch-agent", "ssh -F " + c.sshConfig(),
                "--timeout", "300s", "--cp", Launch.testClasses(), "io.tutti.systest.StartupProfile", "--late-ms", late));
        long start = System.currentTimeMillis();
        Cluster.Result r = c.exec(0, Duration.ofSeconds(320), cmd.toArray(String[]::new));
        System.out.println(summary(variant, round, start, r));
    }

    /** One line: exit code, ms to the barrier, the last rank's start and init, the ranks' CPU ms, the busiest threads. */
    private static String summary(String variant, int round, long start, Cluster.Result r) {
        long barrier = -1;
        long lastStart = 0;
        long lastInit = 0;
        long toMain = 0;
        long toInit = 0;
        long total = 0;
        long waitCpu = 0;
        long waitMs = 0;
        Map<String, Long> threads = new TreeMap<>();
        for (String l : r.stdout().lines().toList()) {
            if (l.startsWith("barrier-done ")) {
                barrier = Long.parseLong(l.substring(13)) - start;
            }
            if (!l.startsWith("profile ")) {
                continue;
            }
            String[] halves = l.split(" threads: ", 2);
            Map<String, Long> f = new HashMap<>();
            for (String kv : halves[0].substring(8).split(" ")) {
                String[] p = kv.split("=");
                f.put(p[0], Long.parseLong(p[1]));
            }
            for (String kv : halves.length > 1 ? halves[1].split(" ") : new String[0]) {
                String[] p = kv.split("=");
                if (p.length == 2) {
                    threads.merge(p[0], Long.parseLong(p[1]), Long::sum);
                }
            }
            lastStart = Math.max(lastStart, f.get("start") - start);
            lastInit = Math.max(lastInit, f.get("init") - start);
            toMain += f.get("cpuMain");
            toInit += f.get("cpuInit");
            total += f.get("cpuDone");
            // a rank that waited over a second in the barrier waited for the late one
            if (f.get("done") - f.get("init") > 1000) {
                waitCpu += f.get("cpuDone") - f.get("cpuInit");
                waitMs += f.get("done") - f.get("init");
            }
        }
        String launcher = r.stderr().lines().filter(l -> l.startsWith("launcher-cpu-s")).findFirst().orElse("");
        StringBuilder top = new StringBuilder();
        threads.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(4)
                .forEach(e -> top.append(' ').append(e.getKey()).append('=').append(e.getValue()));
        return String.format("%s round %d: exit %d, barrier %d ms, last rank started %d ms, last init %d ms;"
                        + " rank CPU %d ms (to main %d, to init %d)%s; %s; threads:%s", variant, round, r.exitCode(),
                barrier, lastStart, lastInit, total, toMain, toInit, waitMs == 0 ? ""
                        : String.format(", waiting %d ms CPU per s", waitCpu * 1000 / waitMs), launcher, top);
    }
}
