package mpi;

/**
 * The type of the items of a message buffer. The predefined types are the constants of {@link MPI}
 * ({@link MPI#INT}, {@link MPI#DOUBLE}, ...); derived types ({@code createVector}, ...) are not there
 * yet (see {@code docs/guide/mpi-api.md}).
 *
 * <p>A Java array buffer must be of the type's own element type: {@code int[]} for {@link MPI#INT},
 * {@code boolean[]} for {@link MPI#BOOLEAN}, {@code float[]} for {@link MPI#FLOAT_COMPLEX} (two per
 * item), and {@code byte[]} (or a {@code ByteBuffer}) for {@link MPI#BYTE}, {@link MPI#PACKED} and the
 * (value, index) types {@link MPI#INT2}, {@link MPI#SHORT_INT}, {@link MPI#LONG_INT},
 * {@link MPI#FLOAT_INT} and {@link MPI#DOUBLE_INT}, which are laid out as C lays out their structs,
 * padding included; {@link MPI#INT2} also takes an {@code int[]} (two per item). Another array type
 * is refused with {@link MPI#ERR_TYPE}. A direct buffer is raw memory and goes with any type.
 *
 * <p>Sizes and extents are counted, as in the bindings, in units of the type's base element: 1 for
 * {@link MPI#INT} ({@code getSize()}), 2 for {@link MPI#DOUBLE_COMPLEX}, and bytes for the types kept
 * in byte buffers ({@link MPI#INT2} is 8).
 */
public final class Datatype implements Freeable {
    // the bindings' numbering of the predefined types (their baseType)
    static final int NULL = 0;
    static final int BYTE = 1;
    static final int CHAR = 2;
    static final int SHORT = 3;
    static final int BOOLEAN = 4;
    static final int INT = 5;
    static final int LONG = 6;
    static final int FLOAT = 7;
    static final int DOUBLE = 8;
    static final int PACKED = 9;
    static final int INT2 = 10;
    static final int SHORT_INT = 11;
    static final int LONG_INT = 12;
    static final int FLOAT_INT = 13;
    static final int DOUBLE_INT = 14;
    static final int FLOAT_COMPLEX = 15;
    static final int DOUBLE_COMPLEX = 16;

    final int kind;
    /** The C type the bindings map it to, which {@link #getName()} reports. */
    private final String name;
    /** How a program names it ({@code MPI.INT}), for messages. */
    private final String label;
    /** Bytes of data in one item. */
    final int size;
    /** Bytes from one item to the next in a buffer (with padding): what a count of items spans. */
    final int extent;
    /** Bytes from the first byte of data to the last of one item. */
    private final int trueExtent;
    /** Bytes of the unit that getSize and getExtent count in. */
    private final int unit;
    /** Basic elements in one item (2 for a pair or a complex number), and the bytes of the first. */
    private final int parts;
    private final int firstPart;
    /** The type Tutti's collectives move and reduce this one as, and how many of those make one item. */
    final io.tutti.Datatype coll;
    final int collPer;
    /** The array types a Java array buffer of this type may have. */
    final Class<?> arrayType;
    final Class<?> otherArrayType;

    Datatype(int kind, String label, String name, int size, int extent, int trueExtent, int unit, int parts, int firstPart,
             Class<?> arrayType, Class<?> otherArrayType) {
        this.kind = kind;
        this.label = label;
        this.name = name;
        this.size = size;
        this.extent = extent;
        this.trueExtent = trueExtent;
        this.unit = unit;
        this.parts = parts;
        this.firstPart = firstPart;
        this.arrayType = arrayType;
        this.otherArrayType = otherArrayType;
        this.coll = switch (kind) {
            case CHAR -> io.tutti.Datatype.CHAR;
            case SHORT -> io.tutti.Datatype.SHORT;
            case INT -> io.tutti.Datatype.INT;
            case LONG -> io.tutti.Datatype.LONG;
            case FLOAT, FLOAT_COMPLEX -> io.tutti.Datatype.FLOAT;
            case DOUBLE, DOUBLE_COMPLEX -> io.tutti.Datatype.DOUBLE;
            case INT2 -> io.tutti.Datatype.INT2;
            default -> io.tutti.Datatype.BYTE;    // bytes, booleans and the (value, index) structs
        };
        this.collPer = extent == 0 ? 1 : extent / coll.extent();
    }

    /** A basic type: one element of {@code size} bytes per item. */
    static Datatype basic(int kind, String label, String name, int size, Class<?> arrayType) {
        return new Datatype(kind, label, name, size, size, size, size, 1, size, arrayType, null);
    }

    /** Whether a Java array of {@code arrayClass} may hold items of this type. */
    final boolean fits(Class<?> arrayClass) {
        return arrayClass == arrayType || arrayClass == otherArrayType;
    }

    /** The lower bound, in units of the base element: 0 for every predefined type. */
    public int getLb() throws MPIException {
        MPI.check();
        return 0;
    }

    /** The extent (the span of one item in a buffer), in units of the base element. */
    public int getExtent() throws MPIException {
        MPI.check();
        return extent / unit;
    }

    /** The true lower bound, in units of the base element: 0 for every predefined type. */
    public int getTrueLb() throws MPIException {
        MPI.check();
        return 0;
    }

    /** The true extent (first to last byte of data of one item), in units of the base element. */
    public int getTrueExtent() throws MPIException {
        MPI.check();
        return trueExtent / unit;
    }

    /** The size of the data of one item, in units of the base element (MPI_TYPE_SIZE). */
    public int getSize() throws MPIException {
        MPI.check();
        return size / unit;
    }

    /** The type's name, as the bindings report it: the C type it stands for ({@code MPI_INT32_T}, ...). */
    public String getName() throws MPIException {
        MPI.check();
        return name;
    }

    /** Whether this is {@link MPI#DATATYPE_NULL}. */
    public boolean isNull() {
        return kind == NULL;
    }

    /**
     * Frees a derived type. The predefined types cannot be freed (MPI_TYPE_FREE refuses them too), and
     * there are no derived types yet, so this always fails with {@link MPI#ERR_TYPE}.
     */
    @Override
    public void free() throws MPIException {
        MPI.check();
        throw Errors.error(MPI.ERR_TYPE, "Datatype.free: " + label + " is a predefined type and cannot be freed");
    }

    /** Bytes of {@code count} items in a buffer. */
    final long bytes(int count) {
        return (long) count * extent;
    }

    /** Whole items in {@code bytes}, or {@link MPI#UNDEFINED} if they are not whole (MPI_GET_COUNT). */
    final int count(long bytes) {
        if (extent == 0) {
            return 0;
        }
        return bytes % extent == 0 ? (int) (bytes / extent) : MPI.UNDEFINED;
    }

    /** Basic elements in {@code bytes} (MPI_GET_ELEMENTS), or {@link MPI#UNDEFINED} if they are not whole. */
    final int elements(long bytes) {
        if (extent == 0) {
            return 0;
        }
        long whole = bytes / extent;
        long rest = bytes % extent;
        if (rest == 0) {
            return (int) (whole * parts);
        }
        if (parts > 1 && rest >= firstPart && rest < size) {
            // a pair or complex number cut after its first part
            return (int) (whole * parts + 1);
        }
        return MPI.UNDEFINED;
    }

    @Override
    public String toString() {
        return label;
    }
}
