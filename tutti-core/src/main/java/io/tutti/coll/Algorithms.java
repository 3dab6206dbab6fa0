package io.tutti.coll;

import java.util.Locale;
import java.util.Map;

/**
 * Chooses the algorithm for a collective call and builds its schedule. The choice can be forced per
 * operation with {@code TUTTI_COLL_<OP>=<algorithm>} (for example {@code TUTTI_COLL_ALLREDUCE=
 * recursive-doubling}) so that benchmarks can compare them.
 */
public final class Algorithms {
    /** The algorithms available per operation; the first is the default. */
    public static final Map<String, String[]> AVAILABLE = Map.of(
            "barrier", new String[] {"dissemination"},
            "bcast", new String[] {"binomial"},
            "reduce", new String[] {"binomial"},
            "allreduce", new String[] {"recursive-doubling"});

    private final Map<String, String> env;

    public Algorithms(Map<String, String> env) {
        this.env = env;
    }

    /** The algorithm to use for {@code operation}, as forced by the environment or the default. */
    public String choose(String operation) {
        String[] known = AVAILABLE.get(operation);
        String forced = env.get("TUTTI_COLL_" + operation.toUpperCase(Locale.ROOT));
        if (forced == null || forced.isBlank()) {
            return known[0];
        }
        for (String k : known) {
            if (k.equals(forced.trim())) {
                return k;
            }
        }
        throw new io.tutti.TuttiException.InvalidArgument("TUTTI_COLL_" + operation.toUpperCase(Locale.ROOT) + "="
                + forced + " is not an algorithm for " + operation + "; choose one of " + String.join(", ", known));
    }

    public Schedule barrier(int rank, int size) {
        choose("barrier");
        return DisseminationBarrier.build(rank, size);
    }

    public Schedule bcast(int rank, int size, long bytes, int root) {
        choose("bcast");
        return BinomialBcast.build(rank, size, bytes, root);
    }

    public Schedule reduce(int rank, int size, long bytes, int root, boolean inPlace, boolean commutative) {
        choose("reduce");
        return BinomialReduce.build(rank, size, bytes, root, inPlace, commutative);
    }

    public Schedule allreduce(int rank, int size, long bytes, boolean inPlace) {
        choose("allreduce");
        return RecursiveDoublingAllreduce.build(rank, size, bytes, inPlace);
    }
}
