package mpi;

/**
 * The (value, index) pair of MPI.INT2, two ints laid out as C lays out the struct: the accessor of
 * {@link MPI#int2} for the byte buffers that MAXLOC and MINLOC reduce.
 */
public final class Int2 extends Struct {
    private final int indexOffset;

    Int2() {
        addInt();
        setOffset(4);
        indexOffset = addInt();
    }

    @Override
    protected Int2.Data newData() {
        return new Int2.Data();
    }

    /** One pair of a buffer. */
    public final class Data extends Struct.Data {
        public int getValue() {
            return getInt(0);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(int v) {
            putInt(0, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
