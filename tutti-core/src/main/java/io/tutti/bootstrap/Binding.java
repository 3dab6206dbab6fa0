package io.tutti.bootstrap;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.os.Affinity;
import io.tutti.os.CpuTopology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a rank's main thread may run, as mpirun's {@code --bind-to}: {@code core} binds the local
 * rank k to the k-th physical core this process may use (all its hardware threads), {@code socket}
 * to that core's package, {@code none} leaves it to the scheduler. The thread that starts Tutti is
 * bound, and the threads it starts later; the JVM's compiler and collector threads keep every
 * processor. As mpirun does, nothing is bound when the host's ranks outnumber its cores.
 */
public enum Binding {
    NONE, CORE, SOCKET;

    public static final String PROPERTY = "tutti.bind";
    /**
     * None: two jobs on one host would both bind their first rank to the first core; binding pays
     * where another process takes a core (docs/perf/contention.md), so it is the user's choice.
     */
    public static final Binding DEFAULT = NONE;

    /** The job's setting; a clear error for anything but none, core or socket. */
    public static Binding from(Config config) {
        String v = config.text(PROPERTY, DEFAULT.name()).trim().toUpperCase(Locale.ROOT);
        for (Binding b : values()) {
            if (b.name().equals(v)) {
                return b;
            }
        }
        throw new TuttiException.InvalidArgument(PROPERTY + " (or " + Config.envName(PROPERTY)
                + ") must be none, core or socket, got '" + v.toLowerCase(Locale.ROOT) + "'");
    }

    /**
     * Binds the calling thread as local rank {@code localRank} of {@code localSize}; returns the
     * processors it is bound to, empty when nothing was bound (none, oversubscribed, or refused).
     */
    public List<Integer> apply(int localRank, int localSize) {
        if (this == NONE) {
            return List.of();
        }
        Map<String, List<Integer>> cores = new LinkedHashMap<>();
        for (int cpu : Affinity.allowed()) {
            cores.computeIfAbsent(CpuTopology.coreOf(cpu), k -> new ArrayList<>()).add(cpu);
        }
        if (cores.isEmpty() || localSize > cores.size()) {
            return List.of();
        }
        List<Integer> core = new ArrayList<>(cores.values()).get(localRank % cores.size());
        List<Integer> target = core;
        if (this == SOCKET) {
            int pkg = CpuTopology.packageOf(core.get(0));
            target = cores.values().stream().flatMap(List::stream).filter(c -> CpuTopology.packageOf(c) == pkg)
                    .toList();
        }
        return Affinity.bind(target) ? target : List.of();
    }
}
