package mpi;

import io.tutti.Datatype;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link MPI#MAXLOC} and {@link MPI#MINLOC} of the (value, int index) pairs whose value is no
 * {@code int}: {@link MPI#SHORT_INT}, {@link MPI#LONG_INT}, {@link MPI#FLOAT_INT}, {@link MPI#DOUBLE_INT}.
 * Tutti's pair types hold two values of one type, so these run as user operations on the structs'
 * bytes in native order, laid out as C lays them out (the value at 0, the index after its padding).
 * MPI's rule: the larger (smaller) value with its index; of equal values, the smaller index.
 */
enum PairLocation implements io.tutti.UserOp {
    SHORT_MAX(Datatype.SHORT, 4, 8, true), SHORT_MIN(Datatype.SHORT, 4, 8, false),
    LONG_MAX(Datatype.LONG, 8, 16, true), LONG_MIN(Datatype.LONG, 8, 16, false),
    FLOAT_MAX(Datatype.FLOAT, 4, 8, true), FLOAT_MIN(Datatype.FLOAT, 4, 8, false),
    DOUBLE_MAX(Datatype.DOUBLE, 8, 16, true), DOUBLE_MIN(Datatype.DOUBLE, 8, 16, false);

    private static final ValueLayout.OfInt INDEX = ValueLayout.JAVA_INT_UNALIGNED;

    private final Datatype value;
    private final int indexOffset;
    private final int extent;
    private final boolean max;

    PairLocation(Datatype value, int indexOffset, int extent, boolean max) {
        this.value = value;
        this.indexOffset = indexOffset;
        this.extent = extent;
        this.max = max;
    }

    /** MAXLOC ({@code max}) or MINLOC of the pair type {@code kind}: SHORT_INT, LONG_INT, FLOAT_INT or DOUBLE_INT. */
    static PairLocation of(int kind, boolean max) {
        return switch (kind) {
            case mpi.Datatype.SHORT_INT -> max ? SHORT_MAX : SHORT_MIN;
            case mpi.Datatype.LONG_INT -> max ? LONG_MAX : LONG_MIN;
            case mpi.Datatype.FLOAT_INT -> max ? FLOAT_MAX : FLOAT_MIN;
            case mpi.Datatype.DOUBLE_INT -> max ? DOUBLE_MAX : DOUBLE_MIN;
            default -> throw new IllegalArgumentException("no (value, int index) pair type of kind " + kind);
        };
    }

    @Override
    public void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count,
                      Datatype type) {
        for (long at = 0; at + extent <= count; at += extent) {
            long x = inOffset + at;
            long y = inoutOffset + at;
            int c = compare(in, x, inout, y);
            int i = in.get(INDEX, x + indexOffset);
            if (max ? c > 0 : c < 0) {
                MemorySegment.copy(in, x, inout, y, indexOffset + 4);
            } else if (c == 0 && i < inout.get(INDEX, y + indexOffset)) {
                inout.set(INDEX, y + indexOffset, i);
            }
        }
    }

    /** The sign of {@code a - b} for the values at {@code x} and {@code y}, as C's {@code <} and {@code >} see them. */
    private int compare(MemorySegment a, long x, MemorySegment b, long y) {
        switch (value) {
            case SHORT -> {
                return Short.compare(a.get(ValueLayout.JAVA_SHORT_UNALIGNED, x), b.get(ValueLayout.JAVA_SHORT_UNALIGNED, y));
            }
            case LONG -> {
                return Long.compare(a.get(ValueLayout.JAVA_LONG_UNALIGNED, x), b.get(ValueLayout.JAVA_LONG_UNALIGNED, y));
            }
            case FLOAT -> {
                float u = a.get(ValueLayout.JAVA_FLOAT_UNALIGNED, x);
                float v = b.get(ValueLayout.JAVA_FLOAT_UNALIGNED, y);
                return u > v ? 1 : u < v ? -1 : 0;
            }
            default -> {
                double u = a.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, x);
                double v = b.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, y);
                return u > v ? 1 : u < v ? -1 : 0;
            }
        }
    }

    /** A struct's bytes: the collectives split only between them. */
    @Override
    public int elementsPerItem() {
        return extent;
    }
}
