package io.tutti.offload;

import io.tutti.Config;
import io.tutti.TuttiException;
import java.util.List;

/**
 * Settings of the offloaded persistent collectives, read once from the job's {@link Config}: how
 * {@code barrierInit(Offload.NIC)} and {@code allreduceInit(..., Offload.NIC)} are compiled, each a
 * property name ({@code tutti.offload.allreduce}, or {@code TUTTI_OFFLOAD_ALLREDUCE} in the
 * environment) with {@code auto} as its default. docs/guide/configuration.md lists them all.
 *
 * @param allreduce {@code linear} (one round: every rank's vector to every other), {@code
 *                  recursive-doubling} (on one counter, every receive in a region of its own),
 *                  {@code nic-tree} (the NIC reduction tree with triggered broadcast), or {@code auto}:
 *                  linear when the ranks share one node, recursive doubling otherwise
 * @param barrier   {@code butterfly} (the 2^n scheme of [water-tank], log2 P rounds), {@code linear}
 *                  (one round: a counter add into every peer), or {@code auto}: linear when the ranks
 *                  share one node, the butterfly otherwise
 */
public record OffloadConfig(String allreduce, String barrier) {
    public static final String ALLREDUCE = "tutti.offload.allreduce";
    public static final String BARRIER = "tutti.offload.barrier";
    /** The default of both: chosen by where the ranks run ({@link #allreduceScheme}, {@link #barrierScheme}). */
    public static final String AUTO = "auto";
    public static final List<String> ALLREDUCE_SCHEMES = List.of("recursive-doubling", "nic-tree", "linear");
    public static final List<String> BARRIER_SCHEMES = List.of("butterfly", "linear");

    public OffloadConfig {
        check(ALLREDUCE, allreduce, ALLREDUCE_SCHEMES);
        check(BARRIER, barrier, BARRIER_SCHEMES);
    }

    /** Defaults only: both {@code auto}. */
    public static OffloadConfig defaults() {
        return new OffloadConfig(AUTO, AUTO);
    }

    /** The offload settings of a job. */
    public static OffloadConfig from(Config c) {
        return new OffloadConfig(c.text(ALLREDUCE, AUTO), c.text(BARRIER, AUTO));
    }

    /**
     * The allreduce scheme, {@code auto} resolved: {@code linear} on one node (a message is then a copy
     * into the peer's shared memory, so one round of P − 1 beats log2 P rounds of one), else
     * {@code recursive-doubling}.
     *
     * @param oneNode whether every rank shares this node and one counter can hold the P − 1 arrivals
     */
    public String allreduceScheme(boolean oneNode) {
        return allreduce.equals(AUTO) ? oneNode ? "linear" : "recursive-doubling" : allreduce;
    }

    /**
     * The barrier scheme, {@code auto} resolved: {@code linear} on one node (a signal is then a store
     * into shared memory), else {@code butterfly}.
     *
     * @param oneNode as for {@link #allreduceScheme}
     */
    public String barrierScheme(boolean oneNode) {
        return barrier.equals(AUTO) ? oneNode ? "linear" : "butterfly" : barrier;
    }

    private static void check(String property, String value, List<String> schemes) {
        if (!value.equals(AUTO) && !schemes.contains(value)) {
            throw new TuttiException.InvalidArgument(Config.envName(property) + " (or " + property + ") must be auto, "
                    + String.join(", ", schemes) + "; got '" + value + "'");
        }
    }
}
