package mpi;

/**
 * The (value, index) pair of MPI.LONG_INT, a long and an int laid out as C lays out the struct: the accessor of
 * {@link MPI#longInt} for the byte buffers that MAXLOC and MINLOC reduce.
 */
public final class LongInt extends Struct {
    private final int indexOffset;

    LongInt() {
        addLong();
        setOffset(8);
        indexOffset = addInt();
    }

    @Override
    protected LongInt.Data newData() {
        return new LongInt.Data();
    }

    /** One pair of a buffer. */
    public final class Data extends Struct.Data {
        public long getValue() {
            return getLong(0);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(long v) {
            putLong(0, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
