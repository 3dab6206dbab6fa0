package io.tutti;

/**
 * Element types of message buffers. Java arrays carry their type; off-heap buffers are bytes.
 *
 * <p>The pair types ({@link #SHORT2}, {@link #INT2}, {@link #LONG2}, {@link #FLOAT2}, {@link #DOUBLE2})
 * are the operands of {@code MAXLOC} and {@code MINLOC}, as in Open MPI's Java bindings
 * ({@code MPI.INT2} …): one pair is two consecutive elements of the same primitive type, a value
 * followed by its index, so an {@code int[]} of length 2n holds n {@link #INT2} pairs.
 */
public enum Datatype {
    BYTE(1), SHORT(2), CHAR(2), INT(4), LONG(8), FLOAT(4), DOUBLE(8),
    /** (value, index) pair of two {@code short}s: 4 bytes. */
    SHORT2(SHORT),
    /** (value, index) pair of two {@code int}s: 8 bytes. */
    INT2(INT),
    /** (value, index) pair of two {@code long}s: 16 bytes. */
    LONG2(LONG),
    /** (value, index) pair of two {@code float}s: 8 bytes. */
    FLOAT2(FLOAT),
    /** (value, index) pair of two {@code double}s: 16 bytes. */
    DOUBLE2(DOUBLE);

    private final int size;
    private final Datatype base;

    Datatype(int size) {
        this.size = size;
        this.base = null; // an enum constant cannot pass itself to its own constructor; base() answers this
    }

    Datatype(Datatype base) {
        this.size = base.size;
        this.base = base;
    }

    /**
     * Size of one element in bytes. For a pair type this is the size of one of its two elements,
     * so that a buffer's length in elements of {@link #base()} is the same whichever view is used;
     * a pair occupies {@code 2 * size()} bytes.
     */
    public int size() {
        return size;
    }

    /** Bytes of one item a count counts: a pair for the pair types, else one element. */
    public int extent() {
        return isPair() ? 2 * size : size;
    }

    /** Whether this is a (value, index) pair type, the operand type of MAXLOC and MINLOC. */
    public boolean isPair() {
        return base != null;
    }

    /** The primitive element type: the type of each half of a pair type; this type itself otherwise. */
    public Datatype base() {
        return base != null ? base : this;
    }
}
