package mpi;

/**
 * The (value, index) pair of MPI.DOUBLE_INT, a double and an int laid out as C lays out the struct: the accessor of
 * {@link MPI#doubleInt} for the byte buffers that MAXLOC and MINLOC reduce.
 */
public final class DoubleInt extends Struct {
    private final int indexOffset;

    DoubleInt() {
        addDouble();
        setOffset(8);
        indexOffset = addInt();
    }

    @Override
    protected DoubleInt.Data newData() {
        return new DoubleInt.Data();
    }

    /** One pair of a buffer. */
    public final class Data extends Struct.Data {
        public double getValue() {
            return getDouble(0);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(double v) {
            putDouble(0, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
