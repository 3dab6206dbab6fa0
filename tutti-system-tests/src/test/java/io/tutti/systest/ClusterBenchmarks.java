package io.tutti.systest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the benchmarks on a {@link Cluster} share ({@link LaunchBenchmark}, {@link InterHostBenchmark}):
 * the command lines of Tutti's launcher and of Open MPI's {@code mpirun}, a C program built with
 * {@code mpicc} into the cluster's directory, a command run on a host that must succeed, medians,
 * and command lines printed so that they can be pasted into a shell.
 */
final class ClusterBenchmarks {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

    private ClusterBenchmarks() {
    }

    /** {@code env}, with the TUTTI_* settings of the benchmark's own environment, to start a job with. */
    static List<String> env() {
        // e.g. TUTTI_NET_TIMEOUT_MS for every rank, or TUTTI_LAUNCH_SHARED_SSH for the launcher
        List<String> env = new ArrayList<>(List.of("env"));
        new java.util.TreeMap<>(System.getenv()).forEach((k, v) -> {
            if (k.startsWith("TUTTI_")) {
                env.add(k + "=" + v);
            }
        });
        return env;
    }

    /** Tutti's launcher as {@code ./tutti} starts it, with {@code args}, after {@link #env}. */
    static List<String> tutti(String... args) {
        List<String> cmd = env();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(launcherCache());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", Launch.lib().toAbsolutePath() + "/*",
                "io.tutti.cli.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** The launcher's start-up cache flags the {@code tutti} script adds, when the cache has been made (the script's launcher_cache). */
    static List<String> launcherCache() {
        try {
            String dir = System.getenv().getOrDefault("TUTTI_AOT_CACHE_DIR", "");
            if (dir.equalsIgnoreCase("off")) {
                return List.of();
            }
            String xdg = System.getenv().getOrDefault("XDG_CACHE_HOME", "");
            Path base = !dir.isEmpty() ? Path.of(dir) : !xdg.isEmpty() ? Path.of(xdg, "tutti")
                    : Path.of(System.getProperty("user.home"), ".cache", "tutti");
            byte[] sum = java.security.MessageDigest.getInstance("SHA-256").digest(
                    Launch.lib().toRealPath().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            Path file = base.resolve("launcher-" + java.util.HexFormat.of().formatHex(sum, 0, 8) + ".aot");
            return java.nio.file.Files.isRegularFile(file) ? List.of("-XX:AOTCache=" + file, "-Xlog:aot=off,cds=off")
                    : List.of();
        } catch (java.io.IOException | java.security.NoSuchAlgorithmException e) {
            return List.of();
        }
    }

    /** Open MPI's mpirun of {@code program} with {@code placement}, over the cluster's ssh and its eth0 only. */
    static List<String> mpirun(Cluster c, List<String> placement, String btl, String... program) {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/mpirun.openmpi", "--allow-run-as-root"));
        cmd.addAll(placement);
        cmd.addAll(List.of("--mca", "plm_rsh_agent", "ssh -F " + c.sshConfig(), "--mca", "btl", btl, "--mca",
                "btl_tcp_if_include", "eth0", "--mca", "oob_tcp_if_include", "eth0"));
        cmd.addAll(List.of(program));
        return cmd;
    }

    /** Builds {@code source} (C) with {@code mpicc -O2} into the cluster's directory, which every host sees. */
    static Path mpicc(Cluster c, Path source) throws Exception {
        Path binary = c.dir().resolve(source.getFileName().toString().replaceFirst("\\.c$", ""));
        Process cc = new ProcessBuilder("mpicc", "-O2", "-o", binary.toString(), source.toString()).inheritIO().start();
        if (cc.waitFor() != 0) {
            throw new IllegalStateException("mpicc failed on " + source);
        }
        return binary;
    }

    /** As {@link #mpicc(Cluster, Path)}, for a C file among the test resources. */
    static Path mpicc(Cluster c, String resource) throws Exception {
        Path source = c.dir().resolve(resource);
        try (var in = ClusterBenchmarks.class.getResourceAsStream("/" + resource)) {
            Files.copy(in, source);
        }
        return mpicc(c, source);
    }

    /** Runs {@code hostCommand} (a {@link Cluster#command}) for at most {@code limit}; fails unless it exits 0. */
    static Cluster.Result succeed(List<String> hostCommand, Duration limit) throws Exception {
        Cluster.Result r = Cluster.run(hostCommand, limit);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(shell(hostCommand) + ": " + r);
        }
        return r;
    }

    /** The median of {@code values}, the upper one of an even count. */
    static <T extends Comparable<? super T>> T median(List<T> values) {
        List<T> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** {@code cmd} as a shell would take it: each word that is not plain in single quotes. */
    static String shell(List<String> cmd) {
        return cmd.stream().map(w -> PLAIN.matcher(w).matches() ? w : "'" + w.replace("'", "'\\''") + "'")
                .collect(Collectors.joining(" "));
    }
}
