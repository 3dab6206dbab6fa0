package io.tutti;

import java.util.Objects;

/**
 * The operations of a one-sided accumulate ({@link Window#accumulate}, {@link Window#getAccumulate},
 * {@link Window#fetchAndOp}): every {@link ReduceOp}, with its meaning and its types, and MPI's two
 * operations that exist only there: {@link #REPLACE} (the target element becomes the origin's, an
 * atomic put) and {@link #NO_OP} (the target is left as it is, an atomic get in getAccumulate). A type
 * of its own rather than two more {@code ReduceOp}s, because the collectives cannot run those two.
 */
public enum AccumulateOp {
    SUM(ReduceOp.SUM), PROD(ReduceOp.PROD), MAX(ReduceOp.MAX), MIN(ReduceOp.MIN), MAXLOC(ReduceOp.MAXLOC),
    MINLOC(ReduceOp.MINLOC), LAND(ReduceOp.LAND), LOR(ReduceOp.LOR), LXOR(ReduceOp.LXOR), BAND(ReduceOp.BAND),
    BOR(ReduceOp.BOR), BXOR(ReduceOp.BXOR),
    /** The target element becomes the origin element (MPI_REPLACE); on every type. */
    REPLACE(null),
    /** The target element is left unchanged (MPI_NO_OP); on every type, the origin buffer is not read. */
    NO_OP(null);

    private final ReduceOp reduceOp;

    AccumulateOp(ReduceOp reduceOp) {
        this.reduceOp = reduceOp;
    }

    /** The reduction this operation applies; null for {@link #REPLACE} and {@link #NO_OP}. */
    public ReduceOp reduceOp() {
        return reduceOp;
    }

    /** The accumulate operation of a reduction: {@code of(ReduceOp.SUM) == SUM}. */
    public static AccumulateOp of(ReduceOp op) {
        return values()[Objects.requireNonNull(op, "op").ordinal()];
    }

    /**
     * Throws unless this operation is defined on {@code type}: REPLACE and NO_OP on every type, the
     * reductions as {@link ReduceOp#check} says.
     */
    public void check(Datatype type) {
        Objects.requireNonNull(type, "datatype");
        if (reduceOp != null) {
            reduceOp.check(type);
        }
    }
}
