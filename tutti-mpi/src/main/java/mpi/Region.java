package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.nio.Buffer;

/**
 * Where the data of one buffer argument lies, in the terms of Tutti's calls: a primitive array with
 * an offset and a count in its elements, or a segment with an offset and a count in bytes (then
 * {@link #slice} is exactly those bytes). Resolves the bindings' buffers: arrays from element 0,
 * heap buffers from their array offset, direct buffers from their first element, the position
 * ignored in both; a {@code boolean[]} goes through a byte array of this region's own, which Tutti
 * can send. Reused from call to call, so that resolving allocates nothing for the arrays Tutti takes.
 */
final class Region {
    private static final byte[] EMPTY = new byte[0];

    /** A primitive array Tutti takes (byte short int long float double) or a segment. */
    Object data;
    /** In elements of the array, or in bytes of the segment. */
    int offset;
    /** In elements of the array, or in bytes of the segment. */
    int count;
    /** For a segment: the region's bytes alone. */
    MemorySegment slice;

    /** For a boolean[] buffer: the program's array and offset; {@link #data} is then {@link #bytes}. */
    private boolean[] booleans;
    private int booleanOffset;
    private byte[] bytes = EMPTY;
    private final DirectBuffers direct = new DirectBuffers();
    /** For a derived type with gaps: the packed data ({@link #data} is then its array), and where it unpacks to. */
    private byte[] packed = EMPTY;
    private MemorySegment packedSegment = MemorySegment.ofArray(packed);
    private Datatype unpackType;
    private MemorySegment unpackTo;
    private long unpackAt;
    /**
     * For a derived type with gaps on a call whose operation outlives it: the packed copy, which the
     * call hands to its request, else null. A field, not a method: the JIT does not inline a method
     * whose signature names a class not loaded yet, and this one loads with the first such type.
     */
    Staging staging;

    /**
     * Resolves {@code buf}, of {@code count} items of {@code type} ({@code count} checked not
     * negative). For a send, a {@code boolean[]} is copied here; for a receive, call
     * {@link #received} afterwards.
     */
    void resolve(Object buf, int count, Datatype type, boolean receive, String call) throws MPIException {
        if (own(buf, count, type)) {
            return;
        }
        booleans = null;
        slice = null;
        unpackType = null;
        staging = null;
        if (type.base != type) {
            derived(buf, count, type, receive, call);
            return;
        }
        long total = type.bytes(count);
        if (total > Integer.MAX_VALUE) {
            throw Errors.error(MPI.ERR_COUNT, call + ": " + count + " items of " + type + " are " + total
                    + " bytes, more than one call moves (2^31 - 1)");
        }
        int n = (int) total;
        // a direct buffer (every nonblocking call's) before the rest, without a switch on the class:
        // this method is small enough for the JIT to inline (docs/perf/mpi-api.md, "Paired runs")
        if (buf instanceof Buffer b && b.isDirect()) {
            if (receive && b.isReadOnly()) {
                throw Errors.error(MPI.ERR_BUFFER, call + ": the receive buffer is read-only");
            }
            slice = direct.slice(b, n, call);
            set(direct.whole, 0, n);
            return;
        }
        other(buf, count, n, type, receive, call);
    }

    /** {@link #resolve} for a derived type: its base type when the data is one block, else packed. */
    private void derived(Object buf, int count, Datatype type, boolean receive, String call) throws MPIException {
        if (type.dense && type.base.size == type.base.extent) {
            // one block of base elements: the base type, nothing packed
            long n = (long) count * (type.size / Math.max(1, type.base.size));
            if (n > Integer.MAX_VALUE) {
                throw Errors.error(MPI.ERR_COUNT, call + ": " + count + " items of the type are more than one"
                        + " call moves");
            }
            resolve(buf, (int) n, type.base, receive, call);
        } else {
            packed(buf, count, type, receive, call);
        }
    }

    /** {@link #resolve} for what is not a direct buffer: null, a heap buffer or an array, of {@code n} bytes. */
    private void other(Object buf, int count, int n, Datatype type, boolean receive, String call)
            throws MPIException {
        switch (buf) {
            case null -> {
                // the bindings allow a null buffer for an empty message
                if (n != 0) {
                    throw Errors.error(MPI.ERR_BUFFER, call + ": the buffer is null but the count is " + count);
                }
                set(EMPTY, 0, 0);
            }
            case Buffer b -> {
                if (!b.hasArray()) {
                    throw Errors.error(MPI.ERR_BUFFER, call + ": a read-only heap buffer's array cannot be reached;"
                            + " use the array, a writable buffer or a direct one");
                }
                array(b.array(), b.arrayOffset(), n, type, receive, call);
            }
            default -> array(buf, 0, n, type, receive, call);
        }
    }

    /**
     * Resolves the commonest buffer, an array of {@code type}'s own elements ({@link Datatype#ownArray})
     * from element 0 that holds {@code count} of them, without the rest of {@link #resolve} and
     * {@link #forCollective}: a check small enough for the JIT to inline in every call
     * (docs/perf/mpi-api.md, "Paired runs"); whether it was one.
     */
    boolean own(Object buf, int count, Datatype type) {
        if (buf == null || buf.getClass() != type.ownArray || count > Array.getLength(buf)) {
            return false;
        }
        booleans = null;
        slice = null;
        unpackType = null;
        staging = null;
        set(buf, 0, count);
        return true;
    }

    /**
     * A derived type with gaps: its data packed into this region's own array (for a send now; for a
     * receive by {@link #received}). For a call whose operation outlives it (a nonblocking or
     * persistent one, named i... or ...Init; bSend's copy is aside), the packed copy is a
     * {@link Staging} of the request's instead, with {@link #slice} its bytes: take it with
     * {@link #staging}. A persistent send's copy is packed by each start, not here.
     */
    private void packed(Object buf, int count, Datatype type, boolean receive, String call) throws MPIException {
        boolean outlives = (call.startsWith("i") && !call.equals("ibSend")) || call.endsWith("Init");
        long total = (long) count * type.size;
        if (total > Integer.MAX_VALUE) {
            throw Errors.error(MPI.ERR_COUNT, call + ": " + count + " items of the type are " + total
                    + " bytes, more than one call moves (2^31 - 1)");
        }
        MemorySegment user;
        long at;
        switch (buf) {
            case null -> {
                if (total != 0) {
                    throw Errors.error(MPI.ERR_BUFFER, call + ": the buffer is null but the count is " + count);
                }
                set(EMPTY, 0, 0);
                return;
            }
            case Buffer b when b.isDirect() -> {
                direct.slice(b, 0, call);
                user = direct.whole;
                at = 0;
            }
            case Buffer b -> {
                if (!b.hasArray()) {
                    throw Errors.error(MPI.ERR_BUFFER, call + ": a read-only heap buffer's array cannot be reached;"
                            + " use the array, a writable buffer or a direct one");
                }
                user = segmentOf(b.array(), type, call);
                at = (long) b.arrayOffset() * elementSize(b.array());
            }
            default -> {
                user = segmentOf(buf, type, call);
                at = 0;
            }
        }
        if (at + type.firstByte(count) < 0 || at + type.endByte(count) > user.byteSize()) {
            throw Errors.error(MPI.ERR_BUFFER, call + ": " + count + " items of " + type + " span bytes "
                    + (at + type.firstByte(count)) + " to " + (at + type.endByte(count)) + ", beyond the buffer's "
                    + user.byteSize());
        }
        int n = (int) total;
        if (outlives) {
            staging = new Staging(n, type, count, user, at, receive);
            if (!call.endsWith("Init")) {
                staging.start();   // a persistent request's starts do it
            }
            slice = staging.packed;
            set(slice, 0, n);
            return;
        }
        if (packed.length < n) {
            packed = new byte[Math.max(n, 2 * packed.length)];
            packedSegment = MemorySegment.ofArray(packed);
        }
        if (!receive) {
            type.pack(user, at, count, packedSegment, 0);
        }
        unpackType = type;
        unpackTo = user;
        unpackAt = at;
        set(packed, 0, n);
    }

    private static int elementSize(Object array) {
        return switch (array) {
            case short[] _, char[] _ -> 2;
            case int[] _, float[] _ -> 4;
            case long[] _, double[] _ -> 8;
            default -> 1;
        };
    }

    /** A segment over a primitive array that may hold {@code type}'s elements. */
    private static MemorySegment segmentOf(Object a, Datatype type, String call) throws MPIException {
        return switch (a) {
            case byte[] x -> MemorySegment.ofArray(x);
            case int[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case double[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case long[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case float[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case short[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case char[] x -> MemorySegment.ofArray(typedArray(x, type, call));
            case boolean[] x -> throw Errors.error(MPI.ERR_TYPE, call + ": a derived type over a boolean[] is not"
                    + " supported (booleans are not bytes in Java's memory); use a byte[] of 0s and 1s");
            default -> throw Errors.error(MPI.ERR_BUFFER, call + ": a buffer is a primitive array or a java.nio"
                    + " buffer, not a " + a.getClass().getName());
        };
    }

    private static <A> A typedArray(A array, Datatype type, String call) throws MPIException {
        typed(type, array.getClass(), call);
        return array;
    }

    private void array(Object a, int off, int n, Datatype type, boolean receive, String call) throws MPIException {
        switch (a) {
            case byte[] x -> elements(x.length, off, n, 1, type, call, x);   // raw memory: any type
            case int[] x -> elements(x.length, off, n, 4, typed(type, int[].class, call), call, x);
            case double[] x -> elements(x.length, off, n, 8, typed(type, double[].class, call), call, x);
            case long[] x -> elements(x.length, off, n, 8, typed(type, long[].class, call), call, x);
            case float[] x -> elements(x.length, off, n, 4, typed(type, float[].class, call), call, x);
            case short[] x -> elements(x.length, off, n, 2, typed(type, short[].class, call), call, x);
            case char[] x -> {
                // Tutti has no char[] point-to-point calls: a segment over the array (two small objects)
                check(x.length, off, n, 2, typed(type, char[].class, call), call);
                MemorySegment all = MemorySegment.ofArray(x);
                slice = all.asSlice(2L * off, n);
                set(all, 2 * off, n);
            }
            case boolean[] x -> {
                check(x.length, off, n, 1, typed(type, boolean[].class, call), call);
                if (bytes.length < n) {
                    bytes = new byte[Math.max(n, 2 * bytes.length)];
                }
                if (!receive) {
                    for (int i = 0; i < n; i++) {
                        bytes[i] = x[off + i] ? (byte) 1 : (byte) 0;
                    }
                }
                booleans = x;
                booleanOffset = off;
                set(bytes, 0, n);
            }
            default -> throw Errors.error(MPI.ERR_BUFFER, call + ": a buffer is a primitive array or a java.nio"
                    + " buffer, not a " + a.getClass().getName());
        }
    }

    private static Datatype typed(Datatype type, Class<?> arrayClass, String call) throws MPIException {
        if (!type.fits(arrayClass)) {
            throw Errors.error(MPI.ERR_TYPE, call + ": a " + arrayClass.getSimpleName() + " cannot hold items of "
                    + type + ": use a " + type.arrayType.getSimpleName() + " (or a byte[] or direct buffer)");
        }
        return type;
    }

    private void elements(int length, int off, int n, int size, Datatype type, String call, Object array)
            throws MPIException {
        check(length, off, n, size, type, call);
        set(array, off, n / size);
    }

    private static void check(int length, int off, int n, int size, Datatype type, String call) throws MPIException {
        if ((long) off + n / size > length) {
            throw Errors.error(MPI.ERR_BUFFER, call + ": " + n / type.extent + " items of " + type + " from element "
                    + off + " run past the end of the array of " + length);
        }
    }

    private void set(Object data, int offset, int count) {
        this.data = data;
        this.offset = offset;
        this.count = count;
    }

    /**
     * The resolved buffer as Tutti's collectives take it when they count in elements of {@code as}:
     * the array itself when it starts at element 0 and is of {@code as}'s element type, else a
     * segment from the region's first byte (a view over the array, made for this call).
     */
    Object forCollective(io.tutti.Datatype as) {
        if (data instanceof MemorySegment s) {
            return offset == 0 ? s : s.asSlice(offset);
        }
        if (offset == 0 && matches(data, as.base())) {
            return data;
        }
        int size = switch (data) {
            case byte[] _ -> 1;
            case short[] _ -> 2;
            case int[] _, float[] _ -> 4;
            default -> 8;
        };
        MemorySegment all = switch (data) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalStateException("unexpected region " + data.getClass());
        };
        return all.asSlice((long) offset * size);
    }

    private static boolean matches(Object array, io.tutti.Datatype base) {
        return switch (base) {
            case BYTE -> array instanceof byte[];
            case SHORT -> array instanceof short[];
            case INT -> array instanceof int[];
            case LONG -> array instanceof long[];
            case FLOAT -> array instanceof float[];
            case DOUBLE -> array instanceof double[];
            default -> false;
        };
    }

    /** Whether the data goes through a staging buffer of this region's ({@link #received} hands it over). */
    boolean staged() {
        return booleans != null || unpackType != null;
    }

    /** After a collective has written this region: hands a boolean[]'s bytes over to it. */
    void receivedAll() {
        received(count);
    }

    /** After a receive of {@code n} bytes into this region: hands a boolean[]'s bytes over to it. */
    void received(long n) {
        if (unpackType != null) {
            unpackType.unpack(packedSegment, 0, n, unpackTo, unpackAt);
        }
        if (booleans != null) {
            for (int i = 0; i < n; i++) {
                booleans[booleanOffset + i] = bytes[i] != 0;
            }
        }
    }

    /** Copies {@code n} bytes from {@code from} into this region (the receive half of a send-receive-replace). */
    void copyIn(MemorySegment from, long n) {
        if (unpackType != null) {
            unpackType.unpack(from, 0, n, unpackTo, unpackAt);
            return;
        }
        if (booleans != null) {
            for (int i = 0; i < n; i++) {
                booleans[booleanOffset + i] = from.get(ValueLayout.JAVA_BYTE, i) != 0;
            }
            return;
        }
        int k = (int) n;
        switch (data) {
            case MemorySegment s -> MemorySegment.copy(from, 0, s, offset, n);
            case byte[] a -> MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 0, a, offset, k);
            case int[] a -> MemorySegment.copy(from, ValueLayout.JAVA_INT_UNALIGNED, 0, a, offset, k / 4);
            case double[] a -> MemorySegment.copy(from, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, a, offset, k / 8);
            case long[] a -> MemorySegment.copy(from, ValueLayout.JAVA_LONG_UNALIGNED, 0, a, offset, k / 8);
            case float[] a -> MemorySegment.copy(from, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, a, offset, k / 4);
            case short[] a -> MemorySegment.copy(from, ValueLayout.JAVA_SHORT_UNALIGNED, 0, a, offset, k / 2);
            default -> throw new IllegalStateException("unexpected region " + data.getClass());
        }
    }

    /** Copies this region's bytes into {@code to} at {@code at} (a buffered send's copy). */
    void copyOut(MemorySegment to, long at) {
        switch (data) {
            case MemorySegment s -> MemorySegment.copy(s, offset, to, at, count);
            case byte[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_BYTE, at, count);
            case int[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_INT_UNALIGNED, at, count);
            case double[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, count);
            case long[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_LONG_UNALIGNED, at, count);
            case float[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_FLOAT_UNALIGNED, at, count);
            case short[] a -> MemorySegment.copy(a, offset, to, ValueLayout.JAVA_SHORT_UNALIGNED, at, count);
            default -> throw new IllegalStateException("unexpected region " + data.getClass());
        }
    }

    /** The region's bytes as a segment (a view made for this call). */
    MemorySegment segment() {
        long n = byteCount();
        return switch (data) {
            case MemorySegment s -> s.asSlice(offset, n);
            case byte[] a -> MemorySegment.ofArray(a).asSlice(offset, n);
            case short[] a -> MemorySegment.ofArray(a).asSlice(2L * offset, n);
            case int[] a -> MemorySegment.ofArray(a).asSlice(4L * offset, n);
            case float[] a -> MemorySegment.ofArray(a).asSlice(4L * offset, n);
            case long[] a -> MemorySegment.ofArray(a).asSlice(8L * offset, n);
            case double[] a -> MemorySegment.ofArray(a).asSlice(8L * offset, n);
            default -> throw new IllegalStateException("unexpected region " + data.getClass());
        };
    }

    /** The region's length in bytes. */
    long byteCount() {
        return switch (data) {
            case MemorySegment _ -> count;
            case byte[] _ -> count;
            case short[] _ -> 2L * count;
            case int[] _, float[] _ -> 4L * count;
            default -> 8L * count;
        };
    }
}
