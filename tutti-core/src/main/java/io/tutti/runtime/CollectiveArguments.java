package io.tutti.runtime;

import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.TuttiException;
import io.tutti.UserOp;
import io.tutti.coll.Collectives;
import io.tutti.p2p.ArrayViews;
import io.tutti.reduce.Reduction;
import java.lang.foreign.MemorySegment;

/**
 * Turns a program's collective arguments (buffers, counts and displacements in elements) into what a
 * schedule takes: byte views of the buffers and per-rank block sizes and offsets in bytes, checking
 * them with errors that name the argument. The block arrays are reused from call to call so that
 * repeated calls allocate nothing; the schedule cache copies them when it keeps them.
 */
final class CollectiveArguments {
    private final int size;
    private final int rank;
    /** Segments over the arrays of recent collective calls: a loop on the same arrays allocates nothing. */
    private final ArrayViews arrayViews = new ArrayViews();
    private final long[] scratchBlocks;
    private final long[] scratchDispls;
    private final long[] scratchBlocks2;
    private final long[] scratchDispls2;

    /** What the per-rank arrays count, for errors: "this communicator has", or an intercommunicator's remote group. */
    private final String ranksOf;

    CollectiveArguments(int size, int rank) {
        this(size, rank, "this communicator has");
    }

    /** Per-rank arrays of {@code size} entries; {@code ranksOf} says whose ranks in errors ("the remote group has"). */
    CollectiveArguments(int size, int rank, String ranksOf) {
        this.ranksOf = ranksOf;
        this.size = size;
        this.rank = rank;
        this.scratchBlocks = new long[size];
        this.scratchDispls = new long[size];
        this.scratchBlocks2 = new long[size];
        this.scratchDispls2 = new long[size];
    }

    /**
     * Block sizes of a rooted call: every rank knows them for the regular call; for the v-call only
     * the root does, and the others' schedules (linear) need their own block only, so the unknown
     * entries are zero and the cache key depends on what this rank knows. Away from the root a
     * v-call's {@code counts} are not read (they may be null).
     */
    long[] rootedBlocks(boolean vector, int[] counts, int count, Datatype type, int root) {
        if (!vector) {
            return uniform(count, type);
        }
        if (rank == root) {
            return blocks(counts, count, type, "counts");
        }
        long[] b = uniform(0, type);
        b[rank] = (long) count * type.extent();
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        return b;
    }


    long[] blocks(int[] counts, int count, Datatype type, String what) {
        return fillBlocks(scratchBlocks, counts, count, type, what);
    }

    long[] blocks2(int[] counts, int count, Datatype type, String what) {
        return fillBlocks(scratchBlocks2, counts, count, type, what);
    }

    long[] uniform(int count, Datatype type) {
        return fillBlocks(scratchBlocks, null, count, type, "count");
    }

    long[] fillBlocks(long[] into, int[] counts, int count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (counts != null && counts.length != size) {
            throw new TuttiException.InvalidArgument(what + " has " + counts.length + " entries; " + ranksOf + " "
                    + size + " ranks");
        }
        for (int r = 0; r < into.length; r++) {
            int c = counts == null ? count : counts[r];
            if (c < 0) {
                throw new TuttiException.InvalidArgument((counts == null ? "count" : what + "[" + r + "]")
                        + " must not be negative, got " + c);
            }
            into[r] = (long) c * type.extent();
        }
        return into;
    }

    long[] displacements(int[] displs, long[] blocks, int count, Datatype type, String what) {
        return fillDispls(scratchDispls, displs, blocks, count, type, what);
    }

    long[] displacements2(int[] displs, long[] blocks, int count, Datatype type, String what) {
        return fillDispls(scratchDispls2, displs, blocks, count, type, what);
    }

    long[] fillDispls(long[] into, int[] displs, long[] blocks, int count, Datatype type, String what) {
        if (displs == null) {
            prefix(blocks, into);
            return into;
        }
        if (displs.length != size) {
            throw new TuttiException.InvalidArgument(what + " has " + displs.length + " entries; " + ranksOf + " "
                    + size + " ranks");
        }
        for (int r = 0; r < into.length; r++) {
            if (displs[r] < 0) {
                throw new TuttiException.InvalidArgument(what + "[" + r + "] must not be negative, got " + displs[r]);
            }
            into[r] = (long) displs[r] * type.extent();
        }
        return into;
    }

    /** Exclusive prefix sums of {@code blocks} into {@code into}; returns the total. */
    static long prefix(long[] blocks, long[] into) {
        long at = 0;
        for (int r = 0; r < blocks.length; r++) {
            into[r] = at;
            at += blocks[r];
        }
        return at;
    }

    /** Bytes a buffer needs to hold every block at its displacement. */
    static long extentOf(long[] blocks, long[] displs) {
        long end = 0;
        for (int r = 0; r < blocks.length; r++) {
            if (blocks[r] > 0) {
                end = Math.max(end, displs[r] + blocks[r]);
            }
        }
        return end;
    }


    static void checkOp(ReduceOp op, UserOp userOp, Datatype type) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (op == null && userOp == null) {
            throw new TuttiException.InvalidArgument("reduction operation is null");
        }
        if (op != null) {
            op.check(type);
        }
    }

    /** {@link io.tutti.Communicator#reduceLocal}: {@code inout = in op inout}, element by element. */
    void reduceLocal(Object in, Object inout, int count, Datatype type, ReduceOp op, UserOp userOp) {
        checkOp(op, userOp, type);
        if (userOp != null && count >= 0) {
            Collectives.wholeItems((long) count * type.extent(), type, Math.max(1, userOp.elementsPerItem()));
        }
        MemorySegment dst = view(inout, count, type, "inout buffer");
        MemorySegment src = view(in, count, type, "in buffer");
        if (op != null) {
            Reduction.apply(op, type, dst, 0, src, 0, count);
        } else {
            Reduction.apply(userOp, type, dst, 0, src, 0, count);
        }
    }

    /** A byte view of {@code count} elements of {@code type} at the start of {@code buf}. */
    MemorySegment view(Object buf, long count, Datatype type, String what) {
        if (type == null) {
            throw new TuttiException.InvalidArgument("datatype is null");
        }
        if (count < 0) {
            throw new TuttiException.InvalidArgument("count must not be negative, got " + count);
        }
        long bytes = count * type.extent();
        MemorySegment s = switch (buf) {
            case null -> throw new TuttiException.InvalidArgument(what + " is null");
            case MemorySegment m -> m;
            case byte[] a when type.base() == Datatype.BYTE -> arrayViews.of(a);
            case short[] a when type.base() == Datatype.SHORT -> arrayViews.of(a);
            case char[] a when type.base() == Datatype.CHAR -> arrayViews.of(a);
            case int[] a when type.base() == Datatype.INT -> arrayViews.of(a);
            case long[] a when type.base() == Datatype.LONG -> arrayViews.of(a);
            case float[] a when type.base() == Datatype.FLOAT -> arrayViews.of(a);
            case double[] a when type.base() == Datatype.DOUBLE -> arrayViews.of(a);
            default -> throw new TuttiException.InvalidArgument(what + " of type " + buf.getClass().getSimpleName()
                    + " does not hold " + type + " elements (use a " + type.base().name().toLowerCase(
                    java.util.Locale.ROOT) + "[] or a MemorySegment)");
        };
        if (s.byteSize() < bytes) {
            throw new TuttiException.InvalidArgument(what + " holds " + s.byteSize() + " bytes, fewer than the "
                    + count + " " + type + " elements (" + bytes + " bytes) of this call");
        }
        // not sliced: a slice is an object per call, and the schedule's regions never pass the byte
        // count checked here
        return s;
    }

    static long bytes(int count, Datatype type) {
        return (long) count * type.extent();
    }

    /** A view of the first {@code bytes} bytes (whole elements) of {@code buf}. */
    MemorySegment viewBytes(Object buf, long bytes, Datatype type, String what) {
        return view(buf, bytes / type.extent(), type, what);
    }

    /** The per-rank displacements last filled by {@link #blocks} (exclusive prefix sums): reduceScatter's layout. */
    long[] prefixDispls() {
        return scratchDispls;
    }
}
