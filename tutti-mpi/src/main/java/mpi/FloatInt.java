package mpi;

/**
 * The (value, index) pair of MPI.FLOAT_INT, a float and an int laid out as C lays out the struct: the accessor of
 * {@link MPI#floatInt} for the byte buffers that MAXLOC and MINLOC reduce.
 */
public final class FloatInt extends Struct {
    private final int indexOffset;

    FloatInt() {
        addFloat();
        setOffset(4);
        indexOffset = addInt();
    }

    @Override
    protected FloatInt.Data newData() {
        return new FloatInt.Data();
    }

    /** One pair of a buffer. */
    public final class Data extends Struct.Data {
        public float getValue() {
            return getFloat(0);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(float v) {
            putFloat(0, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
