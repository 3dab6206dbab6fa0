package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A record type over byte buffers: a subclass adds its fields in its constructor ({@link #addInt},
 * {@link #addDouble}, ..., {@link #setOffset} for a gap), each at the next offset, and defines a
 * {@link Data} class whose getters and setters read them at an item of a buffer
 * ({@link #getData}). {@link #getType} is the matching derived datatype ({@link Datatype#createStruct}),
 * for sending items of byte buffers. The pair types {@link MPI#int2}, {@link MPI#doubleInt}, ... are
 * such structs.
 */
public abstract class Struct {
    int extent;
    private final List<int[]> fields = new ArrayList<>();       // offset, length
    private final List<Datatype> types = new ArrayList<>();
    private Datatype datatype;

    private void commit() throws MPIException {
        if (datatype == null) {
            int n = fields.size();
            int[] lengths = new int[n];
            int[] offsets = new int[n];
            for (int i = 0; i < n; i++) {
                offsets[i] = fields.get(i)[0];
                lengths[i] = fields.get(i)[1];
            }
            Datatype t = Datatype.createStruct(lengths, offsets, types.toArray(new Datatype[0]));
            t.commit();
            extent = t.getExtent();
            datatype = t;
        }
    }

    /** Bytes from one item to the next in a buffer (the type's extent, alignment padding included). */
    public final int getExtent() throws MPIException {
        commit();
        return extent;
    }

    /** The datatype of one item; no field can be added once it is made. */
    public final Datatype getType() throws MPIException {
        commit();
        return datatype;
    }

    /** A new accessor of this struct's subclass. */
    protected abstract Data newData();

    @SuppressWarnings("unchecked")
    final <T extends Data> T data(ByteBuffer buffer, int offset) {
        Data d = newData();
        d.buffer = buffer;
        d.offset = offset;
        return (T) d;
    }

    /** The accessor of item 0 of {@code buffer} (whose byte order the accessors use). */
    public final <T extends Data> T getData(ByteBuffer buffer) throws MPIException {
        commit();
        return data(buffer, 0);
    }

    /** The accessor of item {@code index} of {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer, int index) throws MPIException {
        commit();
        return data(buffer, index * extent);
    }

    /** The accessor of item 0 of {@code array}, in native byte order. */
    public final <T extends Data> T getData(byte[] array) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()));
    }

    /** The accessor of item {@code index} of {@code array}, in native byte order. */
    public final <T extends Data> T getData(byte[] array, int index) throws MPIException {
        return getData(ByteBuffer.wrap(array).order(ByteOrder.nativeOrder()), index);
    }

    private int add(Datatype type, int bytes, int length) {
        if (datatype != null) {
            throw new IllegalStateException("the struct's type is made: no field can be added");
        }
        int offset = extent;
        extent += bytes * length;
        fields.add(new int[] {offset, length});
        types.add(type);
        return offset;
    }

    /** Moves the next field to byte {@code offset}, at or after the fields so far. */
    public final Struct setOffset(int offset) {
        if (datatype != null) {
            throw new IllegalStateException("the struct's type is made: no field can be added");
        }
        if (offset < extent) {
            throw new IllegalArgumentException("the offset " + offset + " is before the end of the fields so far ("
                    + extent + ")");
        }
        extent = offset;
        return this;
    }

    public final int addByte() {
        return addByte(1);
    }

    public final int addByte(int length) {
        return add(MPI.BYTE, 1, length);
    }

    public final int addChar() {
        return addChar(1);
    }

    public final int addChar(int length) {
        return add(MPI.CHAR, 2, length);
    }

    public final int addShort() {
        return addShort(1);
    }

    public final int addShort(int length) {
        return add(MPI.SHORT, 2, length);
    }

    public final int addInt() {
        return addInt(1);
    }

    public final int addInt(int length) {
        return add(MPI.INT, 4, length);
    }

    public final int addLong() {
        return addLong(1);
    }

    public final int addLong(int length) {
        return add(MPI.LONG, 8, length);
    }

    public final int addFloat() {
        return addFloat(1);
    }

    public final int addFloat(int length) {
        return add(MPI.FLOAT, 4, length);
    }

    public final int addDouble() {
        return addDouble(1);
    }

    public final int addDouble(int length) {
        return add(MPI.DOUBLE, 8, length);
    }

    /** A field of {@code length} items of another struct. */
    public final int addStruct(Struct struct) throws MPIException {
        return addStruct(struct, 1);
    }

    public final int addStruct(Struct struct, int length) throws MPIException {
        return add(struct.getType(), struct.getExtent(), length);
    }

    /** A field of {@code length} items of {@code type}. */
    public final int addData(Datatype type) throws MPIException {
        return addData(type, 1);
    }

    public final int addData(Datatype type, int length) throws MPIException {
        return add(type, type.extent, length);
    }

    /** The fields of one item of a buffer; a subclass's getters and setters use these, by field offset. */
    public abstract class Data {
        private ByteBuffer buffer;
        private int offset;

        /** The buffer from this item on. */
        public final ByteBuffer getBuffer() {
            return offset == 0 ? buffer : MPI.slice(buffer, offset);
        }

        protected final byte getByte(int field) {
            return buffer.get(offset + field);
        }

        protected final byte getByte(int field, int index) {
            return buffer.get(offset + field + index);
        }

        protected final void putByte(int field, byte v) {
            buffer.put(offset + field, v);
        }

        protected final void putByte(int field, int index, byte v) {
            buffer.put(offset + field + index, v);
        }

        protected final char getChar(int field) {
            return buffer.getChar(offset + field);
        }

        protected final char getChar(int field, int index) {
            return buffer.getChar(offset + field + 2 * index);
        }

        protected final void putChar(int field, char v) {
            buffer.putChar(offset + field, v);
        }

        protected final void putChar(int field, int index, char v) {
            buffer.putChar(offset + field + 2 * index, v);
        }

        protected final short getShort(int field) {
            return buffer.getShort(offset + field);
        }

        protected final short getShort(int field, int index) {
            return buffer.getShort(offset + field + 2 * index);
        }

        protected final void putShort(int field, short v) {
            buffer.putShort(offset + field, v);
        }

        protected final void putShort(int field, int index, short v) {
            buffer.putShort(offset + field + 2 * index, v);
        }

        protected final int getInt(int field) {
            return buffer.getInt(offset + field);
        }

        protected final int getInt(int field, int index) {
            return buffer.getInt(offset + field + 4 * index);
        }

        protected final void putInt(int field, int v) {
            buffer.putInt(offset + field, v);
        }

        protected final void putInt(int field, int index, int v) {
            buffer.putInt(offset + field + 4 * index, v);
        }

        protected final long getLong(int field) {
            return buffer.getLong(offset + field);
        }

        protected final long getLong(int field, int index) {
            return buffer.getLong(offset + field + 8 * index);
        }

        protected final void putLong(int field, long v) {
            buffer.putLong(offset + field, v);
        }

        protected final void putLong(int field, int index, long v) {
            buffer.putLong(offset + field + 8 * index, v);
        }

        protected final float getFloat(int field) {
            return buffer.getFloat(offset + field);
        }

        protected final float getFloat(int field, int index) {
            return buffer.getFloat(offset + field + 4 * index);
        }

        protected final void putFloat(int field, float v) {
            buffer.putFloat(offset + field, v);
        }

        protected final void putFloat(int field, int index, float v) {
            buffer.putFloat(offset + field + 4 * index, v);
        }

        protected final double getDouble(int field) {
            return buffer.getDouble(offset + field);
        }

        protected final double getDouble(int field, int index) {
            return buffer.getDouble(offset + field + 8 * index);
        }

        protected final void putDouble(int field, double v) {
            buffer.putDouble(offset + field, v);
        }

        protected final void putDouble(int field, int index, double v) {
            buffer.putDouble(offset + field + 8 * index, v);
        }

        /** The accessor of a struct field of {@code struct} at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field) {
            return struct.data(buffer, offset + field);
        }

        /** The accessor of item {@code index} of a struct field of {@code struct} at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field, int index) {
            return struct.data(buffer, offset + field + index * struct.extent);
        }

        /** The buffer from field {@code field} on (its items of {@code type}). */
        protected final ByteBuffer getBuffer(Datatype type, int field) {
            return MPI.slice(buffer, offset + field);
        }

        /** The buffer from item {@code index} of field {@code field} (of {@code type}) on. */
        protected final ByteBuffer getBuffer(Datatype type, int field, int index) {
            return MPI.slice(buffer, offset + field + index * type.extent);
        }
    }
}
