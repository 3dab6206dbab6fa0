package mpi;

import io.tutti.Datatype;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@link MPI#PROD} of {@link MPI#FLOAT_COMPLEX} and {@link MPI#DOUBLE_COMPLEX} numbers, which Tutti
 * carries as pairs of {@code float}s or {@code double}s (real, imaginary): its predefined PROD would
 * multiply the parts one by one, so the collectives run this as a user operation instead,
 * {@code (a + bi)(c + di) = (ac - bd) + (ad + bc)i}. Commutative, as complex multiplication is.
 */
enum ComplexProduct implements io.tutti.UserOp {
    INSTANCE;

    @Override
    public void apply(MemorySegment inout, long inoutOffset, MemorySegment in, long inOffset, long count,
                      Datatype type) {
        if (type == Datatype.FLOAT) {
            ValueLayout.OfFloat f = ValueLayout.JAVA_FLOAT_UNALIGNED;
            for (long i = 0; i + 1 < count; i += 2) {
                long x = inOffset + 4 * i;
                long y = inoutOffset + 4 * i;
                float a = in.get(f, x);
                float b = in.get(f, x + 4);
                float c = inout.get(f, y);
                float d = inout.get(f, y + 4);
                inout.set(f, y, a * c - b * d);
                inout.set(f, y + 4, a * d + b * c);
            }
        } else {
            ValueLayout.OfDouble f = ValueLayout.JAVA_DOUBLE_UNALIGNED;
            for (long i = 0; i + 1 < count; i += 2) {
                long x = inOffset + 8 * i;
                long y = inoutOffset + 8 * i;
                double a = in.get(f, x);
                double b = in.get(f, x + 8);
                double c = inout.get(f, y);
                double d = inout.get(f, y + 8);
                inout.set(f, y, a * c - b * d);
                inout.set(f, y + 8, a * d + b * c);
            }
        }
    }

    /** A number's two parts, which the collectives must not split. */
    @Override
    public int elementsPerItem() {
        return 2;
    }
}
