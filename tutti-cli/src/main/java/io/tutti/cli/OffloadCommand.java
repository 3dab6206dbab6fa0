package io.tutti.cli;

import io.tutti.TuttiException;
import io.tutti.reduce.OffloadAlu;
import io.tutti.offload.OffloadCompiler;
import io.tutti.offload.OffloadPlans;
import io.tutti.offload.OffloadProgram;
import io.tutti.coll.schedule.Schedule;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
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
            "  tutti offload plan --coll allgather --n 1000000", "  tutti offload plan --coll trinaryx3 --n 64"})
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
        reduce(OffloadPlans.Coll.REDUCE), allreduce(OffloadPlans.Coll.ALLREDUCE),
        /** [water-tank] §5.1's Trinaryx3 broadcast: single source with three pipelines through a rank. */
        trinaryx3(null);

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
                    + " per send, two per receive), then the maximum of counters, entries and checkpoints over the ranks"
                    + " and the paper's own figures ([water-tank] table 6, and 5.1.1 for trinaryx3) with why they differ.",
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
                + " barrier and allgather, the root's first child for bcast and trinaryx3, the root for reduce and"
                + " allreduce).")
        Integer rank;

        @Option(names = "--bytes", paramLabel = "B", defaultValue = "8",
                description = "Bytes per rank (default ${DEFAULT-VALUE}); reductions add 64-bit integers.")
        long bytes;

        @Option(names = "--root", paramLabel = "R", defaultValue = "0", description = "Root of bcast and reductions.")
        int root;

        @Option(names = "--segment", paramLabel = "B", defaultValue = "65536",
                description = "trinaryx3: bytes per pipeline segment (default ${DEFAULT-VALUE}).")
        long segment;

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
            int r = rank != null ? rank : reduction || n == 1 ? root
                    : coll == Coll.bcast || coll == Coll.trinaryx3 ? (root + 1) % n : 1;
            try {
                IntFunction<OffloadProgram> programs;
                IntFunction<Schedule> preMatched;
                if (coll == Coll.trinaryx3) {
                    if (segment < 1) {
                        err.println("tutti offload plan: --segment must be at least 1 byte");
                        return Launcher.EXIT_USAGE;
                    }
                    IntFunction<Schedule> t = OffloadPlans.trinaryx3(n, bytes, root, segment);
                    programs = x -> OffloadCompiler.singleSource(t, x);
                    preMatched = t;
                } else {
                    programs = x -> OffloadPlans.program(coll.plan, n, x, bytes, root, OffloadAlu.Op.ADD,
                            OffloadAlu.Type.INT64);
                    preMatched = x -> OffloadPlans.preMatched(coll.plan, n, x, bytes, root);
                }
                OffloadProgram p = programs.apply(r);
                Schedule pm = preMatched.apply(r);
                OffloadCompiler.Resources res = OffloadCompiler.resources(p, pm);
                out.printf(Locale.ROOT, "%s, N = %d, rank %d, %d B per rank%s%n", p.name(), n, r, bytes,
                        reduction || coll == Coll.bcast || coll == Coll.trinaryx3 ? ", root " + root : "");
                String fmt = "  %-44s %-22s %s%n";
                out.printf(Locale.ROOT, fmt, "", "offloaded", "pre-matched");
                out.printf(Locale.ROOT, fmt, "scheme", res.scheme() + (coll == Coll.allgather ? " (RTR/DAT/RTE)" : ""),
                        "send/recv");
                out.printf(Locale.ROOT, fmt, "counters", res.counters(), res.preMatchedCounters());
                out.printf(Locale.ROOT, fmt, "deferred-work entries", res.entries(), res.preMatchedEntries());
                out.printf(Locale.ROOT, fmt, "rounds", res.rounds(), res.preMatchedRounds());
                out.printf(Locale.ROOT, fmt, "checkpoints (distinct thresholds)", res.checkpoints(), "-");
                out.printf(Locale.ROOT, fmt, "arrivals counted per run", res.arrivals(), "-");
                OffloadPlans.Maxima m = OffloadPlans.maxima(programs, preMatched, n, root);
                out.printf(Locale.ROOT, "  maximum over %s:%n", m.examined() == n ? "all " + n + " ranks"
                        : m.examined() + " of " + n + " ranks (every role of the algorithm sampled)");
                out.printf(Locale.ROOT, fmt, "  counters", m.counters(), m.preMatchedCounters());
                out.printf(Locale.ROOT, fmt, "  deferred-work entries", m.entries(), m.preMatchedEntries());
                out.printf(Locale.ROOT, fmt, "  checkpoints (distinct thresholds; rounds)", m.checkpoints(),
                        m.preMatchedCheckpoints());
                paper(out, fmt, m);
                out.println("  pre-matched: one counter per send and two per receive of the host algorithm ("
                        + pm.name() + ").");
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

        /** The paper's own figures beside the measured ones, and why they differ. */
        private void paper(PrintWriter out, String fmt, OffloadPlans.Maxima m) {
            if (coll == Coll.barrier || coll == Coll.allgather) {
                int rounds = OffloadPlans.paperRounds(n);
                String lg = "floor(log2 N)" + (Integer.bitCount(n) == 1 ? "" : " + 2");
                out.printf(Locale.ROOT, fmt, "[water-tank] table 6, the paper's formula",
                        coll == Coll.allgather ? "1 (R = " + 2 * rounds + ")" : "1",
                        3 * rounds + " = " + rounds + " x 3");
                out.println("    (" + lg + " = " + rounds + " rounds; 3 counters per round pre-matched"
                        + (coll == Coll.allgather ? ", R = 2 checkpoints per round with data)" : ")"));
                out.println("  why they differ: the paper counts a send and a receive (3 counters, 2 checkpoints with"
                        + " data) in every round for every rank; in the butterfly a rank of a folded pair only sends or"
                        + " only receives in the fold rounds, and the other ranks skip them, so at most"
                        + " 3 floor(log2 N) + 3 counters; a checkpoint of the offloaded program is a distinct"
                        + " threshold of its one counter, which rounds without data share.");
            } else if (coll == Coll.trinaryx3) {
                out.printf(Locale.ROOT, fmt, "[water-tank] 5.1.1 (one segment)", "3", "9 = 6 receive + 3 send");
                out.println("  why they differ: the paper counts one counter per pipeline path and reuses the send/recv"
                        + " counters across segments; Tutti's program adds a completion counter that each path's"
                        + " counter bumps, and the pre-matched count here is per message (two per receive, one per"
                        + " send of every segment), which is how the paper reaches 2049 (K computer) and 129 (FX100)"
                        + " counters for a 128 MB pipelined broadcast.");
            }
        }
    }
}
