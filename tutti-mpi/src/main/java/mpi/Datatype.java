package mpi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The type of the items of a message buffer. The predefined types are the constants of {@link MPI}
 * ({@link MPI#INT}, {@link MPI#DOUBLE}, ...); derived types are made of them ({@link #createVector},
 * {@link #createStruct}, ...) and {@link #commit}ted before use. A derived type's elements are all
 * of its base type (the predefined type it was made of; {@link MPI#BYTE} for a struct), which sets
 * the buffers it goes with. A derived type with gaps is packed once into a buffer of this layer
 * on the way out, and unpacked from one on the way in.
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
    /** The C type the bindings map it to, which {@link #getName()} reports; a derived type's is set by the program. */
    private String name;
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
    /**
     * The array class whose elements are exactly this type's items ({@code double[]} for
     * {@link MPI#DOUBLE}), which goes to Tutti as it is ({@link Region#own}); null for the others.
     */
    final Class<?> ownArray;
    /** The predefined type whose elements make this one: itself for a predefined type. */
    final Datatype base;
    /**
     * One item's data as (byte displacement, byte length) pairs in type order, adjacent ones merged;
     * displacements from the item's start, which may be negative.
     */
    final long[] map;
    /** Bytes of the lower bound and of the true lower bound (first byte of data) from the item's start. */
    final long lb;
    private final long trueLb;
    /** Whether the data is one block from the lower bound to the extent: sent as the base type, not packed. */
    final boolean dense;
    private boolean committed;
    private boolean freed;
    /**
     * Whether this is a struct (its base {@link MPI#BYTE}) with fields of wider elements: bytes to
     * move, but no elements whose byte order external32 could turn.
     */
    boolean structOfWider;

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
        this.ownArray = switch (kind) {
            case BYTE, SHORT, INT, LONG, FLOAT, DOUBLE -> arrayType;
            default -> null;
        };
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
        this.base = this;
        // C's struct {short; int} has two bytes of padding inside its data: the int is at 4
        this.map = kind == SHORT_INT ? new long[] {0, 2, 4, 4} : new long[] {0, size};
        this.lb = 0;
        this.trueLb = 0;
        this.dense = true;
        this.committed = true;
    }

    /** A derived type of {@code base}'s elements with one item's {@code map}, lower bound and extent in bytes. */
    private Datatype(Datatype base, long[] map, long lb, long extent) throws MPIException {
        long size = 0;
        long first = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (int i = 0; i < map.length; i += 2) {
            size += map[i + 1];
            first = Math.min(first, map[i]);
            end = Math.max(end, map[i] + map[i + 1]);
        }
        if (map.length == 0) {
            first = 0;
            end = 0;
        }
        if (size > Integer.MAX_VALUE || extent > Integer.MAX_VALUE || end - first > Integer.MAX_VALUE) {
            throw Errors.error(MPI.ERR_TYPE, "the type is larger than 2^31 - 1 bytes");
        }
        this.kind = base.kind;
        this.label = "a derived type of " + base.label;
        this.name = "";
        this.size = (int) size;
        this.extent = (int) extent;
        this.trueExtent = (int) (end - first);
        this.unit = base.unit;
        this.parts = base.parts;
        this.firstPart = base.firstPart;
        this.arrayType = base.arrayType;
        this.otherArrayType = base.otherArrayType;
        this.ownArray = null;
        this.coll = base.coll;
        this.collPer = (int) (size / coll.extent());
        this.base = base;
        this.map = map;
        this.lb = lb;
        this.trueLb = first;
        this.dense = lb == 0 && extent == size && (map.length == 0 || (map.length == 2 && map[0] == 0));
    }

    /** A basic type: one element of {@code size} bytes per item. */
    static Datatype basic(int kind, String label, String name, int size, Class<?> arrayType) {
        return new Datatype(kind, label, name, size, size, size, size, 1, size, arrayType, null);
    }

    /** Bytes of one basic element of a predefined type: 8 for a double and for each half of a DOUBLE_COMPLEX. */
    final int elementBytes() {
        return firstPart;
    }

    /** Whether a Java array of {@code arrayClass} may hold items of this type. */
    final boolean fits(Class<?> arrayClass) {
        return arrayClass == arrayType || arrayClass == otherArrayType;
    }

    /** The lower bound, in units of the base element: 0 for every predefined type (MPI_TYPE_GET_EXTENT). */
    public int getLb() throws MPIException {
        MPI.check();
        return (int) (lb / unit);
    }

    /** The extent (the span of one item in a buffer), in units of the base element. */
    public int getExtent() throws MPIException {
        MPI.check();
        return extent / unit;
    }

    /** The true lower bound (the first byte of data), in units of the base element: 0 for every predefined type. */
    public int getTrueLb() throws MPIException {
        MPI.check();
        return (int) (trueLb / unit);
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

    /** Sets a derived type's name (MPI_TYPE_SET_NAME); a predefined type's cannot be changed. */
    public void setName(String name) throws MPIException {
        MPI.check();
        if (base == this) {
            throw Errors.error(MPI.ERR_TYPE, "Datatype.setName: " + label + " is predefined; its name stays");
        }
        this.name = name;
    }

    /** Whether this is {@link MPI#DATATYPE_NULL} or a freed type. */
    public boolean isNull() {
        return kind == NULL || freed;
    }

    /** Makes a derived type usable in communication (MPI_TYPE_COMMIT); does nothing for a predefined one. */
    public void commit() throws MPIException {
        checkLive("Datatype.commit");
        committed = true;
    }

    /**
     * Frees a derived type (MPI_TYPE_FREE): it is null afterwards; types made of it stay usable. The
     * predefined types cannot be freed: MPI refuses, and so does this, with {@link MPI#ERR_TYPE}.
     */
    @Override
    public void free() throws MPIException {
        checkLive("Datatype.free");
        if (base == this) {
            throw Errors.error(MPI.ERR_TYPE, "Datatype.free: " + label + " is a predefined type and cannot be freed");
        }
        freed = true;
    }

    /** A copy of the type (MPI_TYPE_DUP), committed if this one is. */
    public Datatype dup() throws MPIException {
        checkLive("Datatype.dup");
        if (base == this) {
            return this;
        }
        Datatype d = new Datatype(base, map, lb, extent);
        d.committed = committed;
        d.structOfWider = structOfWider;
        return d;
    }

    private void checkLive(String call) throws MPIException {
        MPI.check();
        if (isNull()) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the type is " + (freed ? "freed" : "MPI.DATATYPE_NULL"));
        }
    }

    /** Fails unless this type may carry data: not null, not freed, committed. */
    final void checkUsable(String call) throws MPIException {
        if (isNull()) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the datatype is " + (freed ? "freed" : "MPI.DATATYPE_NULL"));
        }
        if (!committed) {
            throw Errors.error(MPI.ERR_TYPE, call + ": the derived type is not committed: call commit() first");
        }
    }

    // ------------------------------------------------------------ type constructors

    /** {@code count} items of {@code oldType} one after the other (MPI_TYPE_CONTIGUOUS). */
    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        return createHVector(count, 1, 0, oldType, true, "Datatype.createContiguous");
    }

    /**
     * {@code count} blocks of {@code blockLength} items of {@code oldType}, the blocks {@code stride}
     * items apart (MPI_TYPE_VECTOR).
     */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        return createHVector(count, blockLength, (long) stride * oldType.extent, oldType, false,
                "Datatype.createVector");
    }

    /** As {@link #createVector}, the blocks {@code stride} bytes apart (MPI_TYPE_CREATE_HVECTOR). */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType)
            throws MPIException {
        return createHVector(count, blockLength, stride, oldType, false, "Datatype.createHVector");
    }

    private static Datatype createHVector(int count, int blockLength, long stride, Datatype old, boolean contiguous,
                                          String call) throws MPIException {
        old.checkLive(call);
        if (count < 0 || blockLength < 0) {
            throw Errors.error(MPI.ERR_COUNT, call + ": counts are 0 or more");
        }
        if (contiguous) {
            return build(old, new long[] {0}, new int[] {count}, null, call);
        }
        long[] displs = new long[count];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            displs[i] = i * stride;
            lengths[i] = blockLength;
        }
        return build(old, displs, lengths, null, call);
    }

    /** Blocks of {@code blockLengths[i]} items of {@code oldType} at item {@code displacements[i]} (MPI_TYPE_INDEXED). */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType)
            throws MPIException {
        return indexed(blockLengths, displacements, oldType.extent, oldType, "Datatype.createIndexed");
    }

    /** As {@link #createIndexed}, the displacements in bytes (MPI_TYPE_CREATE_HINDEXED). */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements, Datatype oldType)
            throws MPIException {
        return indexed(blockLengths, displacements, 1, oldType, "Datatype.createHIndexed");
    }

    private static Datatype indexed(int[] lengths, int[] displs, long unit, Datatype old, String call)
            throws MPIException {
        old.checkLive(call);
        checkBlocks(lengths, displs, call);
        long[] d = new long[displs.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = displs[i] * unit;
        }
        return build(old, d, lengths, null, call);
    }

    /**
     * Blocks of {@code blockLengths[i]} items of {@code types[i]} at byte {@code displacements[i]}
     * (MPI_TYPE_CREATE_STRUCT). Its base type is {@link MPI#BYTE}: it goes with byte arrays and byte
     * buffers, as in the bindings. The extent is rounded up to the largest element's alignment, as C does.
     */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types)
            throws MPIException {
        MPI.check();
        checkBlocks(blockLengths, displacements, "Datatype.createStruct");
        if (types == null || types.length != blockLengths.length) {
            throw Errors.error(MPI.ERR_TYPE, "Datatype.createStruct: a type per block is needed");
        }
        long[] d = new long[displacements.length];
        for (int i = 0; i < d.length; i++) {
            if (types[i] == null) {
                throw Errors.error(MPI.ERR_TYPE, "Datatype.createStruct: the type of block " + i + " is null");
            }
            types[i].checkLive("Datatype.createStruct");
            d[i] = displacements[i];
        }
        return build(null, d, blockLengths, types, "Datatype.createStruct");
    }

    /** {@code oldType} with lower bound {@code lb} and extent {@code extent}, in bytes (MPI_TYPE_CREATE_RESIZED). */
    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        oldType.checkLive("Datatype.createResized");
        if (extent < 0) {
            throw Errors.error(MPI.ERR_ARG, "Datatype.createResized: the extent " + extent + " is negative");
        }
        Datatype d = new Datatype(oldType.base, oldType.map, lb, extent);
        d.structOfWider = oldType.structOfWider;
        return d;
    }

    private static void checkBlocks(int[] lengths, int[] displs, String call) throws MPIException {
        if (lengths == null || displs == null || lengths.length != displs.length) {
            throw Errors.error(MPI.ERR_ARG, call + ": a block length and a displacement per block are needed");
        }
        for (int l : lengths) {
            if (l < 0) {
                throw Errors.error(MPI.ERR_COUNT, call + ": block length " + l + " is negative");
            }
        }
    }

    /**
     * The type of blocks of {@code lengths[i]} items of {@code types[i]} (or {@code old} for all) at
     * byte {@code displs[i]}: its map, and its bounds as MPI derives them (from each item's bounds).
     */
    private static Datatype build(Datatype old, long[] displs, int[] lengths, Datatype[] types, String call)
            throws MPIException {
        long[] map = new long[0];
        int n = 0;
        long lb = Long.MAX_VALUE;
        long ub = Long.MIN_VALUE;
        int align = 1;
        Datatype base = old == null ? MPI.BYTE : old.base;
        boolean wider = old != null && old.structOfWider;
        for (int b = 0; b < displs.length; b++) {
            Datatype t = types == null ? old : types[b];
            wider |= t.structOfWider || types != null && t.base.firstPart > 1;
            if (lengths[b] == 0) {
                continue;
            }
            align = Math.max(align, t.base.size / Math.max(1, t.base.parts));
            lb = Math.min(lb, displs[b] + t.lb);
            ub = Math.max(ub, displs[b] + (long) (lengths[b] - 1) * t.extent + t.lb + t.extent);
            for (int i = 0; i < lengths[b]; i++) {
                long at = displs[b] + (long) i * t.extent;
                for (int k = 0; k < t.map.length; k += 2) {
                    if (t.map[k + 1] == 0) {
                        continue;
                    }
                    if (n > 0 && map[n - 2] + map[n - 1] == at + t.map[k]) {
                        map[n - 1] += t.map[k + 1];     // adjacent: one block
                    } else {
                        if (n == map.length) {
                            map = Arrays.copyOf(map, Math.max(8, 2 * n));
                        }
                        map[n] = at + t.map[k];
                        map[n + 1] = t.map[k + 1];
                        n += 2;
                    }
                }
            }
        }
        if (lb == Long.MAX_VALUE) {
            lb = 0;
            ub = 0;
        }
        long extent = ub - lb;
        if (types != null && extent % align != 0) {
            extent += align - extent % align;
        }
        Datatype d = new Datatype(base, Arrays.copyOf(map, n), lb, extent);
        d.structOfWider = wider;
        return d;
    }

    // ------------------------------------------------------------ packing

    /**
     * Copies the data of {@code count} items, the first one's start at byte {@code at} of
     * {@code from}, packed into {@code to} from byte {@code toAt}; returns the bytes written.
     */
    final long pack(MemorySegment from, long at, int count, MemorySegment to, long toAt) {
        long out = toAt;
        for (int i = 0; i < count; i++) {
            long item = at + (long) i * extent;
            for (int k = 0; k < map.length; k += 2) {
                MemorySegment.copy(from, item + map[k], to, out, map[k + 1]);
                out += map[k + 1];
            }
        }
        return out - toAt;
    }

    /** The reverse of {@link #pack}: {@code bytes} packed bytes of {@code from} (whole items first) into the items of {@code to}. */
    final void unpack(MemorySegment from, long fromAt, long bytes, MemorySegment to, long at) {
        long in = fromAt;
        long end = fromAt + bytes;
        for (int i = 0; in < end; i++) {
            long item = at + (long) i * extent;
            for (int k = 0; k < map.length && in < end; k += 2) {
                long n = Math.min(map[k + 1], end - in);
                MemorySegment.copy(from, in, to, item + map[k], n);
                in += n;
            }
        }
    }

    /** Bytes from the start of item 0 to the first and past the last byte of data of {@code count} items. */
    final long firstByte(int count) {
        return count == 0 ? 0 : trueLb;
    }

    final long endByte(int count) {
        return count == 0 ? 0 : (long) (count - 1) * extent + trueLb + trueExtent;
    }

    /** Bytes that {@code count} items are in a message: packed for a derived type, padding included for a predefined one. */
    final long packedBytes(int count) {
        return base == this ? (long) count * extent : (long) count * size;
    }

    /** Bytes of {@code count} items in a buffer. */
    final long bytes(int count) {
        return (long) count * extent;
    }

    /** Whole items in {@code bytes}, or {@link MPI#UNDEFINED} if they are not whole (MPI_GET_COUNT). */
    final int count(long bytes) {
        int per = base == this ? extent : size;   // a derived type's items travel packed
        if (per == 0) {
            return 0;
        }
        return bytes % per == 0 ? (int) (bytes / per) : MPI.UNDEFINED;
    }

    /** Basic elements in {@code bytes} (MPI_GET_ELEMENTS), or {@link MPI#UNDEFINED} if they are not whole. */
    final int elements(long bytes) {
        if (base != this) {
            return base.elements(bytes);
        }
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
