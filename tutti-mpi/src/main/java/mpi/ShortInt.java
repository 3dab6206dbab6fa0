package mpi;

/**
 * The (value, index) pair of MPI.SHORT_INT, a short and an int laid out as C lays out the struct: the accessor of
 * {@link MPI#shortInt} for the byte buffers that MAXLOC and MINLOC reduce.
 */
public final class ShortInt extends Struct {
    private final int indexOffset;

    ShortInt() {
        addShort();
        setOffset(4);
        indexOffset = addInt();
    }

    @Override
    protected ShortInt.Data newData() {
        return new ShortInt.Data();
    }

    /** One pair of a buffer. */
    public final class Data extends Struct.Data {
        public short getValue() {
            return getShort(0);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(short v) {
            putShort(0, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
