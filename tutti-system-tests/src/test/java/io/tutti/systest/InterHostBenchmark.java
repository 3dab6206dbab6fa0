package io.tutti.systest;

import static io.tutti.systest.ClusterBenchmarks.median;
import static io.tutti.systest.ClusterBenchmarks.shell;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Point-to-point latency and bandwidth between two hosts of the test cluster ({@link Cluster}), one
 * rank on each: {@code tutti bench latency|bw} over Tutti's rails (UDP, the default) against Open
 * MPI's {@code bench/ompi/pingpong.c} over its TCP BTL, both started from the first host over ssh
 * and by turns in every round. A benchmark, not a test: run its main as root on a quiet machine (the
 * command is in docs/perf/launch.md). Arguments: rounds, then {@code --sizes LIST} (bytes, default
 * 8,1024,65536,1048576), {@code --modes latency,bw}, {@code --iters N} and {@code --warmup N}
 * (without them each side picks its own counts per size). Prints, per benchmark and size, each
 * round's figure, the medians and their ratio, Tutti over Open MPI.
 */
public final class InterHostBenchmark {
    private static final Duration RUN_LIMIT = Duration.ofSeconds(600);
    private static final List<String> OPTIONS = List.of("--sizes", "--modes", "--iters", "--warmup");

    private InterHostBenchmark() {
    }

    /** The two commands of one benchmark, Tutti's and Open MPI's, and their figures: size to one a round. */
    private record Pair(String mode, List<String> tutti, List<String> ompi, Map<Long, List<Double>> tuttiFigures,
            Map<Long, List<Double>> ompiFigures) {
        Pair(String mode, List<String> tutti, List<String> ompi) {
            this(mode, tutti, ompi, new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        Map<String, String> o = new LinkedHashMap<>(Map.of("--sizes", "8,1024,65536,1048576", "--modes", "latency,bw"));
        for (int i = 1; i < args.length; i += 2) {
            if (!OPTIONS.contains(args[i]) || i + 1 == args.length) {
                throw new IllegalArgumentException("usage: InterHostBenchmark ROUNDS [--sizes LIST] [--modes"
                        + " latency,bw] [--iters N] [--warmup N]; not understood: " + args[i]);
            }
            o.put(args[i], args[i + 1]);
        }
        List<Long> sizes = List.of(o.get("--sizes").split(",")).stream().map(Long::parseLong).toList();
        // the options both programs take alike, as plain byte counts: pingpong.c reads no k or m suffixes
        List<String> shared = new ArrayList<>();
        for (String key : List.of("--sizes", "--iters", "--warmup")) {
            if (o.containsKey(key)) {
                shared.addAll(List.of(key, o.get(key)));
            }
        }
        try (Cluster c = Cluster.start(2)) {
            List<Pair> pairs = pairs(c, o.get("--modes").split(","), shared);
            for (int round = 0; round < rounds; round++) {
                for (Pair p : pairs) {
                    record(run(p.tutti(), round), sizes, p.tuttiFigures());
                    record(run(p.ompi(), round), sizes, p.ompiFigures());
                }
                System.out.println("# round " + (round + 1) + " of " + rounds + " done");
            }
            for (Pair p : pairs) {
                String unit = p.mode().equals("latency") ? "us" : "MB/s";
                for (long size : sizes) {
                    List<Double> tutti = p.tuttiFigures().get(size);
                    List<Double> ompi = p.ompiFigures().get(size);
                    System.out.printf(Locale.ROOT, "%s %d B: tutti %s %s (median %.2f), mpirun %s %s (median %.2f),"
                            + " ratio %.2f%n", p.mode(), size, tutti, unit, median(tutti), ompi, unit, median(ompi),
                            median(tutti) / median(ompi));
                }
            }
        }
    }

    /** Per benchmark, the command lines on host 0 of both sides, rank 0 there and rank 1 on host 1; printed. */
    private static List<Pair> pairs(Cluster c, String[] modes, List<String> shared) throws Exception {
        Path source = Path.of(System.getProperty("tutti.bench", "../bench")).resolve("ompi/pingpong.c");
        Path binary = ClusterBenchmarks.mpicc(c, source.toAbsolutePath());
        String hosts = c.host(0) + ":1," + c.host(1) + ":1";
        List<Pair> pairs = new ArrayList<>();
        for (String mode : modes) {
            List<String> tutti = ClusterBenchmarks.tutti("bench", mode, "-n", "2", "--host", hosts,
                    "--launch-agent", "ssh -F " + c.sshConfig(), "--timeout", "540s");
            tutti.addAll(shared);
            List<String> ompi = ClusterBenchmarks.mpirun(c, List.of("-np", "2", "--host", hosts), "self,tcp",
                    binary.toString(), mode);
            ompi.addAll(shared);
            Pair p = new Pair(mode, c.command(0, tutti.toArray(String[]::new)), c.command(0,
                    ompi.toArray(String[]::new)));
            System.out.println("# tutti " + mode + ": " + shell(p.tutti()));
            System.out.println("# mpirun " + mode + ": " + shell(p.ompi()));
            pairs.add(p);
        }
        return pairs;
    }

    /** Runs one side's benchmark; in the first round prints its header lines (what it ran, with which MPI). */
    private static Cluster.Result run(List<String> hostCommand, int round) throws Exception {
        Cluster.Result r = ClusterBenchmarks.succeed(hostCommand, RUN_LIMIT);
        if (round == 0) {
            r.stdout().lines().filter(l -> l.startsWith("#")).forEach(l -> System.out.println("#   " + l));
        }
        return r;
    }

    /** Adds each size's figure of a run to {@code figures}: column 2 of its rows, as both programs print them. */
    private static void record(Cluster.Result r, List<Long> sizes, Map<Long, List<Double>> figures) {
        Map<Long, Double> rows = new LinkedHashMap<>();
        for (String line : r.stdout().lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList()) {
            String[] f = line.split("\\s+");
            try {
                rows.put(Long.parseLong(f[0]), Double.parseDouble(f[1]));
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IllegalStateException("not a row of size and figure: '" + line + "' in " + r, e);
            }
        }
        if (!rows.keySet().containsAll(sizes)) {
            throw new IllegalStateException("not every size of " + sizes + " has a row: " + r);
        }
        sizes.forEach(size -> figures.computeIfAbsent(size, k -> new ArrayList<>()).add(rows.get(size)));
    }
}
