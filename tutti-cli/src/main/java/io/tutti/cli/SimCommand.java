package io.tutti.cli;

import io.tutti.TuttiException;
import io.tutti.bench.Sizes;
import io.tutti.coll.Selector;
import io.tutti.coll.schedule.CollectiveCall.Kind;
import io.tutti.sim.ExperimentOutput;
import io.tutti.sim.Fabric;
import io.tutti.sim.Fit;
import io.tutti.sim.IncAllreduceExperiment;
import io.tutti.sim.NicReduceExperiment;
import io.tutti.sim.PaperCell;
import io.tutti.sim.PaperExperiment;
import io.tutti.sim.SimExperiment;
import io.tutti.sim.SimParams;
import io.tutti.sim.SimulationException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tutti sim}: the discrete-event simulator. {@code tutti sim run} simulates a collective,
 * built by the same schedule builders as the real one, over a range of node counts and sizes, and
 * prints the completion time of each (all ranks start at t0, until the last finishes).
 */
@Command(name = "sim", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        synopsisSubcommandLabel = "COMMAND",
        description = "Simulates collectives on modelled hosts, NICs, links and switches.",
        subcommands = {SimCommand.Run.class, SimCommand.Experiment.class})
public final class SimCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("tutti sim: give a command, e.g. tutti sim run --coll bcast --nodes 1024 --sizes 8");
        err.println();
        spec.commandLine().usage(err);
        return Launcher.EXIT_USAGE;
    }

    /** {@code tutti sim run}: one collective over node counts × sizes. */
    @Command(name = "run", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
            versionProvider = Main.Version.class, sortOptions = false,
            description = {
                "Simulates a collective and prints its completion time (all ranks start at t0 until the last"
                    + " finishes) for every node count and size.",
                "",
                "--network loggp: LogGOPSim's eager LogGP model without contention (L, o, g, G, O in ns);"
                    + " --network packet: packets over --topology with link latency, bandwidth, switch delay and"
                    + " (by default) one packet at a time per link direction. Parameters default to [BCL-3]'s"
                    + " inter-node figures; see docs/sim/README.md.",
            },
            footer = {
                "",
                "Lists are comma separated; numbers accept k, m, g suffixes (powers of 1024) and 2^N.",
                "Topologies: crossbar, fattree:k=K[,n=N], leafspine:hosts=H,spines=S, bcl3[:links=W,hosts=H].",
                "",
                "Examples:",
                "  tutti sim run --coll bcast --algorithm binomial --nodes 2^20 --sizes 8",
                "  tutti sim run --coll barrier --algorithm dissemination --nodes 2^20",
                "  tutti sim run --coll allreduce --algorithm ring --nodes 16,64,256 --sizes 8,64k,1m --plot ar.png",
                "  tutti sim run --coll alltoall --network packet --topology bcl3:links=2 --nodes 16,32,64 --sizes 64k",
                "  tutti sim run --coll allreduce --mode switch --algorithm socket --topology leafspine:hosts=3,spines=2 \\",
                "      --nodes 4,9,16 --ppn 32 --sizes 4,64,256 --dtype int --calibration docs/sim/inc-allreduce.cal",
            })
    public static final class Run implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--coll", required = true, paramLabel = "C",
                description = "Collective: barrier, bcast, reduce, allreduce, reducescatter, scan, exscan, gather,"
                        + " scatter, allgather, alltoall.")
        String coll;

        @Option(names = "--algorithm", paramLabel = "A", description = "Algorithm (default: the selector's choice).")
        String algorithm;

        @Option(names = "--mode", paramLabel = "host|nic|switch", defaultValue = "host",
                description = "What the ranks execute (default ${DEFAULT-VALUE}): host runs the collective's schedule on"
                        + " the CPUs, nic the offload engine's deferred-work program on the NICs, switch aggregates an"
                        + " allreduce in the ToR and spine switches (--algorithm node|socket picks the leaders; always"
                        + " over the packet network's links, --topology leafspine:... or crossbar).")
        String mode;

        @Option(names = "--network", paramLabel = "loggp|packet", defaultValue = "loggp",
                description = "Network model (default ${DEFAULT-VALUE}).")
        String network;

        @Option(names = "--topology", paramLabel = "T", defaultValue = "crossbar",
                description = "Fabric of the packet network (default ${DEFAULT-VALUE}).")
        String topology;

        @Option(names = "--nodes", required = true, split = ",", converter = Sizes.class, paramLabel = "LIST",
                description = "Node counts, e.g. 16,64,2^20.")
        List<Long> nodes;

        @Option(names = "--ppn", paramLabel = "K", defaultValue = "1", description = "Ranks per node (default ${DEFAULT-VALUE}).")
        int ppn;

        @Option(names = "--sizes", split = ",", converter = Sizes.class, paramLabel = "LIST", defaultValue = "8",
                description = "Bytes per rank (per block for block collectives), e.g. 8,1k,1m (default ${DEFAULT-VALUE}).")
        List<Long> sizes;

        @Option(names = "--dtype", paramLabel = "D", defaultValue = "byte",
                description = "Element type: byte, int, long, float, double (default ${DEFAULT-VALUE}).")
        String dtype;

        @Option(names = "--L", paramLabel = "NS", description = "LogGP latency (ns).")
        String latency;

        @Option(names = "--o", paramLabel = "NS", description = "LogGP overhead (ns), send and receive alike.")
        String overhead;

        @Option(names = "--g", paramLabel = "NS", description = "LogGP gap per message (ns).")
        String gap;

        @Option(names = "--G", paramLabel = "NS", description = "LogGP gap per byte (ns/B).")
        String gapPerByte;

        @Option(names = "--O", paramLabel = "NS", description = "CPU overhead per byte (ns/B).")
        String overheadPerByte;

        @Option(names = "--set", paramLabel = "NAME=VALUE", description = "Any other model parameter (repeatable),"
                + " e.g. --set link_ns_per_byte=0.1 --set contention=false.")
        List<String> set = new ArrayList<>();

        @Option(names = "--calibration", paramLabel = "FILE", description = "Calibration file (docs/sim/*.cal);"
                + " the options above override it.")
        Path calibration;

        @Option(names = "--json", description = "Print one JSON object per result row instead of a table.")
        boolean json;

        @Option(names = "--csv", paramLabel = "FILE", description = "Also write the rows as CSV.")
        Path csv;

        @Option(names = "--plot", paramLabel = "FILE", description = "Also write a PNG plot of completion time.")
        Path plot;

        @Option(names = "--no-progress", description = "No progress bar on standard error.")
        boolean noProgress;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            List<SimExperiment.Spec> specs;
            try {
                specs = specs();
            } catch (IllegalArgumentException | TuttiException.InvalidArgument | IOException e) {
                err.println("tutti sim run: " + e.getMessage());
                return Launcher.EXIT_USAGE;
            }
            List<SimExperiment.Row> rows = new ArrayList<>();
            if (!json) {
                out.printf("%-13s %-20s %-6s %-7s %9s %5s %12s %16s %12s%n", "coll", "algorithm", "mode", "network",
                        "nodes", "ppn", "size", "completion(us)", "events");
            }
            for (SimExperiment.Spec s : specs) {
                SimExperiment.Row r;
                try (ProgressDisplay bar = progress(s.coll().settingName() + " " + s.nodes() + "x" + s.ppn() + " "
                        + (s.coll() == Kind.BARRIER ? 0 : s.size()) + " B", noProgress)) {
                    r = SimExperiment.run(s, bar::fraction);
                } catch (IllegalArgumentException | TuttiException.InvalidArgument | SimulationException e) {
                    err.println("tutti sim run: " + e.getMessage());
                    return e instanceof SimulationException ? 1 : Launcher.EXIT_USAGE;
                }
                rows.add(r);
                if (json) {
                    out.println(r.json());
                } else {
                    out.printf(Locale.ROOT, "%-13s %-20s %-6s %-7s %9d %5d %12d %16.3f %12d%n", r.coll(), r.algorithm(),
                            r.mode(), r.network(), r.nodes(), r.ppn(), r.size(), r.completionNs() / 1e3, r.events());
                }
                out.flush();
            }
            try {
                if (csv != null) {
                    SimExperiment.writeCsv(csv, rows);
                }
                if (plot != null) {
                    SimExperiment.plot(plot, rows);
                }
            } catch (RuntimeException e) {
                err.println("tutti sim run: " + e.getMessage());
                return 1;
            }
            return 0;
        }

        /** The points to run, in order: node counts outer, sizes inner. */
        List<SimExperiment.Spec> specs() throws IOException {
            String m = mode.toLowerCase(Locale.ROOT);
            if (!SimExperiment.MODES.contains(m)) {
                throw new IllegalArgumentException("--mode must be host, nic or switch, got '" + mode + "'");
            }
            // switch mode carries its packets over its own ToR and spine links, with the packet network's parameters
            String net = m.equals("switch") ? "packet" : network.toLowerCase(Locale.ROOT);
            if (!SimExperiment.NETWORKS.contains(net)) {
                throw new IllegalArgumentException("--network must be loggp or packet, got '" + network + "'");
            }
            Kind kind = SimExperiment.kind(coll);
            if (m.equals("switch")) {
                if (kind != Kind.ALLREDUCE) {
                    throw new IllegalArgumentException("--mode switch aggregates allreduce only, not " + kind.settingName());
                }
                if (algorithm != null && !SimExperiment.LEADERS.contains(algorithm.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("--mode switch: --algorithm names the leaders, node or socket;"
                            + " got '" + algorithm + "'");
                }
            } else if (algorithm != null) {
                Selector.check(kind, algorithm, "--algorithm");
            }
            if (ppn < 1) {
                throw new IllegalArgumentException("--ppn must be at least 1");
            }
            int extent = switch (dtype.toLowerCase(Locale.ROOT)) {
                case "byte" -> 1;
                case "int", "float" -> 4;
                case "long", "double" -> 8;
                default -> throw new IllegalArgumentException("--dtype must be byte, int, long, float or double");
            };
            SimParams params = SimParams.defaults();
            if (calibration != null) {
                params = params.withCalibration(calibration);
            }
            Map<String, String> over = overrides(set);
            putIf(over, "L", latency);
            if (overhead != null) {
                over.put("o_s", overhead);
                over.put("o_r", overhead);
            }
            putIf(over, "g", gap);
            putIf(over, "G", gapPerByte);
            putIf(over, "O", overheadPerByte);
            params = params.with(over);
            List<SimExperiment.Spec> out = new ArrayList<>();
            for (long n : nodes) {
                if (n < 1 || n > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("--nodes: " + n + " is not a node count");
                }
                if (net.equals("packet") && !m.equals("switch")) {
                    // checked before any run, so that a bad point fails at once rather than after hours
                    Fabric.parse(topology, (int) n);
                }
                for (long size : sizes) {
                    if (size < 0) {
                        throw new IllegalArgumentException("--sizes must not be negative");
                    }
                    out.add(new SimExperiment.Spec(kind, algorithm, m, net, topology, (int) n, ppn, size, extent,
                            params));
                }
            }
            return out;
        }

        /** {@code --set NAME=VALUE} options as a map. */
        static Map<String, String> overrides(List<String> set) {
            Map<String, String> over = new LinkedHashMap<>();
            for (String kv : set) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--set wants NAME=VALUE, got '" + kv + "'");
                }
                over.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
            return over;
        }

        private static void putIf(Map<String, String> m, String k, String v) {
            if (v != null) {
                m.put(k, v);
            }
        }
    }


    /** {@code tutti sim experiment}: the papers' published tables, simulated side by side. */
    @Command(name = "experiment", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
            versionProvider = Main.Version.class, sortOptions = false,
            description = {
                "Reproduces a paper's published experiment and prints its tables with the published values, the"
                    + " simulated ones and the relative error side by side.",
                "",
                "nic-reduce: [NIC-reduce] tables 1-5 (reduction of 16-48 B doubles on 16-256 fat-tree nodes, without and"
                    + " with NIC offload); calibrated on the 16-node column.",
                "inc-allreduce: [RoCE-INC] tables 4-6 (allreduce of 4-256 B on 4, 9 and 16 nodes at PPN 8, 32, 64:"
                    + " host, switch Node mode, switch Socket mode); calibrated on the 4-node table.",
                "bcl3-latency, bcl3-bandwidth, bcl3-barrier, bcl3-bisection, bcl3-dual-nic, bcl3-collectives: [BCL-3]"
                    + " tables 5.4, 5.6, 5.8; 5.5, 5.7, 5.9; 5.10; 5.17; 6.2; 5.11-5.14, 5.16 from its LogGP and"
                    + " host-interface tables (docs/sim/bcl3.cal).",
                "mnc-rails: [MNC] one and two rails, two flows on one link (docs/sim/mnc.cal).",
                "tutti-rma: Tutti's own put, get, putbw and getbw over its rails, predicted from their two-sided"
                    + " LogGP figures (docs/sim/tutti-rails.cal) beside what the benchmarks measured.",
            },
            footer = {
                "",
                "Examples:",
                "  tutti sim experiment nic-reduce",
                "  tutti sim experiment nic-reduce --fit --json",
                "  tutti sim experiment inc-allreduce --calibration docs/sim/inc-allreduce.cal",
                "  tutti sim experiment inc-allreduce --out results/   # CSV, JSON, PNG and SVG",
                "  tutti sim experiment bcl3-dual-nic --fit",
            })
    public static final class Experiment implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "nic-reduce, inc-allreduce, bcl3-latency, bcl3-bandwidth,"
                + " bcl3-barrier, bcl3-bisection, bcl3-dual-nic, bcl3-collectives, mnc-rails or tutti-rma.")
        String name;

        @Option(names = "--calibration", paramLabel = "FILE", description = "Calibration file (default:"
                + " docs/sim/NAME.cal under the current directory).")
        Path calibration;

        @Option(names = "--fit", description = "Fit the free parameters on the calibration column first (the"
                + " calibration file's values are the starting point) and print them.")
        boolean fit;

        @Option(names = "--coll", paramLabel = "reduce|allreduce", defaultValue = "reduce",
                description = "nic-reduce only: the operation (default ${DEFAULT-VALUE}; allreduce sends the result down"
                        + " the whole tree).")
        String coll;

        @Option(names = "--host-algorithm", paramLabel = "A", description = "The host side's algorithm (default:"
                + " binomial for nic-reduce, recursive-doubling with --coll allreduce and for inc-allreduce, as"
                + " [RoCE-INC]'s Open MPI 4.0.5 runs small allreduces; 'selector' for Tutti's choice).")
        String hostAlgorithm;

        @Option(names = "--topology", paramLabel = "T", description = "Fabric (default: fattree:k=4 for nic-reduce,"
                + " leafspine:hosts=3,spines=2 for inc-allreduce).")
        String topology;

        @Option(names = "--set", paramLabel = "NAME=VALUE", description = "Override a parameter of the calibration"
                + " (repeatable).")
        List<String> set = new ArrayList<>();

        @Option(names = "--json", description = "One JSON object per cell instead of tables.")
        boolean json;

        @Option(names = "--out", paramLabel = "DIR", description = "Also write NAME.csv, NAME.json (the cells) and"
                + " NAME.png, NAME.svg (paper against simulation) into DIR.")
        Path outDir;

        @Option(names = "--no-progress", description = "No progress bar on standard error.")
        boolean noProgress;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String n = name.toLowerCase(Locale.ROOT);
            PaperExperiment paper = PaperExperiment.all().get(n);
            if (!n.equals("nic-reduce") && !n.equals("inc-allreduce") && paper == null) {
                err.println("tutti sim experiment: unknown experiment '" + name + "'; choose nic-reduce, inc-allreduce, "
                        + String.join(", ", new java.util.TreeSet<>(PaperExperiment.all().keySet())));
                return Launcher.EXIT_USAGE;
            }
            Path cal = calibration != null ? calibration
                    : Path.of("docs", "sim", paper != null ? paper.calibration() : n + ".cal");
            SimParams params;
            try {
                if (!Files.isRegularFile(cal)) {
                    throw new IllegalArgumentException("calibration file " + cal + " not found; run from the source"
                            + " tree or give --calibration FILE (docs/sim/" + n + ".cal)");
                }
                params = SimParams.defaults().withCalibration(cal);
                params = params.with(Run.overrides(set));
            } catch (IllegalArgumentException | IOException e) {
                err.println("tutti sim experiment: " + e.getMessage());
                return Launcher.EXIT_USAGE;
            }
            try (ProgressDisplay bar = progress(n, noProgress)) {
                if (paper != null) {
                    bar.close();
                    if (fit) {
                        params = printFit(paper.fit(params), params, err);
                    }
                    List<PaperCell> cells = paper.run(params);
                    print(out, cells, json, PaperCell.format(paper.title(), cells, PaperExperiment.TARGET));
                    written(n, paper.title(), cells, PaperExperiment.TARGET, err);
                } else if (n.equals("nic-reduce")) {
                    Kind k = SimExperiment.kind(coll);
                    NicReduceExperiment.Options o = new NicReduceExperiment.Options(k,
                            hostAlgorithm, topology != null ? topology : "fattree:k=4");
                    if (fit) {
                        params = printFit(NicReduceExperiment.fit(params, o), params, err);
                    }
                    List<NicReduceExperiment.Cell> cells = NicReduceExperiment.run(params, o,
                            bar::fraction);
                    bar.close();
                    print(out, cells, json, NicReduceExperiment.format(cells, o));
                    written(n, NicReduceExperiment.TITLE + ", " + o.coll().settingName(), cells,
                            NicReduceExperiment.BAR, err);
                } else {
                    IncAllreduceExperiment.Options o = new IncAllreduceExperiment.Options(
                            hostAlgorithm, topology != null ? topology : "leafspine:hosts=3,spines=2");
                    if (fit) {
                        params = printFit(IncAllreduceExperiment.fit(params, o, bar::fraction), params, err);
                    }
                    List<IncAllreduceExperiment.Cell> cells = IncAllreduceExperiment.run(
                            params, o, bar::fraction);
                    bar.close();
                    print(out, cells, json, IncAllreduceExperiment.format(cells, o));
                    written(n, IncAllreduceExperiment.TITLE, cells, IncAllreduceExperiment.BAR, err);
                }
            } catch (IllegalArgumentException | TuttiException.InvalidArgument e) {
                err.println("tutti sim experiment: " + e.getMessage());
                return Launcher.EXIT_USAGE;
            } catch (SimulationException | java.io.UncheckedIOException e) {
                err.println("tutti sim experiment: " + e.getMessage());
                return 1;
            }
            out.flush();
            return 0;
        }

        /** The cells as JSON lines, or the tables. */
        private static void print(PrintWriter out, List<? extends ExperimentOutput.Cell> cells, boolean json,
                                  String tables) {
            if (json) {
                cells.forEach(c -> out.println(c.json()));
            } else {
                out.print(tables);
            }
        }

        /** With {@code --out}: the files, named on standard error. */
        private void written(String n, String title, List<? extends ExperimentOutput.Cell> cells, double bar,
                             PrintWriter err) {
            if (outDir != null) {
                for (Path f : ExperimentOutput.write(outDir, n, title, cells, bar)) {
                    err.println("wrote " + f);
                }
                err.flush();
            }
        }

        private static SimParams printFit(List<Fit.Result> fits, SimParams params, PrintWriter err) {
            SimParams p = params;
            for (Fit.Result f : fits) {
                err.println("fit: " + f.describe());
                p = Fit.with(p, f.names(), f.value());
            }
            err.flush();
            return p;
        }
    }

    /** A run's progress bar on a terminal, from its second second on; none with {@code --no-progress}. */
    static ProgressDisplay progress(String task, boolean off) {
        return ProgressDisplay.start(task, 100, "", Duration.ofSeconds(1), !off);
    }
}
