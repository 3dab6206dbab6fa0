package io.tutti.cli;

import io.tutti.TuttiException;
import io.tutti.reduce.OffloadAlu;
import io.tutti.offload.OffloadCompiler;
import io.tutti.offload.OffloadPlans;
import io.tutti.offload.OffloadProgram;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tutti offload}: the offload engine's plans. {@code plan} compiles a collective for N ranks
 * into deferred work and prints the resources one rank's program needs, next to what the
 * send/recv-based ("pre-matched") offload of the same algorithm would need, and with {@code --dump}
 * the rank's deferred-work list in the water-tank paper's columns.
 */
@Command(name = "offload", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, versionProvider = Main.Version.class,
        description = "Offloaded collectives (counters and deferred work): resource plans.",
        subcommands = {OffloadCommand.Plan.class},
        footer = {"", "Examples:", "  tutti offload plan --coll barrier --n 8 --dump",
            "  tutti offload plan --coll allgather --n 1000000"})
public final class OffloadCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("tutti offload: give a command: plan");
        return Launcher.EXIT_USAGE;
    }

    /** The collectives {@code plan} knows, as users type them. */
    enum Coll {
        barrier(OffloadPlans.Coll.BARRIER), allgather(OffloadPlans.Coll.ALLGATHER), bcast(OffloadPlans.Coll.BCAST),
        reduce(OffloadPlans.Coll.REDUCE), allreduce(OffloadPlans.Coll.ALLREDUCE);

        final OffloadPlans.Coll plan;

        Coll(OffloadPlans.Coll plan) {
            this.plan = plan;
        }
    }

    /** {@code tutti offload plan}. */
    @Command(name = "plan", mixinStandardHelpOptions = true, usageHelpAutoWidth = true, sortOptions = false,
            versionProvider = Main.Version.class,
            description = {
                "Compiles a collective for N ranks into counters and deferred work and prints one rank's resources:"
                    + " offloaded (water-tank 2^n buckets for barrier and allgather, single-source branch for bcast,"
                    + " NIC reduction tree for reduce and allreduce) against pre-matched (send/recv offload: a counter"
                    + " per send, two per receive).",
                "",
                "--dump prints the rank's deferred-work list: Rq (position), Ct (triggering counter), Th (threshold),"
                    + " Ot (operation), Iv/Cl/Cr (remote add value / local add / add made by a landing packet),"
                    + " Pq (peer), Ci (counter added to).",
            })
    static final class Plan implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--coll", required = true, paramLabel = "COLL",
                description = "The collective: ${COMPLETION-CANDIDATES}.")
        Coll coll;

        @Option(names = "--n", required = true, paramLabel = "N", description = "Number of ranks (any N >= 1).")
        int n;

        @Option(names = "--rank", paramLabel = "R", description = "The rank to report (default: a busy one: 1 for"
                + " barrier and allgather, the root's first child for bcast, the root for reduce and allreduce).")
        Integer rank;

        @Option(names = "--bytes", paramLabel = "B", defaultValue = "8",
                description = "Bytes per rank (default ${DEFAULT-VALUE}); reductions add 64-bit integers.")
        long bytes;

        @Option(names = "--root", paramLabel = "R", defaultValue = "0", description = "Root of bcast and reductions.")
        int root;

        @Option(names = "--dump", description = "Print the rank's deferred-work list.")
        boolean dump;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            if (n < 1 || root < 0 || root >= n || bytes < 0 || (rank != null && (rank < 0 || rank >= n))) {
                err.println("tutti offload plan: need N >= 1, 0 <= --rank, --root < N and --bytes >= 0");
                return Launcher.EXIT_USAGE;
            }
            boolean reduction = coll == Coll.reduce || coll == Coll.allreduce;
            int r = rank != null ? rank : reduction || n == 1 ? root : coll == Coll.bcast ? (root + 1) % n : 1;
            try {
                OffloadProgram p = OffloadPlans.program(coll.plan, n, r, bytes, root, OffloadAlu.Op.ADD,
                        OffloadAlu.Type.INT64);
                OffloadCompiler.Resources res = OffloadCompiler.resources(p,
                        OffloadPlans.preMatched(coll.plan, n, r, bytes, root));
                out.printf(Locale.ROOT, "%s, N = %d, rank %d, %d B per rank%s%n", p.name(), n, r, bytes,
                        reduction || coll == Coll.bcast ? ", root " + root : "");
                String fmt = "  %-44s %-22s %s%n";
                out.printf(Locale.ROOT, fmt, "", "offloaded", "pre-matched");
                out.printf(Locale.ROOT, fmt, "scheme", res.scheme() + (coll == Coll.allgather ? " (RTR/DAT/RTE)" : ""),
                        "send/recv");
                out.printf(Locale.ROOT, fmt, "counters", res.counters(), res.preMatchedCounters());
                out.printf(Locale.ROOT, fmt, "deferred-work entries", res.entries(), res.preMatchedEntries());
                out.printf(Locale.ROOT, fmt, "rounds", res.rounds(), res.preMatchedRounds());
                out.printf(Locale.ROOT, fmt, "checkpoints (distinct thresholds)", res.checkpoints(), "-");
                out.printf(Locale.ROOT, fmt, "arrivals counted per run", res.arrivals(), "-");
                if (coll == Coll.barrier || coll == Coll.allgather) {
                    out.printf(Locale.ROOT, fmt, "counters, 3 per round ([water-tank] table 6)", "-",
                            3 * res.preMatchedRounds());
                }
                out.println("  pre-matched: one counter per send and two per receive of the host algorithm ("
                        + OffloadPlans.preMatched(coll.plan, n, r, bytes, root).name() + ").");
                if (dump) {
                    out.println();
                    out.print(p.dump());
                }
                out.flush();
                return 0;
            } catch (TuttiException e) {
                err.println("tutti offload plan: " + e.getMessage());
                return Launcher.EXIT_USAGE;
            }
        }
    }
}
